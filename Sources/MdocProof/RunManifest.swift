package import Foundation
package import MdocCBOR
import MdocTime

/// The payload of a signed run manifest (content type ``ProofFormat/manifestContentType``):
/// the run id, when it was signed, every proof of the run (reference code and SHA-256, sorted by
/// reference code) with their count and Merkle root (``MerkleTree``), and the run file that
/// holds them with its committed length and each proof's offset and length in it.
///
/// ```
/// { "format": tstr, "runID": tstr, "createdAt": #6.0(tstr), "proofCount": uint,
///   "merkleRoot": bstr, "proofs": [* [code: tstr, sha256: bstr, offset: uint, length: uint]],
///   "runFile": { "name": tstr, "length": uint } }
/// ```
/// A run whose proofs are files of their own (`<out>/proofs/<run>/<code>.cose`) has no
/// `runFile` and lists `[code, sha256]` pairs.
package struct RunManifest: Sendable {
    package struct Entry: Sendable, Hashable {
        package let referenceCode: String
        package let sha256: [UInt8]
        /// Where the proof lies in the run file (nil when proofs are files of their own).
        package let offset: Int?
        package let length: Int?
    }

    /// The run file a manifest commits to: its name in `<out>/proofs/` and its length when signed.
    package struct RunFileCommitment: Sendable, Hashable {
        package let name: String
        package let length: Int

        package init(name: String, length: Int) {
            self.name = name
            self.length = length
        }
    }

    /// An inconsistent manifest: refused when building one, reported when verifying one.
    package struct Failure: Error, Sendable, Hashable, CustomStringConvertible {
        package let description: String
    }

    package let runID: String
    /// The signing time as written (RFC 3339).
    package let createdAt: String
    package let runFile: RunFileCommitment?
    /// The proofs as listed: sorted by reference code when built here.
    package let entries: [Entry]
    /// The count and root the manifest states (equal to the entries' when built here).
    package let statedCount: Int
    package let statedRoot: [UInt8]

    /// The Merkle root of the entries as listed.
    package var merkleRoot: [UInt8] { MerkleTree.root(leaves: entries.map(\.sha256)) }

    /// A manifest for the proofs appended to the run file `runFile` (of `runFileLength` bytes).
    /// Refuses two proofs for one reference code (different or the same appended twice), a
    /// malformed reference code, and locations outside the file or overlapping.
    package init(runID: String, createdAt: Date, runFileLength: Int, proofs: [RunFile.Location]) throws(Failure) {
        let entries = proofs.map { Entry(referenceCode: $0.referenceCode, sha256: $0.sha256, offset: $0.offset, length: $0.length) }
        try self.init(
            runID: runID, createdAt: createdAt, entries: entries,
            runFile: RunFileCommitment(name: RunFile.fileName(runID: runID), length: runFileLength))
    }

    /// A manifest for proofs written as files of their own. The same proof listed twice is
    /// listed once; two different proofs for one reference code are refused.
    package init(runID: String, createdAt: Date, proofFiles: [(referenceCode: String, sha256: [UInt8])]) throws(Failure) {
        var seen = Set<Entry>()
        let entries = proofFiles.map { Entry(referenceCode: $0.referenceCode, sha256: $0.sha256, offset: nil, length: nil) }
            .filter { seen.insert($0).inserted }
        try self.init(runID: runID, createdAt: createdAt, entries: entries, runFile: nil)
    }

    private init(runID: String, createdAt: Date, entries: [Entry], runFile: RunFileCommitment?) throws(Failure) {
        self.runID = runID
        self.createdAt = RFC3339.format(createdAt)
        self.runFile = runFile
        self.entries = entries.sorted { $0.referenceCode < $1.referenceCode }
        self.statedCount = entries.count
        self.statedRoot = MerkleTree.root(leaves: self.entries.map(\.sha256))
        // The root was just computed from the entries: only the rest can be inconsistent.
        if let first = inconsistencies(checkingRoot: false).first { throw first }
    }

    /// Reads a manifest's payload. Only its shape is checked here; ``inconsistencies()`` and
    /// the root tell whether what it lists holds together.
    package init(payload: CBOR) throws(Failure) {
        guard let map = payload.map, map["format"]?.text == ProofFormat.manifestContentType else {
            throw Self.notAManifest("no manifest format")
        }
        // runID as in JSON Lines and the report; manifests signed before the names were one say runId.
        guard let runID = (map["runID"] ?? map["runId"])?.text else { throw Self.notAManifest("no runID") }
        guard let createdAt = Self.instantText(map["createdAt"]) else { throw Self.notAManifest("no createdAt") }
        guard let count = map["proofCount"].flatMap(Self.count), let root = map["merkleRoot"]?.bytes,
            let listed = map["proofs"]?.array
        else { throw Self.notAManifest("no proofCount, merkleRoot or proofs") }
        var entries: [Entry] = []
        entries.reserveCapacity(listed.count)
        for item in listed {
            switch Self.entry(item) {
            case .success(let entry): entries.append(entry)
            case .failure(let failure): throw failure
            }
        }
        var runFile: RunFileCommitment?
        if let file = map["runFile"] {
            guard let name = file.map?["name"]?.text, let length = file.map?["length"].flatMap(Self.count) else {
                throw Self.notAManifest("runFile is not {name, length}")
            }
            runFile = RunFileCommitment(name: name, length: length)
        }
        self.runID = runID
        self.createdAt = createdAt
        self.runFile = runFile
        self.entries = entries
        self.statedCount = count
        self.statedRoot = Array(root)
    }

    /// `createdAt`: a tdate (tag 0) or plain text.
    private static func instantText(_ item: CBOR?) -> String? {
        guard let item else { return nil }
        return item.tagContent?.text ?? item.text
    }

    /// An unsigned integer that fits an `Int`.
    private static func count(_ item: CBOR) -> Int? {
        guard let value = item.uint else { return nil }
        return Int(exactly: value)
    }

    /// One entry of `proofs`: `[code, sha256]` or `[code, sha256, offset, length]`, or what is
    /// wrong with it.
    private static func entry(_ item: CBOR) -> Result<Entry, Failure> {
        let fields = item.array ?? .empty
        guard fields.count == 2 || fields.count == 4, let code = fields[0].text, let hash = fields[1].bytes else {
            return .failure(notAManifest("a proof entry is not [code, sha256] or [code, sha256, offset, length]"))
        }
        guard fields.count == 4 else { return .success(Entry(referenceCode: code, sha256: Array(hash), offset: nil, length: nil)) }
        guard let offset = count(fields[2]), let length = count(fields[3]) else {
            return .failure(notAManifest("a proof entry's offset or length is not a count"))
        }
        return .success(Entry(referenceCode: code, sha256: Array(hash), offset: offset, length: length))
    }

    private static func notAManifest(_ what: String) -> Failure {
        Failure(description: "not an mdocverify run manifest: \(what)")
    }

    /// The deterministic CBOR of the payload (RFC 8949 §4.2.1), written straight into bytes: the
    /// keys in their deterministic order (shorter encoded keys first, then bytewise), one entry
    /// per proof of the run with no ``CBORNode`` made for it. The bytes are those of the same
    /// map built as ``CBORNode`` values (a test compares them).
    package func payload() -> [UInt8] {
        var out = ProofCBORWriter()
        out.reserve(256 + entries.count * 64)
        out.mapHead(runFile == nil ? 6 : 7)
        out.fixed("runID"); out.text(runID)
        out.fixed("format"); out.text(ProofFormat.manifestContentType)
        out.fixed("proofs")
        out.arrayHead(entries.count)
        for entry in entries {
            if let offset = entry.offset, let length = entry.length {
                out.arrayHead(4)
                out.text(entry.referenceCode)
                out.bytes(entry.sha256)
                out.head(0, UInt64(offset))
                out.head(0, UInt64(length))
            } else {
                out.arrayHead(2)
                out.text(entry.referenceCode)
                out.bytes(entry.sha256)
            }
        }
        if let runFile {
            out.fixed("runFile")
            out.mapHead(2)
            out.fixed("name"); out.text(runFile.name)
            out.fixed("length"); out.head(0, UInt64(runFile.length))
        }
        out.fixed("createdAt"); out.buffer.append(0xc0); out.text(createdAt)
        out.fixed("merkleRoot"); out.bytes(statedRoot)
        out.fixed("proofCount"); out.head(0, UInt64(statedCount))
        return out.buffer
    }

    /// Everything that does not hold together, in the order met: a run id that is no file
    /// name, a run file not named after the run, malformed, unsorted or repeated reference
    /// codes, locations missing, outside the committed length or overlapping, and a stated
    /// count or root that is not the entries'.
    package func inconsistencies() -> [Failure] { inconsistencies(checkingRoot: true) }

    private func inconsistencies(checkingRoot: Bool) -> [Failure] {
        var found: [Failure] = []
        if !Self.isSafeName(runID) { found.append(Failure(description: "the run id \(runID.debugDescription) is not a file name")) }
        if let runFile, runFile.name != RunFile.fileName(runID: runID) {
            found.append(Failure(description: "the run file \(runFile.name.debugDescription) is not named after run \(runID)"))
        }
        var previous: Entry?
        for entry in entries {
            if !ReferenceCode.isWellFormed(entry.referenceCode) {
                found.append(Failure(description: "\(entry.referenceCode.debugDescription) is not a reference code"))
            }
            if let previous, previous.referenceCode == entry.referenceCode {
                found.append(Failure(description: previous.sha256 == entry.sha256
                    ? "the proof \(entry.referenceCode) is listed twice"
                    : "two different proofs for reference code \(entry.referenceCode) in one run"))
            } else if let previous, previous.referenceCode > entry.referenceCode {
                found.append(Failure(description: "the proofs are not sorted by reference code (\(entry.referenceCode))"))
            }
            if (entry.offset != nil) != (runFile != nil) {
                found.append(Failure(description: "the proof \(entry.referenceCode) has no place in the run file, or a run file is missing"))
            }
            previous = entry
        }
        if let runFile {
            var end = 0
            for entry in entries.sorted(by: { ($0.offset ?? 0) < ($1.offset ?? 0) }) {
                guard let offset = entry.offset, let length = entry.length else { continue }
                if offset < end || length <= 0 || length > runFile.length - offset {
                    found.append(Failure(description: "the proof \(entry.referenceCode) at offset \(offset) overlaps another or lies outside the run file"))
                }
                let (next, overflow) = offset.addingReportingOverflow(length)
                end = overflow ? Int.max : max(end, next)
            }
        }
        if statedCount != entries.count {
            found.append(Failure(description: "the manifest states \(statedCount) proofs and lists \(entries.count)"))
        }
        if checkingRoot && statedRoot != merkleRoot { found.append(Failure(description: "the Merkle root does not match the listed proofs")) }
        return found
    }

    /// A run id usable as one path component: letters, digits, `-`, `_`, `.`, not `.` or `..`.
    static func isSafeName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 200, name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2d || byte == 0x5f || byte == 0x2e
        }
    }
}
