import Foundation
import MdocIngest
import MdocTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Folder inputs: links never followed, special files never opened, limits at their edges.
final class FolderSafetyTests: XCTestCase {
    private let secret = Array("SECRET-OUTSIDE-THE-INPUT".utf8)

    private func containsSecret(_ items: [IngestItem]) -> Bool {
        items.contains { item in
            item.bundle?.files.values.contains { bytes in
                bytes.count >= secret.count
                    && (0...(bytes.count - secret.count)).contains { Array(bytes[$0..<($0 + secret.count)]) == secret }
            } ?? false
        }
    }

    func testSymlinkInsideTransactionFolderRefusesIt() throws {
        let dir = try TemporaryFolder()
        let outside = try dir.write("outside/secret.txt", secret)
        try dir.write("in/tx/transaction.json", [1])
        try dir.write("in/tx2/transaction.json", [2])
        try FileManager.default.createSymbolicLink(atPath: dir.url("in/tx/documents"), withDestinationPath: dir.url("outside"))
        try FileManager.default.createSymbolicLink(atPath: dir.url("in/tx/reader-key.pem"), withDestinationPath: outside)
        let items = readAll([dir.url("in")])
        XCTAssertEqual(items.count, 2, "\(items)")
        XCTAssertEqual(items.first?.failure?.error.code, .symlink)
        XCTAssertEqual(items.first?.failure?.source, dir.url("in/tx"))
        XCTAssertEqual(items.last?.bundle?.files, ["transaction.json": [2]])
        XCTAssertFalse(containsSecret(items))
        // The same when the transaction folder is the input itself.
        let direct = readAll([dir.url("in/tx")])
        XCTAssertEqual(direct.map { $0.failure?.error.code }, [.symlink])
    }

    func testSymlinkInAWalkedFolderIsRecordedNotFollowed() throws {
        let dir = try TemporaryFolder()
        try dir.write("outside/txX/device-response.cbor", secret)
        try dir.write("outside/loose.cbor", secret)
        try dir.write("in/a/tx/transaction.json", [1])
        try FileManager.default.createSymbolicLink(atPath: dir.url("in/a/alias"), withDestinationPath: dir.url("outside/txX"))
        try FileManager.default.createSymbolicLink(atPath: dir.url("in/b"), withDestinationPath: dir.url("outside"))
        try FileManager.default.createSymbolicLink(atPath: dir.url("in/c.cbor"), withDestinationPath: dir.url("outside/loose.cbor"))
        let items = readAll([dir.url("in")])
        XCTAssertEqual(items.map(\.source), [dir.url("in/a/alias"), dir.url("in/a/tx"), dir.url("in/b"), dir.url("in/c.cbor")])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.symlink, nil, .symlink, .symlink])
        XCTAssertFalse(containsSecret(items))
    }

    func testExplicitSymlinkInputIsFollowed() throws {
        let dir = try TemporaryFolder()
        try dir.write("real/tx/transaction.json", [1])
        try FileManager.default.createSymbolicLink(atPath: dir.url("link"), withDestinationPath: dir.url("real/tx"))
        let items = readAll([dir.url("link")])
        XCTAssertEqual(items.first?.bundle?.name, "link")
        XCTAssertEqual(items.first?.bundle?.files, ["transaction.json": [1]])
    }

    func testFIFOIsRefusedAndNeverOpened() throws {
        let dir = try TemporaryFolder()
        try dir.write("in/tx/transaction.json", [1])
        try dir.makeDirectory("in/loose")
        XCTAssertEqual(mkfifo(dir.url("in/tx/pipe"), 0o600), 0)
        XCTAssertEqual(mkfifo(dir.url("in/loose/pipe.cbor"), 0o600), 0)
        // Opening a FIFO for reading would block this test forever: reaching the end proves
        // they were not opened.
        let items = readAll([dir.url("in")])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.specialFile, .specialFile])
        XCTAssertEqual(items.map(\.source), [dir.url("in/loose/pipe.cbor"), dir.url("in/tx")])
        XCTAssertEqual(readAll([dir.url("in/loose/pipe.cbor")]).map { $0.failure?.error.code }, [.specialFile])
    }

    func testFilesPerTransactionEdge() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxFilesPerTransaction = 3
        for name in ["transaction.json", "a", "documents/b"] { try dir.write("in/three/" + name, [1]) }
        for name in ["transaction.json", "a", "documents/b", "documents/c"] { try dir.write("in/four/" + name, [1]) }
        let items = readAll([dir.url("in")], limits: limits)
        XCTAssertEqual(items.map(\.source), [dir.url("in/four"), dir.url("in/three")])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.tooManyFiles, nil])
        XCTAssertEqual(items.last?.bundle?.files.count, 3)
    }

    func testEntryBytesEdge() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxEntryBytes = 1000
        try dir.write("in/ok/transaction.json", pseudoRandomBytes(seed: 1, count: 1000))
        try dir.write("in/over/transaction.json", pseudoRandomBytes(seed: 1, count: 1001))
        try dir.write("in/over.cbor", pseudoRandomBytes(seed: 1, count: 1001))
        try dir.write("in/ok.cbor", pseudoRandomBytes(seed: 1, count: 1000))
        let items = readAll([dir.url("in")], limits: limits)
        // Byte-wise name order: "ok" < "ok.cbor" < "over" < "over.cbor".
        XCTAssertEqual(items.map(\.source), ["ok", "ok.cbor", "over", "over.cbor"].map { dir.url("in/" + $0) })
        XCTAssertEqual(items.map { $0.failure?.error.code }, [nil, nil, .entryTooLarge, .entryTooLarge])
    }

    func testTransactionBytesEdge() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxTransactionBytes = 300
        try dir.write("in/ok/transaction.json", pseudoRandomBytes(seed: 1, count: 100))
        try dir.write("in/ok/a", pseudoRandomBytes(seed: 1, count: 200))
        try dir.write("in/over/transaction.json", pseudoRandomBytes(seed: 1, count: 100))
        try dir.write("in/over/a", pseudoRandomBytes(seed: 1, count: 201))
        let items = readAll([dir.url("in")], limits: limits)
        XCTAssertEqual(items.map { $0.failure?.error.code }, [nil, .transactionTooLarge])
    }

    func testPathDepthEdge() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxPathDepth = 3
        try dir.write("in/a/tx/transaction.json", [1])  // 3 components below the input
        try dir.write("in/b/tx/sub/x", [1])  // 4
        try dir.write("in/b/tx/transaction.json", [1])
        try dir.write("in/c/d/e/f.cbor", [1])  // 4: folder c/d/e is at depth 3, the file at 4
        try dir.write("in/c/d/g/h/i.cbor", [1])  // folder c/d/g/h at depth 4
        let items = readAll([dir.url("in")], limits: limits)
        XCTAssertEqual(items.map(\.source), ["a/tx", "b/tx", "c/d/e/f.cbor", "c/d/g/h"].map { dir.url("in/" + $0) })
        XCTAssertEqual(items.map { $0.failure?.error.code }, [nil, .pathTooDeep, nil, .pathTooDeep])
    }

    func testDirectoryListingIsBoundedByEntryLimit() throws {
        let dir = try TemporaryFolder()
        var limits = IngestLimits.default
        limits.maxEntriesPerArchive = 3
        for name in ["a.cbor", "b.cbor", "c.cbor"] { try dir.write("three/" + name, [1]) }
        for name in ["a.cbor", "b.cbor", "c.cbor", "d.cbor"] { try dir.write("four/" + name, [1]) }
        XCTAssertEqual(readAll([dir.url("three")], limits: limits).count, 3)
        XCTAssertEqual(readAll([dir.url("four")], limits: limits).map { $0.failure?.error.code }, [.tooManyEntries])
    }

    func testNameThatIsNotUTF8IsRefused() throws {
        let dir = try TemporaryFolder()
        try dir.write("in/tx/transaction.json", [1])
        try dir.write("in/ok.cbor", [2])
        // "bad\xff.cbor" next to them, and inside the transaction folder.
        for folder in ["in", "in/tx"] {
            var path = Array(dir.url(folder).utf8CString.dropLast())
            path += [0x2f, 0x62, 0x61, 0x64, CChar(bitPattern: 0xff), 0x2e, 0x63, 0x62, 0x6f, 0x72, 0]
            let fd = open(path, O_CREAT | O_WRONLY, 0o600)
            XCTAssertGreaterThanOrEqual(fd, 0)
            close(fd)
        }
        let items = readAll([dir.url("in")])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.invalidPath, nil, .invalidPath])
        XCTAssertEqual(items.dropFirst().first?.bundle?.name, "ok.cbor")
    }

    func testUnreadableFolderIsAFailureAndTheWalkGoesOn() throws {
        guard getuid() != 0 else { throw XCTSkip("root reads everything") }
        let dir = try TemporaryFolder()
        try dir.write("in/a/tx/transaction.json", [1])
        try dir.write("in/b.cbor", [2])
        XCTAssertEqual(chmod(dir.url("in/a"), 0), 0)
        defer { chmod(dir.url("in/a"), 0o755) }
        let items = readAll([dir.url("in")])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.unreadable, nil])
    }

    func testPathThroughAFileIsUnreadable() throws {
        let dir = try TemporaryFolder()
        let file = try dir.write("plain.cbor", [1])
        let items = readAll([file + "/inside", file])
        XCTAssertEqual(items.map { $0.failure?.error.code }, [.unreadable, nil])
    }
}
