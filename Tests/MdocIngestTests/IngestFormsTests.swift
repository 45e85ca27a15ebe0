import Foundation
import MdocCrypto
import MdocIngest
import MdocSamples
import MdocTestSupport
import XCTest

/// The same transactions as a folder, .tar, .tar.gz, .tar.xz and .zip.
final class IngestFormsTests: XCTestCase {
    private func assertFixture(
        _ items: [IngestItem], sourcePrefix: String, tree: Tree, file: StaticString = #filePath, line: UInt = #line
    ) {
        let expected = Fixture.expected(tree)
        XCTAssertEqual(items.count, expected.count, "items: \(items.map(\.source))", file: file, line: line)
        for (item, want) in zip(items, expected) {
            guard let bundle = item.bundle else {
                XCTFail("expected \(want.name), got \(item)", file: file, line: line)
                continue
            }
            XCTAssertEqual(bundle.name, want.name, file: file, line: line)
            XCTAssertEqual(bundle.source, sourcePrefix + want.path, file: file, line: line)
            XCTAssertEqual(bundle.files, want.files, "files of \(want.name)", file: file, line: line)
            XCTAssertEqual(bundle.contentHash, referenceContentHash(want.files), file: file, line: line)
            XCTAssertEqual(bundle.contentHashHex, hexString(referenceContentHash(want.files)), file: file, line: line)
            for (path, bytes) in want.files {
                XCTAssertEqual(bundle.fileDigests[path], HashFunction.sha256.hash(bytes), file: file, line: line)
            }
        }
    }

    func testFolderOfTransactions() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let root = try writeFolder(tree, in: dir, under: "batch")
        assertFixture(readAll([root]), sourcePrefix: root + "/", tree: tree)
        // A trailing slash does not double the separator in sources.
        assertFixture(readAll([root + "/"]), sourcePrefix: root + "/", tree: tree)
    }

    func testEveryArchiveFormGivesTheSameBundles() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let root = try writeFolder(tree, in: dir, under: "batch")
        let folderItems = readAll([root])
        let forms: [(String, ArchiveWriter.Format)] = [
            ("batch.tar", .tar), ("batch.tar.gz", .tarGzip), ("batch.tgz", .tarGzip), ("batch.tar.xz", .tarXz),
            ("batch.zip", .zip),
        ]
        for (fileName, format) in forms {
            for prefix in ["", "./", "batch/"] {
                let path = dir.url("\(prefix.isEmpty ? "plain" : prefix == "./" ? "dot" : "nested")-\(fileName)")
                try writeArchive(tree, to: path, format: format, prefix: prefix)
                let items = readAll([path])
                assertFixture(items, sourcePrefix: path + "!/" + (prefix == "batch/" ? "batch/" : ""), tree: tree)
                XCTAssertEqual(items.map { $0.bundle?.contentHash }, folderItems.map { $0.bundle?.contentHash })
                XCTAssertEqual(items.map { $0.bundle?.name }, folderItems.map { $0.bundle?.name })
            }
        }
    }

    /// The second pass gives the same items whether it takes the bytes the first pass kept, reads
    /// the archive again (nothing kept), or reads it again after the first pass ran out of room.
    func testKeptOrReadAgainGivesTheSameBundles() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let forms: [(String, ArchiveWriter.Format)] = [("batch.tar", .tar), ("batch.tar.gz", .tarGzip), ("batch.zip", .zip)]
        for (fileName, format) in forms {
            let path = dir.url(fileName)
            try writeArchive(tree, to: path, format: format, prefix: "batch/")
            for budget: Int64 in [64 << 20, 300_000, 100_000, 1, 0] {
                var limits = IngestLimits.default
                limits.maxBytesKeptBetweenPasses = budget
                assertFixture(readAll([path], limits: limits), sourcePrefix: path + "!/batch/", tree: tree)
            }
        }
    }

    /// With the files kept, the second pass reads nothing of the file: cutting it after the first
    /// transaction changes nothing. Read again (nothing kept), the cut is the archive's failure
    /// after the transactions already handed on.
    func testSecondPassTakesTheKeptBytes() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        for budget: Int64 in [64 << 20, 0] {
            let path = dir.url("batch-\(budget).tar")
            try writeArchive(tree, to: path, format: .tar)
            var limits = IngestLimits.default
            limits.maxBytesKeptBetweenPasses = budget
            var iterator = InputReader(inputs: [path], limits: limits).makeIterator()
            var items: [IngestItem] = []
            if let first = iterator.next() { items.append(first) }
            XCTAssertNotNil(items.first?.bundle)
            XCTAssertEqual(truncate(path, 1024), 0)
            while let item = iterator.next() { items.append(item) }
            if budget > 0 {
                assertFixture(items, sourcePrefix: path + "!/", tree: tree)
            } else {
                XCTAssertLessThan(items.filter { $0.bundle != nil }.count, Fixture.expected(tree).count)
                XCTAssertEqual(items.last?.failure?.error.code, .corruptArchive, "\(items.map(\.source))")
            }
        }
    }

    func testArchiveIsDetectedByContentNotName() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let path = dir.url("upload.dat")
        try writeArchive(tree, to: path, format: .tarXz)
        assertFixture(readAll([path]), sourcePrefix: path + "!/", tree: tree)
        let zipPath = dir.url("upload")
        try writeArchive(tree, to: zipPath, format: .zip)
        assertFixture(readAll([zipPath]), sourcePrefix: zipPath + "!/", tree: tree)
    }

    func testArchivesInsideAWalkedFolderAreRead() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        try dir.makeDirectory("inbox")
        try writeArchive(tree, to: dir.url("inbox/day1.tar.gz"), format: .tarGzip)
        try dir.write("inbox/readme.txt", Array("ignored".utf8))
        let items = readAll([dir.url("inbox")])
        assertFixture(items, sourcePrefix: dir.url("inbox/day1.tar.gz") + "!/", tree: tree)
    }

    func testTransactionFolderGivenDirectly() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let root = try writeFolder(tree, in: dir, under: "batch")
        let items = readAll([root + "/tx-b"])
        XCTAssertEqual(items.count, 1)
        let bundle = try XCTUnwrap(items.first?.bundle)
        XCTAssertEqual(bundle.name, "tx-b")
        XCTAssertEqual(bundle.source, root + "/tx-b")
        XCTAssertEqual(bundle.files, Fixture.expected(tree)[3].files)
        XCTAssertEqual(bundle.unknownFiles, [])
        XCTAssertEqual(readAll([root + "/tx-a"]).first?.bundle?.unknownFiles, ["notes.txt"])
        XCTAssertEqual(readAll([root + "/tx-c"]).first?.bundle?.unknownFiles, ["empty.bin", "extra/nested.bin"])
    }

    func testLoneCBORGivenDirectly() throws {
        let dir = try TemporaryFolder()
        let bytes = pseudoRandomBytes(seed: 9, count: 12_345)
        let path = try dir.write("capture.cbor", bytes)
        let items = readAll([path])
        XCTAssertEqual(items.count, 1)
        let bundle = try XCTUnwrap(items.first?.bundle)
        XCTAssertEqual(bundle.name, "capture.cbor")
        XCTAssertEqual(bundle.source, path)
        XCTAssertEqual(bundle.files, ["device-response.cbor": bytes])
    }

    func testArchiveRootAsTransactionFolder() throws {
        let dir = try TemporaryFolder()
        let path = dir.url("single.tar")
        let tree: Tree = [("device-response.cbor", [1, 2, 3]), ("transaction.json", Array("{}".utf8))]
        try writeArchive(tree, to: path, format: .tar)
        let items = readAll([path])
        XCTAssertEqual(items.count, 1)
        let bundle = try XCTUnwrap(items.first?.bundle)
        XCTAssertEqual(bundle.name, "single.tar")
        XCTAssertEqual(bundle.source, path + "!/")
        XCTAssertEqual(bundle.files, ["device-response.cbor": [1, 2, 3], "transaction.json": Array("{}".utf8)])
    }

    func testNestedMarkerBelongsToOutermostTransaction() throws {
        let dir = try TemporaryFolder()
        let tree: Tree = [
            ("outer/inner/transaction.json", [1]),
            ("outer/transaction.json", [2]),
            ("outer/z.cbor", [3]),
        ]
        let root = try writeFolder(tree, in: dir, under: "in")
        let path = dir.url("nested.zip")
        try writeArchive(tree, to: path, format: .zip)
        for items in [readAll([root]), readAll([path])] {
            XCTAssertEqual(items.count, 1)
            XCTAssertEqual(
                items.first?.bundle?.files, ["inner/transaction.json": [1], "transaction.json": [2], "z.cbor": [3]])
        }
    }

    func testNonASCIINamesAgreeAcrossForms() throws {
        let dir = try TemporaryFolder()
        let tree: Tree = [("tx-é/transaction.json", [1]), ("tx-é/pièce.jpg", [2]), ("reçu.cbor", [3])]
        let root = try writeFolder(tree, in: dir, under: "in")
        let expected = readAll([root]).map { $0.bundle?.files }
        XCTAssertEqual(expected, [["device-response.cbor": [3]], ["transaction.json": [1], "pièce.jpg": [2]]])
        for (name, format) in [("u.tar", ArchiveWriter.Format.tar), ("u.zip", .zip), ("u.tar.gz", .tarGzip)] {
            try writeArchive(tree.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) },
                to: dir.url(name), format: format)
            let items = readAll([dir.url(name)])
            XCTAssertEqual(items.map { $0.bundle?.files }, expected, "\(name): \(items)")
            XCTAssertEqual(items.map { $0.bundle?.name }, ["reçu.cbor", "tx-é"])
        }
    }

    /// Entry paths are split at every `/`, without empty and `.` components, and `..` anywhere
    /// refuses the archive: ASCII paths take a byte-wise split (ArchiveScanner.pathComponents),
    /// others the Character-based one; both must give what the paths mean.
    func testEntryPathsAreSplitIntoComponents() throws {
        let dir = try TemporaryFolder()
        let path = dir.url("paths.tar")
        let writer = try ArchiveWriter(path: path, format: .tar)
        try writer.addFile(path: "./a//./transaction.json", bytes: [1])
        try writer.addFile(path: "a/./sub//./x.bin", bytes: [2])
        try writer.addFile(path: "a/.../y.bin", bytes: [3])
        try writer.addFile(path: "a/.hidden/.z", bytes: [4])
        try writer.addFile(path: "b\r\n/transaction.json", bytes: [5])
        try writer.addFile(path: "./é//./transaction.json", bytes: [6])
        try writer.addFile(path: "é/./s\u{301}/./x.bin", bytes: [7])
        try writer.addFile(path: "./lone.cbor", bytes: [8])
        try writer.close()
        let items = readAll([path])
        XCTAssertEqual(items.map(\.source), [path + "!/a", path + "!/b\r\n", path + "!/é", path + "!/lone.cbor"])
        XCTAssertEqual(items.map { $0.bundle?.name }, ["a", "b\r\n", "é", "lone.cbor"])
        XCTAssertEqual(
            items.map { $0.bundle?.files },
            [
                ["transaction.json": [1], "sub/x.bin": [2], ".../y.bin": [3], ".hidden/.z": [4]],
                ["transaction.json": [5]],
                ["transaction.json": [6], "s\u{301}/x.bin": [7]],
                ["device-response.cbor": [8]],
            ])

        for (index, hostile) in ["a/./../x", "./..", "a//..//b", "é/../x", "a/../é"].enumerated() {
            let refused = dir.url("traversal-\(index).tar")
            let writer = try ArchiveWriter(path: refused, format: .tar)
            try writer.addFile(path: "ok/transaction.json", bytes: [1])
            try writer.addFile(path: hostile, bytes: [2])
            try writer.close()
            let items = readAll([refused])
            XCTAssertEqual(items.count, 1, "\(hostile): \(items)")
            XCTAssertEqual(items.first?.failure?.error.code, .pathTraversal, "\(hostile): \(items)")
        }
    }

    func testPathListFromFileHandle() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let root = try writeFolder(tree, in: dir, under: "batch")
        let archive = dir.url("b.tar")
        try writeArchive(tree, to: archive, format: .tar)
        let listFile = try dir.write("list.txt", Array("\(root)/tx-a\n\n   \n\(archive)\r\n\t\n\(root)/lone-1.cbor".utf8))
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: listFile))
        let paths = readPathList(from: handle)
        XCTAssertEqual(paths, ["\(root)/tx-a", archive, "\(root)/lone-1.cbor"])
        let items = readAll(paths)
        XCTAssertEqual(items.compactMap { $0.bundle?.name }, ["tx-a", "lone-1.cbor", "lone-2.cbor", "tx-a", "tx-b", "tx-c", "lone-1.cbor"])
    }

    func testPathListKeepsSpacesInsideNames() throws {
        let dir = try TemporaryFolder()
        let listFile = try dir.write("list.txt", Array(" a b \n\n".utf8))
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: listFile))
        XCTAssertEqual(readPathList(from: handle), [" a b "])
    }

    func testMixedInputsWithAMissingPath() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let root = try writeFolder(tree, in: dir, under: "batch")
        let archive = dir.url("b.zip")
        try writeArchive(tree, to: archive, format: .zip)
        let missing = dir.url("does-not-exist.tar.gz")
        let items = readAll([root + "/tx-c", missing, archive, root + "/lone-2.cbor"])
        XCTAssertEqual(items.count, 1 + 1 + 5 + 1)
        XCTAssertEqual(items.first?.bundle?.name, "tx-c")
        XCTAssertEqual(items.dropFirst().first?.failure?.error.code, .notFound)
        XCTAssertEqual(items.dropFirst().first?.failure?.source, missing)
        XCTAssertEqual(items.dropFirst(2).prefix(5).compactMap { $0.bundle?.source }.count, 5)
        XCTAssertEqual(items.last?.bundle?.source, root + "/lone-2.cbor")
    }

    func testUnrecognisedFileIsUnsupported() throws {
        let dir = try TemporaryFolder()
        let path = try dir.write("notes.bin", pseudoRandomBytes(seed: 11, count: 4_000))
        let empty = try dir.write("empty.dat", [])
        let items = readAll([path, empty])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.unsupportedInput, .unsupportedInput])
        XCTAssertEqual(items.map(\.source), [path, empty])
    }

    func testReaderCanBeIteratedTwice() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        let archive = dir.url("b.tar.gz")
        try writeArchive(tree, to: archive, format: .tarGzip)
        let reader = InputReader(inputs: [archive])
        XCTAssertEqual(Array(reader).map { $0.bundle?.contentHash }, Array(reader).map { $0.bundle?.contentHash })
    }
}

/// The content hash: identity of a transaction's files.
final class ContentHashTests: XCTestCase {
    private let files: [String: [UInt8]] = [
        "transaction.json": Array(#"{"id":"1"}"#.utf8),
        "device-response.cbor": [0xa1, 0x01, 0x02],
        "documents/front.jpg": [0xff, 0xd8, 0xff],
    ]

    func testKnownAnswerOfTheDocumentedSerialization() {
        let bundle = TransactionBundle(name: "x", source: "y", files: files)
        XCTAssertEqual(bundle.contentHash, referenceContentHash(files))
        XCTAssertEqual(bundle.contentHash.count, 32)
        XCTAssertEqual(TransactionBundle.contentHash(fileDigests: bundle.fileDigests), bundle.contentHash)
    }

    func testIndependentOfOrderNameAndSource() throws {
        var reversed: [String: [UInt8]] = [:]
        for key in files.keys.sorted().reversed() { reversed[key] = files[key] }
        let a = TransactionBundle(name: "a", source: "s1", files: files)
        let b = TransactionBundle(name: "b", source: "s2", files: reversed)
        XCTAssertEqual(a.contentHash, b.contentHash)

        // Entries of a transaction written in another order give the same hash.
        let dir = try TemporaryFolder()
        let tree: Tree = files.keys.sorted().map { ("tx/" + $0, files[$0] ?? []) }
        try writeArchive(tree, to: dir.url("f.tar"), format: .tar)
        try writeArchive(tree.reversed(), to: dir.url("r.zip"), format: .zip)
        let forward = readAll([dir.url("f.tar")]).first?.bundle?.contentHash
        let backward = readAll([dir.url("r.zip")]).first?.bundle?.contentHash
        XCTAssertEqual(forward, a.contentHash)
        XCTAssertEqual(backward, a.contentHash)
    }

    func testAnyByteChangeChangesTheHash() {
        let base = TransactionBundle(name: "x", source: "y", files: files).contentHash
        for path in files.keys {
            for index in files[path, default: []].indices {
                var changed = files
                changed[path]?[index] ^= 0x01
                XCTAssertNotEqual(TransactionBundle(name: "x", source: "y", files: changed).contentHash, base, path)
            }
            var longer = files
            longer[path]?.append(0)
            XCTAssertNotEqual(TransactionBundle(name: "x", source: "y", files: longer).contentHash, base, path)
        }
    }

    func testRenameAddOrRemoveChangesTheHash() {
        let base = TransactionBundle(name: "x", source: "y", files: files).contentHash
        var renamed = files
        renamed["documents/back.jpg"] = renamed.removeValue(forKey: "documents/front.jpg")
        XCTAssertNotEqual(TransactionBundle(name: "x", source: "y", files: renamed).contentHash, base)
        var withoutJSON = files
        withoutJSON.removeValue(forKey: "transaction.json")
        XCTAssertNotEqual(TransactionBundle(name: "x", source: "y", files: withoutJSON).contentHash, base)
        var otherJSON = files
        otherJSON["transaction.json"] = Array(#"{"id":"2"}"#.utf8)
        XCTAssertNotEqual(TransactionBundle(name: "x", source: "y", files: otherJSON).contentHash, base)
        var extra = files
        extra["notes.txt"] = []
        XCTAssertNotEqual(TransactionBundle(name: "x", source: "y", files: extra).contentHash, base)
    }

    func testLengthPrefixesSeparatePathsFromDigests() {
        // Two sets whose naive concatenation of paths could coincide.
        let one = TransactionBundle(name: "", source: "", files: ["ab": [], "c": []]).contentHash
        let two = TransactionBundle(name: "", source: "", files: ["a": [], "bc": []]).contentHash
        XCTAssertNotEqual(one, two)
        XCTAssertNotEqual(TransactionBundle(name: "", source: "", files: [:]).contentHash, one)
    }

    func testMarkerFileNames() {
        for name in [
            "transaction.json", "engagement.png", "engagement.jpg", "engagement.jpeg", "engagement.txt",
            "device-response.cbor", "session-establishment.cbor", "session-data.cbor", "session-data-1.cbor",
            "session-data-12.cbor", "reader-key.pem", "session-transcript.cbor", "device-request.cbor",
        ] {
            XCTAssertTrue(TransactionBundle.isMarkerFileName(name), name)
        }
        for name in TransactionBundle.markerFileNames {
            XCTAssertTrue(TransactionBundle.isMarkerFileName(name), name)
        }
        for name in [
            "session-data-.cbor", "session-data-1a.cbor", "session-data-x.cbor", "Transaction.json", "documents",
            "manifest.json", "engagement.gif", "device-response.cbor.bak", "", "transaction.jso", "transaction.jsonx",
            "engagement.PNG", "reader-key.pe", " reader-key.pem", "device-response.cbor\u{0}",
        ] {
            XCTAssertFalse(TransactionBundle.isMarkerFileName(name), name)
        }
        XCTAssertTrue(TransactionBundle.isKnownFile(path: "documents/manifest.json"))
        XCTAssertTrue(TransactionBundle.isKnownFile(path: "documents/scan-1.jpg"))
        XCTAssertFalse(TransactionBundle.isKnownFile(path: "documents/sub/scan.jpg"))
        XCTAssertFalse(TransactionBundle.isKnownFile(path: "extra/transaction.json"))
        XCTAssertTrue(TransactionBundle.isKnownFile(path: "transaction.json"))
        XCTAssertTrue(TransactionBundle.isKnownFile(path: "session-data-2.cbor"))
        XCTAssertFalse(TransactionBundle.isKnownFile(path: "notes.txt"))
        for path in ["documents", "documentsx/a", "document/a", "/documents/a", "a/documents/b"] {
            XCTAssertFalse(TransactionBundle.isKnownFile(path: path), path)
        }
    }
}
