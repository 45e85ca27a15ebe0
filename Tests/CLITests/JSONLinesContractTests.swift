import Foundation
import MdocTestSupport
import XCTest

/// Real `verify --format json` output checked against docs/json-lines.md, record by record.
final class JSONLinesContractTests: TemporaryFolderTestCase {
    var out: String { temporaryFolder }

    func contract() throws -> JSONLinesContract {
        let text = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/json-lines.md"), encoding: .utf8)
        return JSONLinesContract(markdown: text)
    }

    /// Every line of `result` parsed and checked against the document; the last is the summary.
    func records(_ result: CLI.Result, contract: JSONLinesContract) throws -> [JSON] {
        let lines = result.stdout.split(separator: "\n")
        XCTAssertFalse(lines.isEmpty, result.stderr)
        var records: [JSON] = []
        for line in lines {
            let record = try JSON.parse(line)
            guard case .object(let object) = record, let type = record["type"]?.string else {
                XCTFail("not a typed object: \(line)")
                continue
            }
            XCTAssertEqual(contract.violations(of: object, as: type), [], String(line))
            records.append(record)
        }
        XCTAssertEqual(records.last?["type"]?.string, "summary", "the last line is the summary")
        XCTAssertEqual(records.filter { $0["type"]?.string == "summary" }.count, 1)
        return records
    }

    func testEveryRecordOfARunAndOfAReusingRunConformsToTheDocument() throws {
        let contract = try contract()
        XCTAssertEqual(Set(contract.tables.keys), ["transaction", "check", "document", "element", "rejectedInput", "summary", "failingCheck"])
        XCTAssertEqual(contract.tables["transaction"]?.count, 15)
        let broken = "\(out)/broken.tar.gz"
        try Data("not an archive at all".utf8).write(to: URL(fileURLWithPath: broken))
        // No --at: results judged "now" are reused by a second run within --fresh-for.
        let arguments = ["verify", "samples/transactions", broken, "--trust", "samples/trust", "--out", "\(out)/r", "--format", "json"]
        let first = try CLI.run(arguments)
        XCTAssertEqual(first.status, 1, first.stderr)
        let firstRecords = try records(first, contract: contract)
        let second = try CLI.run(arguments)
        let secondRecords = try records(second, contract: contract)

        for (result, records) in [(first, firstRecords), (second, secondRecords)] {
            let summary = try XCTUnwrap(records.last)
            let runID = try XCTUnwrap(summary["runID"]?.string)
            XCTAssertEqual(summary["exitCode"], .integer(Int64(result.status)))
            XCTAssertTrue(records.allSatisfy { $0["runID"]?.string == runID }, "every line carries the run id")
            let transactions = records.filter { $0["type"]?.string == "transaction" }
            XCTAssertEqual(transactions.count, 24)
            XCTAssertEqual(summary["transactions"], .integer(24))
            XCTAssertEqual(records.filter { $0["type"]?.string == "rejectedInput" }.count, 1)
            XCTAssertEqual(summary["rejectedInputs"], .integer(1))
            for transaction in transactions {
                let id = try XCTUnwrap(transaction["transactionID"]?.string)
                XCTAssertTrue(id.count == 64 && id.allSatisfy { "0123456789abcdef".contains($0) }, id)
            }
            let store = "\(out)/r/mdocverify.sqlite"
            XCTAssertEqual(summary["databasePath"]?.string, store)
        }
        // A reused result keeps the instant it was verified at and names the run that verified it.
        let firstRunID = try XCTUnwrap(firstRecords.last?["runID"]?.string)
        var firstTimes: [String: String] = [:]
        for record in firstRecords where record["type"]?.string == "transaction" {
            firstTimes[try XCTUnwrap(record["transactionID"]?.string)] = record["verificationTime"]?.string
        }
        let reused = secondRecords.filter { $0["reused"] == .bool(true) }
        XCTAssertGreaterThanOrEqual(reused.count, 20, "the second run reuses the first run's results")
        XCTAssertEqual(secondRecords.last?["reused"], .integer(Int64(reused.count)))
        for record in reused {
            let id = try XCTUnwrap(record["transactionID"]?.string)
            XCTAssertEqual(record["verificationTime"]?.string, firstTimes[id], "reused: the original verification time")
            XCTAssertEqual(record["reusedFromRunID"]?.string, firstRunID)
        }
        XCTAssertTrue(firstRecords.allSatisfy { $0["reusedFromRunID"] == nil })
    }

    /// JSON only when asked: a pipe gets text unless --format json.
    func testAPipeGetsTextUnlessJSONIsAsked() throws {
        let result = try CLI.run(["verify", "samples/transactions", "--trust", "samples/trust", "--at", "2026-11-22T12:00:00Z", "--out", out])
        XCTAssertEqual(result.status, 1)
        XCTAssertFalse(result.stdout.contains("{\""), result.stdout)
        XCTAssertTrue(result.stdout.contains("now:        18 valid, 6 invalid, 0 indeterminate"), result.stdout)
    }
}
