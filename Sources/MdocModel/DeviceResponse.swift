public import MdocCBOR

/// ISO 18013-5 §8.3.2.1.2.2 DeviceResponse, top level.
///
/// ```
/// DeviceResponse = { "version": tstr, ? "documents": [+Document],
///                    ? "documentErrors": [+DocumentError], "status": uint }
/// ```
/// Documents are kept as items and decoded one by one with ``Document/init(_:path:)``, so that
/// one malformed document does not hide the others.
public struct DeviceResponse: Sendable {
    public let item: CBOR
    public let version: String
    public let documents: [CBOR]
    /// DocumentError = { DocType => ErrorCode }, flattened.
    public let documentErrors: [(docType: String, code: Int64)]
    public let status: UInt64

    public init(_ item: CBOR) throws {
        let path = "DeviceResponse"
        let map = try item.requireMap(at: path)
        self.item = item
        self.version = try map.requiredText("version", at: path)
        self.status = try map.requiredUInt("status", at: path)
        if let documents = map.arrayValue(forKey: "documents") {
            guard let array = documents else {
                throw ModelError(.wrongType, "\(path).documents", "documents is not an array")
            }
            self.documents = array
        } else {
            self.documents = []
        }
        var errors: [(String, Int64)] = []
        if let documentErrors = map["documentErrors"] {
            guard let array = documentErrors.array else {
                throw ModelError(.wrongType, "\(path).documentErrors", "documentErrors is not an array")
            }
            for (i, entry) in array.enumerated() {
                guard let errorMap = entry.map else {
                    throw ModelError(.wrongType, "\(path).documentErrors[\(i)]", "DocumentError is not a map")
                }
                for pair in errorMap {
                    guard let docType = pair.key.text, let code = pair.value.int else {
                        throw ModelError(
                            .wrongType, "\(path).documentErrors[\(i)]", "DocumentError is not DocType => ErrorCode")
                    }
                    errors.append((docType, code))
                }
            }
        }
        self.documentErrors = errors
    }

    /// The meaning of a DeviceResponse status code (§8.3.2.1.2.3, Table 8).
    public static func statusMeaning(_ status: UInt64) -> String {
        switch status {
        case 0: "OK"
        case 10: "general error"
        case 11: "CBOR decoding error"
        case 12: "CBOR validation error"
        default: "unknown status"
        }
    }
}

/// ISO 18013-5 §8.3.2.1.2.2 Document.
///
/// ```
/// Document = { "docType": DocType, "issuerSigned": IssuerSigned,
///              "deviceSigned": DeviceSigned, ? "errors": Errors }
/// ```
public struct Document: Sendable {
    public let docTypeItem: CBOR
    public let docType: String
    public let issuerSigned: IssuerSigned
    /// `nil` when absent (a structure failure the verifier reports; kept optional so the issuer
    /// side can still be checked).
    public let deviceSignedItem: CBOR?
    /// Errors = { + NameSpace => { + DataElementIdentifier => ErrorCode } }, flattened.
    public let errors: [(namespace: String, identifier: String, code: Int64)]

    public init(_ item: CBOR, path: String) throws {
        let map = try item.requireMap(at: path)
        let docTypeItem = try map.required("docType", at: path)
        guard let docType = docTypeItem.text else {
            throw ModelError(.wrongType, "\(path).docType", "docType is not a text string")
        }
        self.docTypeItem = docTypeItem
        self.docType = docType
        self.issuerSigned = try IssuerSigned(try map.required("issuerSigned", at: path), path: "\(path).issuerSigned")
        self.deviceSignedItem = map["deviceSigned"]
        var errors: [(String, String, Int64)] = []
        if let errorsItem = map["errors"] {
            let errorsMap = try errorsItem.requireMap(at: "\(path).errors")
            for namespace in errorsMap {
                guard let ns = namespace.key.text, let items = namespace.value.map else {
                    throw ModelError(.wrongType, "\(path).errors", "Errors is not NameSpace => ErrorItems")
                }
                for element in items {
                    guard let id = element.key.text, let code = element.value.int else {
                        throw ModelError(.wrongType, "\(path).errors.\(ns)", "ErrorItems is not id => ErrorCode")
                    }
                    errors.append((ns, id, code))
                }
            }
        }
        self.errors = errors
    }
}

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSigned.
///
/// ```
/// IssuerSigned = { ? "nameSpaces": IssuerNameSpaces, "issuerAuth": IssuerAuth }
/// IssuerNameSpaces = { + NameSpace => [ + IssuerSignedItemBytes ] }
/// ```
public struct IssuerSigned: Sendable {
    /// Namespaces in received order, each with its IssuerSignedItemBytes items (`#6.24`).
    public let nameSpaces: [(namespace: String, items: [CBOR])]
    public let issuerAuthItem: CBOR

    /// `path` names the structure in errors; it is built only when an error needs it.
    public init(_ item: CBOR, path: @autoclosure () -> String) throws {
        let map = try item.requireMap(at: path())
        self.issuerAuthItem = try map.required("issuerAuth", at: path())
        var nameSpaces: [(String, [CBOR])] = []
        if let nsMapFound = map.mapValue(forKey: "nameSpaces") {
            guard let nsMap = nsMapFound else { throw ModelError(.wrongType, "\(path()).nameSpaces", "not a map") }
            nameSpaces.reserveCapacity(nsMap.count)
            for entry in nsMap {
                guard let namespace = entry.key.text else {
                    throw ModelError(.wrongType, "\(path()).nameSpaces", "a NameSpace key is not a text string")
                }
                guard let items = entry.value.array else {
                    throw ModelError(.wrongType, "\(path()).nameSpaces.\(namespace)", "not an array of IssuerSignedItemBytes")
                }
                nameSpaces.append((namespace, items))
            }
        }
        self.nameSpaces = nameSpaces
    }
}

/// ISO 18013-5 §8.3.2.1.2.2 IssuerSignedItem, decoded from its IssuerSignedItemBytes.
///
/// ```
/// IssuerSignedItemBytes = #6.24(bstr .cbor IssuerSignedItem)
/// IssuerSignedItem = { "digestID": uint, "random": bstr,
///                      "elementIdentifier": DataElementIdentifier, "elementValue": DataElementValue }
/// ```
/// The value digest of §9.1.2.5 is computed over ``itemBytes`` — the whole tag-24 item exactly
/// as received — never over a re-encoding.
public struct IssuerSignedItem: Sendable {
    /// The encoded `#6.24(bstr)` exactly as received: what the MSO digest covers.
    public let itemBytes: ArraySlice<UInt8>
    public let digestID: UInt64
    public let random: ArraySlice<UInt8>
    public let elementIdentifier: String
    /// The element value; `nil` when read with `decodingValue: false` (it is then checked to be
    /// well-formed all the same, exactly as when it is decoded).
    public let elementValue: CBOR?

    /// The keys of an IssuerSignedItem, in the order ``CBOR/withEmbeddedFields(forTextKeys:options:_:)`` indexes them.
    static let keys: [StaticString] = ["digestID", "random", "elementIdentifier", "elementValue"]

    private init(
        itemBytes: ArraySlice<UInt8>, digestID: UInt64, random: ArraySlice<UInt8>, elementIdentifier: String,
        elementValue: CBOR?
    ) {
        self.itemBytes = itemBytes
        self.digestID = digestID
        self.random = random
        self.elementIdentifier = elementIdentifier
        self.elementValue = elementValue
    }

    /// Reads IssuerSignedItemBytes. With `decodingValue: false` the element value is validated
    /// but not built (the verifier keeps no values by default): the item is accepted or refused
    /// exactly as with `true`.
    public init(_ item: borrowing CBOR, path: String, decodingValue: Bool = true) throws {
        self = try Self.read(item, path: path, decodingValue: decodingValue)
    }

    /// What verification reads of an IssuerSignedItem: its digest id, element identifier and
    /// (when asked) value. The item's bytes are the CBOR item's ``CBOR/encoded``.
    public struct Element: Sendable {
        public let digestID: UInt64
        public let elementIdentifier: String
        public let elementValue: CBOR?
    }

    /// ``read(_:path:decodingValue:)`` for verification: accepts and refuses exactly the same
    /// items (with the same errors) and gives the same digest id, identifier and value, but keeps
    /// neither `random` (only checked to be a byte string) nor the item's bytes, which are the
    /// caller's item's ``CBOR/encoded``.
    public static func readElement(_ item: borrowing CBOR, path: String, decodingValue: Bool = true) throws -> Element {
        if let fast = item.withEmbeddedFields(forTextKeys: Self.keys, { element(of: $0, decodingValue: decodingValue) }) {
            return fast
        }
        // Anything else the way read goes, which also gives the errors.
        let full = try read(item, path: path, decodingValue: decodingValue)
        return Element(digestID: full.digestID, elementIdentifier: full.elementIdentifier, elementValue: full.elementValue)
    }

    /// ``readElement(_:path:decodingValue:)`` of `item()`, given its ``CBOR/embeddedBytes``:
    /// the usual shape is read from those bytes, and the item itself is asked for only when
    /// they are not of it (an item read out of an array is otherwise copied whole first; an
    /// item known only by its bytes is decoded only then). An error of `item()` is thrown as is.
    public static func readElement(
        embeddedBytes: ArraySlice<UInt8>?, of item: @autoclosure () throws -> CBOR, path: String, decodingValue: Bool = true
    ) throws -> Element {
        // Without the value (verification's default), the usual shape read straight from the
        // checked spans: what the view below gives, without the view.
        if !decodingValue, let embeddedBytes, let fast = usualElement(embeddedBytes) {
            return fast
        }
        if let fast = CBOR.withEmbeddedFields(
            embeddedBytes: embeddedBytes, forTextKeys: Self.keys, { element(of: $0, decodingValue: decodingValue) })
        {
            return fast
        }
        return try readElement(item(), path: path, decodingValue: decodingValue)
    }

    /// ``element(of:decodingValue:)`` without the value, for embedded bytes of the usual shape
    /// (checked as ``CBOR/withEmbeddedFields(embeddedBytes:forTextKeys:options:_:)`` checks
    /// them), the three fields read with a cursor at their spans; `nil` otherwise.
    static func usualElement(_ embedded: ArraySlice<UInt8>) -> Element? {
        embedded.withUnsafeBufferPointer { usualElement(buffer: $0) }
    }

    /// ``usualElement(_:)`` over embedded bytes in a buffer.
    static func usualElement(buffer embedded: UnsafeBufferPointer<UInt8>) -> Element? {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 8) { spans -> Element? in
            guard CBOR.knownTextKeyMapSpans(embedded, forTextKeys: keys, into: spans) else { return nil }
            return CBORCursor.with(buffer: embedded) { cursor -> Element? in
                cursor.move(to: spans[0])
                guard let digestID = cursor.unsigned() else { return nil }
                cursor.move(to: spans[2])
                guard cursor.byteString() != nil else { return nil }
                cursor.move(to: spans[4])
                guard let elementIdentifier = cursor.text() else { return nil }
                return Element(digestID: digestID, elementIdentifier: elementIdentifier, elementValue: nil)
            }
        }
    }

    /// ``readElement(embeddedBytes:of:path:decodingValue:)`` of an item whose embedded bytes are
    /// also given in a buffer: without the value, the usual shape is read from the buffer (no
    /// slice of the bytes is made); anything else through `embeddedBytes()` and `item()`, asked
    /// for only then.
    public static func readElement(
        embeddedBuffer: UnsafeBufferPointer<UInt8>, embeddedBytes: () -> ArraySlice<UInt8>?, of item: () throws -> CBOR,
        path: String, decodingValue: Bool = true
    ) throws -> Element {
        if !decodingValue, let fast = usualElement(buffer: embeddedBuffer) { return fast }
        return try readElement(embeddedBytes: embeddedBytes(), of: try item(), path: path, decodingValue: decodingValue)
    }

    /// The element of an item of the usual shape; `nil` when a field is not of its type.
    private static func element(of fields: CBOREmbeddedFields, decodingValue: Bool) -> Element? {
        guard let digestID = fields.unsigned(0), fields.isByteString(1), let elementIdentifier = fields.text(2)
        else { return nil }
        var value: CBOR?
        if decodingValue {
            guard let decoded = fields.item(3) else { return nil }
            value = decoded
        }
        return Element(digestID: digestID, elementIdentifier: elementIdentifier, elementValue: value)
    }

    /// ``init(_:path:decodingValue:)`` as a function: the item read is returned as it is built
    /// (the initializer assigns it to `self`, one more copy of the whole item per element).
    public static func read(_ item: borrowing CBOR, path: String, decodingValue: Bool = true) throws -> IssuerSignedItem {
        // The usual shape (exactly the four keys, of the right types) read in place, without
        // building the map or its items; anything else goes the general way below, which
        // reports what is wrong.
        if let fast = item.withEmbeddedFields(forTextKeys: Self.keys, { fields -> IssuerSignedItem? in
            guard let digestID = fields.unsigned(0), let random = fields.bytes(1), let elementIdentifier = fields.text(2)
            else { return nil }
            var value: CBOR?
            if decodingValue {
                guard let decoded = fields.item(3) else { return nil }
                value = decoded
            }
            return IssuerSignedItem(
                itemBytes: item.encoded, digestID: digestID, random: random, elementIdentifier: elementIdentifier,
                elementValue: value)
        }) {
            return fast
        }
        let inner = try item.requireEmbedded(at: path)
        let map = try inner.requireMap(at: path)
        let digestID = try map.requiredUInt("digestID", at: path)
        let random = try map.required("random", at: path)
        guard let randomBytes = random.bytes else {
            throw ModelError(.wrongType, "\(path).random", "random is not a byte string")
        }
        let elementIdentifier = try map.requiredText("elementIdentifier", at: path)
        let elementValue = try map.required("elementValue", at: path)
        return IssuerSignedItem(
            itemBytes: item.encoded, digestID: digestID, random: randomBytes, elementIdentifier: elementIdentifier,
            elementValue: decodingValue ? elementValue : nil)
    }
}
