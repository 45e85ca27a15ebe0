import Foundation
package import MdocCBOR
import MdocCOSE
package import MdocCrypto
package import MdocModel
import MdocSamples

/// A complete captured exchange made with a generated PKI: QR engagement (`mdoc:` URI), the
/// reader's ephemeral key, SessionEstablishment carrying an encrypted DeviceRequest, SessionData
/// carrying the encrypted DeviceResponse (deviceSignature over the QR transcript). With a
/// ``ReaderPKI``, the DocRequest carries readerAuth signed by the reader's key.
package struct SessionScenario {
    package let engagementURI: String
    package let engagementBytes: [UInt8]
    package let readerKey: PrivateKey
    package private(set) var sessionEstablishment: [UInt8]
    package var sessionData: [[UInt8]]
    package let transcript: SessionTranscript
    package let keys: SessionKeys
    package let deviceResponse: [UInt8]
    package private(set) var deviceRequest: [UInt8]
    package let authority: IssuingAuthority
    /// The reader PKI that signed readerAuth, if any.
    package let reader: ReaderPKI?
    let eReaderKeyBytes: [UInt8]

    package static let defaultRequested = ["family_name", "given_name", "birth_date", "document_number", "age_over_18", "portrait"]

    package init(requested: [String] = SessionScenario.defaultRequested, reader: ReaderPKI? = nil) throws {
        let t = Scenario.verificationTime
        let authority = try IssuingAuthority(curve: .p256, profile: IssuingAuthority.Profile(notBefore: t.addingTimeInterval(-100 * 86_400)))
        self.authority = authority
        let eDeviceKey = try PrivateKey.generate(curve: .p256)
        let readerKey = try PrivateKey.generate(curve: .p256)
        self.readerKey = readerKey

        // DeviceEngagement (§8.2.1.1) with BLE central client mode, as Annex D's.
        let engagement = CBORNode.map([
            .init(.int(0), .text("1.0")),
            .init(.int(1), .array([.int(1), .embedded(try COSEKey.node(for: eDeviceKey.publicKey))])),
            .init(.int(2), .array([.array([.int(2), .int(1), .map([
                .init(.int(0), .bool(false)), .init(.int(1), .bool(true)), .init(.int(11), .bytes(SecureRandom.bytes(16))),
            ])])])),
        ]).encoded()
        self.engagementBytes = engagement
        self.engagementURI = "mdoc:" + Base64URL.encode(engagement)

        let eReaderKeyBytes = CBORNode.embedded(try COSEKey.node(for: readerKey.publicKey)).encoded()
        let engagementTagged = CBORNode.embedded(raw: engagement[...]).encoded()
        let transcript = try SessionTranscript(deviceEngagementBytes: engagementTagged[...], eReaderKeyBytes: eReaderKeyBytes[...])
        self.transcript = transcript
        let keys = try SessionKeys(readerPrivateKey: readerKey, eDeviceKey: eDeviceKey.publicKey, transcript: transcript)
        self.keys = keys

        // DeviceRequest (§8.3.2.1.2.1), with readerAuth when a reader PKI is given.
        self.reader = reader
        self.eReaderKeyBytes = eReaderKeyBytes
        let request = try Self.makeDeviceRequest(requested: requested, transcript: transcript, reader: reader)
        self.deviceRequest = request

        let deviceKey = try PrivateKey.generate(curve: .p256)
        var spec = DocumentSpec(disclosed: Scenario.elements, signed: t.addingTimeInterval(-10 * 86_400), deviceKey: deviceKey)
        spec.deviceAuth = .signature
        let document = try MdocIssuer.document(spec, authority: authority, transcript: transcript)
        let response = MdocIssuer.deviceResponse(documents: [document])
        self.deviceResponse = response

        self.sessionEstablishment = CBORNode.map([
            .init(.text("eReaderKey"), .raw(eReaderKeyBytes[...])),
            .init(.text("data"), .bytes(try keys.encrypt(request, direction: .readerToDevice, counter: 1))),
        ]).encoded()
        self.sessionData = [
            CBORNode.map([.init(.text("data"), .bytes(try keys.encrypt(response, direction: .deviceToReader, counter: 1)))]).encoded(),
            CBORNode.map([.init(.text("status"), .unsigned(20))]).encoded(),
        ]
    }

    /// ItemsRequestBytes (`#6.24(bstr .cbor ItemsRequest)`) asking for `requested` of the mDL namespace.
    package static func itemsRequestBytes(requested: [String]) -> [UInt8] {
        CBORNode.embedded(.map([
            .init(.text("docType"), .text("org.iso.18013.5.1.mDL")),
            .init(.text("nameSpaces"), .map([.init(.text("org.iso.18013.5.1"), .map(requested.map { .init(.text($0), .bool(false)) }))])),
        ])).encoded()
    }

    /// A DeviceRequest of one DocRequest. With `reader`, readerAuth signs ReaderAuthenticationBytes
    /// over `signedRequested` (default: what is requested; a different list makes readerAuth
    /// cover another ItemsRequest than the one sent); `alterReaderAuth` edits the encoded
    /// readerAuth before it is sent.
    package static func makeDeviceRequest(
        requested: [String], transcript: SessionTranscript, reader: ReaderPKI?, signedRequested: [String]? = nil,
        alterReaderAuth: (([UInt8]) -> [UInt8])? = nil
    ) throws -> [UInt8] {
        let sent = itemsRequestBytes(requested: requested)
        var docRequest: [CBORNode.Entry] = [.init(.text("itemsRequest"), .raw(sent[...]))]
        if let reader {
            let signed = signedRequested.map { itemsRequestBytes(requested: $0) } ?? sent
            var readerAuth = try reader.readerAuth(transcript: transcript, itemsRequestBytes: signed)
            if let alterReaderAuth { readerAuth = alterReaderAuth(readerAuth) }
            docRequest.append(.init(.text("readerAuth"), .raw(readerAuth[...])))
        }
        return CBORNode.map([
            .init(.text("version"), .text("1.0")),
            .init(.text("docRequests"), .array([.map(docRequest)])),
        ]).encoded()
    }

    /// Replaces the DeviceRequest SessionEstablishment carries (encrypted with SKReader, counter 1).
    package mutating func replaceDeviceRequest(_ request: [UInt8]) throws {
        deviceRequest = request
        sessionEstablishment = CBORNode.map([
            .init(.text("eReaderKey"), .raw(eReaderKeyBytes[...])),
            .init(.text("data"), .bytes(try keys.encrypt(request, direction: .readerToDevice, counter: 1))),
        ]).encoded()
    }

    /// The bundle's files (engagement as text).
    package func files() throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [
            "engagement.txt": Array(engagementURI.utf8),
            "session-establishment.cbor": sessionEstablishment,
            "reader-key.pem": Array(try readerKey.pkcs8PEM().utf8),
            "transaction.json": Array("{\"id\": \"session-\(engagementURI.suffix(8))\"}".utf8),
        ]
        for (i, message) in sessionData.enumerated() { files["session-data-\(i + 1).cbor"] = message }
        return files
    }

    package func writeTrust(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(directory)/iaca.pem"))
    }
}
