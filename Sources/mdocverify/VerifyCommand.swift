import ArgumentParser
import Foundation
import MdocChecks
import MdocCrypto
import MdocModel
import MdocTrust
import MdocVerification

/// `mdocverify verify`: verify DeviceResponses against a trust folder.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify DeviceResponse files against the IACA certificates of a trust folder.",
        discussion: """
            Every check is reported; a failure never hides another. Time-dependent checks are judged \
            at the verification time (--at, default now) and, when known, at the capture time.
            Exit codes: 0 every input valid; 1 at least one invalid or indeterminate; 2 usage or setup error.
            """)

    @Argument(help: "DeviceResponse files (.cbor).")
    var inputs: [String]

    @Option(name: .long, help: "Folder with the trusted IACA certificates (PEM or DER) and CRLs.")
    var trust: String

    @Option(name: .long, help: "Verification time, RFC 3339 (e.g. 2021-01-01T00:00:00Z). Default: now.")
    var at: String?

    @Option(name: .long, help: "SessionTranscriptBytes (CBOR, binary or hex) for device authentication.")
    var transcript: String?

    @Option(name: .customLong("reader-key"), help: "The reader's ephemeral private key (PKCS#8 PEM), needed for deviceMac.")
    var readerKey: String?

    @Option(name: .long, help: "Output: text (for people) or json (JSON Lines, one object per input).")
    var format: OutputFormat = .text

    @Flag(name: .customLong("keep-values"), help: "Include element values in the output (personal data).")
    var keepValues = false

    func validate() throws {
        if let at, CBORDate.parseRFC3339(at) == nil {
            throw ValidationError("--at \(at) is not an RFC 3339 time; write it like 2021-01-01T00:00:00Z")
        }
    }

    func run() async throws {
        let verificationTime = at.flatMap(CBORDate.parseRFC3339) ?? Date()
        let trustStore: TrustStore
        do {
            trustStore = try TrustStore(directory: trust)
        } catch {
            throw SetupError("\(error)")
        }
        let sessionTranscript = try transcript.map { path in
            do {
                return try SessionTranscript(decoding: try InputFile.readCBOR(path))
            } catch let error as SetupError {
                throw error
            } catch {
                throw SetupError("--transcript \(path) is not a SessionTranscript: \(error)")
            }
        }
        let readerPrivateKey = try readerKey.map { path in
            do {
                return try PrivateKey(pem: try InputFile.read(path))
            } catch let error as SetupError {
                throw error
            } catch {
                throw SetupError("--reader-key \(path) is not a PKCS#8 PEM private key: \(error)")
            }
        }
        let options = VerificationOptions(
            trust: trustStore, verificationTime: verificationTime, sessionTranscript: sessionTranscript,
            readerEphemeralKey: readerPrivateKey, keepValues: keepValues)
        let verifier = DeviceResponseVerifier(options: options)
        let renderer = OutcomeRenderer(format: format, verificationTime: verificationTime)

        var allValid = true
        for input in inputs {
            let name = (input as NSString).lastPathComponent
            let outcome: TransactionOutcomeView
            do {
                let bytes = try InputFile.read(input)
                let result = verifier.verify(bytes)
                outcome = TransactionOutcomeView(
                    name: name, source: input, verdict: result.verdict, verdictAtCapture: nil,
                    checks: result.checks, documents: result.documents)
            } catch {
                outcome = TransactionOutcomeView(
                    name: name, source: input, verdict: .invalid, verdictAtCapture: nil,
                    checks: [CheckResult(.inputReadable, .fail, "\(error)")], documents: [])
            }
            if outcome.verdict != .valid { allValid = false }
            renderer.render(outcome)
        }
        if format == .text && inputs.count > 1 { renderer.renderSummary() }
        if !allValid { throw ExitCode(1) }
    }
}

/// Reading input files with errors that say what is wrong.
enum InputFile {
    /// A named limit on a single input file read whole (responses, keys, transcripts).
    static let maxBytes = 64 * 1024 * 1024

    static func read(_ path: String) throws -> [UInt8] {
        let url = URL(fileURLWithPath: path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SetupError("\(path) does not exist")
        }
        guard !isDirectory.boolValue else { throw SetupError("\(path) is a folder, not a file") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? NSNumber, size.intValue > maxBytes {
            throw SetupError("\(path) is \(size.intValue) bytes, over the \(maxBytes)-byte limit for one file")
        }
        do {
            return Array(try Data(contentsOf: url))
        } catch {
            throw SetupError("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// Reads CBOR given as binary, or as hex text (as the Annex D vectors are).
    static func readCBOR(_ path: String) throws -> [UInt8] {
        let bytes = try read(path)
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty, text.utf8.count % 2 == 0, text.utf8.allSatisfy({ $0 < 0x80 && isxdigit(Int32($0)) != 0 }),
            let decoded = decodeHex(text)
        {
            return decoded
        }
        return bytes
    }

    static func decodeHex(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            guard let v = UInt8(String(UnicodeScalar(c)), radix: 16) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }
}
