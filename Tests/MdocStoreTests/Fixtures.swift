import Foundation
import MdocChecks
import MdocStore
import XCTest

/// Builders for store tests: deterministic ids, runs and outcomes shaped like the pipeline's
/// (≈30 checks, one document with 12 elements, DS + IACA certificates, input hashes).
enum Fixture {
    /// 2021-10-01T13:30:02Z: inside the Annex D DS certificate's validity.
    static let t0 = Date(timeIntervalSince1970: 1_633_095_002)
    static let snapshot = hex(0x5a5a)
    static let otherSnapshot = hex(0x6b6b)
    static let dsFingerprint = hex(0xd5)
    static let iacaFingerprint = hex(0x1aca)

    /// 64 lower-case hex digits encoding `n` (a stand-in for a SHA-256).
    static func hex(_ n: Int, salt: Int = 0) -> String {
        String(format: "%016llx%016llx%016llx%016llx", UInt64(salt), UInt64(n), UInt64(n &* 31), UInt64(salt &+ 7))
    }

    static func transactionID(_ n: Int) -> String { hex(n, salt: 1) }

    /// The bytes of lower-case hex text (what the store keeps of a hash).
    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex),
            let byte = UInt8(hex[index..<next], radix: 16)
        {
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// A SHA-256 given as hex, as an outcome carries it.
    static func digest(_ hex: String) -> SHA256Digest { SHA256Digest(bytes: bytes(hex)) }

    /// An element's digest given as hex.
    static func elementDigest(_ hex: String) -> [UInt8]? { bytes(hex) }

    /// A hash as the store keeps it, for comparing query results.
    static func blob(_ hex: String) -> StoreValue { .blob(bytes(hex)) }

    static func run(_ id: String, time: Date = t0, isNow: Bool = false, startedAt: Date? = nil) -> RunInfo {
        RunInfo(
            id: id, startedAt: startedAt ?? time, verificationTime: time, verificationTimeIsNow: isNow,
            trustSnapshotHash: snapshot, optionsJSON: #"{"keepValues":false,"jobs":2}"#,
            processorVersion: "0.1.0-test", inputs: ["captures/a.tar.gz", "captures/b"])
    }

    /// Thirty check results: all pass for `.valid`; two failures for `.invalid`; a required
    /// check unchecked for `.indeterminate`.
    static func checks(for verdict: Verdict) -> [CheckResult] {
        var results: [CheckResult] = []
        // Not consent.window: the store keeps that one even when the rest goes (expired consent).
        let ids = CheckCatalogue.all.map(\.id).filter { $0 != .consentWindow }
        for index in 0..<30 {
            let id = ids[index % ids.count]
            results.append(
                CheckResult(
                    id, .pass, "ok", subject: "doc[0]", instant: index % 5 == 0 ? .verification : nil,
                    evidence: [Evidence("dsFingerprint", dsFingerprint), Evidence("alg", "ES256")]))
        }
        switch verdict {
        case .valid:
            break
        case .invalid:
            results[3] = CheckResult(
                .msoDigest, .fail, "digest 7 of org.iso.18013.5.1 does not match",
                subject: "doc[0]/org.iso.18013.5.1/family_name", evidence: [Evidence("digestID", "7")])
            results[4] = CheckResult(
                .issuerDsValidity, .fail, "DS expired", subject: "cert[0]", instant: .verification,
                evidence: [Evidence("notAfter", "2022-10-01T00:00:00Z")])
        case .indeterminate:
            results[5] = CheckResult(.deviceMac, .unchecked, "no reader key", subject: "doc[0]")
        }
        return results
    }

    static func document(valueJSON: String? = nil, elements: Int = 12) -> DocumentSummary {
        DocumentSummary(
            index: 0, docType: "org.iso.18013.5.1.mDL", dsSHA256: digest(dsFingerprint),
            iacaSHA256: digest(iacaFingerprint),
            msoSigned: Date(timeIntervalSince1970: 1_601_559_002),
            msoValidFrom: Date(timeIntervalSince1970: 1_601_559_002),
            msoValidUntil: Date(timeIntervalSince1970: 1_633_095_002),
            msoExpectedUpdate: nil, digestAlgorithm: "SHA-256",
            elements: (0..<elements).map { index in
                ElementSummary(
                    namespace: "org.iso.18013.5.1", identifier: "element_\(index)", digestID: UInt64(index),
                    digest: elementDigest(hex(index, salt: 0xd1)), valueJSON: index == 0 ? valueJSON : nil)
            })
    }

    static var certificates: [CertificateSummary] {
        [
            CertificateSummary(
                sha256: digest(dsFingerprint), role: .ds, subject: "C=US, CN=Utopia DS", issuer: "C=US, CN=Utopia IACA",
                serialHex: "0a1b", notBefore: Date(timeIntervalSince1970: 1_601_559_002),
                notAfter: Date(timeIntervalSince1970: 1_664_631_002), country: "US"),
            CertificateSummary(
                sha256: digest(iacaFingerprint), role: .iaca, subject: "C=US, CN=Utopia IACA",
                issuer: "C=US, CN=Utopia IACA", serialHex: "01", notBefore: Date(timeIntervalSince1970: 1_601_559_002),
                notAfter: Date(timeIntervalSince1970: 1_917_091_002), country: "US"),
        ]
    }

    static func image(_ n: Int) -> ImageSummary {
        ImageSummary(
            uploadID: "upload[\(n)]", documentType: "passport", side: "front", outcome: .reencoded,
            reason: "image.tooLarge", originalSHA256: hex(n, salt: 0x1a), originalBytes: 2_400_000,
            originalFormat: "jpeg", originalWidth: 4000, originalHeight: 3000, outputSHA256: hex(n, salt: 0x1b),
            outputBytes: 998_000, outputWidth: 2000, outputHeight: 1500, quality: 85, scaleDenominator: 2,
            passes: 4, outputPath: "images/\(n).jpg")
    }

    static func outcome(
        _ n: Int, verdict: Verdict = .valid, time: Date = t0, snapshot: String = snapshot,
        valueJSON: String? = nil, keepData: Bool = true, consentState: ConsentState = .none,
        withImage: Bool = false, responseSHA256: String? = nil, referenceCode: String? = nil
    ) -> TransactionOutcome {
        TransactionOutcome(
            transactionID: transactionID(n), displayName: "capture-\(n)", source: "kiosk-\(n % 3)",
            capturedAt: Date(timeIntervalSince1970: 1_633_000_000 + Double(n) * 3600),
            responseDigest: digest(responseSHA256 ?? hex(n, salt: 2)),
            consentReference: consentState == .none ? nil : "consent-\(n)",
            consentExpiresAt: consentState == .none ? nil : Date(timeIntervalSince1970: 1_640_000_000),
            consentState: consentState, verificationTime: time, trustSnapshot: digest(snapshot),
            verdictAtCapture: verdict, verdictNow: verdict,
            referenceCode: referenceCode ?? "REF-\(n)", checks: checks(for: verdict),
            documents: [document(valueJSON: valueJSON)], certificates: certificates,
            images: withImage ? [image(n)] : [],
            inputHashes: [
                InputHash(path: "transaction.json", digest: digest(hex(n, salt: 3))),
                InputHash(path: "device-response.cbor", digest: digest(hex(n, salt: 2))),
            ],
            proof: ProofLocation(file: "proofs/REF-\(n).cose", offset: 0, length: Int64(1000 + n), sha256: hex(n, salt: 4)),
            keepData: keepData)
    }

    /// A fresh folder under the temporary directory, removed when the test ends.
    static func temporaryFolder(_ testCase: XCTestCase) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("mdocstore-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        testCase.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    static func store(_ testCase: XCTestCase, clock: Date = t0) throws -> ReportStore {
        let folder = try temporaryFolder(testCase)
        return try ReportStore(path: folder.appendingPathComponent("mdocverify.sqlite").path, access: .readWrite, clock: { clock })
    }
}

/// Every table the schema creates.
let allTables = [
    "audit_log", "certificate", "check_failure", "check_results", "disclosure", "document", "image", "ingest_failure",
    "kiosk_record", "reused", "run", "trust_item", "txn", "verification",
]

extension ReportStore {
    /// Row count of each table.
    func rowCounts() throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for table in allTables {
            counts[table] = try int("SELECT count(*) FROM \(table)")
        }
        return counts
    }

    /// The id of the current verification of transaction `n` of ``Fixture``.
    func verificationID(_ n: Int) throws -> Int64 {
        try int(
            "SELECT v.id FROM verification v JOIN txn t ON t.id = v.transaction_id WHERE t.sha256 = ? AND v.superseded_by IS NULL",
            [Fixture.blob(Fixture.transactionID(n))])
    }

    /// The single integer a query returns (test helper; fails the test by throwing otherwise).
    /// SQLite's query plan for `sql`, its steps joined by " | ".
    func plan(_ sql: String) throws -> String {
        try query(sql: "EXPLAIN QUERY PLAN " + sql).compactMap { $0.last?.text }.joined(separator: " | ")
    }

    func int(_ sql: String, _ arguments: [StoreValue] = []) throws -> Int64 {
        let rows = try query(sql: sql, arguments: arguments)
        guard rows.count == 1, let row = rows.first, row.count == 1, let value = row.first?.int64 else {
            throw TestFailure("expected one integer from \(sql), got \(rows)")
        }
        return value
    }

    func texts(_ sql: String, _ arguments: [StoreValue] = []) throws -> [String?] {
        try query(sql: sql, arguments: arguments).map { $0.first?.text }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Asserts that `body` throws a ``StoreError`` with `code`; returns it.
@discardableResult
func assertStoreError<T>(
    _ code: StoreError.Code, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) -> StoreError? {
    do {
        _ = try body()
        XCTFail("expected \(code), nothing thrown", file: file, line: line)
        return nil
    } catch let error as StoreError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        return error
    } catch {
        XCTFail("expected StoreError \(code), got \(error)", file: file, line: line)
        return nil
    }
}
