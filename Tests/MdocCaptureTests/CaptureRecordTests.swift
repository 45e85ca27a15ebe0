import Foundation
import MdocChecks
import MdocPipeline
import MdocVerification
import XCTest

/// The capture record in transaction.json and the check result it stands for.
final class CaptureRecordTests: XCTestCase {
    func record(_ code: String, ending: CaptureRecord.Ending) -> CaptureRecord {
        CaptureRecord(
            transport: "ble", adapter: "hci0", mode: "central-client", state: "connecting", ending: ending, code: code, reason: "why",
            evidence: ["phase": "connect"], mtu: 185, chunksSent: 3, chunksReceived: 40, bytesSent: 500, bytesReceived: 7000,
            startedAt: "2026-11-25T10:00:00Z", endedAt: "2026-11-25T10:00:02Z")
    }

    func testEachEndingGivesItsCheck() {
        let completed = CaptureChecks.results(record("ble.capture", ending: .completed))
        XCTAssertEqual(completed.map(\.id), [.bleCapture])
        XCTAssertEqual(completed.first?.status, .pass)
        XCTAssertTrue(completed.first?.evidence.contains(Evidence("mtu", "185")) ?? false)
        for id: CheckID in [.bleFraming, .bleMessageTooLarge, .bleEngagement] {
            XCTAssertEqual(CaptureChecks.results(record(id.rawValue, ending: .failed)).map(\.status), [.fail], id.rawValue)
        }
        for id: CheckID in [.bleTimeout, .bleDisconnected, .bleIdentRejected, .bleGatt, .bleNoBlueZ, .bleNoAdapter, .bleAdapterOff] {
            let results = CaptureChecks.results(record(id.rawValue, ending: .failed))
            XCTAssertEqual(results.map(\.status), [.unchecked], id.rawValue)
            XCTAssertEqual(Verdict.judge(results, at: .verification), .indeterminate, id.rawValue)
        }
        XCTAssertEqual(CaptureChecks.results(record("ble.cancelled", ending: .cancelled)).map(\.id), [.bleCancelled])
        // A record naming a code that is no ending, or an ending that does not go with its code, fails closed.
        for (code, ending) in [("mso.digest", CaptureRecord.Ending.failed), ("ble.timeout", .completed), ("ble.capture", .failed)] {
            let results = CaptureChecks.results(record(code, ending: ending))
            XCTAssertEqual(results.map(\.id), [.bleCapture], "\(code) \(ending)")
            XCTAssertEqual(results.map(\.status), [.fail], "\(code) \(ending)")
        }
    }

    func testEveryCodeIsInTheCatalogue() {
        for id: CheckID in [
            .bleCapture, .bleEngagement, .bleNoBlueZ, .bleNoAdapter, .bleAdapterOff, .bleTimeout, .bleDisconnected, .bleCancelled,
            .bleFraming, .bleMessageTooLarge, .bleIdentRejected, .bleGatt,
        ] {
            XCTAssertNotNil(CheckCatalogue.definition(for: id), id.rawValue)
        }
    }

    func testTransactionJSONCarriesTheRecord() throws {
        let encoder = JSONEncoder()
        let capture = try JSONSerialization.jsonObject(with: try encoder.encode(record("ble.timeout", ending: .failed)))
        let json = try JSONSerialization.data(withJSONObject: ["id": "capture-1", "source": "ble:hci0", "capture": capture])
        let metadata = try TransactionMetadata(json: Array(json))
        XCTAssertEqual(metadata.capture, record("ble.timeout", ending: .failed))
        // A record of the wrong shape, and values that are not objects at all (a number, a
        // string: the fuzzer found that these trapped inside JSONSerialization).
        for broken in [#"{"capture": {"transport": 3}}"#, #"{"capture": 5}"#, #"{"capture": "x"}"#, #"{"capture": [1]}"#] {
            XCTAssertThrowsError(try TransactionMetadata(json: Array(broken.utf8)), broken) { error in
                XCTAssertTrue("\(error)".contains("capture"), "\(error)")
            }
        }
    }
}
