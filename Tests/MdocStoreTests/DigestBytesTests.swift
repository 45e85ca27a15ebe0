import Foundation
import MdocChecks
import MdocCrypto
@testable import MdocStore
import XCTest

/// Hashes travel from the pipeline to the store as their bytes (``SHA256Digest``): an outcome
/// made from bytes must give the rows of the same outcome made from hex, and a batch's outcomes
/// that differ in what they usually share (time, trust snapshot, certificates) keep their own.
final class DigestBytesTests: XCTestCase {
    /// The outcome of ``Fixture/outcome(_:verdict:time:snapshot:valueJSON:keepData:consentState:withImage:responseSHA256:referenceCode:)``
    /// with every SHA-256 but the transaction id's and the proof's made from bytes.
    static func fromBytes(_ outcome: TransactionOutcome) -> TransactionOutcome {
        func bytes(_ digest: SHA256Digest) -> SHA256Digest { SHA256Digest(bytes: Fixture.bytes(digest.hex)) }
        var copy = outcome
        copy.responseDigest = outcome.responseDigest.map(bytes)
        copy.trustSnapshot = bytes(outcome.trustSnapshot)
        for index in copy.documents.indices {
            copy.documents[index].dsSHA256 = outcome.documents[index].dsSHA256.map(bytes)
            copy.documents[index].iacaSHA256 = outcome.documents[index].iacaSHA256.map(bytes)
        }
        for index in copy.certificates.indices { copy.certificates[index].sha256 = bytes(outcome.certificates[index].sha256) }
        for index in copy.inputHashes.indices { copy.inputHashes[index].digest = bytes(outcome.inputHashes[index].digest) }
        return copy
    }

    /// Made from bytes or from hex, an outcome is equal, hashes alike, reads as the same hex and
    /// gives the same records; the hex a digest was made from is kept as given.
    func testHashesGivenAsBytesGiveTheRecordsOfTheirHex() throws {
        let hex = Fixture.outcome(1)
        let bytes = Self.fromBytes(hex)
        XCTAssertEqual(bytes, hex)
        XCTAssertEqual(bytes.hashValue, hex.hashValue)
        XCTAssertEqual(bytes.responseSHA256, Fixture.hex(1, salt: 2))
        XCTAssertEqual(bytes.trustSnapshotHash, Fixture.snapshot)
        XCTAssertEqual(bytes.documents[0].dsFingerprint, Fixture.dsFingerprint)
        XCTAssertEqual(bytes.documents[0].iacaFingerprint, Fixture.iacaFingerprint)
        XCTAssertEqual(bytes.certificates.map(\.fingerprint), [Fixture.dsFingerprint, Fixture.iacaFingerprint])
        XCTAssertEqual(bytes.inputHashes.map(\.sha256), [Fixture.hex(1, salt: 3), Fixture.hex(1, salt: 2)])
        XCTAssertEqual(bytes.trustSnapshot.bytes, Fixture.bytes(Fixture.snapshot))
        let fromBytes = try PreparedOutcome(bytes)
        let fromHex = try PreparedOutcome(hex)
        XCTAssertEqual(fromBytes.transaction, fromHex.transaction)
        XCTAssertEqual(fromBytes.verification, fromHex.verification)
        XCTAssertEqual(fromBytes.documents, fromHex.documents)
        XCTAssertEqual(fromBytes.certificates, fromHex.certificates)
        XCTAssertEqual(fromBytes.trustSnapshotHex, Fixture.snapshot)
        XCTAssertEqual(
            try fromBytes.certificates.map { try CertificateRecord($0) }, try fromHex.certificates.map { try CertificateRecord($0) })
        XCTAssertEqual(fromBytes.transaction.responseSHA256, Data(Fixture.bytes(Fixture.hex(1, salt: 2))))
        XCTAssertEqual(fromBytes.documents[0].dsFingerprint, Data(Fixture.bytes(Fixture.dsFingerprint)))

        // Hex that is not a SHA-256 stays as given (and is refused when recorded); digests differ
        // from every other.
        XCTAssertEqual(SHA256Digest(hex: "ABCDEF").hex, "ABCDEF")
        XCTAssertNotEqual(SHA256Digest(hex: "ABCDEF"), SHA256Digest(hex: "abcdef"))
        XCTAssertNotEqual(SHA256Digest(hex: Fixture.snapshot), SHA256Digest(hex: Fixture.otherSnapshot))
        XCTAssertEqual(SHA256Digest(hex: "ABCDEF").bytes, [])
    }

    /// Bytes that are not 32 are refused before anything is written, wherever they are given.
    func testDigestsOfAnotherLengthAreRefused() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        for short in [[UInt8](repeating: 7, count: 31), [UInt8](repeating: 7, count: 33), []] {
            let digest = SHA256Digest(bytes: short)
            var response = Self.fromBytes(Fixture.outcome(2))
            response.responseDigest = digest
            var snapshot = Self.fromBytes(Fixture.outcome(2))
            snapshot.trustSnapshot = digest
            var document = Self.fromBytes(Fixture.outcome(2))
            document.documents[0].iacaSHA256 = digest
            var certificate = Self.fromBytes(Fixture.outcome(2))
            certificate.certificates[1].sha256 = digest
            var input = Self.fromBytes(Fixture.outcome(2))
            input.inputHashes[0].digest = digest
            for bad in [response, snapshot, document, certificate, input] {
                assertStoreError(.invalidArgument) { try store.record([Fixture.outcome(1), bad], runID: "r1") }
            }
        }
        XCTAssertEqual(try store.rowCounts(), before)
    }

    /// Outcomes of one batch that differ in every value the batch usually shares keep their own;
    /// a certificate row is the first one written (rows of `certificate` never change).
    func testOutcomesThatDifferInWhatABatchSharesKeepTheirOwn() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var second = Self.fromBytes(Fixture.outcome(2, time: Fixture.t0.addingTimeInterval(1.5), snapshot: Fixture.otherSnapshot))
        second.certificates[0].sha256 = SHA256Digest(bytes: Fixture.bytes(Fixture.hex(0xd6)))
        second.certificates[0].notAfter = Date(timeIntervalSince1970: 1_700_000_000)
        second.documents[0].dsSHA256 = SHA256Digest(bytes: Fixture.bytes(Fixture.hex(0xd6)))
        // The same fingerprint as the first outcome's DS, but another subject: the row stays the first's.
        var third = Fixture.outcome(3)
        third.certificates[0].subject = "C=US, CN=Utopia DS 2"
        try store.record([Fixture.outcome(1), second, third, Self.fromBytes(Fixture.outcome(4))], runID: "r1")
        XCTAssertEqual(
            try store.query(
                sql: """
                    SELECT v.verification_time, v.trust_snapshot, d.ds_fingerprint FROM verification v
                    JOIN document d ON d.verification_id = v.id ORDER BY v.id
                    """),
            [
                [.text("2021-10-01T13:30:02.000Z"), Fixture.blob(Fixture.snapshot), Fixture.blob(Fixture.dsFingerprint)],
                [.text("2021-10-01T13:30:03.500Z"), Fixture.blob(Fixture.otherSnapshot), Fixture.blob(Fixture.hex(0xd6))],
                [.text("2021-10-01T13:30:02.000Z"), Fixture.blob(Fixture.snapshot), Fixture.blob(Fixture.dsFingerprint)],
                [.text("2021-10-01T13:30:02.000Z"), Fixture.blob(Fixture.snapshot), Fixture.blob(Fixture.dsFingerprint)],
            ])
        XCTAssertEqual(
            try store.query(sql: "SELECT fingerprint, subject, not_after FROM certificate ORDER BY subject, not_after"),
            [
                [Fixture.blob(Fixture.dsFingerprint), .text("C=US, CN=Utopia DS"), .text("2022-10-01T13:30:02.000Z")],
                [Fixture.blob(Fixture.hex(0xd6)), .text("C=US, CN=Utopia DS"), .text("2023-11-14T22:13:20.000Z")],
                [Fixture.blob(Fixture.iacaFingerprint), .text("C=US, CN=Utopia IACA"), .text("2030-10-01T13:16:42.000Z")],
            ])

        // A NaN instant is refused whatever the batch formatted before it.
        let bad = Fixture.outcome(5, time: Date(timeIntervalSince1970: .nan))
        assertStoreError(.invalidArgument) { try store.record([Fixture.outcome(6), bad], runID: "r1") }
        assertStoreError(.invalidArgument) { try store.record([bad, Fixture.outcome(6)], runID: "r1") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 4)
    }

    /// An element digest given as computed is stored as the same bytes as its hex, and reads
    /// back as that hex.
    func testDigestsGivenAsBytesAreStoredAsTheirHexIs() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let sha256 = HashFunction.sha256.digest(ArraySlice("family_name".utf8))
        let sha384 = HashFunction.sha384.digest(ArraySlice("given_name".utf8))
        var outcome = Fixture.outcome(1)
        for (index, digest) in [sha256, sha384].enumerated() {
            let element = outcome.documents[0].elements[index]
            let fromBytes = ElementSummary(
                namespace: element.namespace, identifier: element.identifier, digestID: element.digestID, digest: digest,
                valueJSON: nil)
            let fromHex = ElementSummary(
                namespace: element.namespace, identifier: element.identifier, digestID: element.digestID, digestHex: digest.hex)
            XCTAssertEqual(fromBytes, fromHex)
            XCTAssertEqual(fromBytes.hashValue, fromHex.hashValue)
            XCTAssertEqual(fromBytes.digestHex, digest.hex)
            XCTAssertEqual(
                try StoredResults.encode(elementsOf: [DocumentSummary(index: 0, docType: "d", elements: [fromBytes])]),
                try StoredResults.encode(elementsOf: [DocumentSummary(index: 0, docType: "d", elements: [fromHex])]))
            outcome.documents[0].elements[index] = fromBytes
        }
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(
            try store.elements(verificationID: 1)[0]?.prefix(3).map(\.digestHex),
            [sha256.hex, sha384.hex, Fixture.hex(2, salt: 0xd1)])

        // Set as hex afterwards, a digest is checked again when recorded.
        var bad = Fixture.outcome(2)
        bad.documents[0].elements[0] = ElementSummary(
            namespace: "org.iso.18013.5.1", identifier: "a", digestID: 0, digest: sha256, valueJSON: nil)
        bad.documents[0].elements[0].digestHex = "ABCDEF"
        assertStoreError(.invalidArgument) { try store.record([bad], runID: "r1") }
    }
}
