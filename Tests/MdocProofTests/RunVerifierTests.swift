import Foundation
import MdocCBOR
import MdocCrypto
@testable import MdocProof
import XCTest

/// A run file checked against its manifest: intact, and each kind of tampering named as such.
final class RunVerifierTests: XCTestCase {
    /// A finished run of six proofs in two batches.
    func makeRun(_ fixture: ProofFixture) throws -> (runFile: String, manifest: String, proofs: [SignedProof]) {
        let proofs = try fixture.proofs(0..<6)
        let paths = try fixture.writeRun("run-1", batches: [Array(proofs[0..<4]), Array(proofs[4...])])
        return (paths.runFile, paths.manifest, proofs)
    }

    func testAnIntactRunVerifies() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        let check = try fixture.verify(run.manifest)
        XCTAssertTrue(check.isIntact, "\(check.problems)")
        XCTAssertEqual(check.proofCount, 6)
        XCTAssertEqual(check.signer, .notChecked)
        XCTAssertEqual(check.proofsPath, run.runFile)
        let pinned = try fixture.verify(run.manifest, policy: .certificate(fixture.signer.identity.certificate))
        XCTAssertEqual(pinned.signer, .trusted(
            subject: fixture.signer.identity.certificate.subject.rfc2253, sha256: fixture.signer.identity.certificate.fingerprintHex))
        XCTAssertTrue(pinned.isIntact)
    }

    func testAFlippedByteIsAnAlteredProof() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        var bytes = try ProofFixture.read(run.runFile)
        let third = run.proofs[0].bytes.count + run.proofs[1].bytes.count
        bytes[third + run.proofs[2].bytes.count - 40] ^= 0x01  // inside the signature
        try ProofFixture.write(bytes, run.runFile)
        let check = try fixture.verify(run.manifest)
        XCTAssertEqual(check.problems, [.altered(referenceCode: run.proofs[2].referenceCode, offset: third)])
    }

    func testARemovedRecordIsAMissingProof() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        let bytes = try ProofFixture.read(run.runFile)
        let start = run.proofs[0].bytes.count
        try ProofFixture.write(Array(bytes[..<start] + bytes[(start + run.proofs[1].bytes.count)...]), run.runFile)
        let check = try fixture.verify(run.manifest)
        XCTAssertEqual(check.problemKinds.filter { $0 != .runFileShorter }, [.missing], "\(check.problems)")
        XCTAssertTrue(check.problems.contains(.missing(referenceCode: run.proofs[1].referenceCode, listedOffset: start)))
    }

    func testAReorderedRecordIsReportedAsReordered() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        let p = run.proofs.map(\.bytes)
        try ProofFixture.write(p[0] + p[1] + p[3] + p[2] + p[4] + p[5], run.runFile)
        let check = try fixture.verify(run.manifest)
        XCTAssertEqual(check.problemKinds, [.reordered], "\(check.problems)")
        // Moving the first record to the end names that one record.
        try ProofFixture.write(Array(p[1...].joined()) + p[0], run.runFile)
        let moved = try fixture.verify(run.manifest)
        XCTAssertEqual(moved.problems, [.reordered(
            referenceCode: run.proofs[0].referenceCode, offset: p[1...].reduce(0) { $0 + $1.count }, listedOffset: 0)])
    }

    func testADuplicatedRecordIsReportedAsDuplicated() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        let p = run.proofs.map(\.bytes)
        // The second proof written twice: the file grows past its committed length.
        try ProofFixture.write(p[0] + p[1] + p[1] + p[2] + p[3] + p[4] + p[5], run.runFile)
        let check = try fixture.verify(run.manifest)
        XCTAssertTrue(check.problems.contains(.duplicated(referenceCode: run.proofs[1].referenceCode, offset: p[0].count + p[1].count)),
                      "\(check.problems)")
        XCTAssertFalse(check.problemKinds.contains(.altered))
    }

    func testATornTailIsReported() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        let bytes = try ProofFixture.read(run.runFile)
        // Bytes appended after the manifest committed the file.
        try ProofFixture.write(bytes + Array(run.proofs[0].bytes.prefix(30)), run.runFile)
        XCTAssertEqual(try fixture.verify(run.manifest).problems, [.tornTail(RunFile.Tail(kind: .pastCommittedLength, offset: bytes.count, length: 30))])
        // The last record cut short.
        let lastOffset = bytes.count - run.proofs[5].bytes.count
        try ProofFixture.write(Array(bytes.dropLast(9)), run.runFile)
        let cut = try fixture.verify(run.manifest)
        XCTAssertTrue(cut.problems.contains(.tornTail(RunFile.Tail(kind: .cutShort, offset: lastOffset, length: run.proofs[5].bytes.count - 9))),
                      "\(cut.problems)")
        XCTAssertTrue(cut.problems.contains(.runFileShorter(length: bytes.count - 9, committed: bytes.count)))
        XCTAssertTrue(cut.problems.contains(.missing(referenceCode: run.proofs[5].referenceCode, listedOffset: lastOffset)))
        // And the run file gone.
        try FileManager.default.removeItem(atPath: run.runFile)
        XCTAssertEqual(try fixture.verify(run.manifest).problemKinds, [.runFileMissing])
    }

    /// Garbage in the middle of the file: reading goes on at the next listed proof.
    func testUnreadableBytesAreNamedAndTheRestIsStillChecked() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        var bytes = try ProofFixture.read(run.runFile)
        let third = run.proofs[0].bytes.count + run.proofs[1].bytes.count
        bytes[third] = 0xff
        try ProofFixture.write(bytes, run.runFile)
        let check = try fixture.verify(run.manifest)
        XCTAssertEqual(check.problemKinds, [.unreadable, .missing], "\(check.problems)")
    }

    func testTheSignerOfTheManifestAndOfEachProof() throws {
        let fixture = try ProofFixture()
        let run = try makeRun(fixture)
        let other = try ProofFixture(keys: "other")
        // A manifest signed by another processor than its proofs.
        let forged = try other.signer.sign(manifest: try RunManifest(payload: try ProofVerifier.open(try ProofFixture.read(run.manifest)).payload))
        try ProofFixture.write(forged, run.manifest)
        XCTAssertEqual(Set(try fixture.verify(run.manifest).problemKinds), [.otherSigner])
        // Pinned to another certificate: the run's signer is not trusted.
        let pinned = try fixture.verify(run.manifest, policy: .certificate(fixture.signer.identity.certificate))
        XCTAssertTrue(pinned.problemKinds.contains(.untrustedSigner))
        if case .trusted = pinned.signer { XCTFail("signed by another certificate than the trusted one") }
        // A flipped byte in the manifest's payload breaks its signature.
        var manifest = forged
        let listed = try XCTUnwrap(SignerPolicyTests.range(of: run.proofs[0].sha256, in: manifest))
        manifest[listed.lowerBound] ^= 0x01
        try ProofFixture.write(manifest, run.manifest)
        XCTAssertTrue(try fixture.verify(run.manifest).problemKinds.contains(.manifestSignature))
    }

    func testARunFileWithoutManifestIsCheckedAlone() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3)
        let path = fixture.folder.url("run-2.cbor-seq")
        try ProofFixture.write(proofs.flatMap(\.bytes), path)
        let intact = RunVerifier.verify(runFile: path, policy: .certificate(fixture.signer.identity.certificate))
        XCTAssertTrue(intact.isIntact, "\(intact.problems)")
        XCTAssertNil(intact.manifestPath)
        XCTAssertEqual(intact.runID, "run-2")
        XCTAssertEqual(intact.proofCount, 3)
        try ProofFixture.write(proofs.flatMap(\.bytes) + proofs[0].bytes + Array(proofs[1].bytes.prefix(10)), path)
        let damaged = RunVerifier.verify(runFile: path, policy: .notChecked)
        XCTAssertEqual(damaged.problems, [
            .tornTail(RunFile.Tail(kind: .cutShort, offset: proofs.flatMap(\.bytes).count + proofs[0].bytes.count, length: 10)),
            .duplicated(referenceCode: proofs[0].referenceCode, offset: proofs.flatMap(\.bytes).count),
        ])
        let other = try ProofFixture(keys: "other")
        XCTAssertEqual(RunVerifier.verify(runFile: path, policy: .certificate(other.signer.identity.certificate)).problemKinds.first, .tornTail)
        XCTAssertTrue(RunVerifier.verify(runFile: path, policy: .certificate(other.signer.identity.certificate)).problemKinds.contains(.untrustedSigner))
    }

    func testLongestIncreasingKeepsTheListedOrder() {
        XCTAssertEqual(RunFileComparison.longestIncreasing([0, 1, 2, 3]), [0, 1, 2, 3])
        XCTAssertEqual(RunFileComparison.longestIncreasing([1, 2, 3, 0]), [0, 1, 2])
        XCTAssertEqual(RunFileComparison.longestIncreasing([3, 0, 1, 2]), [1, 2, 3])
        XCTAssertEqual(RunFileComparison.longestIncreasing([]).count, 0)
        XCTAssertEqual(RunFileComparison.longestIncreasing([1, 0]).count, 1)
    }
}
