import Foundation
import MdocIngest
import MdocSamples
import MdocTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile archives: refused whole, with one failure item, and the reader goes on.
final class HostileArchiveTests: XCTestCase {
    private var dir: TemporaryFolder!
    private var goodArchive = ""

    override func setUpWithError() throws {
        dir = try TemporaryFolder()
        goodArchive = dir.url("good.tar.gz")
        try writeArchive(
            [("ok/device-response.cbor", [0xa0]), ("ok/transaction.json", Array("{}".utf8))], to: goodArchive,
            format: .tarGzip)
    }

    override func tearDown() { dir = nil }

    /// A clean transaction written before the hostile entry, so that "nothing from this archive"
    /// means something.
    private func writer(_ name: String, _ format: ArchiveWriter.Format = .tar) throws -> (ArchiveWriter, String) {
        let path = dir.url(name)
        let writer = try ArchiveWriter(path: path, format: format)
        try writer.addDirectory(path: "first/")
        try writer.addFile(path: "first/transaction.json", bytes: Array("{}".utf8))
        try writer.addFile(path: "first/device-response.cbor", bytes: pseudoRandomBytes(seed: 1, count: 100))
        return (writer, path)
    }

    /// Reads `[hostile, good]`: exactly one failure for the hostile archive, with `code`,
    /// no transaction from it, then the good archive's transaction.
    private func assertRefused(
        _ hostile: String, _ code: IngestError.Code, limits: IngestLimits = .default,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let items = readAll([hostile, goodArchive], limits: limits)
        let fromHostile = items.filter { $0.source == hostile || $0.source.hasPrefix(hostile + "!/") }
        XCTAssertEqual(fromHostile.count, 1, "items: \(items)", file: file, line: line)
        XCTAssertEqual(fromHostile.first?.failure?.source, hostile, file: file, line: line)
        XCTAssertEqual(fromHostile.first?.failure?.error.code, code, "\(fromHostile)", file: file, line: line)
        XCTAssertFalse(fromHostile.contains { $0.bundle != nil }, file: file, line: line)
        XCTAssertEqual(items.count, 2, file: file, line: line)
        XCTAssertEqual(items.last?.bundle?.source, goodArchive + "!/ok", file: file, line: line)
    }

    func testPathTraversal() throws {
        let (w, path) = try writer("traversal.tar")
        try w.addFile(path: "a/../../etc/x", bytes: [1])
        try w.close()
        assertRefused(path, .pathTraversal)

        let (w2, path2) = try writer("traversal-end.zip", .zip)
        try w2.addFile(path: "first/..", bytes: [1])
        try w2.close()
        assertRefused(path2, .pathTraversal)
    }

    func testAbsolutePath() throws {
        let (w, path) = try writer("absolute.tar.gz", .tarGzip)
        try w.addFile(path: "/etc/transaction.json", bytes: [1])
        try w.close()
        assertRefused(path, .absolutePath)
    }

    func testSymlink() throws {
        let (w, path) = try writer("symlink.tar")
        try w.addSymlink(path: "first/reader-key.pem", target: "/etc/shadow")
        try w.close()
        assertRefused(path, .symlink)
    }

    func testSymlinkInZip() throws {
        let (w, path) = try writer("symlink.zip", .zip)
        try w.addSymlink(path: "first/link", target: "../../x")
        try w.close()
        assertRefused(path, .symlink)
    }

    func testHardlink() throws {
        let (w, path) = try writer("hardlink.tar")
        try w.addHardlink(path: "first/copy.cbor", target: "first/device-response.cbor")
        try w.close()
        assertRefused(path, .hardlink)
    }

    func testCharacterDevice() throws {
        let (w, path) = try writer("chardev.tar.xz", .tarXz)
        try w.addCharacterDevice(path: "first/null")
        try w.close()
        assertRefused(path, .specialFile)
    }

    func testFIFO() throws {
        let (w, path) = try writer("fifo.tar")
        try w.addFIFO(path: "first/pipe")
        try w.close()
        assertRefused(path, .specialFile)
    }

    func testBombByCompressionRatio() throws {
        for (name, format) in [("bomb.tar.gz", ArchiveWriter.Format.tarGzip), ("bomb.zip", .zip)] {
            let (w, path) = try writer(name, format)
            try w.addFile(path: "first/documents/scan.jpg", bytes: [UInt8](repeating: 0, count: 50_000_000))
            try w.close()
            assertRefused(path, .compressionRatio)
        }
    }

    func testIncompressibleDataIsNotABomb() throws {
        let (w, path) = try writer("random.tar.gz", .tarGzip)
        try w.addFile(path: "first/documents/scan.jpg", bytes: pseudoRandomBytes(seed: 7, count: 3_000_000))
        try w.close()
        XCTAssertEqual(readAll([path]).first?.bundle?.files["documents/scan.jpg"]?.count, 3_000_000)
    }

    func testCompressionRatioLimitIsConfigurable() throws {
        // 4 MiB of zeros gzip to a few kilobytes: a ratio near 1000. Passes at 2000, fails at 100.
        let (w, path) = try writer("zeros.tar.gz", .tarGzip)
        try w.addFile(path: "first/zeros.bin", bytes: [UInt8](repeating: 0, count: 4 << 20))
        try w.close()
        var loose = IngestLimits.default
        loose.maxCompressionRatio = 2000
        XCTAssertEqual(readAll([path], limits: loose).first?.bundle?.files["zeros.bin"]?.count, 4 << 20)
        var strict = IngestLimits.default
        strict.maxCompressionRatio = 100
        assertRefused(path, .compressionRatio, limits: strict)
    }

    func testBombBySizeAndEntrySizeEdge() throws {
        var limits = IngestLimits.default
        limits.maxEntryBytes = 1000
        let (atLimit, okPath) = try writer("entry-1000.tar")
        try atLimit.addFile(path: "first/documents/scan.jpg", bytes: pseudoRandomBytes(seed: 2, count: 1000))
        try atLimit.close()
        let items = readAll([okPath], limits: limits)
        XCTAssertEqual(items.first?.bundle?.files["documents/scan.jpg"]?.count, 1000)

        let (over, badPath) = try writer("entry-1001.tar.gz", .tarGzip)
        try over.addFile(path: "first/documents/scan.jpg", bytes: pseudoRandomBytes(seed: 2, count: 1001))
        try over.close()
        assertRefused(badPath, .entryTooLarge, limits: limits)
    }

    func testLyingHeaderSize() throws {
        // A handmade ustar header declaring 100000 bytes, followed by only 10.
        var bytes = ustarFile(name: "first/transaction.json", bytes: Array("{}".utf8))
        bytes += ustarHeader(name: "first/device-response.cbor", size: 100_000)
        bytes += pseudoRandomBytes(seed: 3, count: 10)
        let path = try dir.write("lying.tar", bytes)
        assertRefused(path, .corruptArchive)
    }

    func testHandmadeHeaderIsValid() throws {
        // The same builder with honest sizes gives a readable archive (so the test above fails
        // because of the lie, not because of the builder).
        var bytes = ustarFile(name: "first/transaction.json", bytes: Array("{}".utf8))
        bytes += ustarFile(name: "first/device-response.cbor", bytes: pseudoRandomBytes(seed: 3, count: 10))
        bytes += ustarEnd
        let path = try dir.write("honest.tar", bytes)
        XCTAssertEqual(
            readAll([path]).first?.bundle?.files,
            ["transaction.json": Array("{}".utf8), "device-response.cbor": pseudoRandomBytes(seed: 3, count: 10)])
    }

    func testEntryCountEdge() throws {
        var limits = IngestLimits.default
        limits.maxEntriesPerArchive = 5  // the writer adds 3 entries
        let (exact, okPath) = try writer("five.tar")
        try exact.addFile(path: "first/a", bytes: [1])
        try exact.addFile(path: "first/b", bytes: [2])
        try exact.close()
        XCTAssertEqual(readAll([okPath], limits: limits).first?.bundle?.files.count, 4)

        let (over, badPath) = try writer("six.tar")
        try over.addFile(path: "first/a", bytes: [1])
        try over.addFile(path: "first/b", bytes: [2])
        try over.addDirectory(path: "first/c/")
        try over.close()
        assertRefused(badPath, .tooManyEntries, limits: limits)
    }

    func testDistinctDirectoriesAreBoundedToo() throws {
        // Each entry below opens three new directories; leaving them keeps their keys. The keys
        // are bounded by the entry limit, so deep unique paths cannot grow memory unchecked.
        var limits = IngestLimits.default
        limits.maxEntriesPerArchive = 4
        let path = dir.url("dirs.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        try w.addFile(path: "a/b/c/x.cbor", bytes: [1])
        try w.addFile(path: "d/e/f/y.cbor", bytes: [2])
        try w.close()
        XCTAssertEqual(readAll([path], limits: limits).count, 2)  // 3 directories left behind

        let path2 = dir.url("dirs2.tar")
        let w2 = try ArchiveWriter(path: path2, format: .tar)
        try w2.addFile(path: "a/b/c/x.cbor", bytes: [1])
        try w2.addFile(path: "d/e/f/y.cbor", bytes: [2])
        try w2.addFile(path: "g.cbor", bytes: [3])  // leaves d, d/e, d/e/f: 6 directories
        try w2.close()
        assertRefused(path2, .tooManyEntries, limits: limits)
    }

    func testDistinctDirectoriesEdge() throws {
        // Only the first pass counts the directories left behind: at the limit the archive is
        // read, one more is refused as a whole with its own reason.
        var limits = IngestLimits.default
        limits.maxEntriesPerArchive = 4
        func write(_ name: String, last: String) throws -> String {
            let path = dir.url(name)
            let w = try ArchiveWriter(path: path, format: .tarGzip)
            try w.addFile(path: "a/b/x.cbor", bytes: [1])
            try w.addFile(path: "c/d/y.cbor", bytes: [2])  // leaves a, a/b
            try w.addFile(path: "e/z.cbor", bytes: [3])  // leaves c, c/d: 4 left behind
            try w.addFile(path: last, bytes: [4])
            try w.close()
            return path
        }
        let exact = try write("dirs-4.tar.gz", last: "e/w.cbor")
        XCTAssertEqual(readAll([exact], limits: limits).compactMap { $0.bundle?.name }, ["x.cbor", "y.cbor", "z.cbor", "w.cbor"])
        let over = try write("dirs-5.tar.gz", last: "w.cbor")  // leaves e: 5
        assertRefused(over, .tooManyEntries, limits: limits)
        XCTAssertEqual(
            readAll([over], limits: limits).first?.failure?.error.reason, "more than 4 distinct directories")
    }

    func testTotalBytesEdge() throws {
        var limits = IngestLimits.default
        limits.maxTotalBytesPerArchive = 2 + 100 + 1000  // the writer's two files, plus 1000
        let (exact, okPath) = try writer("total-ok.zip", .zip)
        try exact.addFile(path: "first/a", bytes: pseudoRandomBytes(seed: 4, count: 1000))
        try exact.close()
        XCTAssertNotNil(readAll([okPath], limits: limits).first?.bundle)

        let (over, badPath) = try writer("total-over.zip", .zip)
        try over.addFile(path: "first/a", bytes: pseudoRandomBytes(seed: 4, count: 1001))
        try over.close()
        assertRefused(badPath, .totalTooLarge, limits: limits)
    }

    func testPathDepthEdge() throws {
        var limits = IngestLimits.default
        limits.maxPathDepth = 4
        let (exact, okPath) = try writer("depth-4.tar")
        try exact.addFile(path: "first/b/c/d", bytes: [1])
        try exact.close()
        XCTAssertEqual(readAll([okPath], limits: limits).first?.bundle?.files["b/c/d"], [1])

        let (over, badPath) = try writer("depth-5.tar")
        try over.addFile(path: "first/b/c/d/e", bytes: [1])
        try over.close()
        assertRefused(badPath, .pathTooDeep, limits: limits)
    }

    func testPathLengthEdge() throws {
        var limits = IngestLimits.default
        limits.maxPathBytes = 120
        let name = String(repeating: "n", count: 120 - "first/".count)
        let (exact, okPath) = try writer("long-ok.tar")
        try exact.addFile(path: "first/" + name, bytes: [1])
        try exact.close()
        XCTAssertEqual(readAll([okPath], limits: limits).first?.bundle?.files[name], [1])

        let (over, badPath) = try writer("long-over.tar")
        try over.addFile(path: "first/" + name + "n", bytes: [1])
        try over.close()
        assertRefused(badPath, .pathTooLong, limits: limits)
    }

    func testRandomBytesNamedTarGz() throws {
        let path = try dir.write("random.tar.gz", pseudoRandomBytes(seed: 5, count: 10_000))
        assertRefused(path, .corruptArchive)
    }

    func testTruncatedGzipStream() throws {
        let path = dir.url("truncated.tar.gz")
        let (w, full) = try writer("full.tar.gz", .tarGzip)
        try w.addFile(path: "first/documents/a.jpg", bytes: pseudoRandomBytes(seed: 6, count: 300_000))
        try w.addDirectory(path: "second/")
        try w.addFile(path: "second/transaction.json", bytes: [1])
        try w.close()
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: full)))
        try dir.write("truncated.tar.gz", Array(bytes.prefix(bytes.count / 2)))
        assertRefused(path, .corruptArchive)
    }

    func testHostileEntryAfterManyGoodTransactions() throws {
        // Nothing is handed out before the whole archive passed: even 50 clean transactions
        // ahead of the bad entry give nothing.
        let path = dir.url("late.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        for index in 0..<50 {
            try w.addFile(path: "tx\(index)/device-response.cbor", bytes: pseudoRandomBytes(seed: UInt64(index), count: 50))
        }
        try w.addSymlink(path: "tx50/transaction.json", target: "/etc/passwd")
        try w.close()
        assertRefused(path, .symlink)
    }
}

/// Per-transaction failures inside an otherwise clean archive, and pass-two errors.
final class ArchiveGroupingTests: XCTestCase {
    func testSplitTransactionFailsThatTransactionOnly() throws {
        let dir = try TemporaryFolder()
        let path = dir.url("split.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        try w.addFile(path: "tx1/transaction.json", bytes: [1])
        try w.addFile(path: "tx2/transaction.json", bytes: [2])
        try w.addFile(path: "tx1/device-response.cbor", bytes: [3])
        try w.addFile(path: "tx3/device-response.cbor", bytes: [4])
        try w.close()
        let items = readAll([path])
        XCTAssertEqual(items.count, 3, "\(items)")
        XCTAssertEqual(items.first?.failure?.error.code, .splitTransaction)
        XCTAssertEqual(items.first?.failure?.source, path + "!/tx1")
        XCTAssertEqual(items.dropFirst().first?.bundle?.files, ["transaction.json": [2]])
        XCTAssertEqual(items.last?.bundle?.files, ["device-response.cbor": [4]])
    }

    func testLoneCBORBetweenEntriesOfAFolderSplitsIt() throws {
        let dir = try TemporaryFolder()
        let path = dir.url("split2.zip")
        let w = try ArchiveWriter(path: path, format: .zip)
        try w.addFile(path: "tx1/transaction.json", bytes: [1])
        try w.addFile(path: "lone.cbor", bytes: [2])
        try w.addFile(path: "tx1/device-response.cbor", bytes: [3])
        try w.close()
        let items = readAll([path])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.splitTransaction, nil])
        XCTAssertEqual(items.last?.bundle?.name, "lone.cbor")
    }

    func testMarkerLaterInTheFolderStillGroups() throws {
        // Unknown files before the marker file: the first pass knows tx is a transaction.
        let dir = try TemporaryFolder()
        let path = dir.url("late-marker.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        try w.addFile(path: "tx/a.cbor", bytes: [1])
        try w.addFile(path: "tx/documents/manifest.json", bytes: [2])
        try w.addFile(path: "tx/transaction.json", bytes: [3])
        try w.addFile(path: "loose/b.cbor", bytes: [4])
        try w.addFile(path: "loose/readme.txt", bytes: [5])
        try w.close()
        let items = readAll([path])
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(
            items.first?.bundle?.files, ["a.cbor": [1], "documents/manifest.json": [2], "transaction.json": [3]])
        XCTAssertEqual(items.last?.bundle?.name, "b.cbor")
        XCTAssertEqual(items.last?.bundle?.source, path + "!/loose/b.cbor")
    }

    func testMarkerAfterAnotherFolderOfMarkersStillGroups() throws {
        // The first pass looks at a folder's files until one has a marker name; moving on to the
        // next folder starts that look again, whatever the folder before had.
        let dir = try TemporaryFolder()
        let path = dir.url("next-folder.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        try w.addFile(path: "t1/transaction.json", bytes: [1])
        try w.addFile(path: "t1/device-response.cbor", bytes: [2])
        try w.addFile(path: "t2/notes.txt", bytes: [3])
        try w.addFile(path: "t2/device-response.cbor", bytes: [4])
        try w.close()
        let items = readAll([path])
        XCTAssertEqual(items.map { $0.bundle?.source }, [path + "!/t1", path + "!/t2"], "\(items)")
        XCTAssertEqual(items.last?.bundle?.files, ["notes.txt": [3], "device-response.cbor": [4]])
    }

    func testEachEntryIsRoutedByItsOwnFolders() throws {
        // Consecutive entries share folders, deeper and shallower in turn: each entry still goes
        // to the outermost transaction folder above it, or is a lone .cbor, or is ignored.
        let dir = try TemporaryFolder()
        let path = dir.url("routes.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        try w.addFile(path: "batch/a/transaction.json", bytes: [1])
        try w.addFile(path: "batch/a/documents/manifest.json", bytes: [2])
        try w.addFile(path: "batch/a/documents/scan-1.jpg", bytes: [3])
        try w.addFile(path: "batch/a/notes.txt", bytes: [4])
        try w.addFile(path: "batch/lone.cbor", bytes: [5])
        try w.addFile(path: "batch/readme.txt", bytes: [6])
        try w.addFile(path: "batch/b/c/device-response.cbor", bytes: [7])
        try w.addFile(path: "batch/b/c/d/transaction.json", bytes: [8])
        try w.addFile(path: "batch/b/c/z.bin", bytes: [9])
        try w.addFile(path: "batch/b/e.cbor", bytes: [10])
        try w.addFile(path: "batch/b/c2/transaction.json", bytes: [11])
        try w.close()
        let items = readAll([path])
        XCTAssertEqual(items.map { $0.bundle?.name }, ["a", "lone.cbor", "c", "e.cbor", "c2"], "\(items)")
        XCTAssertEqual(
            items.map { $0.bundle?.source },
            ["a", "lone.cbor", "b/c", "b/e.cbor", "b/c2"].map { path + "!/batch/" + $0 })
        XCTAssertEqual(
            items.first?.bundle?.files,
            ["transaction.json": [1], "documents/manifest.json": [2], "documents/scan-1.jpg": [3], "notes.txt": [4]])
        XCTAssertEqual(items.dropFirst().first?.bundle?.files, ["device-response.cbor": [5]])
        XCTAssertEqual(
            items.dropFirst(2).first?.bundle?.files,
            ["device-response.cbor": [7], "d/transaction.json": [8], "z.bin": [9]])
        XCTAssertEqual(items.dropFirst(3).first?.bundle?.files, ["device-response.cbor": [10]])
        XCTAssertEqual(items.last?.bundle?.files, ["transaction.json": [11]])
    }

    func testDuplicatePathFailsThatTransaction() throws {
        let dir = try TemporaryFolder()
        let path = dir.url("dup.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        try w.addFile(path: "tx/transaction.json", bytes: [1])
        try w.addFile(path: "tx/./transaction.json", bytes: [2])
        try w.addFile(path: "tx2/transaction.json", bytes: [3])
        try w.close()
        let items = readAll([path])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.duplicatePath, nil])
        XCTAssertEqual(items.first?.failure?.source, path + "!/tx")
        XCTAssertEqual(items.last?.bundle?.files, ["transaction.json": [3]])
    }

    func testFilesPerTransactionEdge() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxFilesPerTransaction = 3
        let path = dir.url("files.tar.gz")
        let w = try ArchiveWriter(path: path, format: .tarGzip)
        for name in ["transaction.json", "a", "b"] { try w.addFile(path: "three/" + name, bytes: [1]) }
        for name in ["transaction.json", "a", "b", "c"] { try w.addFile(path: "four/" + name, bytes: [1]) }
        try w.close()
        let items = readAll([path], limits: limits)
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(items.first?.bundle?.files.count, 3)
        XCTAssertEqual(items.last?.failure?.error.code, .tooManyFiles)
        XCTAssertEqual(items.last?.failure?.source, path + "!/four")
    }

    func testTransactionBytesEdge() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxTransactionBytes = 300
        let path = dir.url("tx-bytes.zip")
        let w = try ArchiveWriter(path: path, format: .zip)
        try w.addFile(path: "ok/transaction.json", bytes: pseudoRandomBytes(seed: 1, count: 100))
        try w.addFile(path: "ok/a", bytes: pseudoRandomBytes(seed: 2, count: 200))
        try w.addFile(path: "over/transaction.json", bytes: pseudoRandomBytes(seed: 1, count: 100))
        try w.addFile(path: "over/a", bytes: pseudoRandomBytes(seed: 2, count: 201))
        try w.close()
        let items = readAll([path], limits: limits)
        XCTAssertEqual(items.map { $0.failure?.error.code }, [nil, .transactionTooLarge])
    }

    func testPaxUTF8PathWithLocaleWarningIsAccepted() throws {
        // GNU tar --format=pax writes non-ASCII names as a UTF-8 "path" record; libarchive in
        // the C locale reports ARCHIVE_WARN for it. The entry must still be read.
        let dir = try TemporaryFolder()
        let name = "tx-é/transaction.json"
        let record = " path=\(name)\n"
        var length = record.utf8.count + 2
        if String(length).count + record.utf8.count != length { length += 1 }
        let pax = Array("\(length)\(record)".utf8)
        XCTAssertEqual(pax.count, length)
        var bytes = ustarFile(name: "PaxHeaders/x", bytes: pax)
        bytes[156] = UInt8(ascii: "x")
        // Recompute the checksum for the changed type flag.
        bytes.replaceSubrange(0..<512, with: ustarHeader(name: "PaxHeaders/x", size: pax.count, type: UInt8(ascii: "x")))
        bytes += ustarFile(name: "tx-e/transaction.json", bytes: [7])
        bytes += ustarEnd
        let path = try dir.write("pax.tar", bytes)
        let items = readAll([path])
        XCTAssertEqual(items.first?.bundle?.name, "tx-é", "\(items)")
        XCTAssertEqual(items.first?.bundle?.files, ["transaction.json": [7]])
    }

    func testCorruptionSeenOnlyInPassTwoComesAfterEarlierTransactions() throws {
        // The archive is truncated after its first transaction was handed out (between the
        // passes it was whole): the reader yields a corruptArchive failure after what it had yielded.
        let dir = try TemporaryFolder()
        let path = dir.url("shrinking.tar")
        let w = try ArchiveWriter(path: path, format: .tar)
        for index in 0..<4 {
            try w.addFile(path: "tx\(index)/device-response.cbor", bytes: pseudoRandomBytes(seed: UInt64(index), count: 200_000))
        }
        try w.close()
        var iterator = InputReader(inputs: [path]).makeIterator()
        XCTAssertEqual(iterator.next()?.bundle?.name, "tx0")
        XCTAssertEqual(truncate(path, 300_000), 0)
        var rest: [IngestItem] = []
        while let item = iterator.next() { rest.append(item) }
        XCTAssertEqual(rest.last?.failure?.error.code, .corruptArchive, "\(rest)")
        XCTAssertEqual(rest.last?.failure?.source, path)
        XCTAssertEqual(rest.filter { $0.failure != nil }.count, 1)
        XCTAssertLessThanOrEqual(rest.count, 2)
    }
}
