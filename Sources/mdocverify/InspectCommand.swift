import ArgumentParser
import Foundation
import MdocCBOR
import MdocModel
import MdocTrust
import MdocVerification
import MdocFiles

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
            Exit codes: 0 shown; 1 the file could not be read, decoded or decrypted; 2 usage error; \
            130 interrupted (Ctrl-C).
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
        if name.hasPrefix("session-") && name != "session-transcript.cbor" {
            // The reader's key beside the message (a transaction folder), unless one is given.
            let beside = (FilePaths.parent(of: file) as NSString).appendingPathComponent("reader-key.pem")
            guard let key = readerKey ?? (FileManager.default.fileExists(atPath: beside) ? beside : nil) else {
                FileHandle.standardError.write(Data(
                    "mdocverify: \(file) is an encrypted session message; give the reader's key with --reader-key KEY.pem (no reader-key.pem beside it)\n".utf8))
                throw ExitCode(1)
            }
            if readerKey == nil { FileHandle.standardError.write(Data("mdocverify: decrypting with \(beside)\n".utf8)) }
            try inspectSession(name: name, readerKeyPath: key)
            return
        }
        if name == "engagement.txt" || String(decoding: bytes.prefix(5), as: UTF8.self).lowercased() == "mdoc:" {
            let uri = String(decoding: bytes, as: UTF8.self)
            let engagement = try DeviceEngagement.bytes(fromURI: uri)
            print(try CBOR(decoding: engagement).diagnostic(expandEmbedded: true, pretty: true))
            return
        }
        if let kind = Self.textKind(bytes) {
            FileHandle.standardError.write(Data(
                "mdocverify: \(file) is \(kind), not CBOR or an image; inspect shows CBOR files (binary or hex), engagement images and session messages\n".utf8))
            throw ExitCode(1)
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
        let folder = FilePaths.parent(of: file)
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

    /// What a text file is ("a JSON document", "a PEM file", "text"), or `nil` for bytes that
    /// may be CBOR (binary, or hex text, which ``InputFile/readCBOR(_:)`` reads).
    static func textKind(_ bytes: [UInt8]) -> String? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty { return "empty" }
        if trimmed.allSatisfy(\.isHexDigit) { return nil }
        if (trimmed.hasPrefix("{") || trimmed.hasPrefix("[")), (try? JSONSerialization.jsonObject(with: Data(trimmed.utf8))) != nil {
            return "a JSON document"
        }
        if trimmed.hasPrefix("-----BEGIN ") { return "a PEM file" }
        // Binary CBOR can be valid UTF-8 only by chance; text with a line break or a space is text.
        return trimmed.contains(where: { $0 == " " || $0 == "\n" }) ? "text" : nil
    }
}
