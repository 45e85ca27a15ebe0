import Foundation
import MdocChecks
import MdocCrypto
import MdocIngest
import MdocPipeline
import MdocProof
import MdocSamples
import MdocStore
import MdocTestSupport
import XCTest

/// Whole runs through the Orchestrator: store, proofs, manifest, reuse, replay, consent, hostile inputs.
final class PipelineRunTests: TemporaryFolderTestCase {
    var root: String { temporaryFolder }

    /// Writes `count` transactions signed by one authority; `defects[i]` plants a defect in transaction i.
    func makeBatch(count: Int, defects: [Int: SampleDefect] = [:]) throws -> (inputs: String, trust: String) {
        let inputs = "\(root)/in"
        let trust = "\(root)/trust"
        var anchorsWritten = false
        for i in 0..<count {
            let scenario = try Scenario(defect: defects[i])
            if !anchorsWritten {
                try scenario.writeTrust(to: trust)
                anchorsWritten = true
            } else {
                // Every scenario has its own IACA: add it to the trust folder.
                try Data(scenario.authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(trust)/iaca-\(i).pem"))
            }
            let capture = Scenario.verificationTime.addingTimeInterval(-3600)
            try writeBundle(try scenario.bundleFiles(id: "tx-\(i)", capturedAt: capture), to: "\(inputs)/tx-\(i)")
        }
        return (inputs, trust)
    }

    func configuration(_ inputs: [String], trust: String) -> RunConfiguration {
        var configuration = RunConfiguration(inputs: inputs, trustDirectory: trust, outDirectory: "\(root)/out")
        configuration.verificationTime = Scenario.verificationTime
        configuration.jobs = 2
        return configuration
    }

    func run(_ configuration: RunConfiguration) async throws -> (Orchestrator.RunResult, [Orchestrator.Event]) {
        let orchestrator = try Orchestrator(configuration: configuration)
        var events: [Orchestrator.Event] = []
        let result = try await orchestrator.run { events.append($0) }
        return (result, events)
    }

    func reports(_ events: [Orchestrator.Event]) -> [Orchestrator.TransactionReport] {
        events.compactMap { if case .transaction(let report) = $0 { return report } else { return nil } }
    }

    func testRunStoresVerdictsSignsProofsAndReusesOnRerun() async throws {
        let batch = try makeBatch(count: 6, defects: [1: .tamperedElement, 4: .expiredMSO])
        let (result, events) = try await run(configuration([batch.inputs], trust: batch.trust))
        XCTAssertEqual(result.summary.transactions, 6)
        XCTAssertEqual(result.summary.verdictNow[.valid], 4)
        XCTAssertEqual(result.summary.verdictNow[.invalid], 2)
        XCTAssertEqual(result.summary.verdictAtCapture[.valid, default: 0] + result.summary.verdictAtCapture[.invalid, default: 0], 6)
        XCTAssertFalse(result.allValid)
        XCTAssertEqual(Set(result.summary.topFailingChecks.map(\.id)), [.msoDigest, .msoValidity])
        let names = reports(events).map(\.name)
        XCTAssertEqual(names, (0..<6).map { "tx-\($0)" }, "events in input order")

        // Every proof verifies; the manifest commits to all of them.
        let manifestPath = try XCTUnwrap(result.manifestPath)
        let manifest = Array(try Data(contentsOf: URL(fileURLWithPath: manifestPath)))
        let report = try RunVerifier.verify(manifest: manifest, outputFolder: "\(root)/out", policy: .notChecked)
        XCTAssertTrue(report.isIntact, "\(report.problems)")
        XCTAssertEqual(report.proofCount, 6)

        // One proof file for the run, no file per transaction; each report names it.
        let runFile = "\(root)/out/proofs/\(result.runID).cbor-seq"
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(root)/out/proofs"), ["\(result.runID).cbor-seq"])
        XCTAssertTrue(reports(events).allSatisfy { $0.proofPath == "proofs/\(result.runID).cbor-seq" })
        let store = try ReportStore(path: "\(root)/out/mdocverify.sqlite")
        let committed = try XCTUnwrap(try store.runProofFiles().first { $0.runID == result.runID }?.committedLength)
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: runFile)))
        XCTAssertEqual(Int64(original.count), committed, "the store committed the whole file")

        // Flip one byte of the first proof: detected. Remove the second record: detected.
        let reader = try RunFileReader(path: runFile)
        let firstRecord = try XCTUnwrap(try reader.next()), secondRecord = try XCTUnwrap(try reader.next())
        var altered = original
        altered[firstRecord.offset + firstRecord.length / 2] ^= 0x01
        altered.removeSubrange(secondRecord.offset..<(secondRecord.offset + secondRecord.length))
        try Data(altered).write(to: URL(fileURLWithPath: runFile))
        let tampered = try RunVerifier.verify(manifest: manifest, outputFolder: "\(root)/out", policy: .notChecked)
        XCTAssertFalse(tampered.isIntact)
        XCTAssertEqual(tampered.problemKinds.filter { $0 == .altered }.count, 1, "\(tampered.problems)")
        XCTAssertEqual(tampered.problemKinds.filter { $0 == .missing }.count, 1, "\(tampered.problems)")
        try Data(original).write(to: URL(fileURLWithPath: runFile))

        // Re-run the same command: nothing re-verified, same verdicts.
        let (second, secondEvents) = try await run(configuration([batch.inputs], trust: batch.trust))
        XCTAssertEqual(second.summary.reused, 6)
        XCTAssertEqual(second.summary.verdictNow, result.summary.verdictNow)
        XCTAssertTrue(reports(secondEvents).allSatisfy(\.reused))
        XCTAssertEqual(reports(secondEvents).map(\.verdict), reports(events).map(\.verdict))

        // --force verifies again.
        var forced = configuration([batch.inputs], trust: batch.trust)
        forced.force = true
        let (third, _) = try await run(forced)
        XCTAssertEqual(third.summary.reused, 0)
        XCTAssertEqual(third.summary.transactions, 6)
        // Verifying the same transactions again writes new proofs in the new run's own file: its
        // manifest verifies, and the first manifest still finds its own proofs, untouched.
        let thirdManifest = Array(try Data(contentsOf: URL(fileURLWithPath: try XCTUnwrap(third.manifestPath))))
        XCTAssertTrue(try RunVerifier.verify(manifest: thirdManifest, outputFolder: "\(root)/out", policy: .notChecked).isIntact)
        let firstAgain = try RunVerifier.verify(manifest: manifest, outputFolder: "\(root)/out", policy: .notChecked)
        XCTAssertTrue(firstAgain.isIntact, "\(firstAgain.problems)")
        XCTAssertEqual(firstAgain.proofCount, 6)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: "\(root)/out/proofs").count, 3, "one file per run")

        XCTAssertTrue(try store.integrityCheck())
        XCTAssertEqual(try store.verifyAuditChain(), .intact(count: try XCTUnwrap(auditCount(store))))
    }

    /// A run file that cannot be created (here a folder stands where it must go) stops the run
    /// before any transaction is recorded, the run marked interrupted; once the obstacle is
    /// gone, the same inputs verify and the proof is written.
    func testAProofFileThatCannotBeWrittenStopsTheRunAndRecordsNothing() async throws {
        let batch = try makeBatch(count: 1)
        let orchestrator = try Orchestrator(configuration: configuration([batch.inputs], trust: batch.trust))
        let blocked = "\(root)/out/proofs/\(orchestrator.runID).cbor-seq"
        try FileManager.default.createDirectory(atPath: "\(blocked)/blocker", withIntermediateDirectories: true)
        do {
            _ = try await orchestrator.run { _ in }
            XCTFail("the run went on without its proof file")
        } catch let error as PipelineSetupError {
            XCTAssertTrue("\(error)".contains("cannot create the run's proof file"), "\(error)")
        }
        let store = try ReportStore(path: "\(root)/out/mdocverify.sqlite")
        XCTAssertEqual(try store.query(sql: "SELECT count(*) FROM verification").first?.first?.int64 ?? -1, 0)
        XCTAssertEqual(try store.runStatus(runID: orchestrator.runID), .interrupted, "the run is recorded as stopped")

        try FileManager.default.removeItem(atPath: blocked)
        let (again, _) = try await run(configuration([batch.inputs], trust: batch.trust))
        XCTAssertEqual(again.summary.transactions, 1)
        XCTAssertEqual(again.proofCount, 1)
        XCTAssertTrue(FileManager.default.fileExists(atPath: "\(root)/out/proofs/\(again.runID).cbor-seq"))
    }

    /// Pre-flight creates nothing until every check passed: a bad signing key, an unusable
    /// database path or a missing input leaves no output folder, key, database or run behind.
    func testAFailedPreflightCreatesNothing() async throws {
        let batch = try makeBatch(count: 1)
        let out = "\(root)/fresh/out"
        var bad = configuration([batch.inputs], trust: batch.trust)
        bad.outDirectory = out
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: "\(root)/bad-key.pem"))
        bad.signingKeyPath = "\(root)/bad-key.pem"
        bad.signingCertificatePath = "\(root)/bad-key.pem"
        XCTAssertThrowsError(try Orchestrator(configuration: bad))
        var missing = configuration([batch.inputs, "\(root)/no-such-input"], trust: batch.trust)
        missing.outDirectory = out
        XCTAssertThrowsError(try Orchestrator(configuration: missing)) { XCTAssertTrue("\($0)".contains("no-such-input"), "\($0)") }
        try Data("x".utf8).write(to: URL(fileURLWithPath: "\(root)/a-file"))
        var badStore = configuration([batch.inputs], trust: batch.trust)
        badStore.outDirectory = out
        badStore.databasePath = "\(root)/a-file/db.sqlite"
        XCTAssertThrowsError(try Orchestrator(configuration: badStore))
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(root)/fresh"), "no output folder, key or database")
    }

    func auditCount(_ store: ReportStore) throws -> Int? {
        try store.query(sql: "SELECT COUNT(*) FROM audit_log").first?.first?.int64.map(Int.init)
    }

    func testReplayedResponseIsFlagged() async throws {
        let scenario = try Scenario()
        let inputs = "\(root)/in"
        try scenario.writeTrust(to: "\(root)/trust")
        try writeBundle(try scenario.bundleFiles(id: "first"), to: "\(inputs)/a")
        try writeBundle(try scenario.bundleFiles(id: "second"), to: "\(inputs)/b")
        let (_, events) = try await run(configuration([inputs], trust: "\(root)/trust"))
        let byName = Dictionary(uniqueKeysWithValues: reports(events).map { ($0.name, $0) })
        XCTAssertEqual(byName["first"]?.checks.first { $0.id == .responseReplayed }?.status, .pass)
        XCTAssertEqual(byName["second"]?.checks.first { $0.id == .responseReplayed }?.status, .warn)
        XCTAssertEqual(byName["second"]?.verdict, .valid, "a replay is a warning worth showing, not a failure")
        XCTAssertNotEqual(byName["first"]?.transactionID, byName["second"]?.transactionID)
        // Both are in one batch, so the store knows neither: the warning comes from the run's
        // own lookup, made before the verdict was judged and the proof signed (once).
        let replay = try XCTUnwrap(byName["second"]?.checks.first { $0.id == .responseReplayed })
        XCTAssertTrue(replay.detail.hasSuffix("of this run"), replay.detail)
        let second = try XCTUnwrap(byName["second"])
        XCTAssertNotNil(second.proofPath)
        let found = try XCTUnwrap(try OutputFolder(path: "\(root)/out").findProof(referenceCode: second.referenceCode))
        let opened = try ProofVerifier.open(found.proof.bytes)
        XCTAssertTrue(opened.signatureValid)
        let signed = opened.payload.diagnostic()
        XCTAssertTrue(signed.contains("\"response.replayed\""), "the signed proof carries the replay check")
        XCTAssertTrue(signed.contains("was presented in transaction") && signed.contains("of this run"), signed)
        // The proof signs the check results in the form the store keeps them: one encoding.
        let proved = try XCTUnwrap(opened.payload.map?["checks"]?.encoded)
        XCTAssertEqual(try StoredResults.decodeResults(Data(proved), verificationID: 0), second.checks)
    }

    func testExpiredConsentFailsAndKeepsNoData() async throws {
        let scenario = try Scenario()
        try scenario.writeTrust(to: "\(root)/trust")
        var files = try scenario.bundleFiles(id: "consented")
        files["transaction.json"] = Array("""
            {"id": "consented", "capturedAt": "2026-05-01T10:00:00Z",
             "consent": {"reference": "SSO-123", "grantedAt": "2026-05-01T09:59:00Z", "scopes": ["mdl"], "expiresAt": "2026-05-02T00:00:00Z"}}
            """.utf8)
        try writeBundle(files, to: "\(root)/in/consented")
        let (result, events) = try await run(configuration(["\(root)/in"], trust: "\(root)/trust"))
        let report = try XCTUnwrap(reports(events).first)
        let windows = report.checks.filter { $0.id == .consentWindow }
        XCTAssertEqual(windows.first { $0.instant == .capture }?.status, .pass)
        XCTAssertEqual(windows.first { $0.instant == .verification }?.status, .fail)
        XCTAssertNil(report.proofPath, "no new data kept after consent expired")
        XCTAssertEqual(result.proofCount, 0)
        let store = try ReportStore(path: "\(root)/out/mdocverify.sqlite")
        XCTAssertEqual(try store.query(sql: "SELECT COUNT(*) FROM document").first?.first?.int64, 0)
        XCTAssertEqual(try store.query(sql: "SELECT consent_reference FROM txn").first?.first?.text, "SSO-123")
    }

    func testHostileArchiveIsRefusedAndTheRunGoesOn() async throws {
        let batch = try makeBatch(count: 2)
        let hostile = "\(root)/hostile.tar.gz"
        let writer = try ArchiveWriter(path: hostile, format: .tarGzip)
        try writer.addFile(path: "tx/device-response.cbor", bytes: [0xa0])
        try writer.addFile(path: "tx/../../escaped.txt", bytes: Array("x".utf8))
        try writer.close()
        let (result, events) = try await run(configuration([hostile, batch.inputs], trust: batch.trust))
        guard case .ingestFailure(let source, let code, _) = events.first else { return XCTFail("the archive is refused first") }
        XCTAssertEqual(source, hostile)
        XCTAssertEqual(code, "ingest.pathTraversal")
        XCTAssertEqual(reports(events).count, 2, "the other input is processed")
        XCTAssertEqual(result.summary.ingestFailures, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(root)/escaped.txt"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: NSTemporaryDirectory() + "escaped.txt"))
    }

    func testSetupErrorsNameWhatToFix() async throws {
        var configuration = RunConfiguration(inputs: ["x"], trustDirectory: "\(root)/no-such-trust", outDirectory: "\(root)/out")
        XCTAssertThrowsError(try Orchestrator(configuration: configuration)) { error in
            XCTAssertTrue("\(error)".contains("--trust"), "\(error)")
        }
        try FileManager.default.createDirectory(atPath: "\(root)/empty-trust", withIntermediateDirectories: true)
        configuration.trustDirectory = "\(root)/empty-trust"
        XCTAssertThrowsError(try Orchestrator(configuration: configuration)) { error in
            XCTAssertTrue("\(error)".contains("no certificate"), "\(error)")
        }
    }

    func testValuesAreStoredOnlyWhenAskedAndPortraitsAsHashes() async throws {
        let batch = try makeBatch(count: 1)
        func values(keep: Bool, portraits: Bool, out: String) async throws -> [String: String] {
            var configuration = configuration([batch.inputs], trust: batch.trust)
            configuration.outDirectory = "\(root)/\(out)"
            configuration.keepValues = keep
            configuration.keepPortraits = portraits
            _ = try await run(configuration)
            let store = try ReportStore(path: "\(root)/\(out)/mdocverify.sqlite")
            var result: [String: String] = [:]
            for row in try store.query(sql: "SELECT verification_id FROM disclosure") {
                guard let id = row[0].int64 else { continue }
                for element in try store.elements(verificationID: id).values.joined() {
                    if let value = element.valueJSON { result[element.identifier] = value }
                }
            }
            return result
        }
        let none = try await values(keep: false, portraits: false, out: "o1")
        XCTAssertTrue(none.isEmpty, "no personal data by default")
        let kept = try await values(keep: true, portraits: false, out: "o2")
        XCTAssertEqual(kept["family_name"], "\"\\\"Doe\\\"\"")
        XCTAssertTrue(kept["portrait"]?.hasPrefix("\"sha256:") ?? false, kept["portrait"] ?? "nil")
        let portraits = try await values(keep: true, portraits: true, out: "o3")
        XCTAssertEqual(portraits["portrait"], "\"base64:/9j/4AAQ\"")
    }
}
