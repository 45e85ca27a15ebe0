import Foundation
import MdocCrypto
import MdocProof
import XCTest

/// An output folder's runs checked together, and one proof found in them.
final class OutputFolderTests: XCTestCase {
    func testEveryRunIsCheckedAndAnUnfinishedRunAlone() throws {
        let fixture = try ProofFixture()
        try fixture.writeRun("20260101T000000Z-aaaaaa", batches: [try fixture.proofs(0..<3, runID: "20260101T000000Z-aaaaaa")])
        try fixture.writeRun("20260102T000000Z-bbbbbb", batches: [try fixture.proofs(2..<5, runID: "20260102T000000Z-bbbbbb")])
        // A run killed before its manifest: a run file alone.
        try ProofFixture.write(try fixture.proofs(5..<7, runID: "20260103T000000Z-cccccc").flatMap(\.bytes),
                               "\(fixture.out)/proofs/20260103T000000Z-cccccc.cbor-seq")
        let folder = OutputFolder(path: fixture.out)
        XCTAssertEqual(folder.unfinishedRunFiles, ["\(fixture.out)/proofs/20260103T000000Z-cccccc.cbor-seq"])
        let checks = folder.verify(policy: .certificate(fixture.signer.identity.certificate))
        XCTAssertEqual(checks.map(\.runID), ["20260101T000000Z-aaaaaa", "20260102T000000Z-bbbbbb", "20260103T000000Z-cccccc"])
        XCTAssertTrue(checks.allSatisfy(\.isIntact), "\(checks.map(\.problems))")
        XCTAssertEqual(checks.map(\.proofCount), [3, 3, 2])
        XCTAssertNil(checks[2].manifestPath)

        try ProofFixture.write(Array("not a manifest".utf8), "\(fixture.out)/runs/20260101T000000Z-aaaaaa.cose")
        XCTAssertEqual(OutputFolder(path: fixture.out).verify(policy: .notChecked).first?.problemKinds, [.unreadableManifest])
    }

    func testAProofIsFoundByReferenceCodeOrTransactionInTheLatestRunThatHoldsIt() throws {
        let fixture = try ProofFixture()
        let early = try fixture.proofs(0..<3, runID: "20260101T000000Z-aaaaaa")
        let late = try fixture.proofs(2..<4, runID: "20260102T000000Z-bbbbbb")
        try fixture.writeRun("20260101T000000Z-aaaaaa", batches: [early])
        try fixture.writeRun("20260102T000000Z-bbbbbb", batches: [late])
        let folder = OutputFolder(path: fixture.out)
        let shared = early[2].referenceCode
        let latest = try XCTUnwrap(try folder.findProof(referenceCode: shared))
        XCTAssertEqual(latest.proof, late[0])
        XCTAssertEqual(latest.runID, "20260102T000000Z-bbbbbb")
        XCTAssertEqual(latest.offset, 0)
        XCTAssertEqual(try folder.findProof(referenceCode: shared, runID: "20260101T000000Z-aaaaaa")?.proof, early[2])
        XCTAssertEqual(try folder.findProof(referenceCode: early[0].referenceCode)?.proof, early[0])
        let transaction = ProofFixture.evidence(1).transactionID
        XCTAssertEqual(try folder.findProof(referenceCode: early[1].referenceCode, transactionID: transaction.uppercased())?.proof, early[1])
        XCTAssertNil(try folder.findProof(referenceCode: early[1].referenceCode, transactionID: String(repeating: "0", count: 64)))
        XCTAssertNil(try folder.findProof(referenceCode: "0000-0000-0000-0000"))
        XCTAssertNil(try folder.findProof(referenceCode: early[0].referenceCode, runID: "20260102T000000Z-bbbbbb"))
        // An altered record is not handed out: the earlier run's copy is.
        var bytes = try ProofFixture.read("\(fixture.out)/proofs/20260102T000000Z-bbbbbb.cbor-seq")
        bytes[late[0].bytes.count - 10] ^= 0x01
        try ProofFixture.write(bytes, "\(fixture.out)/proofs/20260102T000000Z-bbbbbb.cbor-seq")
        XCTAssertEqual(try folder.findProof(referenceCode: shared)?.proof, early[2])

        // Exported alone, it verifies alone; an export never replaces a file.
        let exported = fixture.folder.url("exported.cose")
        try early[2].write(toNewFile: exported)
        XCTAssertEqual(try ProofFixture.read(exported), early[2].bytes)
        XCTAssertTrue(try ProofVerifier.open(try ProofFixture.read(exported), policy: .certificate(fixture.signer.identity.certificate)).signatureValid)
        XCTAssertThrowsError(try early[1].write(toNewFile: exported)) { XCTAssertTrue("\($0)".contains("exists")) }
        XCTAssertEqual(try ProofFixture.read(exported), early[2].bytes)
    }

    /// A run killed before its manifest: its run file is searched record by record.
    func testAProofOfAnUnfinishedRunIsFound() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3, runID: "20260103T000000Z-cccccc")
        try FileManager.default.createDirectory(atPath: "\(fixture.out)/proofs", withIntermediateDirectories: true)
        let path = "\(fixture.out)/proofs/20260103T000000Z-cccccc.cbor-seq"
        try ProofFixture.write(proofs.flatMap(\.bytes), path)
        let found = try XCTUnwrap(try OutputFolder(path: fixture.out).findProof(referenceCode: proofs[1].referenceCode))
        XCTAssertEqual(found.proof, proofs[1])
        XCTAssertEqual(found.offset, proofs[0].bytes.count)
        XCTAssertEqual(found.source, path)
    }
}
