import ArgumentParser
import Foundation
import MdocCBOR
import MdocCrypto
import MdocProof

/// `mdocverify proof verify|show`.
struct ProofCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "proof",
        abstract: "Check or show signed proof bundles and run manifests.",
        subcommands: [ProofVerifyCommand.self, ProofShowCommand.self])
}

struct ProofVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify a proof (.cose), a run manifest (runs/<run>.cose, with every proof it lists), or an output folder.",
        discussion: "Exit codes: 0 everything verifies; 1 a signature, a proof or the manifest does not; 2 usage error.")

    @Argument(help: "A proof file, a run manifest, or an output folder (every run manifest in it).")
    var path: String

    @Option(name: .long, help: "Require this signer certificate (PEM or DER) instead of trusting the one in x5chain.")
    var cert: String?

    func run() throws {
        var expected: Certificate?
        if let cert {
            do {
                expected = try Certificate.parseAll(pemOrDER: try InputFile.read(cert)).first
            } catch {
                throw SetupError("--cert \(cert) is not a certificate: \(error)")
            }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SetupError("\(path) does not exist")
        }
        var allGood = true
        if isDirectory.boolValue {
            let runs = (path as NSString).appendingPathComponent("runs")
            let manifests = ((try? FileManager.default.contentsOfDirectory(atPath: runs)) ?? []).filter { $0.hasSuffix(".cose") }.sorted()
            guard !manifests.isEmpty else { throw SetupError("\(path) has no runs/*.cose manifest: give a proof or manifest file") }
            for name in manifests {
                allGood = verifyFile((runs as NSString).appendingPathComponent(name), expected: expected) && allGood
            }
        } else {
            allGood = verifyFile(path, expected: expected)
        }
        if !allGood { throw ExitCode(1) }
    }

    /// Verifies one file; prints one line (and the problems) for it.
    func verifyFile(_ file: String, expected: Certificate?) -> Bool {
        let bytes: [UInt8]
        do { bytes = try InputFile.read(file) } catch {
            print("\(Style.red("✗")) \(file): \(error)")
            return false
        }
        do {
            let opened = try ProofVerifier.open(bytes, expectedSigner: expected)
            if opened.contentType == ProofFormat.manifestContentType {
                // <out>/runs/<run>.cose → <out>/proofs/<run>/
                let out = ((file as NSString).deletingLastPathComponent as NSString).deletingLastPathComponent
                let proofs = (out as NSString).appendingPathComponent("proofs")
                let report = try ProofVerifier.verifyManifest(bytes, proofsRoot: proofs, expectedSigner: expected)
                if report.ok {
                    print("\(Style.green("✓")) run \(report.runID): manifest signature valid, \(report.listed) proof(s) present, unaltered and signed, Merkle root matches")
                    return true
                }
                print("\(Style.red("✗")) run \(report.runID): \(file)")
                if !report.signatureValid { print("    the manifest signature does not verify") }
                if !report.merkleRootValid { print("    the Merkle root does not match the listed proofs") }
                for code in report.missing { print("    missing proof: \(code).cose") }
                for code in report.altered { print("    altered proof: \(code).cose (its SHA-256 differs from the manifest)") }
                for code in report.badSignatures { print("    proof with a bad signature or another signer: \(code).cose") }
                return false
            }
            let reference = opened.payload.map?["referenceCode"]?.text ?? "?"
            if opened.signatureValid {
                print("\(Style.green("✓")) proof \(reference): signature valid, signed by \(opened.signer.subject.rfc2253)")
                return true
            }
            print("\(Style.red("✗")) proof \(reference): the signature does not verify (\(file))")
            return false
        } catch {
            print("\(Style.red("✗")) \(file): \(error)")
            return false
        }
    }
}

struct ProofShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print the evidence of a proof (or a run manifest) as JSON.")

    @Argument(help: "A proof or run manifest file.")
    var file: String

    func run() throws {
        let bytes = try InputFile.read(file)
        let opened: ProofVerifier.Opened
        do {
            opened = try ProofVerifier.open(bytes)
        } catch {
            throw SetupError("\(file): \(error)")
        }
        var pairs: [(String, JSONValue)] = [
            ("signatureValid", .bool(opened.signatureValid)),
            ("signer", .string(opened.signer.subject.rfc2253)),
            ("signerSHA256", .string(opened.signer.fingerprintHex)),
            ("contentType", .optional(opened.contentType)),
        ]
        pairs.append(("evidence", Self.json(opened.payload)))
        print(JSONValue.object(pairs).serialized())
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
                !(item.array ?? []).isEmpty
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
