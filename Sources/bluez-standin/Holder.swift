import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocSamples

/// How the stand-in's holder misbehaves (or not).
enum Scenario: String, CaseIterable {
    /// Answers with a signed mDL and ends cleanly.
    case valid
    /// Disconnects in the middle of its answer.
    case disconnect
    /// Answers SessionData status 10 (session encryption error).
    case status10
    /// Answers SessionData status 11 (CBOR decoding error).
    case status11
    /// Sends more than 4 MiB in one message.
    case oversize
    /// Sends a chunk whose header byte is neither 0x00 nor 0x01.
    case garbage
    /// Sends part of its answer, then ends the session on State without the last chunk.
    case truncated
    /// Central client mode: expects another Ident and leaves after reading the reader's.
    case wrongIdent = "wrong-ident"
    /// Never answers the request.
    case silent
    /// BlueZ without an adapter.
    case noAdapter = "no-adapter"
    /// An adapter that is powered off.
    case adapterOff = "adapter-off"
}

/// One engagement of the stand-in's holder: its ephemeral key, its service UUIDs, and the
/// session it plays when a reader sends SessionEstablishment (real 18013-5 session encryption,
/// a real signed mDL issued for the session's transcript).
final class Holder: @unchecked Sendable {
    // @unchecked Sendable: `keys`, `counter` and `transcript` are set once, by the one task that
    // handles the reader's messages for this holder.
    let uri: String
    let engagement: [UInt8]
    let eDeviceKeyBytes: [UInt8]
    let peripheralUUID: String
    let centralUUID: String
    let peripheralUUIDBytes: [UInt8]
    private let eDeviceKey: PrivateKey
    private let authority: IssuingAuthority
    private var keys: SessionKeys?
    private var transcript: SessionTranscript?
    private var sentCounter: UInt32 = 0

    static let namespace = "org.iso.18013.5.1"

    init(authority: IssuingAuthority, offer: Set<String>) throws {
        self.authority = authority
        eDeviceKey = try PrivateKey.generate(curve: .p256)
        eDeviceKeyBytes = CBORNode.embedded(try COSEKey.node(for: eDeviceKey.publicKey)).encoded()
        let peripheral = SecureRandom.bytes(16)
        let central = SecureRandom.bytes(16)
        peripheralUUIDBytes = peripheral
        peripheralUUID = Self.uuid(peripheral)
        centralUUID = Self.uuid(central)
        var options: [CBORNode.Entry] = [
            .init(.int(0), .bool(offer.contains("peripheral-server"))), .init(.int(1), .bool(offer.contains("central-client"))),
        ]
        if offer.contains("peripheral-server") { options.append(.init(.int(10), .bytes(peripheral))) }
        if offer.contains("central-client") { options.append(.init(.int(11), .bytes(central))) }
        engagement = CBORNode.map([
            .init(.int(0), .text("1.0")),
            .init(.int(1), .array([.int(1), .raw(eDeviceKeyBytes[...])])),
            .init(.int(2), .array([.array([.int(2), .int(1), .map(options)])])),
        ]).encoded()
        uri = DeviceEngagement.uriScheme + Base64URL.encode(engagement)
    }

    /// The Ident this holder expects in central client mode (§8.3.3.1.1.4), computed here on
    /// its own: HKDF-SHA-256 over EDeviceKeyBytes, no salt, info "BLEIdent", 16 bytes.
    func expectedIdent(wrong: Bool) throws -> [UInt8] {
        let ikm = wrong ? eDeviceKeyBytes + [0] : eDeviceKeyBytes
        return try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: SecureBytes(ikm), salt: [], info: Array("BLEIdent".utf8), outputByteCount: 16).bytes
    }

    /// The reader's SessionEstablishment: derives the keys, decrypts the DeviceRequest, and
    /// returns the SessionData that answers it (a signed mDL with the requested elements).
    func answer(establishment message: [UInt8], status: UInt64? = nil) throws -> [UInt8] {
        let establishment = try SessionEstablishment(try CBOR(decoding: message))
        let engagementBytes = CBORNode.embedded(raw: engagement[...]).encoded()
        let transcript = try SessionTranscript(
            deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: establishment.eReaderKeyBytes.encoded)
        // ECDH is symmetric: the holder's private key with the reader's public key.
        let keys = try SessionKeys(readerPrivateKey: eDeviceKey, eDeviceKey: try establishment.eReaderKey.publicKey(), transcript: transcript)
        self.keys = keys
        self.transcript = transcript
        sentCounter = 0
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
        sentCounter += 1
        let ciphertext = try keys.encrypt(response, direction: .deviceToReader, counter: sentCounter)
        return CBORNode.map([.init(.text("data"), .bytes(ciphertext))]).encoded()
    }

    /// The status of a SessionData from the reader (after the answer), if it decrypts and has one.
    func readerStatus(_ message: [UInt8]) -> UInt64? {
        guard let item = try? CBOR(decoding: message), let data = try? SessionData(item) else { return nil }
        return data.status
    }

    /// An invented holder's data elements (§7.2.1), with a portrait large enough that the answer
    /// spans many chunks.
    static func elements(now: Date) -> [SampleElement] {
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

    static func uuid(_ bytes: [UInt8]) -> String {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.joined(separator: "-")
    }

    /// The holder's side of the framing (§8.3.3.1.1.6), written here on its own.
    static func chunks(_ message: [UInt8], mtu: Int) -> [[UInt8]] {
        let size = min(512, mtu - 3) - 1
        var out: [[UInt8]] = []
        var index = 0
        while index < message.count {
            let end = min(message.count, index + size)
            out.append([end == message.count ? 0x00 : 0x01] + message[index..<end])
            index = end
        }
        return out
    }
}

/// The holder's reassembly of the reader's chunks.
struct HolderInbox {
    var buffer: [UInt8] = []

    /// The whole message when `chunk` was its last part.
    mutating func add(_ chunk: [UInt8]) -> [UInt8]? {
        guard let first = chunk.first else { return nil }
        buffer += chunk.dropFirst()
        guard first == 0x00 else { return nil }
        defer { buffer = [] }
        return buffer
    }
}
