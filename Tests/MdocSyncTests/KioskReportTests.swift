import Foundation
import MdocChecks
import MdocIntake
import MdocKiosk
import MdocReports
import MdocSeal
import MdocTestSupport
import XCTest

/// The centre's kiosk report from its intake store: records by way of arrival, missing sequence
/// numbers, the sync lag, and the records whose verdicts differ with the checks why.
final class KioskReportTests: XCTestCase {
    func testTheReportCountsLagsAndExplainsDifferingVerdicts() async throws {
        let centre = try CentreFixture()
        let intake = try centre.intake()
        let sealedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        var records: [SealedRecord] = []
        for index in 0..<3 {
            records.append(try centre.outbox.seal(KioskCapture(
                files: try KioskPKI.annexDFiles(id: "tx-\(index)"), consent: nil,
                verdict: KioskVerdict(atVerification: .valid, atCapture: .valid, verifiedAt: CentreFixture.annexDTime, trustSnapshot: "kiosk-trust"),
                checks: [CheckResult(.init("mso.digest"), .pass, "ok")]), now: sealedAt))
        }
        // The kiosk judged the fourth invalid (a digest it found wrong); the centre finds it valid.
        records.append(try centre.outbox.seal(KioskCapture(
            files: try KioskPKI.annexDFiles(id: "tx-3"), consent: nil,
            verdict: KioskVerdict(atVerification: .invalid, atCapture: .invalid, verifiedAt: CentreFixture.annexDTime, trustSnapshot: "old-trust"),
            checks: [CheckResult(.init("mso.digest"), .fail, "digest mismatch")]), now: sealedAt))

        // Sequences 1 and 2 by sync a minute later, 4 carried by hand two minutes later, 3 never.
        _ = try await intake.accept(body: try centre.request(Array(records[0...1]), counter: 1), now: sealedAt.addingTimeInterval(60))
        _ = try await intake.accept(files: [records[3].bytes], now: sealedAt.addingTimeInterval(120))

        let report = try centre.store.kioskReport(generator: "test")
        XCTAssertEqual(report.format, KioskReport.formatName)
        let kiosk = try XCTUnwrap(report.kiosks.first)
        XCTAssertEqual(report.kiosks.count, 1)
        XCTAssertEqual(kiosk.id, "kiosk-1")
        XCTAssertEqual(kiosk.recordsReceived, 3)
        XCTAssertEqual(kiosk.receivedBySync, 2)
        XCTAssertEqual(kiosk.receivedAsFiles, 1)
        XCTAssertEqual(kiosk.lastSequence, 4)
        XCTAssertEqual(kiosk.missingSequences, 1)
        XCTAssertEqual(kiosk.syncLag.minimumSeconds, 60, accuracy: 0.01)
        XCTAssertEqual(kiosk.syncLag.maximumSeconds, 120, accuracy: 0.01)
        XCTAssertEqual(kiosk.syncLag.averageSeconds, 80, accuracy: 0.01)
        XCTAssertEqual(kiosk.verdicts, [
            KioskReport.VerdictPair(kiosk: "valid", centre: "valid", count: 2),
            KioskReport.VerdictPair(kiosk: "invalid", centre: "valid", count: 1),
        ])
        XCTAssertEqual(kiosk.differing, 1)
        let difference = try XCTUnwrap(kiosk.differences.first)
        XCTAssertEqual(difference.sequence, 4)
        XCTAssertEqual(difference.record, records[3].hash.hex)
        XCTAssertEqual(difference.failingAtKioskOnly, ["mso.digest"])
        XCTAssertFalse(difference.failingAtCentreOnly.contains("mso.digest"))
        XCTAssertEqual(difference.kioskTrustSnapshot, "old-trust")
        XCTAssertEqual(kiosk.kioskTrustSnapshots, ["kiosk-trust", "old-trust"])
        XCTAssertEqual(kiosk.centreTrustSnapshots.count, 1)

        // The files: a CSV row per kiosk and per differing record, an HTML section per kiosk.
        let csv = KioskReportFiles.csv(report)
        XCTAssertEqual(csv.kiosks.split(separator: "\r\n").count, 2)
        XCTAssertEqual(csv.differences.split(separator: "\r\n").count, 2)
        XCTAssertTrue(csv.differences.contains(records[3].hash.hex), csv.differences)
        let html = KioskReportFiles.html(report)
        XCTAssertTrue(html.contains("<section id=\"kiosk-kiosk-1\">"), html)
        XCTAssertTrue(html.contains("<td><code>mso.digest</code></td>"), html)
    }

    func testAnEmptyStoreHasNoKiosks() throws {
        let centre = try CentreFixture()
        let report = try centre.store.kioskReport(generator: "test")
        XCTAssertEqual(report.kiosks, [])
        XCTAssertTrue(KioskReportFiles.html(report).contains("No kiosk has sent records yet."))
    }
}
