import Foundation
import MdocPostgres
import MdocPostgresTestSupport
import MdocReports
import MdocStore
import XCTest

/// Reports rendered from the PostgreSQL store are byte for byte those rendered from the SQLite
/// store holding the same runs.
final class PostgresReportParityTests: PostgresTestCase {
    func testReportsFromBothStoresAreByteIdentical() throws {
        let clock: @Sendable () -> Date = { ParityFixture.verifiedAt.addingTimeInterval(5) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-report-\(UUID().uuidString)")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try ReportStore(
            path: folder.appendingPathComponent("mdocverify.sqlite").path, access: .readWrite, clock: clock)
        let postgres = try PostgresStore(uri: try database(), proofFolder: folder.path, clock: clock)
        try ParityFixture.record(into: sqlite)
        try ParityFixture.record(into: postgres)

        let output = folder.appendingPathComponent("report").path
        let at = ParityFixture.verifiedAt.addingTimeInterval(86_400)
        func render(_ store: some ReportSource, _ request: ReportRequest, _ language: ReportLanguage) throws -> [String: Data] {
            try? FileManager.default.removeItem(atPath: output)
            let files = try ReportGenerator.generate(
                store: store, request: request, output: ReportOutput(directory: output, language: language))
            return try Dictionary(uniqueKeysWithValues: files.all.map { ($0, try Data(contentsOf: URL(fileURLWithPath: $0))) })
        }
        let requests: [(ReportRequest.Scope, Bool, ReportLanguage)] = [
            (.latestRun, true, .en), (.run("a"), false, .ar), (.period(since: nil, until: nil), true, .en),
            (.period(since: Date(timeIntervalSince1970: 1_709_100_000), until: Date(timeIntervalSince1970: 1_709_600_000)), false, .en),
        ]
        for (scope, includeValues, language) in requests {
            let request = ReportRequest(
                scope: scope, referenceTime: at, generatedAt: at, generator: "parity", includeValues: includeValues)
            let expected = try render(sqlite, request, language)
            let found = try render(postgres, request, language)
            // Streamed rows fetched two at a time: every batch boundary of the files is crossed.
            let batched = try render(SmallBatches(store: postgres), request, language)
            XCTAssertEqual(batched, found, "\(scope)")
            XCTAssertEqual(Set(found.keys), Set(expected.keys), "\(scope)")
            XCTAssertEqual(expected.count, 4, "\(scope)")
            if case .period(nil, nil) = scope, let json = expected.first(where: { $0.key.hasSuffix(".json") })?.value {
                // Run "b" changed verdicts after the CRL was replaced: the change names it.
                XCTAssertTrue(String(decoding: json, as: UTF8.self).contains("C=UT, CN=IACA replaced: thisUpdate"), "\(scope)")
            }
            for (path, bytes) in expected {
                XCTAssertGreaterThan(bytes.count, 100, path)
                XCTAssertTrue(found[path] == bytes, "\(scope): \(path) differs")
            }
        }
    }
}

/// The PostgreSQL store with its report's streamed queries fetching `streamBatch` rows at a time.
private struct SmallBatches: ReportSource {
    let store: PostgresStore
    var proofFolder: String { store.proofFolder }

    func withReportQuerying<T>(cacheMegabytes: Int, _ body: (any ReportQuerying) throws -> T) throws -> T {
        try store.withReportQuerying(cacheMegabytes: cacheMegabytes, streamBatch: 2, body)
    }
}
