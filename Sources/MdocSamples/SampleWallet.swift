import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocModel

/// A holder's phone for the live-capture tests and the BlueZ stand-in: one engagement (an
/// ephemeral key, BLE service UUIDs) and the session it plays when a reader sends
/// SessionEstablishment, with real 18013-5 session encryption and a real signed mDL issued for
/// the session's transcript (§9.1.1, §9.1.3).
package final class SampleWallet: Sendable {
    package let uri: String
    package let engagement: [UInt8]
    package let eDeviceKeyBytes: [UInt8]
    package let peripheralUUID: String
    package let centralUUID: String
    private let eDeviceKey: PrivateKey
    private let authority: IssuingAuthority

    package static let namespace = "org.iso.18013.5.1"

    package init(authority: IssuingAuthority, peripheralServer: Bool = true, centralClient: Bool = true) throws {
        self.authority = authority
        eDeviceKey = try PrivateKey.generate(curve: .p256)
        eDeviceKeyBytes = CBORNode.embedded(try COSEKey.node(for: eDeviceKey.publicKey)).encoded()
        let peripheral = SecureRandom.bytes(16)
        let central = SecureRandom.bytes(16)
        peripheralUUID = Self.uuid(peripheral)
        centralUUID = Self.uuid(central)
        var options: [CBORNode.Entry] = [
            .init(.int(0), .bool(peripheralServer)), .init(.int(1), .bool(centralClient)),
        ]
        if peripheralServer { options.append(.init(.int(10), .bytes(peripheral))) }
        if centralClient { options.append(.init(.int(11), .bytes(central))) }
        engagement = CBORNode.map([
            .init(.int(0), .text("1.0")),
            .init(.int(1), .array([.int(1), .raw(eDeviceKeyBytes[...])])),
            .init(.int(2), .array([.array([.int(2), .int(1), .map(options)])])),
        ]).encoded()
        uri = DeviceEngagement.uriScheme + Base64URL.encode(engagement)
    }

    /// The Ident this holder expects in central client mode (§8.3.3.1.1.4), computed here on
    /// its own: HKDF-SHA-256 over EDeviceKeyBytes, no salt, info "BLEIdent", 16 bytes.
    package func expectedIdent(wrong: Bool) throws -> [UInt8] {
        let ikm = wrong ? eDeviceKeyBytes + [0] : eDeviceKeyBytes
        return try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: SecureBytes(ikm), salt: [], info: Array("BLEIdent".utf8), outputByteCount: 16).bytes
    }

    /// The reader's SessionEstablishment: derives the keys, decrypts the DeviceRequest, and
    /// returns the SessionData that answers it (a signed mDL with the requested elements).
    package func answer(establishment message: [UInt8], status: UInt64? = nil) throws -> [UInt8] {
        let establishment = try SessionEstablishment(try CBOR(decoding: message))
        let engagementBytes = CBORNode.embedded(raw: engagement[...]).encoded()
        let transcript = try SessionTranscript(
            deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: establishment.eReaderKeyBytes.encoded)
        // ECDH is symmetric: the holder's private key with the reader's public key.
        let keys = try SessionKeys(readerPrivateKey: eDeviceKey, eDeviceKey: try establishment.eReaderKey.publicKey(), transcript: transcript)
        let requestBytes = try keys.decrypt(establishment.data, direction: .readerToDevice, counter: 1)
        if let status { return CBORNode.map([.init(.text("status"), .unsigned(status))]).encoded() }
        let request = try DeviceRequest(try CBOR(decoding: requestBytes))
        let requested = Set(request.docRequests.flatMap { $0.requested.flatMap { $0.elements.map(\.identifier) } })
        let now = Date()
        let elements = Self.elements(now: now)
        let disclosed = elements.filter { requested.contains($0.identifier) }
        var spec = DocumentSpec(
            disclosed: disclosed, signed: now.addingTimeInterval(-86_400), validityDays: 365, deviceKey: try PrivateKey.generate(curve: .p256))
        spec.undisclosed = elements.filter { !requested.contains($0.identifier) }
        let document = try MdocIssuer.document(spec, authority: authority, transcript: transcript)
        let response = MdocIssuer.deviceResponse(documents: [document])
        // The holder's first message of the session: counter 1 (§9.1.1.5).
        let ciphertext = try keys.encrypt(response, direction: .deviceToReader, counter: 1)
        return CBORNode.map([.init(.text("data"), .bytes(ciphertext))]).encoded()
    }

    /// The status of a SessionData from the reader (after the answer), if it decrypts and has one.
    package func readerStatus(_ message: [UInt8]) -> UInt64? {
        guard let item = try? CBOR(decoding: message), let data = try? SessionData(item) else { return nil }
        return data.status
    }

    /// An invented holder's data elements (§7.2.1), with a portrait large enough that the answer
    /// spans many chunks.
    package static func elements(now: Date) -> [SampleElement] {
        let day: TimeInterval = 86_400
        var portrait: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0]
        portrait += SecureRandom.bytes(3_000)
        portrait += [0xFF, 0xD9]
        return [
            SampleElement(namespace, "family_name", .text("Müller")),
            SampleElement(namespace, "given_name", .text("Anna")),
            SampleElement(namespace, "birth_date", MdocIssuer.fullDate(now.addingTimeInterval(-30 * 365 * day))),
            SampleElement(namespace, "issue_date", MdocIssuer.fullDate(now.addingTimeInterval(-100 * day))),
            SampleElement(namespace, "expiry_date", MdocIssuer.fullDate(now.addingTimeInterval(3_000 * day))),
            SampleElement(namespace, "issuing_country", .text("UT")),
            SampleElement(namespace, "issuing_authority", .text("Utopia Motor Vehicles")),
            SampleElement(namespace, "document_number", .text("D12345678")),
            SampleElement(namespace, "portrait", .bytes(portrait)),
            SampleElement(namespace, "driving_privileges", .array([.map([.init("vehicle_category_code", .text("B"))])])),
            SampleElement(namespace, "age_over_18", .bool(true)),
            SampleElement(namespace, "age_over_21", .bool(true)),
        ]
    }

    package static func uuid(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }
}
