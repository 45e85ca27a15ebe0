import Foundation
import MdocChecks
import XCTest

@testable import MdocStore

/// `trust_item`: a run's trust snapshot, kept with the run; what changed between two runs
/// (``TrustSnapshotDiff``) and which of it concerns a transaction whose verdict changed.
final class TrustSnapshotTests: XCTestCase {
    static let day: TimeInterval = 86_400
    static let iacaSubject = "C=US, CN=Utopia IACA"

    static func anchor(_ fingerprint: String, source: String, docTypes: [String]? = nil, name: String = iacaSubject) -> TrustItem {
        TrustItem(
            kind: .anchor, sha256: fingerprint, name: name, source: source, file: "trust", docTypes: docTypes,
            issuedAt: Fixture.t0 - 300 * day, expiresAt: Fixture.t0 + 300 * day)
    }

    static func vical(issue: UInt64, sha: Int) -> TrustItem {
        TrustItem(
            kind: .vical, sha256: Fixture.hex(sha, salt: 9), name: "Utopia Trust", source: "VICAL", file: "utopia.vical",
            issueID: issue, issuedAt: Fixture.t0 - (10 - Double(min(issue, 10))) * day, expiresAt: nil)
    }

    static func crl(sha: Int, thisUpdate: Date) -> TrustItem {
        TrustItem(kind: .crl, sha256: Fixture.hex(sha, salt: 8), name: iacaSubject, source: "folder", issuedAt: thisUpdate, expiresAt: nil)
    }

    static func token(sha: Int, uri: String = "https://status.example/1", iat: Date) -> TrustItem {
        TrustItem(kind: .statusList, sha256: Fixture.hex(sha, salt: 7), name: uri, source: "status", file: "t\(sha).cwt", issuedAt: iat, expiresAt: iat + day)
    }

    func testARunKeepsItsTrustSnapshot() throws {
        let store = try Fixture.store(self)
        let items = [
            Self.anchor(Fixture.iacaFingerprint, source: "folder"),
            Self.anchor(Fixture.hex(0x2aca), source: "VICAL Utopia Trust", docTypes: ["org.iso.18013.5.1.mDL"]),
            Self.anchor(Fixture.hex(0x3aca), source: "VICAL Utopia Trust", docTypes: []),
            Self.vical(issue: UInt64(Int64.max) + 1, sha: 1), Self.crl(sha: 1, thisUpdate: Fixture.t0), Self.token(sha: 1, iat: Fixture.t0),
        ]
        var run = Fixture.run("run-1")
        run.trustItems = items
        try store.beginRun(run)
        XCTAssertEqual(try store.trustSnapshot(runID: "run-1"), items)
        XCTAssertNil(try store.trustSnapshot(runID: "no-such-run"))
        // Begun again (resumed), the run keeps the snapshot it started with.
        try store.interruptRun(id: "run-1", reason: "test")
        run.trustItems = []
        try store.beginRun(run)
        XCTAssertEqual(try store.trustSnapshot(runID: "run-1"), items)
        // A run without items has an empty snapshot.
        try store.beginRun(Fixture.run("run-2"))
        XCTAssertEqual(try store.trustSnapshot(runID: "run-2"), [])
    }

    func testAnItemThatIsNotOneIsRefused() throws {
        let store = try Fixture.store(self)
        var run = Fixture.run("run-1")
        run.trustItems = [TrustItem(kind: .crl, sha256: "not hex", name: "x", source: "folder")]
        XCTAssertThrowsError(try store.beginRun(run)) { XCTAssertEqual(($0 as? StoreError)?.code, .invalidArgument) }
        XCTAssertNil(try store.trustSnapshot(runID: "run-1"), "nothing of the run is written")
        XCTAssertThrowsError(try store.executeUnchecked(sql: "INSERT INTO trust_item VALUES ('x', 0, 'anchor', x'00', 'n', 's', NULL, NULL, '12a', NULL, NULL)"))
    }

    func testTheDiffNamesEachKindOfChange() {
        let before = [
            Self.anchor(Fixture.iacaFingerprint, source: "folder"),
            Self.anchor(Fixture.hex(0x2aca), source: "VICAL Utopia Trust", docTypes: ["org.iso.18013.5.1.mDL"], name: "CN=B"),
            Self.anchor(Fixture.hex(0x3aca), source: "VICAL Utopia Trust", docTypes: ["org.iso.18013.5.1.mDL"], name: "CN=C"),
            Self.vical(issue: 1, sha: 1), Self.crl(sha: 1, thisUpdate: Fixture.t0 - 2 * Self.day),
            Self.token(sha: 1, iat: Fixture.t0 - Self.day),
        ]
        let after = [
            Self.anchor(Fixture.iacaFingerprint, source: "folder"),
            Self.anchor(Fixture.hex(0x3aca), source: "VICAL Utopia Trust", docTypes: ["org.iso.23220.photoid.1"], name: "CN=C"),
            Self.vical(issue: 2, sha: 2), Self.crl(sha: 2, thisUpdate: Fixture.t0 - Self.day),
            Self.token(sha: 1, iat: Fixture.t0 - Self.day), Self.token(sha: 2, iat: Fixture.t0),
        ]
        let changes = TrustSnapshotDiff.changes(from: before, to: after)
        XCTAssertEqual(changes.map(\.change), [.removed, .changed, .changed, .changed, .added])
        XCTAssertEqual(changes.map(\.description), [
            "IACA CN=B (sha256 0000000000000000) removed from VICAL Utopia Trust",
            "IACA CN=C (sha256 0000000000000000) in VICAL Utopia Trust: docTypes org.iso.18013.5.1.mDL → org.iso.23220.photoid.1",
            "VICAL of Utopia Trust: issue 1 of 2021-09-22T13:30:02Z → issue 2 of 2021-09-23T13:30:02Z",
            "CRL of C=US, CN=Utopia IACA replaced: thisUpdate 2021-09-29T13:30:02Z → 2021-09-30T13:30:02Z",
            "status list token for https://status.example/1 (iat 2021-10-01T13:30:02Z, exp 2021-10-02T13:30:02Z) added",
        ])
        XCTAssertEqual(TrustSnapshotDiff.changes(from: after, to: after), [])

        // What concerns a transaction: its IACA (and its list), its IACA's CRL, its uris.
        let mine = TrustSnapshotDiff.concerning(changes, anchors: [Fixture.hex(0x2aca)], issuers: [], uris: [])
        XCTAssertEqual(mine.map(\.kind), [.anchor, .vical])
        XCTAssertEqual(TrustSnapshotDiff.concerning(changes, anchors: [], issuers: [Self.iacaSubject], uris: []).map(\.kind), [.crl])
        XCTAssertEqual(
            TrustSnapshotDiff.concerning(changes, anchors: [], issuers: [], uris: ["https://status.example/1"]).map(\.kind), [.statusList])
        XCTAssertEqual(TrustSnapshotDiff.concerning(changes, anchors: [], issuers: [], uris: ["https://status.example/2"]), [])
    }

    /// A verdict that changed between two runs names the trust change behind it: its IACA left
    /// the VICAL, and the status token of its uri is new.
    func testAChangedVerdictNamesTheTrustChangeBehindIt() throws {
        let store = try Fixture.store(self)
        var first = Fixture.run("run-1")
        first.trustItems = [
            Self.anchor(Fixture.iacaFingerprint, source: "VICAL Utopia Trust", docTypes: ["org.iso.18013.5.1.mDL"]),
            Self.vical(issue: 1, sha: 1), Self.token(sha: 1, iat: Fixture.t0 - Self.day),
            Self.token(sha: 9, uri: "https://status.example/other", iat: Fixture.t0 - Self.day),
        ]
        try store.beginRun(first)
        try store.record([Fixture.outcome(1)], runID: "run-1")
        var second = Fixture.run("run-2", time: Fixture.t0 + Self.day)
        second.trustSnapshotHash = Fixture.otherSnapshot
        second.trustItems = [
            Self.vical(issue: 2, sha: 2), Self.token(sha: 1, iat: Fixture.t0 - Self.day), Self.token(sha: 2, iat: Fixture.t0),
        ]
        try store.beginRun(second)
        var revoked = Fixture.outcome(1, verdict: .invalid, time: Fixture.t0 + Self.day, snapshot: Fixture.otherSnapshot)
        revoked.checks.append(CheckResult(
            .statusRevoked, .fail, "revoked", subject: "doc[0]/status_list", instant: .verification,
            evidence: [Evidence("uri", "https://status.example/1")]))
        try store.record([revoked], runID: "run-2")
        let rows = try store.withReportQueries(cacheMegabytes: 8) { queries in
            var queries = queries
            try queries.select(.run("run-2"))
            return try queries.changes(limit: 10)
        }
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.trustChanges, [
            "IACA C=US, CN=Utopia IACA (sha256 0000000000000000) removed from VICAL Utopia Trust",
            "VICAL of Utopia Trust: issue 1 of 2021-09-22T13:30:02Z → issue 2 of 2021-09-23T13:30:02Z",
            "status list token for https://status.example/1 (iat 2021-10-01T13:30:02Z, exp 2021-10-02T13:30:02Z) added",
        ])
    }
}
