package import MdocCBOR
package import MdocCOSE
package import MdocCrypto

/// What a reader asks for in one DocRequest: ItemsRequest (ISO 18013-5 §8.3.2.1.2.1).
///
/// ```
/// ItemsRequest = { "docType": DocType, "nameSpaces": NameSpaces, ? "requestInfo": {* tstr => any} }
/// NameSpaces = { + NameSpace => DataElements }   DataElements = { + DataElementIdentifier => IntentToRetain }
/// ```
package struct ItemsRequestSpec: Sendable, Equatable {
    package struct Element: Sendable, Equatable {
        package var identifier: String
        package var intentToRetain: Bool

        package init(_ identifier: String, intentToRetain: Bool = false) {
            self.identifier = identifier
            self.intentToRetain = intentToRetain
        }
    }

    package struct NameSpace: Sendable, Equatable {
        package var name: String
        package var elements: [Element]

        package init(_ name: String, _ elements: [Element]) {
            self.name = name
            self.elements = elements
        }
    }

    package var docType: String
    package var nameSpaces: [NameSpace]

    package init(docType: String, nameSpaces: [NameSpace]) {
        self.docType = docType
        self.nameSpaces = nameSpaces
    }

    /// Every element asked for, across name spaces.
    package var elementCount: Int { nameSpaces.reduce(0) { $0 + $1.elements.count } }

    /// ItemsRequestBytes: `#6.24(bstr .cbor ItemsRequest)`, in the order given.
    package func itemsRequestBytes() -> [UInt8] {
        CBORNode.embedded(.map([
            .init(.text("docType"), .text(docType)),
            .init(.text("nameSpaces"), .map(nameSpaces.map { nameSpace in
                .init(.text(nameSpace.name), .map(nameSpace.elements.map { .init(.text($0.identifier), .bool($0.intentToRetain)) }))
            })),
        ])).encoded()
    }
}

/// The messages a reader sends (ISO 18013-5 §8.3.2.1.2.1, §9.1.1.4, §9.1.4), built from the
/// exact bytes they embed.
package enum ReaderMessages {
    /// DeviceRequest version 1.0 with one DocRequest; `readerAuth` is a COSE_Sign1 when given.
    package static func deviceRequest(itemsRequestBytes: [UInt8], readerAuth: [UInt8]?) -> [UInt8] {
        var docRequest: [CBORNode.Entry] = [.init(.text("itemsRequest"), .raw(itemsRequestBytes[...]))]
        if let readerAuth { docRequest.append(.init(.text("readerAuth"), .raw(readerAuth[...]))) }
        return CBORNode.map([
            .init(.text("version"), .text("1.0")),
            .init(.text("docRequests"), .array([.map(docRequest)])),
        ]).encoded()
    }

    /// readerAuth (§9.1.4): an untagged COSE_Sign1 with a detached payload over
    /// ReaderAuthenticationBytes, the reader's certificate chain (DER, leaf first) in x5chain
    /// (label 33: one bstr for one certificate, an array for more).
    package static func readerAuth(
        transcript: SessionTranscript, itemsRequestBytes: [UInt8], key: PrivateKey, certificates: [[UInt8]]
    ) throws -> [UInt8] {
        let itemsRequest = try CBOR(decoding: itemsRequestBytes)
        let payload = readerAuthenticationBytes(transcript: transcript, itemsRequestBytes: itemsRequest)
        let chain: CBORNode = certificates.count == 1 ? .bytes(certificates[0]) : .array(certificates.map { .bytes($0) })
        return try COSESign1.sign(
            payload: payload, key: key, unprotected: [.init(.int(COSEHeaders.Label.x5chain), chain)], detached: true, tagged: false)
    }

    /// EReaderKeyBytes: `#6.24(bstr .cbor COSE_Key)` of the reader's ephemeral public key.
    package static func eReaderKeyBytes(_ key: PublicKey) throws -> [UInt8] {
        CBORNode.embedded(try COSEKey.node(for: key)).encoded()
    }

    /// SessionEstablishment (§9.1.1.4): `{ "eReaderKey": EReaderKeyBytes, "data": bstr }`.
    package static func sessionEstablishment(eReaderKeyBytes: [UInt8], data: [UInt8]) -> [UInt8] {
        CBORNode.map([
            .init(.text("eReaderKey"), .raw(eReaderKeyBytes[...])),
            .init(.text("data"), .bytes(data)),
        ]).encoded()
    }

    /// SessionData (§9.1.1.4): `{ ? "data": bstr, ? "status": uint }`.
    package static func sessionData(data: [UInt8]? = nil, status: UInt64? = nil) -> [UInt8] {
        var entries: [CBORNode.Entry] = []
        if let data { entries.append(.init(.text("data"), .bytes(data))) }
        if let status { entries.append(.init(.text("status"), .unsigned(status))) }
        return CBORNode.map(entries).encoded()
    }

    /// Session status codes (§9.1.1.4, Table 20).
    package enum Status {
        package static let encryptionError: UInt64 = 10
        package static let decodingError: UInt64 = 11
        package static let termination: UInt64 = 20
    }
}
