/// The outcome of checking one run: its manifest (when it has one) against the proofs it lists,
/// or, for a run that never finished, its run file alone.
package struct RunCheck: Sendable {
    /// What does not hold, each with where it is.
    package enum Problem: Sendable, Hashable, CustomStringConvertible {
        /// The manifest's own signature does not verify.
        case manifestSignature
        /// The run's signer (the manifest's, or a run file's first proof's) is not trusted.
        case untrustedSigner(reason: String)
        /// The manifest file is no signed run manifest.
        case unreadableManifest(String)
        /// The manifest does not hold together (count, Merkle root, order, repeated codes...).
        case inconsistentManifest(String)
        /// The run file the manifest names is not there.
        case runFileMissing(path: String)
        /// The run file is shorter than the length the manifest committed to.
        case runFileShorter(length: Int, committed: Int)
        /// Bytes that are no CBOR record; reading went on at the next listed offset, if any.
        case unreadable(offset: Int, reason: String)
        /// A record cut short at the end, or bytes past the committed length.
        case tornTail(RunFile.Tail)
        /// A listed proof found nowhere.
        case missing(referenceCode: String, listedOffset: Int?)
        /// A listed proof whose bytes differ from what the manifest committed to.
        case altered(referenceCode: String, offset: Int?)
        /// A listed proof that appears a second time.
        case duplicated(referenceCode: String, offset: Int)
        /// A listed proof out of the order the manifest lists.
        case reordered(referenceCode: String, offset: Int, listedOffset: Int)
        /// A record the manifest does not list (nil code: not an mdocverify proof).
        case unlisted(referenceCode: String?, offset: Int)
        /// A listed proof in the right order at another offset than listed.
        case misplaced(referenceCode: String, offset: Int, listedOffset: Int)
        /// A proof whose signature does not verify.
        case badSignature(referenceCode: String, offset: Int?)
        /// A proof signed with another certificate than the run's manifest, or not trusted.
        case otherSigner(referenceCode: String, offset: Int?, reason: String)

        /// The problem's kind, a stable code.
        package enum Kind: String, Sendable, Hashable {
            case manifestSignature, untrustedSigner, unreadableManifest, inconsistentManifest, runFileMissing, runFileShorter
            case unreadable, tornTail, missing, altered, duplicated, reordered, unlisted, misplaced, badSignature, otherSigner
        }

        package var kind: Kind {
            switch self {
            case .manifestSignature: .manifestSignature
            case .untrustedSigner: .untrustedSigner
            case .unreadableManifest: .unreadableManifest
            case .inconsistentManifest: .inconsistentManifest
            case .runFileMissing: .runFileMissing
            case .runFileShorter: .runFileShorter
            case .unreadable: .unreadable
            case .tornTail: .tornTail
            case .missing: .missing
            case .altered: .altered
            case .duplicated: .duplicated
            case .reordered: .reordered
            case .unlisted: .unlisted
            case .misplaced: .misplaced
            case .badSignature: .badSignature
            case .otherSigner: .otherSigner
            }
        }

        package var description: String {
            func at(_ offset: Int?) -> String { offset.map { " at offset \($0)" } ?? "" }
            switch self {
            case .manifestSignature: return "the manifest's signature does not verify"
            case .untrustedSigner(let reason): return "the run's signer is not trusted: \(reason)"
            case .unreadableManifest(let why): return "unreadable manifest: \(why)"
            case .inconsistentManifest(let what): return "inconsistent manifest: \(what)"
            case .runFileMissing(let path): return "the run file \(path) is missing"
            case .runFileShorter(let length, let committed):
                return "the run file is \(length) bytes, shorter than the \(committed) bytes committed"
            case .unreadable(let offset, let reason): return "unreadable bytes at offset \(offset): \(reason)"
            case .tornTail(let tail): return "torn tail: \(tail)"
            case .missing(let code, let listed): return "missing proof \(code) (listed\(at(listed)), not in the run's proofs)"
            case .altered(let code, let offset): return "altered proof \(code)\(at(offset)) (its SHA-256 differs from the manifest)"
            case .duplicated(let code, let offset): return "duplicated proof \(code)\(at(offset)) (already read earlier in the file)"
            case .reordered(let code, let offset, let listed):
                return "reordered proof \(code) at offset \(offset) (listed at offset \(listed), out of the listed order)"
            case .unlisted(let code, let offset):
                return code.map { "unlisted proof \($0) at offset \(offset)" } ?? "a record at offset \(offset) that is no mdocverify proof"
            case .misplaced(let code, let offset, let listed): return "proof \(code) at offset \(offset), listed at offset \(listed)"
            case .badSignature(let code, let offset): return "proof \(code)\(at(offset)): the signature does not verify"
            case .otherSigner(let code, let offset, let reason): return "proof \(code)\(at(offset)): \(reason)"
            }
        }
    }

    package let runID: String
    /// The manifest checked, or nil for a run file without one (a run that did not finish).
    package let manifestPath: String?
    /// The run file, or the folder of proof files, that holds the run's proofs.
    package let proofsPath: String
    /// The manifest's signer (for a run file alone: its first proof's signer).
    package let signer: SignerStatus
    /// Proofs the manifest lists (records read, for a run file alone).
    package let proofCount: Int
    package let problems: [Problem]

    package var isIntact: Bool { problems.isEmpty }

    /// The kinds of the problems, in order.
    package var problemKinds: [Problem.Kind] { problems.map(\.kind) }
}
