import Foundation
import MdocChecks
import MdocStore
import XCTest

final class RecordTests: XCTestCase {
    func testRoundTripOfThreeVerdicts() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var indeterminate = Fixture.outcome(3, verdict: .indeterminate, withImage: true)
        indeterminate.capturedAt = nil
        indeterminate.verdictAtCapture = nil
        try store.record(
            [Fixture.outcome(1, verdict: .valid), Fixture.outcome(2, verdict: .invalid), indeterminate], runID: "r1")

        let summary = try store.runSummary(runID: "r1")
        XCTAssertEqual(summary.status, .running)
        XCTAssertEqual(summary.transactions, 3)
        XCTAssertEqual(summary.reused, 0)
        XCTAssertEqual(summary.verdictNow, [.valid: 1, .invalid: 1, .indeterminate: 1])
        XCTAssertEqual(summary.verdictAtCapture, [.valid: 1, .invalid: 1, .indeterminate: 0])
        XCTAssertEqual(summary.noCaptureVerdict, 1)
        XCTAssertEqual(summary.ingestFailures, 0)
        XCTAssertEqual(
            summary.topFailingChecks,
            [FailingCheck(id: .issuerDsValidity, transactions: 1), FailingCheck(id: .msoDigest, transactions: 1)])

        let counts = try store.rowCounts()
        XCTAssertEqual(counts["txn"], 3)
        XCTAssertEqual(counts["verification"], 3)
        XCTAssertEqual(counts["reused"], 0)
        XCTAssertEqual(counts["check_results"], 3)  // one CBOR array of 30 results each
        XCTAssertEqual(counts["check_failure"], 2)  // the two failures (an unchecked result is no failure)
        XCTAssertEqual(counts["document"], 3)
        XCTAssertEqual(counts["disclosure"], 3)  // the 12 elements of each document
        XCTAssertEqual(counts["certificate"], 2)  // DS and IACA, shared by the three
        XCTAssertEqual(counts["image"], 1)
        // run.started + one transaction.verified per outcome.
        XCTAssertEqual(counts["audit_log"], 4)
        XCTAssertEqual(try store.checkResults(verificationIDs: [1, 2, 3]).mapValues(\.count), [1: 30, 2: 30, 3: 30])
        XCTAssertEqual(try store.elements(verificationID: 1)[0]?.count, 12)
        XCTAssertEqual(
            try store.inputHashes(transactionID: Fixture.transactionID(2)),
            [
                InputHash(path: "transaction.json", digest: Fixture.digest(Fixture.hex(2, salt: 3))),
                InputHash(path: "device-response.cbor", digest: Fixture.digest(Fixture.hex(2, salt: 2))),
            ])

        // Direct SQL: the values as stored.
        XCTAssertEqual(
            try store.query(
                sql: "SELECT verdict_now, count(*) FROM verification GROUP BY verdict_now ORDER BY verdict_now"),
            [[.text("indeterminate"), .integer(1)], [.text("invalid"), .integer(1)], [.text("valid"), .integer(1)]])
        let failing = try store.query(
            sql: """
                SELECT c.seq, c.check_id, c.subject, c.detail, c.instant
                FROM check_failure c JOIN verification v ON v.id = c.verification_id JOIN txn t ON t.id = v.transaction_id
                WHERE t.sha256 = ? ORDER BY c.seq
                """,
            arguments: [Fixture.blob(Fixture.transactionID(2))])
        XCTAssertEqual(
            failing,
            [
                [
                    .integer(3), .text("mso.digest"), .text("doc[0]/org.iso.18013.5.1/family_name"),
                    .text("digest 7 of org.iso.18013.5.1 does not match"), .null,
                ],
                [.integer(4), .text("issuer.ds.validity"), .text("cert[0]"), .text("DS expired"), .text("verification")],
            ])
        XCTAssertEqual(try store.checkResults(verificationIDs: [2])[2], Fixture.checks(for: .invalid))
        XCTAssertEqual(
            try store.query(
                sql: """
                    SELECT doc_type, ds_fingerprint, mso_valid_from, mso_valid_until, mso_expected_update, digest_algorithm
                    FROM document d JOIN verification v ON v.id = d.verification_id JOIN txn t ON t.id = v.transaction_id
                    WHERE t.sha256 = ?
                    """,
                arguments: [Fixture.blob(Fixture.transactionID(1))]),
            [
                [
                    .text("org.iso.18013.5.1.mDL"), Fixture.blob(Fixture.dsFingerprint), .text("2020-10-01T13:30:02.000Z"),
                    .text("2021-10-01T13:30:02.000Z"), .null, .text("SHA-256"),
                ]
            ])
        XCTAssertEqual(
            try store.elements(verificationID: 1)[0]?[7],
            ElementSummary(
                namespace: "org.iso.18013.5.1", identifier: "element_7", digestID: 7, digest: Fixture.elementDigest(Fixture.hex(7, salt: 0xd1))))
        XCTAssertEqual(
            try store.query(sql: "SELECT outcome, output_bytes, quality, scale_denominator, passes FROM image"),
            [[.text("reencoded"), .integer(998_000), .integer(85), .integer(2), .integer(4)]])
        XCTAssertEqual(
            try store.texts(
                "SELECT json_extract(details_json, '$.verdictNow') FROM audit_log WHERE event = 'transaction.verified' ORDER BY seq"),
            ["valid", "invalid", "indeterminate"])
        XCTAssertEqual(try store.proofs(runID: "r1").map(\.referenceCode), ["REF-1", "REF-2", "REF-3"])
        XCTAssertEqual(
            try store.proofs(runID: "r1").first?.location,
            ProofLocation(file: "proofs/REF-1.cose", offset: 0, length: 1001, sha256: Fixture.hex(1, salt: 4)))
        XCTAssertEqual(try store.proofs(runID: "r1").first?.runID, "r1")
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 4))
    }

    func testTopFailingChecksAreOrderedByTransactionsAndLimited() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcomes = (1...3).map { Fixture.outcome($0, verdict: .invalid) }
        // A second mso.digest failure in the same transaction counts once.
        outcomes[0].checks.append(CheckResult(.msoDigest, .fail, "digest 9", subject: "doc[0]/ns/x"))
        outcomes[1].checks.append(CheckResult(.deviceSignature, .fail, "bad signature"))
        try store.record(outcomes, runID: "r1")
        let summary = try store.runSummary(runID: "r1", topFailingChecks: 2)
        XCTAssertEqual(
            summary.topFailingChecks,
            [FailingCheck(id: .issuerDsValidity, transactions: 3), FailingCheck(id: .msoDigest, transactions: 3)])
        XCTAssertEqual(try store.runSummary(runID: "r1", topFailingChecks: 3).topFailingChecks.last,
                       FailingCheck(id: .deviceSignature, transactions: 1))
        assertStoreError(.invalidArgument) { try store.runSummary(runID: "r1", topFailingChecks: -1) }
        assertStoreError(.unknownRun) { try store.runSummary(runID: "nope") }
    }

    /// A crash after the commit and before the pipeline noted it: the batch comes again.
    func testRecordingTheSameBatchTwiceAddsNothing() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let batch = (1...5).map { Fixture.outcome($0, verdict: $0 % 2 == 0 ? .invalid : .valid, withImage: true) }
        try store.record(batch, runID: "r1")
        let counts = try store.rowCounts()
        let summary = try store.runSummary(runID: "r1")
        try store.record(batch, runID: "r1")
        // Partially overlapping batch: only the new outcome is added.
        try store.record(Array(batch.suffix(2)) + [Fixture.outcome(6)], runID: "r1")
        var expected = counts
        expected["txn", default: 0] += 1
        expected["verification", default: 0] += 1
        expected["check_results", default: 0] += 1
        expected["document", default: 0] += 1
        expected["disclosure", default: 0] += 1
        expected["audit_log", default: 0] += 1
        XCTAssertEqual(try store.rowCounts(), expected)
        var after = try store.runSummary(runID: "r1")
        XCTAssertEqual(after.transactions, summary.transactions + 1)
        after.transactions -= 1
        after.verdictNow[.valid, default: 0] -= 1
        after.verdictAtCapture[.valid, default: 0] -= 1
        XCTAssertEqual(after, summary)
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: Int(expected["audit_log"] ?? 0)))
    }

    func testDuplicateTransactionWithinOneBatchIsStoredOnce() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1), Fixture.outcome(1)], runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 1)
        XCTAssertEqual(try store.checkResults(verificationIDs: [1])[1]?.count, 30)
    }

    func testPriorVerificationMatchesTheExactInstantOnly() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, verdict: .invalid)], runID: "r1")
        let id = Fixture.transactionID(1)

        let prior = try XCTUnwrap(
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: nil))
        XCTAssertEqual(prior.transactionID, id)
        XCTAssertEqual(prior.runID, "r1")
        XCTAssertEqual(prior.verdictNow, .invalid)
        XCTAssertEqual(prior.verdictAtCapture, .invalid)
        XCTAssertEqual(prior.referenceCode, "REF-1")
        XCTAssertEqual(prior.proof?.file, "proofs/REF-1.cose")
        XCTAssertEqual(prior.proof?.sha256, Fixture.hex(1, salt: 4))
        XCTAssertEqual(prior.verificationTime, Fixture.t0)
        XCTAssertTrue(prior.dataKept)
        XCTAssertEqual(
            prior.verificationID, try store.verificationID(1))

        // Sub-millisecond differences are the same instant; a millisecond is not.
        XCTAssertNotNil(
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot,
                verificationTime: Fixture.t0.addingTimeInterval(0.0004), freshFor: nil))
        XCTAssertNil(
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot,
                verificationTime: Fixture.t0.addingTimeInterval(0.001), freshFor: nil))
        XCTAssertNil(
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.otherSnapshot, verificationTime: Fixture.t0, freshFor: nil))
        XCTAssertNil(
            try store.priorVerification(
                transactionID: Fixture.transactionID(2), trustSnapshotHash: Fixture.snapshot,
                verificationTime: Fixture.t0, freshFor: nil))
    }

    func testFreshnessWindowEdges() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1", isNow: true))
        try store.record([Fixture.outcome(1)], runID: "r1")
        let id = Fixture.transactionID(1)
        let window: TimeInterval = 15 * 60
        func prior(at offset: TimeInterval, snapshot: String = Fixture.snapshot) throws -> PriorVerification? {
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: snapshot, verificationTime: Fixture.t0.addingTimeInterval(offset),
                freshFor: window)
        }
        XCTAssertNotNil(try prior(at: 0))
        XCTAssertNotNil(try prior(at: 60))  // inside
        XCTAssertNotNil(try prior(at: window - 0.001))
        XCTAssertNotNil(try prior(at: window))  // exactly at the edge: included
        XCTAssertNil(try prior(at: window + 0.001))  // just outside
        XCTAssertNil(try prior(at: -0.001))  // a result from the future of "now" is not reused
        XCTAssertNil(try prior(at: 60, snapshot: Fixture.otherSnapshot))
        XCTAssertNotNil(
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: 0))
        assertStoreError(.invalidArgument) {
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: -1)
        }
        assertStoreError(.invalidArgument) {
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: .infinity)
        }
        // A huge window reaches back to the earliest instant and no further.
        XCTAssertNotNil(
            try store.priorVerification(
                transactionID: id, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0,
                freshFor: 1e300))
    }

    func testTheMostRecentFreshResultIsReturned() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1", isNow: true))
        try store.record([Fixture.outcome(1, verdict: .valid)], runID: "r1")
        let later = Fixture.t0.addingTimeInterval(120)
        try store.beginRun(Fixture.run("r2", time: later, isNow: true))
        try store.record([Fixture.outcome(1, verdict: .invalid, time: later)], runID: "r2")
        let prior = try store.priorVerification(
            transactionID: Fixture.transactionID(1), trustSnapshotHash: Fixture.snapshot,
            verificationTime: later.addingTimeInterval(60), freshFor: 900)
        XCTAssertEqual(prior?.runID, "r2")
        XCTAssertEqual(prior?.verdictNow, .invalid)
    }

    func testNoElementValuesUnlessTheOutcomeCarriesThem() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1), Fixture.outcome(2, valueJSON: #""Mustermann""#)], runID: "r1")
        let first = try store.elements(verificationID: try store.verificationID(1))
        let second = try store.elements(verificationID: try store.verificationID(2))
        XCTAssertEqual(first[0]?.count, 12)
        XCTAssertEqual(second[0]?.count, 12)
        XCTAssertEqual(first[0]?.compactMap(\.valueJSON), [])
        XCTAssertEqual(
            second[0]?.compactMap { element in element.valueJSON.map { [element.identifier, $0] } }, [["element_0", #""Mustermann""#]])
        // A value that is not JSON is refused.
        let bad = Fixture.outcome(3, valueJSON: "Mustermann")
        assertStoreError(.invalidArgument) { try store.record([bad], runID: "r1") }
    }

    func testExpiredConsentKeepsOnlyTheVerdictsAndTheConsentCheck() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var expired = Fixture.outcome(
            1, verdict: .invalid, valueJSON: #""Mustermann""#, keepData: false, consentState: .expired, withImage: true)
        expired.checks.append(
            CheckResult("consent.window", .fail, "consent expired", evidence: [Evidence("expiresAt", "2021-12-20")]))
        try store.record([expired], runID: "r1")

        let counts = try store.rowCounts()
        XCTAssertEqual(counts["txn"], 1)
        XCTAssertEqual(counts["verification"], 1)
        XCTAssertEqual(counts["check_results"], 1)
        XCTAssertEqual(counts["check_failure"], 1)
        for table in ["document", "disclosure", "image", "certificate"] {
            XCTAssertEqual(counts[table], 0, table)
        }
        XCTAssertEqual(
            try store.checkResults(verificationIDs: [1]),
            [1: [CheckResult("consent.window", .fail, "consent expired", evidence: [Evidence("expiresAt", "2021-12-20")])]])
        XCTAssertEqual(
            try store.query(
                sql: "SELECT verdict_now, consent_state, data_kept, proof_file, proof_sha256 FROM verification"),
            [[.text("invalid"), .text("expired"), .integer(0), .null, .null]])
        XCTAssertEqual(try store.query(sql: "SELECT consent_reference, inputs FROM txn"), [[.text("consent-1"), .null]])
        XCTAssertEqual(try store.inputHashes(transactionID: Fixture.transactionID(1)), [])
        let prior = try store.priorVerification(
            transactionID: Fixture.transactionID(1), trustSnapshotHash: Fixture.snapshot,
            verificationTime: Fixture.t0, freshFor: nil)
        XCTAssertEqual(prior?.consentState, .expired)
        XCTAssertEqual(prior?.dataKept, false)
        XCTAssertEqual(try store.runSummary(runID: "r1").verdictNow[.invalid], 1)
    }

    func testReplayLookupByResponseHash() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let response = Fixture.hex(77, salt: 9)
        try store.record(
            [
                Fixture.outcome(1, responseSHA256: response), Fixture.outcome(2),
                Fixture.outcome(3, responseSHA256: response),
            ], runID: "r1")
        XCTAssertEqual(
            try store.transactions(withResponseSHA256: response, excluding: Fixture.transactionID(3)),
            [Fixture.transactionID(1)])
        XCTAssertEqual(
            Set(try store.transactions(withResponseSHA256: response, excluding: Fixture.transactionID(9))),
            [Fixture.transactionID(1), Fixture.transactionID(3)])
        XCTAssertEqual(
            try store.transactions(withResponseSHA256: Fixture.hex(2, salt: 2), excluding: Fixture.transactionID(2)), [])
        XCTAssertEqual(try store.transactions(withResponseSHA256: Fixture.hex(1234), excluding: ""), [])
    }

    /// A response stored more often than the lookup's limit costs the limit, oldest first.
    func testReplayLookupIsBounded() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let response = Fixture.hex(77, salt: 9)
        let limit = ReportStore.Limits.earlierPresentations
        try store.record((1...limit + 5).map { Fixture.outcome($0, responseSHA256: response) }, runID: "r1")
        let found = try store.transactions(withResponseSHA256s: [response])[response, default: []]
        XCTAssertEqual(found, (1...limit + 1).map(Fixture.transactionID))
    }

    func testBatchedLookupsAgreeWithTheSingleOnes() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1", isNow: true))
        let response = Fixture.hex(77, salt: 9)
        try store.record(
            [
                Fixture.outcome(1, responseSHA256: response), Fixture.outcome(2, verdict: .invalid),
                Fixture.outcome(3, responseSHA256: response),
            ], runID: "r1")
        let later = Fixture.t0.addingTimeInterval(120)
        try store.beginRun(Fixture.run("r2", time: later, isNow: true))
        try store.record([Fixture.outcome(1, verdict: .invalid, time: later, responseSHA256: response)], runID: "r2")

        let ids = (1...5).map(Fixture.transactionID)
        for (offset, snapshot, freshFor) in [
            (TimeInterval(0), Fixture.snapshot, TimeInterval?.none), (60, Fixture.snapshot, 900), (180, Fixture.snapshot, 900),
            (0, Fixture.otherSnapshot, nil), (2_000, Fixture.snapshot, 900), (120, Fixture.snapshot, nil),
        ] {
            let time = Fixture.t0.addingTimeInterval(offset)
            let batched = try store.priorVerifications(
                transactionIDs: ids, trustSnapshotHash: snapshot, verificationTime: time, freshFor: freshFor)
            for id in ids {
                let single = try store.priorVerification(
                    transactionID: id, trustSnapshotHash: snapshot, verificationTime: time, freshFor: freshFor)
                XCTAssertEqual(batched[id], single, "\(id) at +\(offset) s")
            }
        }
        XCTAssertEqual(
            try store.priorVerifications(
                transactionIDs: ids, trustSnapshotHash: Fixture.snapshot, verificationTime: later.addingTimeInterval(60),
                freshFor: 900)[Fixture.transactionID(1)]?.runID, "r2")
        XCTAssertEqual(
            try store.priorVerifications(
                transactionIDs: [], trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: nil), [:])
        assertStoreError(.invalidArgument) {
            try store.priorVerifications(
                transactionIDs: ids, trustSnapshotHash: Fixture.snapshot, verificationTime: Fixture.t0, freshFor: -1)
        }

        let hashes = [response, Fixture.hex(2, salt: 2), Fixture.hex(1234)]
        let byResponse = try store.transactions(withResponseSHA256s: hashes)
        for hash in hashes {
            for id in ids {
                XCTAssertEqual(
                    byResponse[hash, default: []].filter { $0 != id },
                    try store.transactions(withResponseSHA256: hash, excluding: id))
            }
        }
        XCTAssertEqual(try store.transactions(withResponseSHA256s: []), [:])
    }

    func testReferenceCodeCollisionRollsBackTheWholeBatch() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let before = try store.rowCounts()
        assertStoreError(.referenceCodeCollision) {
            try store.record(
                [Fixture.outcome(1), Fixture.outcome(2), Fixture.outcome(3, referenceCode: "REF-1")], runID: "r1")
        }
        XCTAssertEqual(try store.rowCounts(), before)
        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 1))
    }

    /// A transaction already stored (inserted by an earlier run, which kept no input hashes) is
    /// recorded by its row: no second row, its first run kept, the input hashes it lacked filled
    /// in; a new transaction beside it in the same batch gets a row of its own.
    func testStoredTransactionIsFoundAndNewOneInsertedInOneBatch() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, keepData: false, consentState: .expired)], runID: "r1")
        XCTAssertEqual(try store.query(sql: "SELECT inputs FROM txn"), [[.null]])
        try store.beginRun(Fixture.run("r2", time: Fixture.t0.addingTimeInterval(60)))
        let later = Fixture.t0.addingTimeInterval(60)
        try store.record([Fixture.outcome(1, time: later), Fixture.outcome(2, time: later)], runID: "r2")

        XCTAssertEqual(
            try store.query(sql: "SELECT id, first_run_id, inputs IS NOT NULL FROM txn ORDER BY id"),
            [[.integer(1), .text("r1"), .integer(1)], [.integer(2), .text("r2"), .integer(1)]])
        XCTAssertEqual(
            try store.inputHashes(transactionID: Fixture.transactionID(1)), Fixture.outcome(1).inputHashes)
        XCTAssertEqual(
            try store.query(sql: "SELECT transaction_id, run_id FROM verification ORDER BY id"),
            [[.integer(1), .text("r1")], [.integer(1), .text("r2")], [.integer(2), .text("r2")]])
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 5))
    }

    func testBatchLimitEdges() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let limit = ReportStore.Limits.maximumBatchCount
        func minimal(_ n: Int) -> TransactionOutcome {
            TransactionOutcome(
                transactionID: Fixture.transactionID(n), displayName: "m\(n)", source: "s",
                verificationTime: Fixture.t0, trustSnapshot: Fixture.digest(Fixture.snapshot), verdictNow: .indeterminate,
                referenceCode: "M-\(n)")
        }
        assertStoreError(.batchTooLarge) { try store.record((0...limit).map(minimal), runID: "r1") }
        XCTAssertEqual(try store.int("SELECT count(*) FROM txn"), 0)
        try store.record((0..<limit).map(minimal), runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM txn"), Int64(limit))

        let reused = (0...limit).map { ReusedResult(transactionID: Fixture.transactionID($0), verificationID: 1) }
        assertStoreError(.batchTooLarge) { try store.recordReused(reused, runID: "r1") }
        let failures = (0...limit).map { IngestFailure(source: "f\($0)", code: "ingest.x", reason: "x") }
        assertStoreError(.batchTooLarge) { try store.recordIngestFailures(failures, runID: "r1") }
        try store.recordIngestFailures(Array(failures.prefix(limit)), runID: "r1")
        XCTAssertEqual(try store.int("SELECT count(*) FROM ingest_failure"), Int64(limit))
    }

    func testReusedResultsAreLinkedOnceAndCounted() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, verdict: .valid), Fixture.outcome(2, verdict: .invalid)], runID: "r1")
        try store.beginRun(Fixture.run("r2"))
        let reused = try [1, 2].map { n -> ReusedResult in
            let prior = try XCTUnwrap(
                try store.priorVerification(
                    transactionID: Fixture.transactionID(n), trustSnapshotHash: Fixture.snapshot,
                    verificationTime: Fixture.t0, freshFor: nil))
            return ReusedResult(transactionID: Fixture.transactionID(n), verificationID: prior.verificationID)
        }
        try store.recordReused(reused, runID: "r2")
        let counts = try store.rowCounts()
        try store.recordReused(reused, runID: "r2")
        XCTAssertEqual(try store.rowCounts(), counts)
        XCTAssertEqual(counts["verification"], 2)
        XCTAssertEqual(counts["reused"], 2)

        let summary = try store.runSummary(runID: "r2")
        XCTAssertEqual(summary.transactions, 2)
        XCTAssertEqual(summary.reused, 2)
        XCTAssertEqual(summary.verdictNow, [.valid: 1, .invalid: 1, .indeterminate: 0])
        XCTAssertEqual(summary.topFailingChecks.map(\.id), [.issuerDsValidity, .msoDigest])
        XCTAssertEqual(try store.proofs(runID: "r2").map(\.referenceCode), ["REF-1", "REF-2"])
        XCTAssertEqual(
            try store.int("SELECT count(*) FROM audit_log WHERE event = 'transaction.reused' AND run_id = 'r2'"), 2)

        // A verification of another transaction, or none at all, cannot be reused.
        try store.beginRun(Fixture.run("r3"))
        assertStoreError(.unknownVerification) {
            try store.recordReused(
                [ReusedResult(transactionID: Fixture.transactionID(1), verificationID: reused[1].verificationID)],
                runID: "r3")
        }
        assertStoreError(.unknownVerification) {
            try store.recordReused([ReusedResult(transactionID: Fixture.transactionID(1), verificationID: 999)], runID: "r3")
        }
        XCTAssertEqual(try store.runSummary(runID: "r3").transactions, 0)
    }

    /// `--force` under the same trust snapshot and instant: a new verification supersedes the
    /// old one, which stays with its run.
    func testForcedReverificationSupersedesAndKeepsHistory() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        try store.record([Fixture.outcome(1, verdict: .valid)], runID: "r1")
        try store.beginRun(Fixture.run("r2"))
        try store.record([Fixture.outcome(1, verdict: .invalid)], runID: "r2")
        try store.record([Fixture.outcome(1, verdict: .invalid)], runID: "r2")  // replayed batch: nothing new

        XCTAssertEqual(
            try store.query(sql: "SELECT id, run_id, verdict_now, superseded_by FROM verification ORDER BY id"),
            [
                [.integer(1), .text("r1"), .text("valid"), .integer(2)],
                [.integer(2), .text("r2"), .text("invalid"), .null],
            ])
        XCTAssertEqual(try store.int("SELECT count(*) FROM check_results"), 2)
        XCTAssertEqual(try store.checkResults(verificationIDs: [1, 2]).mapValues(\.count), [1: 30, 2: 30])
        XCTAssertEqual(try store.runSummary(runID: "r1").verdictNow[.valid], 1)
        XCTAssertEqual(try store.runSummary(runID: "r2").verdictNow[.invalid], 1)
        let prior = try store.priorVerification(
            transactionID: Fixture.transactionID(1), trustSnapshotHash: Fixture.snapshot,
            verificationTime: Fixture.t0, freshFor: nil)
        XCTAssertEqual(prior?.runID, "r2")
        XCTAssertEqual(
            try store.texts("SELECT json_extract(details_json, '$.supersedes') FROM audit_log WHERE event = 'transaction.reverified'").count,
            1)
        XCTAssertTrue(try store.integrityCheck())
    }

    func testIngestFailuresAreRecordedOncePerRun() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let failures = [
            IngestFailure(source: "captures/bad.zip", code: "ingest.pathTraversal", reason: "entry ../x"),
            IngestFailure(source: "captures/big.tar", code: "ingest.entryTooLarge", reason: "entry over limit"),
        ]
        try store.recordIngestFailures(failures, runID: "r1")
        try store.recordIngestFailures(failures, runID: "r1")
        XCTAssertEqual(try store.runSummary(runID: "r1").ingestFailures, 2)
        XCTAssertEqual(try store.int("SELECT count(*) FROM audit_log WHERE event = 'ingest.failed'"), 2)
        assertStoreError(.constraintViolation) {
            try store.recordIngestFailures([IngestFailure(source: "x", code: "", reason: "")], runID: "r1")
        }
    }

    func testRecordingNeedsARunningRun() throws {
        let store = try Fixture.store(self)
        assertStoreError(.unknownRun) { try store.record([Fixture.outcome(1)], runID: "nope") }
        try store.beginRun(Fixture.run("r1"))
        try store.finishRun(id: "r1", finishedAt: Fixture.t0, manifestPath: nil, merkleRoot: nil, proofCount: 0)
        assertStoreError(.runNotRunning) { try store.record([Fixture.outcome(1)], runID: "r1") }
        assertStoreError(.runNotRunning) {
            try store.recordReused([ReusedResult(transactionID: Fixture.transactionID(1), verificationID: 1)], runID: "r1")
        }
        assertStoreError(.runNotRunning) {
            try store.recordIngestFailures([IngestFailure(source: "x", code: "ingest.x", reason: "")], runID: "r1")
        }
        XCTAssertEqual(try store.int("SELECT count(*) FROM txn"), 0)
    }

    /// Empty, non-ASCII and long texts, next to hashes and NULLs in the same rows and CBOR
    /// values, come back exactly.
    func testTextsOfEveryShapeComeBackExactly() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let long = String(repeating: "détail ✓ ", count: 2_000)
        var outcome = Fixture.outcome(1, valueJSON: #""Ærøskøbing \u0000 日本""#)
        outcome.displayName = "bündel name"
        outcome.source = ""
        outcome.documents[0].elements[1].namespace = "org.iso.18013.5.1.ΑΒΓ"
        outcome.documents[0].elements[1].digest = nil
        outcome.checks[0] = CheckResult("input.metadata", .warn, long, subject: "", evidence: [Evidence("k", long)])
        try store.record([outcome, Fixture.outcome(2)], runID: "r1")
        XCTAssertEqual(
            try store.query(sql: "SELECT display_name, source FROM txn WHERE reference_code = 'REF-1'"),
            [[.text("bündel name"), .text("")]])
        XCTAssertEqual(try store.elements(verificationID: 1)[0]?[1].namespace, "org.iso.18013.5.1.ΑΒΓ")
        XCTAssertNil(try store.elements(verificationID: 1)[0]?[1].digest)
        XCTAssertEqual(try store.elements(verificationID: 2)[0]?[1].digest, Fixture.bytes(Fixture.hex(1, salt: 0xd1)))
        XCTAssertEqual(try store.elements(verificationID: 1)[0]?[0].valueJSON, #""Ærøskøbing \u0000 日本""#)
        let results = try store.checkResults(verificationIDs: [1])
        XCTAssertEqual(results[1]?.first, outcome.checks[0])
        XCTAssertEqual(results[1], outcome.checks)
    }

    /// Digest ids are CBOR unsigned integers: every value of the type comes back, none is lost.
    func testDigestIDsOfEveryWidthComeBackExactly() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        var outcome = Fixture.outcome(1)
        let ids: [UInt64?] = [UInt64(Int64.max), UInt64(Int64.max) + 1, UInt64.max, 0, 23, 24, 255, 256, 65_536, nil]
        for (index, id) in ids.enumerated() { outcome.documents[0].elements[index].digestID = id }
        try store.record([outcome], runID: "r1")
        XCTAssertEqual(try store.elements(verificationID: 1)[0]?.prefix(ids.count).map(\.digestID), ids)
    }

    /// Elements, input hashes and check results of any count are stored whole and in order.
    func testRowsOfEveryCountAreStoredInOrder() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let counts = [0, 1, 15, 16, 17, 40]
        let outcomes = counts.enumerated().map { index, count in
            var outcome = Fixture.outcome(index + 1, verdict: .invalid)
            outcome.documents = [Fixture.document(elements: count)]
            outcome.inputHashes = (0..<count).map { InputHash(path: "file-\($0)", digest: Fixture.digest(Fixture.hex($0, salt: 9))) }
            outcome.checks = (0..<count).map { CheckResult(.msoDigest, .fail, "digest \($0)", subject: "doc[0]") }
            return outcome
        }
        try store.record(outcomes, runID: "r1")
        for (index, count) in counts.enumerated() {
            let verification = Int64(index + 1)
            XCTAssertEqual(
                try store.elements(verificationID: verification)[0]?.map(\.identifier) ?? [],
                (0..<count).map { "element_\($0)" }, "\(count) elements")
            XCTAssertEqual(
                try store.inputHashes(transactionID: Fixture.transactionID(index + 1)).map(\.path),
                (0..<count).map { "file-\($0)" }, "\(count) input files")
            XCTAssertEqual(
                try store.int("SELECT count(*) FROM check_failure WHERE verification_id = ?", [.integer(verification)]),
                Int64(count), "\(count) failures indexed")
            XCTAssertEqual(
                try store.checkResults(verificationIDs: [verification])[verification] ?? [], outcomes[index].checks,
                "\(count) checks")
        }
    }

    func testConcurrentWritersFromManyThreads() throws {
        let store = try Fixture.store(self)
        try store.beginRun(Fixture.run("r1"))
        let errors = ErrorBox()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            do {
                let batch = (0..<10).map { Fixture.outcome(worker * 100 + $0) }
                try store.record(batch, runID: "r1")
                try store.appendAudit(event: "test.worker", runID: "r1", transactionID: nil, detailsJSON: "{}")
            } catch {
                errors.add(error)
            }
        }
        XCTAssertEqual(errors.all.count, 0, "\(errors.all)")
        XCTAssertEqual(try store.int("SELECT count(*) FROM verification"), 80)
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: 1 + 80 + 8))
    }
}

final class ErrorBox: @unchecked Sendable {
    // Guarded by `lock`.
    private var errors: [any Error] = []
    private let lock = NSLock()
    func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    var all: [any Error] { lock.withLock { errors } }
}
