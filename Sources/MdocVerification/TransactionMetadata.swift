package import Foundation
package import MdocModel
import MdocTime

/// `transaction.json`, the metadata of a transaction bundle:
/// `{ "id", "capturedAt" (RFC 3339), "source", "consent": { "reference", "grantedAt", "scopes", "expiresAt" } }`.
/// Every field is optional.
package struct TransactionMetadata: Sendable, Equatable {
    package var id: String?
    package var capturedAt: Date?
    package var source: String?
    package var consent: Consent?
    /// How a live capture went (`capture`, written by `mdocverify capture`).
    package var capture: CaptureRecord?

    package struct Consent: Sendable, Equatable {
        package var reference: String?
        package var grantedAt: Date?
        package var scopes: [String]
        package var expiresAt: Date?
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// Bytes of `transaction.json`: a real one is a few hundred bytes; its fields end up in the
    /// store and in every signed proof, so an oversized file is refused before it is parsed.
    package static let maxBytes = 64 << 10
    /// UTF-8 bytes of one text field (id, source, consent reference, a scope).
    package static let maxTextBytes = 1024
    /// Entries of `consent.scopes`.
    package static let maxScopes = 64
    /// Nesting of arrays and objects, counted before parsing so that a deep file is named as such.
    package static let maxDepth = 32

    package init() {}

    /// Parses the JSON; unknown fields are ignored, wrong types are errors naming the field.
    package init(json: [UInt8]) throws {
        guard json.count <= Self.maxBytes else {
            throw Failure(description: "transaction.json has \(json.count) bytes, over the limit of \(Self.maxBytes)")
        }
        let depth = Self.nesting(of: json)
        guard depth <= Self.maxDepth else {
            throw Failure(description: "transaction.json nests arrays and objects \(depth) deep, over the limit of \(Self.maxDepth)")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(json))
        } catch {
            throw Failure(description: "transaction.json is not valid JSON")
        }
        guard let map = object as? [String: Any] else { throw Failure(description: "transaction.json is not a JSON object") }
        func string(_ key: String, in map: [String: Any]) throws -> String? {
            guard let value = map[key] else { return nil }
            // A string is the usual value: one cast for it, a second only for anything else.
            let text: String
            switch value {
            case let string as String: text = string
            case is NSNull: return nil
            default: throw Failure(description: "transaction.json: \(key) is not a string")
            }
            guard text.utf8.count <= Self.maxTextBytes else {
                throw Failure(description: "transaction.json: \(key) has \(text.utf8.count) bytes, over the limit of \(Self.maxTextBytes)")
            }
            return text
        }
        func date(_ key: String, in map: [String: Any]) throws -> Date? {
            guard let text = try string(key, in: map) else { return nil }
            guard let date = RFC3339.parse(text) else {
                throw Failure(description: "transaction.json: \(key) \"\(text)\" is not an RFC 3339 time")
            }
            return date
        }
        self.id = try string("id", in: map)
        self.capturedAt = try date("capturedAt", in: map)
        self.source = try string("source", in: map)
        if let consentValue = map["consent"], !(consentValue is NSNull) {
            guard let consent = consentValue as? [String: Any] else {
                throw Failure(description: "transaction.json: consent is not an object")
            }
            var scopes: [String] = []
            if let value = consent["scopes"] {
                guard let list = value as? [Any] else { throw Failure(description: "transaction.json: consent.scopes is not an array") }
                scopes = list.compactMap { $0 as? String }
                guard scopes.count <= Self.maxScopes else {
                    throw Failure(description: "transaction.json: consent.scopes has \(scopes.count) entries, over the limit of \(Self.maxScopes)")
                }
                if let long = scopes.first(where: { $0.utf8.count > Self.maxTextBytes }) {
                    throw Failure(
                        description: "transaction.json: a consent scope has \(long.utf8.count) bytes, over the limit of \(Self.maxTextBytes)")
                }
            }
            self.consent = Consent(
                reference: try string("reference", in: consent), grantedAt: try date("grantedAt", in: consent), scopes: scopes,
                expiresAt: try date("expiresAt", in: consent))
        }
        if let captureValue = map["capture"], !(captureValue is NSNull) {
            // JSONSerialization traps on a top-level value that is not an object or array.
            guard captureValue is [String: Any] else {
                throw Failure(description: "transaction.json: capture is not a capture record")
            }
            do {
                let data = try JSONSerialization.data(withJSONObject: captureValue)
                self.capture = try JSONDecoder().decode(CaptureRecord.self, from: data)
            } catch {
                throw Failure(description: "transaction.json: capture is not a capture record")
            }
        }
    }
}

extension TransactionMetadata {
    /// The deepest nesting of `[` and `{` outside strings (JSON, RFC 8259 §2). One pass, no
    /// recursion, over at most ``maxBytes`` bytes (the caller checks the length first). A closer
    /// without its opener does not lower the count below zero, so stray `]` or `}` cannot hide
    /// the depth of what follows them.
    static func nesting(of json: [UInt8]) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"): depth += 1; deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(depth - 1, 0)
            default: break
            }
        }
        return deepest
    }
}
