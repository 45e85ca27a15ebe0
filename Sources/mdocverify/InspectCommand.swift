import ArgumentParser
import Foundation
import MdocCBOR
import MdocModel
import MdocTrust
import MdocVerification

/// `mdocverify inspect FILE`: show what a captured file holds.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show a captured file: CBOR in diagnostic notation (tag-24 contents inline), a QR image's DeviceEngagement, or a decrypted session message.",
        discussion: """
            CBOR files may be binary or hex. An engagement image (PNG/JPEG) is decoded and its \
            DeviceEngagement printed. A session message (session-establishment.cbor, session-data*.cbor) \
            with --reader-key is decrypted using the other files of its transaction folder \
            (engagement, session-establishment.cbor or session-transcript.cbor).
            """)

    @Argument(help: "A CBOR file, an engagement image, or a session message.")
    var file: String

    @Option(name: .customLong("reader-key"), help: "The reader's ephemeral private key (PKCS#8 PEM), to decrypt a session message.")
    var readerKey: String?

    func run() throws {
        let bytes = try InputFile.read(file)
        if EngagementImage.looksLikeImage(bytes) {
            try EngagementImage.inspect(bytes, name: file)
            return
        }
        let name = (file as NSString).lastPathComponent
        if let readerKey, name.hasPrefix("session-") {
            try inspectSession(name: name, readerKeyPath: readerKey)
            return
        }
        if name == "engagement.txt" {
            let uri = String(decoding: bytes, as: UTF8.self)
            let engagement = try DeviceEngagement.bytes(fromURI: uri)
            print(try CBOR(decoding: engagement).diagnostic(expandEmbedded: true, pretty: true))
            return
        }
        let cbor = try InputFile.readCBOR(file)
        do {
            let item = try CBOR(decoding: cbor)
            print(item.diagnostic(expandEmbedded: true, pretty: true))
        } catch {
            FileHandle.standardError.write(Data("mdocverify: \(file) is not well-formed CBOR: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }

    /// Decrypts a session message with the files of its transaction folder.
    func inspectSession(name: String, readerKeyPath: String) throws {
        let folder = (file as NSString).deletingLastPathComponent
        func sibling(_ name: String) -> [UInt8]? {
            FileManager.default.contents(atPath: (folder as NSString).appendingPathComponent(name)).map { Array($0) }
        }
        var inputs = TransactionInputs()
        inputs.readerKeyPEM = try InputFile.read(readerKeyPath)
        inputs.sessionEstablishment = sibling("session-establishment.cbor")
        inputs.transcript = sibling("session-transcript.cbor")
        if let text = sibling("engagement.txt") {
            inputs.engagementText = text
        } else if let image = ["engagement.png", "engagement.jpg", "engagement.jpeg"].lazy.compactMap(sibling).first {
            inputs.engagementText = EngagementImage.uri(image).map { Array($0.utf8) }
        }
        let isData = name.hasPrefix("session-data")
        if isData { inputs.sessionData = [try InputFile.read(file)] }
        let verifier = Verifier(trust: TrustStore(anchors: []), verificationTime: Date(), policy: .sessionOpening)
        let opened = verifier.verify(inputs)
        for check in opened.checks where check.status != .pass {
            FileHandle.standardError.write(Data("\(check.status.rawValue) \(check.id): \(check.detail)\n".utf8))
        }
        let plain: [UInt8]?
        if isData {
            plain = opened.decryptedResponse
        } else {
            plain = opened.facts.deviceRequest.map { Array($0.encoded) }
        }
        guard let plain, let item = try? CBOR(decoding: plain) else {
            FileHandle.standardError.write(Data("mdocverify: \(file) could not be decrypted (see above)\n".utf8))
            throw ExitCode(1)
        }
        print(item.diagnostic(expandEmbedded: true, pretty: true))
    }
}
