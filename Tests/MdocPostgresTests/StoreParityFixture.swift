import Foundation
import MdocChecks
import MdocPostgres
import MdocPostgresTestSupport
import MdocStore
import XCTest

/// Runs recorded into both stores: outcomes of every verdict, expired consent, kept values,
/// uploads, reused results, ingest failures, and a second run that re-verifies with `--force`.
enum ParityFixture {
    /// 2024-03-01T09:00:00Z.
    static let verifiedAt = Date(timeIntervalSince1970: 1_709_283_600)
    static let trust = sha(0x7717)
    static let ds = sha(0xd5d5), iaca = sha(0x1aca)

    /// A stand-in SHA-256: 64 lower-case hex digits from `n` and `kind`.
    static func sha(_ n: Int, kind: Int = 0) -> String {
        String(format: "%032llx%032llx", UInt64(kind), UInt64(n) &* 2_654_435_761)
    }

    /// ``sha(_:kind:)`` as the bytes an outcome carries (no bytes for text that is not a
    /// SHA-256, which the stores refuse).
    static func digest(_ hex: String) -> SHA256Digest { SHA256Digest(hex: hex) ?? SHA256Digest(bytes: []) }

    /// ``sha(_:kind:)`` as an element's digest.
    static func elementDigest(_ hex: String) -> [UInt8]? { digest(hex).bytes }

    static func run(_ id: String, startedAt: Date = verifiedAt) -> RunInfo {
        RunInfo(
            id: id, startedAt: startedAt, verificationTime: verifiedAt, verificationTimeIsNow: false,
            trustSnapshotHash: trust, optionsJSON: #"{"keepValues":true}"#, processorVersion: "parity",
            inputs: ["inputs/\(id)"], proofFile: "proofs/\(id).cbor-seq", trustItems: trustItems(id))
    }

    /// The runs' trust snapshots: one IACA, and its CRL, replaced between run "a" and the others.
    static func trustItems(_ id: String) -> [TrustItem] {
        let replaced = id != "a"
        return [
            TrustItem(kind: .anchor, sha256: iaca, name: "C=UT, CN=IACA", source: "folder", file: "trust/iaca.pem",
                      docTypes: ["org.iso.18013.5.1.mDL"], issuedAt: Date(timeIntervalSince1970: 1_600_000_000),
                      expiresAt: Date(timeIntervalSince1970: 1_900_000_000)),
            TrustItem(kind: .crl, sha256: sha(replaced ? 2 : 1, kind: 10), name: "C=UT, CN=IACA", source: "folder",
                      file: "trust/iaca.crl", issuedAt: Date(timeIntervalSince1970: replaced ? 1_709_200_000 : 1_709_000_000),
                      expiresAt: Date(timeIntervalSince1970: 1_712_000_000)),
        ]
    }

    static func results(_ verdict: Verdict, _ n: Int) -> [CheckResult] {
        let ids = CheckCatalogue.all.map(\.id)
        var results = (0..<8).map { index in
            CheckResult(ids[(n + index) % ids.count], .pass, "ok \(index)", subject: "doc[0]",
                        evidence: [Evidence("n", String(n))])
        }
        if verdict == .invalid {
            results[2] = CheckResult(.msoDigest, .fail, "digest \(n) differs", subject: "doc[0]/ns/e\(n)")
            results[5] = CheckResult(.issuerDsValidity, .fail, "DS expired", subject: "cert[0]", instant: .capture)
        }
        if verdict == .indeterminate { results[1] = CheckResult(.deviceMac, .unchecked, "no reader key", subject: "doc[0]") }
        return results
    }

    /// One document; every third transaction has a second with the same issuers between two
    /// without issuers: one verification is the first of two issuer pairs, in document order.
    static func documents(_ n: Int) -> [DocumentSummary] {
        var document = DocumentSummary(
            index: 0, docType: "org.iso.18013.5.1.mDL", dsSHA256: digest(ds), iacaSHA256: digest(iaca),
            msoSigned: Date(timeIntervalSince1970: 1_700_000_000), msoValidFrom: Date(timeIntervalSince1970: 1_700_000_000),
            msoValidUntil: Date(timeIntervalSince1970: 1_730_000_000), digestAlgorithm: "SHA-256",
            elements: [
                ElementSummary(namespace: "org.iso.18013.5.1", identifier: "family_name", digestID: 1,
                               digest: elementDigest(sha(n, kind: 3)), valueJSON: #""Doe \#(n)""#),
                ElementSummary(namespace: "org.iso.18013.5.1", identifier: "age_over_18", digestID: 2,
                               digest: elementDigest(sha(n, kind: 4)), valueJSON: "true"),
            ])
        guard n % 3 == 1 else { return [document] }
        document.index = 1
        return [
            DocumentSummary(index: 0, docType: "org.iso.18013.5.1.mDL"), document,
            DocumentSummary(index: 2, docType: "org.iso.18013.5.1.mDL"),
        ]
    }

    static func outcome(_ n: Int, verdict: Verdict, consent: ConsentState = .valid) -> TransactionOutcome {
        let keep = consent != .expired
        return TransactionOutcome(
            transactionID: sha(n, kind: 1), displayName: "bundle-\(n)", source: ["kiosk-é", "kiosk-B", "kiosk-a"][n % 3],
            capturedAt: n % 4 == 0 ? nil : Date(timeIntervalSince1970: 1_709_000_000 + Double(n) * 50_000),
            responseDigest: digest(sha(n % 5, kind: 2)), consentReference: "consent-\(n)",
            consentExpiresAt: Date(timeIntervalSince1970: 1_710_000_000), consentState: consent,
            verificationTime: verifiedAt, trustSnapshot: digest(trust), verdictAtCapture: n % 4 == 0 ? nil : verdict,
            verdictNow: verdict, referenceCode: "R\(n)-\(n * 7)", checks: results(verdict, n),
            documents: documents(n),
            certificates: [
                CertificateSummary(sha256: digest(ds), role: .ds, subject: "C=UT, CN=DS", issuer: "C=UT, CN=IACA",
                                   serialHex: "0b", notBefore: Date(timeIntervalSince1970: 1_690_000_000),
                                   notAfter: Date(timeIntervalSince1970: 1_712_000_000), country: "UT"),
                CertificateSummary(sha256: digest(iaca), role: .iaca, subject: "C=UT, CN=IACA", issuer: "C=UT, CN=IACA",
                                   serialHex: "01", notBefore: Date(timeIntervalSince1970: 1_600_000_000),
                                   notAfter: Date(timeIntervalSince1970: 1_900_000_000), country: "UT"),
            ],
            images: n % 3 == 0 ? [ImageSummary(
                uploadID: "up-\(n)", documentType: "passport", side: "front", outcome: n % 2 == 0 ? .kept : .reencoded,
                originalSHA256: sha(n, kind: 5), originalBytes: 1_500_000 + n, originalFormat: "jpeg",
                outputSHA256: n % 2 == 0 ? nil : sha(n, kind: 6), outputBytes: n % 2 == 0 ? nil : 900_000,
                quality: n % 2 == 0 ? nil : 80, passes: 2)] : [],
            inputHashes: [InputHash(path: "device-response.cbor", digest: digest(sha(n, kind: 7)))],
            proof: ProofLocation(file: "proofs/parity.cbor-seq", offset: Int64(n * 100), length: 90, sha256: sha(n, kind: 8)),
            keepData: keep)
    }

    /// Records the fixture's runs into `store`: run "a" verifies 24 transactions in three
    /// batches (one replayed), run "b" reuses some and re-verifies others.
    static func record(into store: some RecordingStore) throws {
        let verdicts: [Verdict] = [.valid, .invalid, .indeterminate, .valid, .valid]
        func outcomes(_ range: Range<Int>) -> [TransactionOutcome] {
            range.map { outcome($0, verdict: verdicts[$0 % verdicts.count], consent: $0 == 7 ? .expired : .valid) }
        }
        try store.beginRun(run("a"))
        try store.record(StoreBatch(outcomes: outcomes(0..<10), proofFileLength: 1000), runID: "a")
        try store.record(StoreBatch(
            outcomes: outcomes(10..<24),
            ingestFailures: [IngestFailure(source: "inputs/a/broken.tar", code: "ingest.unreadableArchive", reason: "bad")]),
            runID: "a")
        // A batch replayed after a crash adds nothing.
        try store.record(StoreBatch(outcomes: outcomes(10..<24)), runID: "a")
        try store.finishRun(id: "a", finishedAt: verifiedAt.addingTimeInterval(60), manifestPath: "runs/a.cose",
                            merkleRoot: sha(1, kind: 9), proofCount: 24)

        try store.beginRun(run("b", startedAt: verifiedAt.addingTimeInterval(3600)))
        try store.record(StoreBatch(reused: (0..<6).map { ReusedResult(transactionID: sha($0, kind: 1), verificationID: Int64($0 + 1)) }),
                         runID: "b")
        // Forced: transactions 4..<9 verified again under the same key, with other verdicts.
        try store.record(StoreBatch(outcomes: (4..<9).map { outcome($0, verdict: $0 % 2 == 0 ? .invalid : .valid) }), runID: "b")
        try store.interruptRun(id: "b", reason: "stopped")
    }

    /// Every table's rows in key order, as store values (what both stores must hold alike).
    static let tables: [(table: String, columns: String, order: String)] = [
        ("run", "id, started_at, finished_at, verification_time, time_is_now, trust_snapshot, context, options_json, processor_version, inputs_json, status, proof_file, proof_file_length, manifest_path, merkle_root, proof_count", "id"),
        ("txn", "*", "id"), ("verification", "*", "id"), ("check_results", "*", "verification_id"),
        ("check_failure", "*", "verification_id, seq"), ("reused", "*", "run_id, transaction_id"),
        ("certificate", "*", "fingerprint"), ("document", "*", "verification_id, idx"),
        ("disclosure", "*", "verification_id"), ("image", "*", "verification_id, seq"), ("ingest_failure", "*", "id"),
        ("audit_log", "*", "seq"), ("trust_item", "*", "run_id, seq"),
    ]
}
