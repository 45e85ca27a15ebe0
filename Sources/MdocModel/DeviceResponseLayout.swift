public import MdocCBOR
public import MdocCOSE

/// A DeviceResponse of the usual shape read in place from its received bytes, without building
/// the ``CBOR`` tree of the whole response: the verifier's fast path.
///
/// The usual shape: the response is well-formed under the decoding options (checked as
/// ``CBOR/init(decoding:options:)`` checks it: ``CBOR/withEmbeddedFields(embeddedBytes:forTextKeys:options:_:)``
/// over the whole input); its map has exactly the keys `version` (a definite-length text),
/// `documents` and `status` (an unsigned integer); every Document is a definite-length map with
/// `docType` (a definite-length text), `issuerSigned` and optionally `deviceSigned`, each once
/// and nothing else; every IssuerSigned a definite-length map with `issuerAuth` and optionally
/// `nameSpaces`, each once and nothing else, whose nameSpaces map holds definite-length texts
/// => definite-length arrays of `#6.24(definite-length bstr)`. `nil` for anything else, valid
/// or not: the caller then decodes the general way (``DeviceResponse``, ``Document``), which
/// also gives the errors.
///
/// What it gives is what the general way gives for such a response: the version and status,
/// and per document the docType, the issuerAuth COSE_Sign1 and the DeviceSigned (read in place
/// when of their usual shapes, otherwise their items decoded from their exact bytes: the same
/// items, with the same slices of the received bytes), and the
/// IssuerNameSpaces map's bytes, whose items ``forEachItem(inNameSpaces:_:)`` walks.
public struct DeviceResponseLayout: Sendable {
    public let version: String
    public let status: UInt64
    public let documents: [DocumentLayout]

    /// One Document of the usual shape.
    public struct DocumentLayout: Sendable {
        /// The docType item as received (part of DeviceAuthenticationBytes).
        public let docTypeItem: CBOR
        public let docType: String
        /// The issuerAuth COSE_Sign1 read in place (``COSESign1/init(usualShape:options:)``), or
        /// its item when not of that shape.
        public let issuerAuth: Field<COSESign1>
        /// The encoded IssuerNameSpaces map (text => array of `#6.24(bstr)`, definite forms,
        /// checked); `nil` when the IssuerSigned has no nameSpaces.
        public let nameSpaces: ArraySlice<UInt8>?
        /// The number of IssuerSignedItemBytes under nameSpaces.
        public let itemCount: Int
        /// The DeviceSigned read in place (``DeviceSigned/init(usualShape:options:)``), or its
        /// item when not of that shape; `nil` when the document has none.
        public let deviceSigned: Field<DeviceSigned>?
    }

    /// A field read in place, or (not of the usual shape) its item decoded from its exact bytes,
    /// which the caller reads the general way.
    public enum Field<Value: Sendable>: Sendable {
        case read(Value)
        case item(CBOR)
    }

    /// The keys of a DeviceResponse of the usual shape, in the order the fields are read.
    static let keys: [StaticString] = ["version", "documents", "status"]

    /// Reads `bytes` (the whole DeviceResponse as received); `nil` unless of the usual shape.
    public init?(_ bytes: ArraySlice<UInt8>, options: CBORDecodingOptions = .default) {
        // The whole response checked as the general decoding checks it, its three values found.
        guard let top = CBOR.withEmbeddedFields(embeddedBytes: bytes, forTextKeys: Self.keys, options: options, { fields in
            fields.text(0).flatMap { version in
                fields.encoded(1).flatMap { documents in fields.unsigned(2).map { (version, documents, $0) } }
            }
        }) else { return nil }
        let (version, documentBytes, status) = top
        guard let documents = Self.documents(documentBytes, in: bytes, options: options) else { return nil }
        self.version = version
        self.status = status
        self.documents = documents
    }

    /// The documents, taken out of the layout (moved, not copied, when it is not used again).
    public consuming func takeDocuments() -> [DocumentLayout] { documents }

    /// Where each document's fields lie, as indices of the received bytes.
    struct DocumentSpans {
        var docType: Range<Int>
        var issuerAuth: Range<Int>
        var nameSpaces: Range<Int>?
        var itemCount: Int
        var deviceSigned: Range<Int>?
    }

    /// The documents of the documents array (`bytes` is the array's exact encoding, a slice of
    /// `all`, already checked well-formed); `nil` unless each is of the usual shape.
    static func documents(
        _ bytes: ArraySlice<UInt8>, in all: ArraySlice<UInt8>, options: CBORDecodingOptions
    ) -> [DocumentLayout]? {
        let base = bytes.startIndex
        return CBORCursor.with(bytes) { cursor -> [DocumentLayout]? in
            guard let count = cursor.arrayCount(), count <= bytes.count else { return nil }
            var documents: [DocumentLayout] = []
            documents.reserveCapacity(count)
            for _ in 0..<count {
                guard let entries = cursor.mapCount(), entries <= 3 else { return nil }
                var docType: Range<Int>?
                var issuerSigned: (issuerAuth: Range<Int>, nameSpaces: Range<Int>?, itemCount: Int)?
                var deviceSigned: Range<Int>?
                var seen = 0
                for _ in 0..<entries {
                    guard let key = cursor.textString() else { return nil }
                    let start = cursor.offset
                    if key.count == 7, cursor.bytes(key, equal: "docType"), seen & 1 == 0 {
                        guard cursor.textString() != nil else { return nil }
                        docType = (base &+ start)..<(base &+ cursor.offset)
                        seen |= 1
                    } else if key.count == 12, cursor.bytes(key, equal: "issuerSigned"), seen & 2 == 0 {
                        guard let found = issuerSignedSpans(&cursor, base: base) else { return nil }
                        issuerSigned = found
                        seen |= 2
                    } else if key.count == 12, cursor.bytes(key, equal: "deviceSigned"), seen & 4 == 0 {
                        guard cursor.skip() else { return nil }
                        deviceSigned = (base &+ start)..<(base &+ cursor.offset)
                        seen |= 4
                    } else {
                        return nil
                    }
                }
                guard let docType, let issuerSigned,
                    let document = Self.document(
                        DocumentSpans(
                            docType: docType, issuerAuth: issuerSigned.issuerAuth, nameSpaces: issuerSigned.nameSpaces,
                            itemCount: issuerSigned.itemCount, deviceSigned: deviceSigned),
                        in: all, options: options)
                else { return nil }
                documents.append(document)
            }
            return cursor.isAtEnd ? documents : nil
        }
    }

    /// An IssuerSigned of the usual shape at the cursor: its issuerAuth's span, its nameSpaces
    /// map's span and item count. `nil` for anything else.
    static func issuerSignedSpans(
        _ cursor: inout CBORCursor, base: Int
    ) -> (issuerAuth: Range<Int>, nameSpaces: Range<Int>?, itemCount: Int)? {
        guard let entries = cursor.mapCount(), entries >= 1, entries <= 2 else { return nil }
        var issuerAuth: Range<Int>?
        var nameSpaces: Range<Int>?
        var itemCount = 0
        for _ in 0..<entries {
            guard let key = cursor.textString() else { return nil }
            let start = cursor.offset
            if key.count == 10, cursor.bytes(key, equal: "issuerAuth"), issuerAuth == nil {
                guard cursor.skip() else { return nil }
                issuerAuth = (base &+ start)..<(base &+ cursor.offset)
            } else if key.count == 10, cursor.bytes(key, equal: "nameSpaces"), nameSpaces == nil {
                guard let count = itemCountOfNameSpaces(&cursor) else { return nil }
                itemCount = count
                nameSpaces = (base &+ start)..<(base &+ cursor.offset)
            } else {
                return nil
            }
        }
        guard let issuerAuth else { return nil }
        return (issuerAuth, nameSpaces, itemCount)
    }

    /// Moves past an IssuerNameSpaces map of the usual shape (definite-length text keys =>
    /// definite-length arrays of `#6.24(definite-length bstr)`); the number of items, `nil`
    /// for anything else.
    static func itemCountOfNameSpaces(_ cursor: inout CBORCursor) -> Int? {
        guard let namespaces = cursor.mapCount() else { return nil }
        var total = 0
        for _ in 0..<namespaces {
            guard cursor.textString() != nil, let count = cursor.arrayCount() else { return nil }
            for _ in 0..<count {
                guard cursor.tag() == 24, cursor.byteString() != nil else { return nil }
            }
            total &+= count
        }
        return total
    }

    /// The layout of one document, its items decoded from their spans of `bytes`.
    static func document(_ spans: DocumentSpans, in bytes: ArraySlice<UInt8>, options: CBORDecodingOptions) -> DocumentLayout? {
        guard spans.docType.lowerBound >= bytes.startIndex, spans.docType.upperBound <= bytes.endIndex,
            let docTypeItem = try? CBOR(decoding: bytes[spans.docType], options: options), let docType = docTypeItem.text,
            spans.issuerAuth.lowerBound >= bytes.startIndex, spans.issuerAuth.upperBound <= bytes.endIndex
        else { return nil }
        let issuerAuth: Field<COSESign1>
        if let read = COSESign1(usualShape: bytes[spans.issuerAuth], options: options) {
            issuerAuth = .read(read)
        } else {
            guard let item = try? CBOR(decoding: bytes[spans.issuerAuth], options: options) else { return nil }
            issuerAuth = .item(item)
        }
        var deviceSigned: Field<DeviceSigned>?
        if let span = spans.deviceSigned {
            guard span.lowerBound >= bytes.startIndex, span.upperBound <= bytes.endIndex else { return nil }
            if let read = DeviceSigned(usualShape: bytes[span], options: options) {
                deviceSigned = .read(read)
            } else {
                guard let item = try? CBOR(decoding: bytes[span], options: options) else { return nil }
                deviceSigned = .item(item)
            }
        }
        var nameSpaces: ArraySlice<UInt8>?
        if let span = spans.nameSpaces {
            guard span.lowerBound >= bytes.startIndex, span.upperBound <= bytes.endIndex else { return nil }
            nameSpaces = bytes[span]
        }
        return DocumentLayout(
            docTypeItem: docTypeItem, docType: docType, issuerAuth: issuerAuth, nameSpaces: nameSpaces,
            itemCount: spans.itemCount, deviceSigned: deviceSigned)
    }

    /// Calls `body` for each namespace of an IssuerNameSpaces map of the usual shape
    /// (``DocumentLayout/nameSpaces``), in received order, with the namespace and its items:
    /// each item's exact bytes (the `#6.24` item) and its embedded bytes (the bstr content),
    /// slices of the received bytes with their indices. Stops (answering `false`) at anything
    /// not of that shape, which a layout's nameSpaces never holds.
    public static func forEachNameSpace(
        _ nameSpaces: ArraySlice<UInt8>,
        _ body: (_ namespace: String, _ items: inout NameSpaceItems) -> Void
    ) -> Bool {
        CBORCursor.with(nameSpaces) { cursor -> Bool in
            guard let count = cursor.mapCount() else { return false }
            for _ in 0..<count {
                guard let namespace = cursor.text(), let itemCount = cursor.arrayCount() else { return false }
                var items = NameSpaceItems(bytes: nameSpaces, cursor: cursor, remaining: itemCount)
                body(namespace, &items)
                // Whatever body read, the cursor goes on past the namespace's items.
                while items.remaining > 0 {
                    guard items.next() != nil else { return false }
                }
                guard !items.failed else { return false }
                cursor = items.cursor
            }
            return cursor.isAtEnd
        }
    }

    /// The items of one namespace, read one by one (``forEachNameSpace(_:_:)``).
    public struct NameSpaceItems {
        let bytes: ArraySlice<UInt8>
        var cursor: CBORCursor
        var remaining: Int
        var failed = false

        /// The number of items.
        public let count: Int

        init(bytes: ArraySlice<UInt8>, cursor: CBORCursor, remaining: Int) {
            self.bytes = bytes
            self.cursor = cursor
            self.remaining = remaining
            self.count = remaining
        }

        /// The next item: its exact bytes and its embedded bytes; `nil` after the last.
        public mutating func next() -> (encoded: ArraySlice<UInt8>, embedded: ArraySlice<UInt8>)? {
            guard let spans = nextSpans() else { return nil }
            return (bytes[spans.encoded], bytes[spans.embedded])
        }

        /// ``next()`` as offsets: where the next item's exact bytes and embedded bytes lie in the
        /// nameSpaces' bytes (`0` is their first byte), always within them; `nil` after the last.
        public mutating func nextOffsets() -> (encoded: Range<Int>, embedded: Range<Int>)? {
            guard let spans = nextSpans() else { return nil }
            let base = bytes.startIndex
            return ((spans.encoded.lowerBound &- base)..<(spans.encoded.upperBound &- base),
                    (spans.embedded.lowerBound &- base)..<(spans.embedded.upperBound &- base))
        }

        /// The next item's ranges as indices of ``bytes``, checked to lie within them.
        mutating func nextSpans() -> (encoded: Range<Int>, embedded: Range<Int>)? {
            guard remaining > 0, !failed else { return nil }
            let base = bytes.startIndex
            let start = cursor.offset
            guard cursor.tag() == 24, let content = cursor.byteString(), start >= 0, start <= content.lowerBound,
                content.upperBound == cursor.offset, base &+ cursor.offset <= bytes.endIndex
            else {
                failed = true
                return nil
            }
            remaining &-= 1
            return ((base &+ start)..<(base &+ cursor.offset), (base &+ content.lowerBound)..<(base &+ content.upperBound))
        }
    }
}
