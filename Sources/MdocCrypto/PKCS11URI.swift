import Foundation

/// A PKCS#11 URI (RFC 7512) naming a private key in a token, e.g.
/// `pkcs11:token=proofs;object=processor;type=private?module-path=/usr/lib/softhsm/libsofthsm2.so&pin-source=/run/pin`.
///
/// Path attributes select the token and the key: `token`, `manufacturer`, `serial`, `model`,
/// `object`, `id`, `type` (only `private`). Query attributes: `pin-value` or `pin-source` (a file
/// whose first line is the PIN), `module-path` (the PKCS#11 module; default: the engine's,
/// p11-kit's proxy on Debian). `pin-value` and `pin-source` are also taken in the path, where
/// older tools put them. Attributes the OpenSSL pkcs11 engine cannot honour (`slot-*`,
/// `library-*`, `module-name`) and unknown ones are refused rather than silently ignored.
package struct PKCS11URI: Sendable {
    /// The longest URI accepted.
    package static let maximumByteCount = 4096
    /// The longest PIN read from a `pin-source` file.
    package static let maximumPINByteCount = 256

    /// Decoded path attributes that select the token.
    package private(set) var token: String?
    package private(set) var manufacturer: String?
    package private(set) var serial: String?
    package private(set) var model: String?
    /// Decoded path attributes that select the key.
    package private(set) var object: String?
    package private(set) var id: [UInt8]?
    package private(set) var pinValue: String?
    package private(set) var pinSource: String?
    package private(set) var modulePath: String?
    /// The token and key attributes as written (still percent-encoded), in order.
    private var selectors: [(name: String, value: String)] = []

    private static let tokenAttributes: Set<String> = ["token", "manufacturer", "serial", "model"]
    private static let keyAttributes: Set<String> = ["object", "id", "type"]

    /// - Throws: `.invalidPKCS11URI` naming what is wrong.
    package init(_ text: String) throws {
        guard text.utf8.count <= Self.maximumByteCount else {
            throw CryptoError(.invalidPKCS11URI, "PKCS#11 URI longer than \(Self.maximumByteCount) bytes")
        }
        guard text.lowercased().hasPrefix("pkcs11:") else {
            throw CryptoError(.invalidPKCS11URI, "a PKCS#11 URI starts with \"pkcs11:\"")
        }
        let rest = text.dropFirst("pkcs11:".count)
        let path: Substring
        let query: Substring?
        if let mark = rest.firstIndex(of: "?") {
            path = rest[..<mark]
            query = rest[rest.index(after: mark)...]
        } else {
            path = rest
            query = nil
        }
        var seen: Set<String> = []
        for (name, value) in try Self.attributes(path, separator: ";") {
            guard seen.insert(name).inserted else {
                throw CryptoError(.invalidPKCS11URI, "attribute \(name) given twice")
            }
            if Self.tokenAttributes.contains(name) || Self.keyAttributes.contains(name) {
                try select(name: name, value: value)
            } else if name == "pin-value" || name == "pin-source" {
                try setQuery(name: name, value: value)
            } else {
                throw CryptoError(.invalidPKCS11URI, "path attribute \(name) is not supported")
            }
        }
        for (name, value) in try query.map({ try Self.attributes($0, separator: "&") }) ?? [] {
            guard seen.insert(name).inserted else {
                throw CryptoError(.invalidPKCS11URI, "attribute \(name) given twice")
            }
            try setQuery(name: name, value: value)
        }
        if pinValue != nil && pinSource != nil {
            throw CryptoError(.invalidPKCS11URI, "give pin-value or pin-source, not both")
        }
    }

    private mutating func select(name: String, value: String) throws {
        selectors.append((name, value))
        if name == "id" {
            id = try Self.decodedBytes(value, attribute: name)
            return
        }
        let decoded = try Self.decoded(value, attribute: name)
        switch name {
        case "token": token = decoded
        case "manufacturer": manufacturer = decoded
        case "serial": serial = decoded
        case "model": model = decoded
        case "object": object = decoded
        case "type":
            guard decoded == "private" else {
                throw CryptoError(.invalidPKCS11URI, "type=\(decoded): only private keys are loaded")
            }
        default: break
        }
    }

    private mutating func setQuery(name: String, value: String) throws {
        let decoded = try Self.decoded(value, attribute: name)
        switch name {
        case "pin-value": pinValue = decoded
        case "pin-source": pinSource = decoded
        case "module-path":
            guard decoded.hasPrefix("/") else {
                throw CryptoError(.invalidPKCS11URI, "module-path must be an absolute path, got \(decoded)")
            }
            modulePath = decoded
        default:
            throw CryptoError(.invalidPKCS11URI, "query attribute \(name) is not supported")
        }
    }

    /// `name=value` pairs separated by `separator`; empty segments are skipped.
    private static func attributes(_ text: Substring, separator: Character) throws -> [(String, String)] {
        try text.split(separator: separator, omittingEmptySubsequences: true).map { pair in
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw CryptoError(.invalidPKCS11URI, "\"\(pair)\" is not an attribute=value pair")
            }
            return (pair[..<equals].lowercased(), String(pair[pair.index(after: equals)...]))
        }
    }

    private static func decoded(_ value: String, attribute: String) throws -> String {
        guard let text = String(bytes: try decodedBytes(value, attribute: attribute), encoding: .utf8) else {
            throw CryptoError(.invalidPKCS11URI, "\(attribute) is not UTF-8 text")
        }
        return text
    }

    /// The bytes of a percent-encoded value (RFC 3986 §2.1).
    private static func decodedBytes(_ value: String, attribute: String) throws -> [UInt8] {
        var out: [UInt8] = []
        var bytes = value.utf8.makeIterator()
        while let byte = bytes.next() {
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard let high = bytes.next().flatMap(hexDigit), let low = bytes.next().flatMap(hexDigit) else {
                throw CryptoError(.invalidPKCS11URI, "\(attribute) has a broken %-escape")
            }
            out.append(high << 4 | low)
        }
        return out
    }

    private static func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The URI the engine is given for the key: the token and key attributes only (the PIN goes
    /// to the engine separately, the module when the engine is made), always with `type=private`.
    var engineKeyURI: String {
        var parts = selectors.filter { $0.name != "type" }.map { "\($0.name)=\($0.value)" }
        parts.append("type=private")
        return "pkcs11:" + parts.joined(separator: ";")
    }

    /// The URI of the token's first private key, to tell a missing token from a missing key.
    var engineTokenURI: String {
        var parts = selectors.filter { Self.tokenAttributes.contains($0.name) }.map { "\($0.name)=\($0.value)" }
        parts.append("type=private")
        return "pkcs11:" + parts.joined(separator: ";")
    }

    /// What selects the token, for messages ("token=proofs").
    var tokenDescription: String {
        let parts = selectors.filter { Self.tokenAttributes.contains($0.name) }.map { "\($0.name)=\($0.value)" }
        return parts.isEmpty ? "any token" : parts.joined(separator: ";")
    }

    /// What selects the key, for messages.
    var keyDescription: String {
        let parts = selectors.filter { $0.name == "object" || $0.name == "id" }.map { "\($0.name)=\($0.value)" }
        return parts.isEmpty ? "the first private key" : parts.joined(separator: ";")
    }

    /// The PIN: `pin-value`, else the first line of the `pin-source` file (a path or a `file:`
    /// URI), else the environment's `MDOCVERIFY_PKCS11_PIN`; nil when none is given.
    /// - Throws: `.invalidPKCS11URI` when the `pin-source` cannot be read or is too long.
    package func pin(environment: [String: String]) throws -> String? {
        if let pinValue { return pinValue }
        if let pinSource {
            let path = pinSource.hasPrefix("file:") ? String(pinSource.dropFirst("file:".count)) : pinSource
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw CryptoError(.invalidPKCS11URI, "pin-source \(path) cannot be read")
            }
            defer { try? handle.close() }
            let bytes = [UInt8]((try? handle.read(upToCount: Self.maximumPINByteCount + 2)) ?? Data())
            var line = bytes.prefix { $0 != UInt8(ascii: "\n") }
            if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
            guard line.count <= Self.maximumPINByteCount else {
                throw CryptoError(.invalidPKCS11URI, "pin-source \(path) holds more than a \(Self.maximumPINByteCount)-byte PIN")
            }
            guard let pin = String(bytes: line, encoding: .utf8) else {
                throw CryptoError(.invalidPKCS11URI, "pin-source \(path) is not UTF-8 text")
            }
            return pin
        }
        return environment[Self.pinEnvironmentVariable]
    }

    /// The environment variable holding the PIN when the URI gives none.
    package static let pinEnvironmentVariable = "MDOCVERIFY_PKCS11_PIN"
}
