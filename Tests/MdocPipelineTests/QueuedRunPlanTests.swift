import Foundation
import MdocIngest
import MdocPipeline
import MdocTestSupport
import XCTest

/// What a queued run's workers read: items that name a part of an archive (`queue add
/// --archive-part`), and the batches a claim is recorded in.
final class QueuedRunPlanTests: TemporaryFolderTestCase {
    /// A claim is four batches (so that one is recorded while the next is verified), of at
    /// least 16 transactions and at most a run's batch.
    func testAClaimIsRecordedInFourBatchesOfSixteenToARunsBatch() {
        let sizes = [1, 16, 64, 65, 256, 1024, 2000].map { QueuedOptions.batchSize(claimed: $0, runBatchSize: 256) }
        XCTAssertEqual(sizes, [16, 16, 16, 17, 64, 256, 256])
        XCTAssertEqual(QueuedOptions.batchSize(claimed: 256, runBatchSize: 8), 8)
        XCTAssertEqual(QueuedOptions.batchSize(claimed: 1, runBatchSize: 1), 1)
    }

    func testAPartsInputReadsBackAndOtherInputsAreNoParts() {
        let part = ArchivePart(path: "/shared/a b.tar.gz", first: 1000, last: 1999)
        XCTAssertEqual(part.input, "/shared/a b.tar.gz!/#1000-1999")
        XCTAssertEqual(ArchivePart(input: part.input), part)
        XCTAssertEqual(ArchivePart(input: "x.tar!/#0-0"), ArchivePart(path: "x.tar", first: 0, last: 0))
        for input in ["x.tar", "x.tar!/tx-1", "x.tar!/#5-4", "x.tar!/#-1-3", "x.tar!/#1-", "x.tar!/#a-b", "!/#0-1", "x.tar!/#0-1-2",
                      "x.tar!/#+1-2", "x.tar!/#\u{663}-\u{664}", "x.tar!/#0-99999999999999999999"] {
            XCTAssertNil(ArchivePart(input: input), input)
        }
    }

    /// A tar.gz of `count` lone DeviceResponse files, `r-00.cbor`… in the archive's order.
    func archive(count: Int) throws -> String {
        let staging = "\(temporaryFolder)/staging"
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        for n in 0..<count { try Data([0xA0, UInt8(n)]).write(to: URL(fileURLWithPath: String(format: "\(staging)/r-%02d.cbor", n))) }
        let tar = Process()
        tar.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        tar.arguments = ["tar", "-C", staging, "-czf", "\(temporaryFolder)/batch.tar.gz"] + (0..<count).map { String(format: "r-%02d.cbor", $0) }
        try tar.run()
        tar.waitUntilExit()
        XCTAssertEqual(tar.terminationStatus, 0)
        return "\(temporaryFolder)/batch.tar.gz"
    }

    func sources(_ reader: QueuedInputReader) -> [String] {
        reader.map { item in
            switch item {
            case .transaction(let bundle): bundle.source
            case .failure(let failure): "failed: \(failure.source)"
            }
        }
    }

    /// A part yields its transactions and no other; parts that follow each other are read as one;
    /// without `parts` (verify's inputs) the same text is a path like any other.
    func testAWorkerReadsOnlyItsPartsOfAnArchive() throws {
        let path = try archive(count: 12)
        let all = (0..<12).map { String(format: "\(path)!/r-%02d.cbor", $0) }
        let reader = { (inputs: [String]) in QueuedInputReader(inputs: inputs, limits: .default, parts: true) }
        XCTAssertEqual(sources(reader([ArchivePart(path: path, first: 4, last: 7).input])), Array(all[4...7]))
        XCTAssertEqual(sources(reader([ArchivePart(path: path, first: 0, last: 0).input])), [all[0]])
        XCTAssertEqual(sources(reader([ArchivePart(path: path, first: 10, last: 20).input])), Array(all[10...]))
        XCTAssertEqual(
            sources(reader([ArchivePart(path: path, first: 0, last: 2).input, ArchivePart(path: path, first: 3, last: 5).input,
                            ArchivePart(path: path, first: 9, last: 9).input, path])),
            Array(all[0...5]) + [all[9]] + all)
        XCTAssertEqual(
            sources(QueuedInputReader(inputs: [ArchivePart(path: path, first: 0, last: 1).input], limits: .default, parts: false)),
            ["failed: \(path)!/#0-1"])
    }
}
