import Foundation
import MdocCBOR
import MdocCrypto
import MdocProof
import XCTest

/// The run manifest: what it commits to, and the inconsistencies it refuses to sign.
final class RunManifestTests: XCTestCase {
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    func location(_ code: String, _ offset: Int, _ length: Int, _ fill: UInt8) -> RunFile.Location {
        RunFile.Location(referenceCode: code, offset: offset, length: length, sha256: Array(repeating: fill, count: 32))
    }

    func testAManifestListsItsProofsByReferenceCodeAndReadsBackTheSame() throws {
        let a = ReferenceCode.make(contentHash: Array(repeating: 1, count: 32))
        let b = ReferenceCode.make(contentHash: Array(repeating: 2, count: 32))
        let c = ReferenceCode.make(contentHash: Array(repeating: 3, count: 32))
        // Appended in another order than their codes.
        let proofs = [location(c, 0, 100, 3), location(a, 100, 50, 1), location(b, 150, 70, 2)]
        let manifest = try RunManifest(runID: "20261124T172000Z-abcdef", createdAt: now, runFileLength: 220, proofs: proofs)
        XCTAssertEqual(manifest.entries.map(\.referenceCode), [a, b, c])
        XCTAssertEqual(manifest.entries.map(\.offset), [100, 150, 0])
        XCTAssertEqual(manifest.merkleRoot, MerkleTree.root(leaves: [[UInt8](repeating: 1, count: 32), Array(repeating: 2, count: 32), Array(repeating: 3, count: 32)]))
        XCTAssertEqual(manifest.runFile, RunManifest.RunFileCommitment(name: "20261124T172000Z-abcdef.cbor-seq", length: 220))
        XCTAssertEqual(manifest.createdAt, "2026-09-21T14:13:20Z")

        let read = try RunManifest(payload: try CBOR(decoding: manifest.payload()))
        XCTAssertEqual(read.entries, manifest.entries)
        XCTAssertEqual(read.runFile, manifest.runFile)
        XCTAssertEqual(read.statedRoot, manifest.merkleRoot)
        XCTAssertEqual(read.statedCount, 3)
        XCTAssertEqual(read.createdAt, manifest.createdAt)
        XCTAssertTrue(read.inconsistencies().isEmpty)
        XCTAssertEqual(read.payload(), manifest.payload(), "deterministic: read back, it encodes to the same bytes")
        // The run is named runID, as in JSON Lines and the report.
        let payload = try CBOR(decoding: manifest.payload())
        XCTAssertEqual(payload.map?["runID"]?.text, "20261124T172000Z-abcdef")
        XCTAssertNil(payload.map?["runId"])
    }

    /// The payload is written straight into bytes: they must be those of the same map built as
    /// `CBORNode` values, with a run file and without, for small and large offsets and counts.
    func testThePayloadIsTheDeterministicEncodingOfItsMap() throws {
        var proofs: [RunFile.Location] = []
        var offset = 0
        for n in 0..<300 {
            let length = n == 7 ? 70_000 : 20 + n
            proofs.append(location(ReferenceCode.make(contentHash: [UInt8(truncatingIfNeeded: n), UInt8(n / 256), 9]), offset, length, UInt8(truncatingIfNeeded: n)))
            offset += length
        }
        for count in [0, 1, 23, 24, 300] {
            let inFile = try RunManifest(runID: "20261124T172000Z-abcdef", createdAt: now, runFileLength: offset, proofs: Array(proofs.prefix(count)))
            XCTAssertEqual(inFile.payload(), Self.reference(inFile), "\(count) proofs in a run file")
            let files = try RunManifest(
                runID: "r-\(count)", createdAt: now, proofFiles: proofs.prefix(count).map { ($0.referenceCode, $0.sha256) })
            XCTAssertEqual(files.payload(), Self.reference(files), "\(count) proof files")
        }
    }

    /// The manifest as `CBORNode` values (map entries sorted when encoded).
    static func reference(_ manifest: RunManifest) -> [UInt8] {
        var fields: [CBORNode.Entry] = [
            .init(.text("format"), .text(ProofFormat.manifestContentType)),
            .init(.text("runID"), .text(manifest.runID)),
            .init(.text("createdAt"), .tagged(0, .text(manifest.createdAt))),
            .init(.text("proofCount"), .unsigned(UInt64(manifest.statedCount))),
            .init(.text("merkleRoot"), .bytes(manifest.statedRoot)),
            .init(.text("proofs"), .array(manifest.entries.map { entry in
                var fields: [CBORNode] = [.text(entry.referenceCode), .bytes(entry.sha256)]
                if let offset = entry.offset, let length = entry.length {
                    fields += [.unsigned(UInt64(offset)), .unsigned(UInt64(length))]
                }
                return .array(fields)
            })),
        ]
        if let runFile = manifest.runFile {
            fields.append(.init(.text("runFile"), .map([
                .init(.text("name"), .text(runFile.name)), .init(.text("length"), .unsigned(UInt64(runFile.length))),
            ])))
        }
        return CBORNode.map(fields).encoded()
    }

    func testTwoProofsForOneReferenceCodeAreRefused() throws {
        let code = ReferenceCode.make(contentHash: Array(repeating: 7, count: 32))
        XCTAssertThrowsError(try RunManifest(
            runID: "r", createdAt: now, runFileLength: 200, proofs: [location(code, 0, 100, 1), location(code, 100, 100, 2)]
        )) { XCTAssertTrue("\($0)".contains("two different proofs for reference code \(code)"), "\($0)") }
        XCTAssertThrowsError(try RunManifest(
            runID: "r", createdAt: now, runFileLength: 200, proofs: [location(code, 0, 100, 1), location(code, 100, 100, 1)]
        )) { XCTAssertTrue("\($0)".contains("listed twice"), "\($0)") }
        // Proofs as files of their own: the same file listed twice is one proof, two versions are refused.
        let once = try RunManifest(runID: "r", createdAt: now, proofFiles: [(code, Array(repeating: 1, count: 32)), (code, Array(repeating: 1, count: 32))])
        XCTAssertEqual(once.entries.count, 1)
        XCTAssertNil(once.runFile)
        XCTAssertThrowsError(try RunManifest(
            runID: "r", createdAt: now, proofFiles: [(code, Array(repeating: 1, count: 32)), (code, Array(repeating: 2, count: 32))]))
    }

    func testLocationsMustLieInsideTheRunFileWithoutOverlapping() throws {
        let a = ReferenceCode.make(contentHash: Array(repeating: 1, count: 32))
        let b = ReferenceCode.make(contentHash: Array(repeating: 2, count: 32))
        XCTAssertNoThrow(try RunManifest(runID: "r", createdAt: now, runFileLength: 200, proofs: [location(a, 0, 100, 1), location(b, 100, 100, 2)]))
        XCTAssertThrowsError(try RunManifest(runID: "r", createdAt: now, runFileLength: 199, proofs: [location(a, 0, 100, 1), location(b, 100, 100, 2)]))
        XCTAssertThrowsError(try RunManifest(runID: "r", createdAt: now, runFileLength: 200, proofs: [location(a, 0, 100, 1), location(b, 99, 100, 2)]))
        XCTAssertThrowsError(try RunManifest(runID: "r", createdAt: now, runFileLength: 200, proofs: [location(a, 0, 0, 1)]))
        XCTAssertThrowsError(try RunManifest(runID: "r", createdAt: now, runFileLength: .max, proofs: [location(a, .max, .max, 1)]))
        XCTAssertThrowsError(try RunManifest(runID: "r", createdAt: now, runFileLength: 100, proofs: [location("not-a-code", 0, 100, 1)]))
        XCTAssertThrowsError(try RunManifest(runID: "../r", createdAt: now, runFileLength: 100, proofs: [location(a, 0, 100, 1)]))
    }

    /// A manifest read from a file is taken as listed; what does not hold together is reported.
    /// (Written as before the names were one, with runId, which is still read.)
    func testAnInconsistentManifestIsReadAndEveryInconsistencyNamed() throws {
        let a = ReferenceCode.make(contentHash: Array(repeating: 1, count: 32))
        let b = ReferenceCode.make(contentHash: Array(repeating: 2, count: 32))
        func payload(_ proofs: [CBORNode], count: UInt64, root: [UInt8], runFile: String = "r.cbor-seq") throws -> RunManifest {
            try RunManifest(payload: try CBOR(decoding: CBORNode.map([
                .init(.text("format"), .text(ProofFormat.manifestContentType)), .init(.text("runId"), .text("r")),
                .init(.text("createdAt"), .tagged(0, .text("2026-01-01T00:00:00Z"))), .init(.text("proofCount"), .unsigned(count)),
                .init(.text("merkleRoot"), .bytes(root)), .init(.text("proofs"), .array(proofs)),
                .init(.text("runFile"), .map([.init(.text("name"), .text(runFile)), .init(.text("length"), .unsigned(300))])),
            ]).encoded()))
        }
        let hashA = [UInt8](repeating: 1, count: 32), hashB = [UInt8](repeating: 2, count: 32)
        let entryA: CBORNode = .array([.text(a), .bytes(hashA), .unsigned(0), .unsigned(100)])
        let entryB: CBORNode = .array([.text(b), .bytes(hashB), .unsigned(100), .unsigned(100)])
        let entryB2: CBORNode = .array([.text(b), .bytes(hashA), .unsigned(200), .unsigned(100)])
        XCTAssertTrue(try payload([entryA, entryB], count: 2, root: MerkleTree.root(leaves: [hashA, hashB])).inconsistencies().isEmpty)
        func problems(_ manifest: RunManifest) -> String { manifest.inconsistencies().map(\.description).joined(separator: "; ") }
        XCTAssertTrue(problems(try payload([entryB, entryA], count: 2, root: MerkleTree.root(leaves: [hashB, hashA]))).contains("not sorted"))
        XCTAssertTrue(problems(try payload([entryA, entryB], count: 3, root: MerkleTree.root(leaves: [hashA, hashB]))).contains("states 3"))
        XCTAssertTrue(problems(try payload([entryA, entryB], count: 2, root: hashA)).contains("Merkle root"))
        XCTAssertTrue(problems(try payload([entryA, entryB, entryB2], count: 3, root: MerkleTree.root(leaves: [hashA, hashB, hashA])))
            .contains("two different proofs for reference code \(b)"))
        XCTAssertTrue(problems(try payload([entryA], count: 1, root: MerkleTree.root(leaves: [hashA]), runFile: "../x.cbor-seq"))
            .contains("not named after run"))
        XCTAssertThrowsError(try RunManifest(payload: try CBOR(decoding: CBORNode.map([.init(.text("format"), .text("other"))]).encoded())))
        XCTAssertThrowsError(try payload([.array([.text(a)])], count: 1, root: hashA))
    }
}
