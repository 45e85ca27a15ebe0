package import Foundation
package import MdocCBOR
package import MdocCOSE

/// ISO 18013-5 §8.2.1.1 DeviceEngagement, as carried in the QR code (§8.2.2.3: `mdoc:` followed
/// by the base64url encoding, without padding, of the DeviceEngagement bytes).
///
/// ```
/// DeviceEngagement = { 0: tstr,  ; version
///                      1: Security, ? 2: DeviceRetrievalMethods, ? 3: ServerRetrievalMethods,
///                      ? 4: ProtocolInfo, * int => any }
/// Security = [ int (cipher suite identifier), EDeviceKeyBytes ]
/// EDeviceKeyBytes = #6.24(bstr .cbor COSE_Key)
/// DeviceRetrievalMethod = [ type: uint, version: uint, RetrievalOptions ]
/// BleOptions = { ? 0: bool (peripheral server), ? 1: bool (central client),
///                ? 10: bstr (peripheral server UUID), ? 11: bstr (central client UUID), ? 20: bstr (device address) }
/// ```
package struct DeviceEngagement: Sendable {
    /// The DeviceEngagement bytes exactly as received (what DeviceEngagementBytes wraps).
    package let encoded: ArraySlice<UInt8>
    package let version: String
    package let cipherSuite: Int64
    /// EDeviceKeyBytes exactly as received.
    package let eDeviceKeyBytes: CBOR
    package let eDeviceKey: COSEKey
    package let retrievalMethods: [RetrievalMethod]
    /// Keys other than 0–4, recorded, not rejected: integers (allowed by `* int => any`) as
    /// their decimal value, text keys quoted (`"name"`), other key types by their CBOR type.
    package let unknownKeys: [String]

    package struct RetrievalMethod: Sendable {
        package let type: UInt64
        package let version: UInt64
        package let options: CBOR

        package var typeName: String {
            switch type {
            case 1: "NFC"
            case 2: "BLE"
            case 3: "Wi-Fi Aware"
            default: "type \(type)"
            }
        }
    }

    /// The scheme prefix of the QR payload (§8.2.2.3).
    package static let uriScheme = "mdoc:"

    /// Decodes the base64url payload of an `mdoc:` URI (no padding; padding and the standard
    /// alphabet are rejected, so that exactly one byte string corresponds to a URI).
    package static func bytes(fromURI uri: String) throws -> [UInt8] {
        let trimmed = uri.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.lowercased().hasPrefix(uriScheme) else {
            throw ModelError(.invalidValue, "engagement", "the QR payload does not start with \"mdoc:\"")
        }
        let payload = trimmed.dropFirst(uriScheme.count)
        guard let bytes = Base64URL.decode(payload) else {
            throw ModelError(.invalidValue, "engagement", "the text after \"mdoc:\" is not base64url without padding")
        }
        return bytes
    }

    package init(_ item: CBOR) throws {
        let path = "DeviceEngagement"
        guard let map = item.map else { throw ModelError(.wrongType, path, "not a map") }
        self.encoded = item.encoded
        guard let version = map[key: 0]?.text else { throw ModelError(.missingField, "\(path).0", "version (key 0) is missing or not text") }
        self.version = version
        guard let security = map[key: 1]?.array, security.count == 2, let suite = security[0].int else {
            throw ModelError(.missingField, "\(path).1", "Security (key 1) is not [cipherSuite, EDeviceKeyBytes]")
        }
        self.cipherSuite = suite
        self.eDeviceKeyBytes = security[1]
        let keyItem = try security[1].requireEmbedded(at: "\(path).1.EDeviceKeyBytes")
        do {
            self.eDeviceKey = try COSEKey(keyItem)
        } catch {
            throw ModelError(.invalidValue, "\(path).1.EDeviceKeyBytes", "\(error)")
        }
        var methods: [RetrievalMethod] = []
        if let retrieval = map[key: 2] {
            guard let array = retrieval.array else {
                throw ModelError(.wrongType, "\(path).2", "DeviceRetrievalMethods is not an array")
            }
            for (i, method) in array.enumerated() {
                guard let parts = method.array, parts.count >= 3, let type = parts[0].uint, let version = parts[1].uint else {
                    throw ModelError(.wrongType, "\(path).2[\(i)]", "DeviceRetrievalMethod is not [type, version, options]")
                }
                methods.append(RetrievalMethod(type: type, version: version, options: parts[2]))
            }
        }
        self.retrievalMethods = methods
        self.unknownKeys = map.compactMap { entry in
            if let key = entry.key.int { return (0...4).contains(key) ? nil : String(key) }
            return Self.describeKey(entry.key)
        }
    }

    /// The BLE option keys of Table 10 (§8.2.2.2).
    package static let knownBLEOptionKeys: Set<Int64> = [0, 1, 10, 11, 20]

    /// Keys of BLE options other than those of Table 10, recorded (as ``unknownKeys``).
    package static func unknownBLEOptionKeys(_ options: CBOR) -> [String] {
        guard let map = options.map else { return [] }
        return map.compactMap { entry in
            if let key = entry.key.int { return knownBLEOptionKeys.contains(key) ? nil : String(key) }
            return describeKey(entry.key)
        }
    }

    /// A map key for a report: integers in decimal, text quoted, anything else by its type.
    static func describeKey(_ key: CBOR) -> String {
        if let int = key.int { return String(int) }
        if let text = key.text { return "\"\(text.prefix(64))\"" }
        if let bytes = key.bytes { return "bstr(\(bytes.count))" }
        return "key of another type"
    }

    /// Problems with a BLE retrieval method's options (§8.2.2.2 / Table 10); empty when fine.
    package static func bleProblems(_ options: CBOR) -> [String] {
        guard let map = options.map else { return ["BLE options are not a map"] }
        var problems: [String] = []
        let peripheral = map[key: 0]?.bool ?? false
        let central = map[key: 1]?.bool ?? false
        if map[key: 0] != nil && map[key: 0]?.bool == nil { problems.append("option 0 (peripheral server mode) is not a bool") }
        if map[key: 1] != nil && map[key: 1]?.bool == nil { problems.append("option 1 (central client mode) is not a bool") }
        if !peripheral && !central { problems.append("neither peripheral server nor central client mode is supported") }
        for key: Int64 in [10, 11] {
            if let uuid = map[key] {
                if uuid.bytes?.count != 16 { problems.append("option \(key) (UUID) is not 16 bytes") }
            }
        }
        if peripheral && map[key: 10] == nil { problems.append("peripheral server mode without its UUID (option 10)") }
        if central && map[key: 11] == nil { problems.append("central client mode without its UUID (option 11)") }
        if let address = map[key: 20], address.bytes?.count != 6 { problems.append("option 20 (device address) is not 6 bytes") }
        return problems
    }
}

/// base64url without padding (RFC 4648 §5), strict.
package enum Base64URL {
    package static func decode<S: StringProtocol>(_ text: S) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count * 3 / 4)
        var buffer: UInt32 = 0
        var bits = 0
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = c - UInt8(ascii: "A")
            case UInt8(ascii: "a")...UInt8(ascii: "z"): v = c - UInt8(ascii: "a") + 26
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0") + 52
            case UInt8(ascii: "-"): v = 62
            case UInt8(ascii: "_"): v = 63
            default: return nil
            }
            buffer = (buffer << 6) | UInt32(v)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        // A lone 6-bit group cannot end a valid encoding; leftover bits must be zero.
        guard bits != 6, buffer == 0 else { return nil }
        return out
    }

    package static func encode(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var out: [UInt8] = []
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)], alphabet[Int(n & 63)]]
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
