internal import Foundation
internal import MdocCBOR
internal import MdocChecks
internal import MdocTime

extension RecordContent {
    /// Reads the content the kiosk signed. Every field is required, no other field is allowed,
    /// and the limits hold; anything else is ``SealError/Code/invalidContent`` naming the field.
    package init(decoding bytes: ArraySlice<UInt8>, limits: SealLimits = .default) throws {
        let options = CBORDecodingOptions(maxItems: max(limits.maximumCheckCount * 16 + limits.maximumFileCount * 2 + 64, 64), maxLength: limits.maximumRecordByteCount)
        let item: CBOR
        do {
            item = try CBOR(decoding: bytes, options: options)
        } catch {
            throw SealError(.invalidContent, "the record content is not well-formed CBOR within the limits: \(error)")
        }
        var fields = try FieldReader(item, name: "record")
        let format = try fields.text("format")
        guard format == Self.format else { throw SealError(.invalidContent, "format \"\(format)\" is not \(Self.format)") }
        let kioskText = try fields.text("kiosk")
        guard let kiosk = KioskID(rawValue: kioskText) else { throw SealError(.invalidContent, "kiosk is not a valid kiosk id") }
        let sequence = try fields.unsigned("sequence")
        let sealedAt = try fields.time("sealedAt")
        let fileMap = try fields.map("files")
        guard fileMap.count <= limits.maximumFileCount else {
            throw SealError(.invalidContent, "\(fileMap.count) files, over the limit of \(limits.maximumFileCount)")
        }
        var files: [String: [UInt8]] = [:]
        files.reserveCapacity(fileMap.count)
        for (key, value) in fileMap {
            guard let path = key.text, let content = value.bytes else {
                throw SealError(.invalidContent, "files maps text paths to byte strings")
            }
            guard !path.isEmpty, path.utf8.count <= SealLimits.maximumPathByteCount, !path.hasPrefix("/"),
                !path.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0.isEmpty || $0 == "." || $0 == ".." })
            else {
                throw SealError(.invalidContent, "a file path is empty, absolute, too long or has an empty, . or .. component")
            }
            files[path] = Array(content)
        }
        var consent: SealedConsent?
        if let consentItem = try fields.optional("consent") {
            var reader = try FieldReader(consentItem, name: "consent")
            consent = SealedConsent(
                reference: try reader.optionalText("reference"), scopes: try reader.texts("scopes"),
                grantedAt: try reader.optionalTime("grantedAt"), expiresAt: try reader.optionalTime("expiresAt"))
            try reader.finish()
        }
        var verdictReader = try FieldReader(try fields.item("verdict"), name: "verdict")
        let verdict = KioskVerdict(
            atVerification: try verdictReader.verdict("verification"),
            atCapture: try verdictReader.optionalText("capture").map { try FieldReader.verdict($0, field: "verdict.capture") },
            verifiedAt: try verdictReader.time("verifiedAt"), trustSnapshot: try verdictReader.optionalText("trustSnapshot"))
        try verdictReader.finish()
        let checkItems = try fields.array("checks")
        guard checkItems.count <= limits.maximumCheckCount else {
            throw SealError(.invalidContent, "\(checkItems.count) check results, over the limit of \(limits.maximumCheckCount)")
        }
        let checks = try checkItems.map(Self.check(from:))
        try fields.finish()
        self.init(
            kiosk: kiosk, sequence: sequence, sealedAt: sealedAt, files: files, consent: consent, verdict: verdict, checks: checks)
    }

    static func check(from item: CBOR) throws -> CheckResult {
        var reader = try FieldReader(item, name: "check")
        let id = CheckID(try reader.text("id"))
        let statusText = try reader.text("status")
        guard let status = CheckStatus(rawValue: statusText) else {
            throw SealError(.invalidContent, "check status \"\(statusText)\" is not one of pass, fail, warn, skipped, unchecked")
        }
        let detail = try reader.text("detail")
        let subject = try reader.ifPresent("subject").map { try reader.textValue($0, "subject") } ?? ""
        var instant: CheckInstant?
        if let text = try reader.ifPresent("instant").map({ try reader.textValue($0, "instant") }) {
            guard let value = CheckInstant(rawValue: text) else { throw SealError(.invalidContent, "check instant \"\(text)\" is unknown") }
            instant = value
        }
        var evidence: [Evidence] = []
        if let list = reader.ifPresent("evidence") {
            guard let pairs = list.array else { throw SealError(.invalidContent, "check evidence is not an array") }
            for pair in pairs {
                guard let parts = pair.array, parts.count == 2, let key = parts[0].text, let value = parts[1].text else {
                    throw SealError(.invalidContent, "check evidence holds [text, text] pairs")
                }
                evidence.append(Evidence(key, value))
            }
        }
        try reader.finish()
        return CheckResult(id, status, detail, subject: subject, instant: instant, evidence: evidence)
    }
}

/// Reads the fields of a text-keyed map, each once, and refuses fields nobody asked for.
struct FieldReader {
    let map: CBORMap
    let name: String
    private var taken: Set<String> = []

    init(_ item: CBOR, name: String) throws {
        guard let map = item.map else { throw SealError(.invalidContent, "\(name) is not a map") }
        self.map = map
        self.name = name
    }

    mutating func optional(_ key: String) throws -> CBOR? {
        taken.insert(key)
        guard let value = map[key] else {
            throw SealError(.invalidContent, "\(name).\(key) is missing")
        }
        return value.isNull ? nil : value
    }

    mutating func item(_ key: String) throws -> CBOR {
        guard let value = try optional(key) else { throw SealError(.invalidContent, "\(name).\(key) is null") }
        return value
    }

    mutating func text(_ key: String) throws -> String {
        guard let value = try item(key).text else { throw SealError(.invalidContent, "\(name).\(key) is not text") }
        return value
    }

    mutating func optionalText(_ key: String) throws -> String? {
        guard let item = try optional(key) else { return nil }
        return try textValue(item, key)
    }

    /// A field that may be left out (rather than null).
    mutating func ifPresent(_ key: String) -> CBOR? {
        taken.insert(key)
        return map[key]
    }

    func textValue(_ item: CBOR, _ key: String) throws -> String {
        guard let value = item.text else { throw SealError(.invalidContent, "\(name).\(key) is not text") }
        return value
    }

    mutating func unsigned(_ key: String) throws -> UInt64 {
        guard let value = try item(key).uint else { throw SealError(.invalidContent, "\(name).\(key) is not an unsigned integer") }
        return value
    }

    mutating func map(_ key: String) throws -> CBORMap {
        guard let value = try item(key).map else { throw SealError(.invalidContent, "\(name).\(key) is not a map") }
        return value
    }

    mutating func array(_ key: String) throws -> CBORArray {
        guard let value = try item(key).array else { throw SealError(.invalidContent, "\(name).\(key) is not an array") }
        return value
    }

    mutating func texts(_ key: String) throws -> [String] {
        try array(key).map { element in
            guard let text = element.text else { throw SealError(.invalidContent, "\(name).\(key) holds something other than text") }
            return text
        }
    }

    mutating func time(_ key: String) throws -> Date {
        guard let value = try optionalTime(key) else { throw SealError(.invalidContent, "\(name).\(key) is null") }
        return value
    }

    /// A `tdate` (tag 0 over RFC 3339 text), or null.
    mutating func optionalTime(_ key: String) throws -> Date? {
        guard let item = try optional(key) else { return nil }
        guard item.tag == 0, let text = item.tagContent?.text, let date = RFC3339.parse(text) else {
            throw SealError(.invalidContent, "\(name).\(key) is not a tdate (tag 0, RFC 3339)")
        }
        return date
    }

    mutating func verdict(_ key: String) throws -> Verdict {
        try Self.verdict(try text(key), field: "\(name).\(key)")
    }

    static func verdict(_ text: String, field: String) throws -> Verdict {
        guard let verdict = Verdict(rawValue: text) else {
            throw SealError(.invalidContent, "\(field) \"\(text)\" is not valid, invalid or indeterminate")
        }
        return verdict
    }

    /// Refuses a field that no reader asked for.
    func finish() throws {
        for key in map.keys {
            guard let text = key.text, taken.contains(text) else {
                throw SealError(.invalidContent, "\(name) has a field this format does not define")
            }
        }
    }
}
