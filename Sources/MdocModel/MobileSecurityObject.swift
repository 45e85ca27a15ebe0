public import Foundation
public import MdocCBOR
import MdocCOSE
public import MdocCrypto
import MdocTime

/// ISO 18013-5 §9.1.2.4 MobileSecurityObject, decoded from the issuerAuth payload.
///
/// ```
/// MobileSecurityObjectBytes = #6.24(bstr .cbor MobileSecurityObject)
/// MobileSecurityObject = { "version": tstr, "digestAlgorithm": tstr, "valueDigests": ValueDigests,
///                          "deviceKeyInfo": DeviceKeyInfo, "docType": tstr, "validityInfo": ValidityInfo }
/// ValueDigests = { + NameSpace => DigestIDs }   DigestIDs = { + DigestID => Digest }
/// DeviceKeyInfo = { "deviceKey": COSE_Key, ? "keyAuthorizations": KeyAuthorizations, ? "keyInfo": KeyInfo }
/// KeyAuthorizations = { ? "nameSpaces": [+ NameSpace], ? "dataElements": { + NameSpace => [+ DataElementIdentifier] } }
/// ValidityInfo = { "signed": tdate, "validFrom": tdate, "validUntil": tdate, ? "expectedUpdate": tdate }
/// ```
/// Decoding checks structure and types only: whether the version, algorithm and dates are
/// acceptable is for the verifier's checks.
public struct MobileSecurityObject: Sendable {
    public let version: String
    public let digestAlgorithm: String
    /// namespace → digestID → digest.
    public let valueDigests: ValueDigests
    /// deviceKey (a COSE_Key): its item, or (an MSO read in place) its exact bytes, decoded
    /// only when asked for.
    enum DeviceKey: Sendable {
        case item(CBOR)
        case encoded(ArraySlice<UInt8>)
    }

    let deviceKey: DeviceKey

    /// The exact bytes of deviceKey as received (checked well-formed with the MSO).
    public var deviceKeyEncoded: ArraySlice<UInt8> {
        switch deviceKey {
        case .item(let item): item.encoded
        case .encoded(let encoded): encoded
        }
    }

    /// deviceKey decoded; from its exact bytes when the MSO was read in place (they were checked
    /// with the MSO, so this answers what the MSO's decoding held).
    public var deviceKeyItem: CBOR {
        get throws {
            switch deviceKey {
            case .item(let item): return item
            case .encoded(let encoded): return try CBOR(decoding: encoded)
            }
        }
    }
    public let authorizedNameSpaces: [String]
    public let authorizedDataElements: [String: [String]]
    public let hasKeyAuthorizations: Bool
    public let docType: String
    public let signed: Date
    public let validFrom: Date
    public let validUntil: Date
    public let expectedUpdate: Date?

    /// The keys of an MSO, in the order ``CBOR/withEmbeddedFields(forTextKeys:options:_:)``
    /// indexes them.
    static let keys: [StaticString] = ["version", "digestAlgorithm", "valueDigests", "deviceKeyInfo", "docType", "validityInfo"]

    /// What the fast path reads.
    private struct Fields {
        let version: String
        let digestAlgorithm: String
        let docType: String
        let valueDigests: ValueDigests
        let keyInfo: KeyInfo
        let validity: ValidityInfo
    }

    /// DeviceKeyInfo: the decoded map, or (the usual shape: no keyAuthorizations, every key a
    /// definite-length text) only its deviceKey's exact bytes.
    enum KeyInfo {
        case map(CBORMap)
        case deviceKeyOnly(ArraySlice<UInt8>)

        /// The usual shape read in place from the exact bytes of a deviceKeyInfo map already
        /// checked well-formed (under the default options); `nil` for anything else.
        static func deviceKeyOnly(checkedEncoding encoded: ArraySlice<UInt8>) -> KeyInfo? {
            let span: Range<Int>? = CBORCursor.with(encoded) { cursor in
                guard let count = cursor.mapCount() else { return nil }
                var deviceKey: Range<Int>?
                for _ in 0..<count {
                    guard let key = cursor.textString() else { return nil }
                    let start = cursor.offset
                    guard cursor.skip() else { return nil }
                    if key.count == 9, cursor.bytes(key, equal: "deviceKey") {
                        guard deviceKey == nil else { return nil }
                        deviceKey = start..<cursor.offset
                    } else if key.count == 17, cursor.bytes(key, equal: "keyAuthorizations") {
                        return nil
                    }
                }
                return cursor.isAtEnd ? deviceKey : nil
            }
            guard let span else { return nil }
            let lower = encoded.startIndex &+ span.lowerBound
            let upper = encoded.startIndex &+ span.upperBound
            guard span.lowerBound >= 0, lower <= upper, upper <= encoded.endIndex else { return nil }
            return .deviceKeyOnly(encoded[lower..<upper])
        }
    }

    /// The content of the usual MobileSecurityObjectBytes wrapper: `#6.24` over a definite-length
    /// byte string that ends the payload, which the general decoding of the payload accepts as
    /// it is (its item would be that tag over those bytes); `nil` for anything else.
    static func wrappedContent(_ payload: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let range: Range<Int>? = CBORCursor.with(payload) { cursor in
            guard cursor.tag() == 24, let content = cursor.byteString(), cursor.isAtEnd else { return nil }
            return content
        }
        guard let range, range.count <= CBORDecodingOptions.default.maxLength else { return nil }
        let lower = payload.startIndex &+ range.lowerBound
        let upper = payload.startIndex &+ range.upperBound
        guard lower <= upper, upper <= payload.endIndex else { return nil }
        return payload[lower..<upper]
    }

    /// ValidityInfo's dates.
    struct ValidityInfo {
        var signed: Date
        var validFrom: Date
        var validUntil: Date
        var expectedUpdate: Date?

        init(signed: Date, validFrom: Date, validUntil: Date, expectedUpdate: Date?) {
            self.signed = signed
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.expectedUpdate = expectedUpdate
        }

        /// Read in place from the exact bytes of a validityInfo map already checked well-formed:
        /// each date a definite-length text under tag 0 that parses; other keys are skipped as
        /// the general way ignores them. `nil` for anything else (the general way then decides,
        /// and reports what is wrong).
        init?(checkedEncoding encoded: ArraySlice<UInt8>) {
            var dates: (signed: Date?, validFrom: Date?, validUntil: Date?, expectedUpdate: Date?)
            let read: Bool = CBORCursor.with(encoded) { cursor in
                guard let count = cursor.mapCount() else { return false }
                for _ in 0..<count {
                    guard let key = cursor.textString() else { return false }
                    let slot: Int?
                    switch key.count {
                    case 6 where cursor.bytes(key, equal: "signed"): slot = 0
                    case 9 where cursor.bytes(key, equal: "validFrom"): slot = 1
                    case 10 where cursor.bytes(key, equal: "validUntil"): slot = 2
                    case 14 where cursor.bytes(key, equal: "expectedUpdate"): slot = 3
                    default: slot = nil
                    }
                    guard let slot else {
                        guard cursor.skip() else { return false }
                        continue
                    }
                    guard cursor.tag() == 0, let text = cursor.textString(),
                        let date = cursor.withBytes(text, RFC3339.parse(utf8:))
                    else { return false }
                    switch slot {
                    case 0: dates.signed = date
                    case 1: dates.validFrom = date
                    case 2: dates.validUntil = date
                    default: dates.expectedUpdate = date
                    }
                }
                return cursor.isAtEnd
            }
            guard read, let signed = dates.signed, let validFrom = dates.validFrom, let validUntil = dates.validUntil
            else { return nil }
            self.signed = signed
            self.validFrom = validFrom
            self.validUntil = validUntil
            self.expectedUpdate = dates.expectedUpdate
        }
    }

    /// Decodes the MSO from a COSE_Sign1 payload (the bstr content, which holds `#6.24(bstr)`).
    public init(payload: ArraySlice<UInt8>) throws {
        try self.init(payload: payload, inPlace: true)
    }

    /// ``init(payload:)``; with `inPlace: false` always the general way (for tests comparing
    /// the two).
    init(payload: ArraySlice<UInt8>, inPlace: Bool) throws {
        let path = "MobileSecurityObject"
        func decodeWrapper() throws -> CBOR {
            do {
                return try CBOR(decoding: payload)
            } catch {
                throw ModelError(.invalidEmbedded, path, "the issuerAuth payload is not well-formed CBOR: \(error)")
            }
        }
        // The usual wrapper's content found in place; any other payload decoded first (which
        // refuses a malformed one).
        let content = inPlace ? Self.wrappedContent(payload) : nil
        let decodedWrapper: CBOR? = content == nil ? try decodeWrapper() : nil
        let keyInfoFound: KeyInfo
        let validityInfo: () throws -> ValidityInfo
        // The usual shape (exactly the six keys; version, digestAlgorithm and docType text;
        // valueDigests of the right types in definite forms; deviceKeyInfo and validityInfo
        // maps) with valueDigests read in place, not built. Anything else goes the general way,
        // which reports what is wrong; what both ways share below sees the same items.
        if inPlace, let fields = CBOR.withEmbeddedFields(
            embeddedBytes: content ?? decodedWrapper?.embeddedBytes, forTextKeys: Self.keys, { fields -> Fields? in
            guard let version = fields.text(0), let digestAlgorithm = fields.text(1), let docType = fields.text(4),
                let digests = fields.encoded(2), let valueDigests = ValueDigests(checkedEncoding: digests),
                let keyInfo = fields.encoded(3).flatMap(KeyInfo.deviceKeyOnly(checkedEncoding:))
                    ?? fields.item(3)?.map.map(KeyInfo.map),
                let validity = fields.encoded(5).flatMap(ValidityInfo.init(checkedEncoding:))
            else { return nil }
            return Fields(
                version: version, digestAlgorithm: digestAlgorithm, docType: docType, valueDigests: valueDigests,
                keyInfo: keyInfo, validity: validity)
        }) {
            self.version = fields.version
            self.digestAlgorithm = fields.digestAlgorithm
            self.docType = fields.docType
            self.valueDigests = fields.valueDigests
            keyInfoFound = fields.keyInfo
            validityInfo = { fields.validity }
        } else {
            let wrapper = try decodedWrapper ?? decodeWrapper()
            let item = try wrapper.requireEmbedded(at: "MobileSecurityObjectBytes")
            let map = try item.requireMap(at: path)
            self.version = try map.requiredText("version", at: path)
            self.digestAlgorithm = try map.requiredText("digestAlgorithm", at: path)
            self.docType = try map.requiredText("docType", at: path)

            // Checked here, read in place: no dictionary is built (ValueDigests). Every entry
            // either passes or throws, so the answer of allEntries is always true.
            let valueDigests = try map.requiredMap("valueDigests", at: path)
            _ = try valueDigests.allEntries { key, value in
                guard let namespace = key.text, let ids = value.map else {
                    throw ModelError(.wrongType, "\(path).valueDigests", "not NameSpace => DigestIDs")
                }
                guard ids.isUnsignedToBytes else {
                    throw ModelError(.wrongType, "\(path).valueDigests.\(namespace)", "not DigestID (uint) => Digest (bstr)")
                }
                return true
            }
            self.valueDigests = ValueDigests(map: valueDigests)
            keyInfoFound = .map(try map.requiredMap("deviceKeyInfo", at: path))
            validityInfo = { try Self.validityInfo(try map.requiredMap("validityInfo", at: path), path: path) }
        }

        let keyInfo: CBORMap
        switch keyInfoFound {
        case .deviceKeyOnly(let deviceKey):
            // What the general way finds in such a map: the deviceKey, no keyAuthorizations.
            self.deviceKey = .encoded(deviceKey)
            keyInfo = CBORMap.empty
        case .map(let map):
            self.deviceKey = .item(try map.required("deviceKey", at: "\(path).deviceKeyInfo"))
            keyInfo = map
        }
        var authorizedNameSpaces: [String] = []
        var authorizedElements: [String: [String]] = [:]
        if let authorizations = keyInfo["keyAuthorizations"] {
            let authPath = "\(path).deviceKeyInfo.keyAuthorizations"
            let authMap = try authorizations.requireMap(at: authPath)
            if let nameSpaces = authMap["nameSpaces"] {
                guard let array = nameSpaces.array else {
                    throw ModelError(.wrongType, "\(authPath).nameSpaces", "not an array")
                }
                for ns in array {
                    guard let text = ns.text else {
                        throw ModelError(.wrongType, "\(authPath).nameSpaces", "a NameSpace is not text")
                    }
                    authorizedNameSpaces.append(text)
                }
            }
            if let dataElements = authMap["dataElements"] {
                for entry in try dataElements.requireMap(at: "\(authPath).dataElements") {
                    guard let ns = entry.key.text, let ids = entry.value.array else {
                        throw ModelError(.wrongType, "\(authPath).dataElements", "not NameSpace => [identifiers]")
                    }
                    var identifiers: [String] = []
                    for id in ids {
                        guard let text = id.text else {
                            throw ModelError(.wrongType, "\(authPath).dataElements.\(ns)", "an identifier is not text")
                        }
                        identifiers.append(text)
                    }
                    authorizedElements[ns] = identifiers
                }
            }
            self.hasKeyAuthorizations = true
        } else {
            self.hasKeyAuthorizations = false
        }
        self.authorizedNameSpaces = authorizedNameSpaces
        self.authorizedDataElements = authorizedElements

        let validity = try validityInfo()
        self.signed = validity.signed
        self.validFrom = validity.validFrom
        self.validUntil = validity.validUntil
        self.expectedUpdate = validity.expectedUpdate
    }

    /// ValidityInfo's dates from the decoded map (the general way).
    static func validityInfo(_ validity: CBORMap, path: String) throws -> ValidityInfo {
        func date(_ key: String) throws -> Date {
            let item = try validity.required(key, at: "\(path).validityInfo")
            guard let date = CBORDate.tdate(item) else {
                throw ModelError(.invalidDate, "\(path).validityInfo.\(key)", "\(key) is not a tdate (#6.0 RFC 3339 text)")
            }
            return date
        }
        let signed = try date("signed")
        let validFrom = try date("validFrom")
        let validUntil = try date("validUntil")
        let expectedUpdate = validity["expectedUpdate"] != nil ? try date("expectedUpdate") : nil
        return ValidityInfo(signed: signed, validFrom: validFrom, validUntil: validUntil, expectedUpdate: expectedUpdate)
    }

    /// Whether keyAuthorizations allow the device to sign `identifier` in `namespace` (§9.1.2.4:
    /// a namespace listed in nameSpaces authorizes all its elements; otherwise the element must
    /// be listed under dataElements, and a namespace may not be in both).
    public func authorizes(namespace: String, identifier: String) -> Bool {
        if authorizedNameSpaces.contains(namespace) { return true }
        return authorizedDataElements[namespace]?.contains(identifier) ?? false
    }
}

/// MSO valueDigests (namespace → digestID → digest, each digest the bytes as received), read in
/// place: a document has a handful of namespaces and a few dozen digest ids, each looked up once
/// per disclosed element, so linear scans beat building dictionaries. Either over the decoded
/// map (the general way) or, for an MSO of the usual shape, over its received bytes (nothing
/// built); both answer the same. The MSO is decoded with duplicate map keys refused, so every key
/// is found at most once.
public struct ValueDigests: Sendable {
    enum Storage: Sendable {
        /// NameSpace (text) => DigestIDs (map of uint => bstr), as checked by the MSO decoding.
        case map(CBORMap)
        /// The exact bytes of such a map, checked well-formed and of these types in definite forms.
        case encoded(ArraySlice<UInt8>, count: Int)
    }

    let storage: Storage

    init(map: CBORMap) { self.storage = .map(map) }

    /// Over the exact bytes of a valueDigests map already checked well-formed (by
    /// ``CBOR/withEmbeddedFields(forTextKeys:options:_:)``); `nil` unless every entry is a
    /// definite-length text => a definite-length map of uint => definite-length bstr (the
    /// general way then decides, and reports what is wrong).
    init?(checkedEncoding encoded: ArraySlice<UInt8>) {
        let count: Int? = CBORCursor.with(encoded) { cursor in
            guard let count = cursor.mapCount() else { return nil }
            for _ in 0..<count {
                guard cursor.textString() != nil, let ids = cursor.mapCount() else { return nil }
                for _ in 0..<ids {
                    guard cursor.unsigned() != nil, cursor.byteString() != nil else { return nil }
                }
            }
            return cursor.isAtEnd ? count : nil
        }
        guard let count else { return nil }
        self.storage = .encoded(encoded, count: count)
    }

    /// The number of namespaces.
    public var count: Int {
        switch storage {
        case .map(let map): map.count
        case .encoded(_, let count): count
        }
    }

    /// The namespaces, in received order.
    public var namespaces: [String] {
        switch storage {
        case .map(let map):
            return map.keys.compactMap(\.text)
        case .encoded(let encoded, _):
            return CBORCursor.with(encoded) { cursor in
                var names: [String] = []
                guard let count = cursor.mapCount() else { return names }
                for _ in 0..<count {
                    guard let name = cursor.text(), cursor.skip() else { break }
                    names.append(name)
                }
                return names
            }
        }
    }

    /// The digests of `namespace`; `nil` when the MSO has none.
    public subscript(namespace: String) -> DigestIDs? {
        switch storage {
        case .map(let map):
            guard let ids = map[namespace]?.map else { return nil }
            return DigestIDs(storage: .map(ids))
        case .encoded(let encoded, _):
            let found: (start: Int, end: Int, count: Int)? = CBORCursor.with(encoded) { cursor in
                guard let count = cursor.mapCount() else { return nil }
                for _ in 0..<count {
                    guard let matches = cursor.text(equals: namespace) else { return nil }
                    let start = cursor.offset
                    if matches {
                        guard let ids = cursor.mapCount() else { return nil }
                        var reader = cursor
                        guard reader.skipEntries(ids) else { return nil }
                        return (start, reader.offset, ids)
                    }
                    guard cursor.skip() else { return nil }
                }
                return nil
            }
            guard let found else { return nil }
            let base = encoded.startIndex
            return DigestIDs(storage: .encoded(encoded[(base + found.start)..<(base + found.end)], count: found.count))
        }
    }
}

/// The digests of one namespace: digestID → digest (bytes as received).
public struct DigestIDs: Sendable {
    let storage: ValueDigests.Storage

    /// The number of digest ids.
    public var count: Int {
        switch storage {
        case .map(let map): map.count
        case .encoded(_, let count): count
        }
    }

    /// The digest of `digestID`; `nil` when the namespace has none.
    public subscript(digestID: UInt64) -> ArraySlice<UInt8>? {
        switch storage {
        case .map(let map):
            return map[unsigned: digestID]?.bytes
        case .encoded(let encoded, _):
            let found: Range<Int>? = CBORCursor.with(encoded) { cursor in
                guard let count = cursor.mapCount() else { return nil }
                for _ in 0..<count {
                    guard let id = cursor.unsigned(), let digest = cursor.byteString() else { return nil }
                    if id == digestID { return digest }
                }
                return nil
            }
            guard let found else { return nil }
            let base = encoded.startIndex
            return encoded[(base + found.lowerBound)..<(base + found.upperBound)]
        }
    }
}

extension ValueDigests {
    /// `self[namespace]?.lookupTable() ?? .none` in one pass over the received bytes: the
    /// namespace's digests are gathered as the namespace is found, not skipped and then read
    /// again. Anything unusual goes the two-step way.
    public func lookupTable(namespace: String) -> DigestLookup {
        guard case .encoded(let encoded, _) = storage else { return self[namespace]?.lookupTable() ?? .none }
        enum Found { case absent, table(start: Int, end: Int, count: Int, entries: [DigestLookup.Entry]), unusual }
        let found: Found = CBORCursor.with(encoded) { cursor in
            guard let count = cursor.mapCount() else { return .unusual }
            for _ in 0..<count {
                guard let matches = cursor.text(equals: namespace) else { return .unusual }
                guard matches else {
                    guard cursor.skip() else { return .unusual }
                    continue
                }
                let start = cursor.offset
                guard let ids = cursor.mapCount() else { return .unusual }
                var entries: [DigestLookup.Entry] = []
                entries.reserveCapacity(Swift.min(ids, encoded.count))
                for _ in 0..<ids {
                    guard let id = cursor.unsigned(), let digest = cursor.byteString() else { return .unusual }
                    // Offsets within the namespace's own bytes, as DigestIDs.lookupTable() gives them.
                    entries.append(DigestLookup.Entry(id: id, start: digest.lowerBound &- start, end: digest.upperBound &- start))
                }
                return .table(start: start, end: cursor.offset, count: ids, entries: entries)
            }
            return .absent
        }
        switch found {
        case .absent:
            return .none
        case .table(let start, let end, let count, let entries):
            let base = encoded.startIndex
            guard start <= end, end <= encoded.count else { return self[namespace]?.lookupTable() ?? .none }
            let slice = encoded[(base + start)..<(base + end)]
            return DigestLookup(ids: DigestIDs(storage: .encoded(slice, count: count)), encoded: slice, entries: entries)
        case .unusual:
            return self[namespace]?.lookupTable() ?? .none
        }
    }
}

extension DigestIDs {
    /// The digests gathered for many lookups (one per disclosed element of the namespace):
    /// ``subscript(digestID:)`` over the received bytes reads them from the start on every
    /// call. Answers exactly as that subscript does.
    public func lookupTable() -> DigestLookup {
        guard case .encoded(let encoded, _) = storage else { return DigestLookup(ids: self, encoded: [], entries: nil) }
        let entries: [DigestLookup.Entry]? = CBORCursor.with(encoded) { cursor in
            guard let count = cursor.mapCount() else { return nil }
            var entries: [DigestLookup.Entry] = []
            entries.reserveCapacity(Swift.min(count, encoded.count))
            for _ in 0..<count {
                guard let id = cursor.unsigned(), let digest = cursor.byteString() else { return nil }
                entries.append(DigestLookup.Entry(id: id, start: digest.lowerBound, end: digest.upperBound))
            }
            return entries
        }
        // Anything unusual (never for bytes the MSO decoding checked) is looked up the usual way.
        return DigestLookup(ids: self, encoded: encoded, entries: entries)
    }
}

/// ``DigestIDs`` with its entries gathered once (``DigestIDs/lookupTable()``): digest id and
/// the digest's offsets, in received order; the first entry of an id is the one found.
public struct DigestLookup: Sendable {
    struct Entry: Sendable {
        let id: UInt64
        let start: Int
        let end: Int
    }

    /// `nil` for ``none``.
    let ids: DigestIDs?
    let encoded: ArraySlice<UInt8>
    /// `nil` when the digests are looked up in ``ids``.
    let entries: [Entry]?

    /// No digests at all (no MSO, or none for the namespace): every lookup answers `nil`. Lets a
    /// caller hold a lookup rather than an optional one (unwrapping that for every element
    /// copied the whole lookup).
    public static let none = DigestLookup(ids: nil, encoded: [], entries: nil)

    /// Whether the digest of `digestID` is `computed`: `nil` when there is no digest of
    /// `digestID` (``subscript(digestID:)`` answers `nil`), otherwise whether that digest's bytes
    /// equal `computed`'s. Compared in place, without taking the digest out as a slice.
    public func matches(digestID: UInt64, _ computed: [UInt8]) -> Bool? {
        computed.withUnsafeBufferPointer { matches(digestID: digestID, computedBytes: $0) }
    }

    /// ``matches(digestID:_:)`` for a digest held inline.
    public func matches(digestID: UInt64, _ computed: Digest) -> Bool? {
        computed.withUnsafeBytes { raw in
            raw.withMemoryRebound(to: UInt8.self) { matches(digestID: digestID, computedBytes: $0) }
        }
    }

    func matches(digestID: UInt64, computedBytes computed: UnsafeBufferPointer<UInt8>) -> Bool? {
        guard let entries else {
            return ids?[digestID].map { expected in expected.withUnsafeBufferPointer { CBOR.sameBytes($0, computed) } }
        }
        for index in entries.indices where entries[index].id == digestID {
            let entry = entries[index]
            guard entry.start >= 0, entry.start <= entry.end, entry.end <= encoded.count else { return nil }
            return encoded.withUnsafeBufferPointer { all in
                CBOR.sameBytes(UnsafeBufferPointer(rebasing: all[entry.start..<entry.end]), computed)
            }
        }
        return nil
    }

    /// Whether a digest equals one computed (``CBOR/sameBytes(_:_:)``: eight bytes at a time).
    static func sameBytes(_ expected: ArraySlice<UInt8>, _ computed: [UInt8]) -> Bool {
        expected.withUnsafeBufferPointer { a in computed.withUnsafeBufferPointer { b in CBOR.sameBytes(a, b) } }
    }

    /// The digest of `digestID`, as ``DigestIDs/subscript(digestID:)`` gives it.
    public subscript(digestID: UInt64) -> ArraySlice<UInt8>? {
        guard let entries else { return ids?[digestID] }
        let base = encoded.startIndex
        for index in entries.indices where entries[index].id == digestID {
            let entry = entries[index]
            guard entry.start <= entry.end, entry.end <= encoded.count else { return nil }
            return encoded[(base + entry.start)..<(base + entry.end)]
        }
        return nil
    }
}
