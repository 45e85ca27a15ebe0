import ArgumentParser
import Foundation
import MdocCBOR
import MdocCrypto
import MdocProof

/// `mdocverify proof show`: what a proof, a run manifest or a run file holds.
struct ProofShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a proof, a run manifest or a run file: text on a terminal, JSON on a pipe.",
        discussion: "Exit codes: 0 shown; 2 usage error, or not a proof, manifest or run file; 130 interrupted (Ctrl-C).")

    @Argument(help: "A proof (.cose), a run manifest (runs/<run>.cose) or a run file (.cbor-seq).")
    var file: String

    @Option(name: .long, help: "text or json (default: text on a terminal, json otherwise).")
    var format: OutputFormat?

    @Flag(name: .long, help: "Text: every check, not only those that did not pass.")
    var verbose = false

    @OptionGroup var signer: SignerOptions

    func run() throws {
        let policy = try signer.policy()
        let json = (format ?? (isatty(STDOUT_FILENO) == 1 ? .text : .json)) == .json
        if file.hasSuffix(".\(RunFile.fileExtension)") {
            return try showRunFile(json: json)
        }
        let opened: ProofVerifier.Opened
        do {
            opened = try ProofVerifier.open(try InputFile.read(file), policy: policy)
        } catch let error as SetupError {
            throw error
        } catch {
            throw SetupError("\(file): \(error)")
        }
        guard opened.isProof || opened.isManifest else {
            throw SetupError("\(file) is signed, but is not an mdocverify proof or run manifest")
        }
        if json {
            print(JSONValue.object([
                ("signatureValid", .bool(opened.signatureValid)),
                ("signer", Self.json(opened.signer)),
                ("embeddedCertificate", [
                    "subject": .string(opened.embeddedCertificate.subject.rfc2253),
                    "sha256": .string(opened.embeddedCertificate.fingerprintHex),
                ]),
                ("contentType", .optional(opened.contentType)),
                ("evidence", Self.json(opened.payload)),
            ]).serialized())
        } else {
            ProofText.printSignature(opened)
            if opened.isProof { ProofText.printProof(opened, allChecks: verbose) } else { ProofText.printManifest(opened) }
        }
    }

    /// Every record of a run file: offset, length, reference code, verdict, signature; then the tail.
    func showRunFile(json: Bool) throws {
        let reader: RunFileReader
        do {
            reader = try RunFileReader(path: file)
        } catch {
            throw SetupError("\(file): \(error.reason)")
        }
        var records: [JSONValue] = []
        var failure: RunFile.Failure?
        if !json { print("run file \(TerminalText.escaped(file)) (\(reader.fileLength) bytes)") }
        while true {
            let record: RunFile.Record
            do {
                guard let next = try reader.next() else { break }
                record = next
            } catch {
                failure = error
                break
            }
            let opened = try? ProofVerifier.open(item: record.item)
            let code = opened?.referenceCode
            let verdict = opened?.payload.map?["verdict"]?.text
            if json {
                records.append([
                    "offset": .integer(Int64(record.offset)), "length": .integer(Int64(record.length)),
                    "sha256": .string(hexString(record.sha256)), "referenceCode": .optional(code), "verdict": .optional(verdict),
                    "signatureValid": .bool(opened?.signatureValid ?? false),
                ])
            } else {
                let signature = opened == nil ? "not a proof" : opened?.signatureValid == true ? "signature valid" : "signature INVALID"
                print(String(format: "  %10d  %7d  ", record.offset, record.length)
                    + "\(TerminalText.escaped(code ?? "?"))  \(TerminalText.escaped(verdict ?? "?"))  \(signature)")
            }
        }
        if json {
            var pairs: [(String, JSONValue)] = [("runFile", .string(file)), ("length", .integer(Int64(reader.fileLength))), ("records", .array(records))]
            pairs.append(("tornTail", reader.tail.map { ["offset": .integer(Int64($0.offset)), "length": .integer(Int64($0.length))] } ?? .null))
            pairs.append(("unreadable", failure.map { .string($0.description) } ?? .null))
            print(JSONValue.object(pairs).serialized())
        } else {
            print("  \(Counting.of(reader.recordCount, "record"))")
            if let tail = reader.tail { print("  torn tail: \(tail)") }
            if let failure { print("  \(TerminalText.escaped(failure.description))") }
            print("  (signatures only: `mdocverify proof verify` checks the run against its manifest and its signer)")
        }
    }

    static func json(_ signer: SignerStatus) -> JSONValue {
        switch signer {
        case .notChecked: "not checked"
        case .trusted(let subject, let sha256): ["trusted": .string(subject), "sha256": .string(sha256)]
        case .untrusted(let reason): ["untrusted": .string(reason)]
        }
    }

    /// CBOR → JSON: byte strings as hex, tdate tags as their text, check evidence pairs as objects.
    static func json(_ item: CBOR) -> JSONValue {
        switch item.value {
        case .unsigned(let n): return n <= UInt64(Int64.max) ? .integer(Int64(n)) : .string(String(n))
        case .negative(let n): return n < UInt64(Int64.max) ? .integer(-1 - Int64(n)) : .string("-1-\(n)")
        case .bytes(let bytes): return .string(hexString(bytes))
        case .text(let text): return .string(text)
        case .array(let items):
            if item.array?.allSatisfy({ $0.array?.count == 2 && $0.array?.first?.text != nil && $0.array?.last?.text != nil }) == true,
                !(item.array ?? .empty).isEmpty
            {
                return .object(items.compactMap { pair in
                    guard let array = pair.array, array.count == 2, let key = array[0].text else { return nil }
                    return (key, json(array[1]))
                })
            }
            return .array(items.map(json))
        case .map(let map):
            return .object(map.map { ($0.key.text ?? $0.key.diagnostic(expandEmbedded: false, pretty: false), json($0.value)) })
        case .tagged(_, let content): return json(content)
        case .bool(let b): return .bool(b)
        case .null, .undefined: return .null
        case .simple(let v): return .integer(Int64(v))
        case .float(let d): return .number(d)
        }
    }
}
