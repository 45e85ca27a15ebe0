import Foundation
import MdocChecks
import MdocCrypto
@testable import MdocStore
import XCTest

/// A batch formats what its outcomes share once (verification time, trust snapshot,
/// certificates), and elements computed by the verifier keep their digests as bytes: the rows
/// must be those of each outcome prepared on its own.
final class BatchFormatsTests: XCTestCase {
    /// Outcomes of one batch that differ in every value the batch shares keep their own values.
    func testOutcomesThatDifferInWhatABatchSharesKeepTheirOwn() throws {
        var second = Fixture.outcome(2, time: Fixture.t0.addingTimeInterval(1.5), snapshot: Fixture.otherSnapshot)
        second.certificates[0].fingerprint = Fixture.hex(0xd6)
        second.certificates[0].notAfter = Date(timeIntervalSince1970: 1_700_000_000)
        second.documents[0].dsFingerprint = Fixture.hex(0xd6)
        // The same fingerprint as the first outcome's DS, but another record: not taken from it.
        var third = Fixture.outcome(3)
        third.certificates[0].subject = "C=US, CN=Utopia DS 2"
        let batch = [Fixture.outcome(1), second, third, Fixture.outcome(4)]
        var formats = BatchFormats()
        for outcome in batch {
            let shared = try PreparedOutcome(outcome, formats: &formats)
            let alone = try PreparedOutcome(outcome)
            XCTAssertEqual(shared.transaction, alone.transaction, outcome.transactionID)
            XCTAssertEqual(shared.verification, alone.verification, outcome.transactionID)
            XCTAssertEqual(shared.documents, alone.documents, outcome.transactionID)
            XCTAssertEqual(shared.certificates, alone.certificates, outcome.transactionID)
        }
        let prepared = try batch.map { try PreparedOutcome($0, formats: &formats) }
        XCTAssertEqual(prepared[1].verification.verificationTime, "2021-10-01T13:30:03.500Z")
        XCTAssertEqual(prepared[1].verification.trustSnapshot, Data(Fixture.bytes(Fixture.otherSnapshot)))
        XCTAssertEqual(prepared[1].documents[0].dsFingerprint, Data(Fixture.bytes(Fixture.hex(0xd6))))
        XCTAssertEqual(prepared[2].certificates[0].subject, "C=US, CN=Utopia DS 2")

        // A NaN instant is refused whatever the batch formatted before it.
        let bad = Fixture.outcome(5, time: Date(timeIntervalSince1970: .nan))
        XCTAssertThrowsError(try PreparedOutcome(bad, formats: &formats))
        XCTAssertThrowsError(try PreparedOutcome(bad, formats: &formats))
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
