import Foundation
import MdocIngest
import MdocSamples
import MdocTestSupport
import XCTest

/// The archive writer: what it writes reads back byte for byte, the same calls give the same
/// archive, entry kinds are what they say (checked with the system's tar), errors are `writeFailed`.
final class ArchiveWriterTests: TemporaryFolderTestCase {
    private func path(_ name: String) -> String { temporaryFolder + "/" + name }

    private func files(_ archive: String) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for item in InputReader(inputs: [archive]) {
            switch item {
            case .transaction(let bundle): files.merge(bundle.files) { first, _ in first }
            case .failure(let failure): XCTFail("\(failure)")
            }
        }
        return files
    }

    /// Contents larger than one write call (64 KiB) and empty ones come back unchanged in every format.
    func testContentsReadBack() throws {
        var large = [UInt8](repeating: 0, count: 200_001)
        for index in large.indices { large[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
        for (name, format) in [("a.tar", ArchiveWriter.Format.tar), ("a.tgz", .tarGzip), ("a.txz", .tarXz), ("a.zip", .zip)] {
            let writer = try ArchiveWriter(path: path(name), format: format)
            try writer.addDirectory(path: "tx")
            try writer.addFile(path: "tx/transaction.json", bytes: Array("{}".utf8))
            try writer.addFile(path: "tx/large.bin", bytes: large)
            try writer.addFile(path: "tx/empty.bin", bytes: [])
            try writer.close()
            XCTAssertEqual(files(path(name)), ["transaction.json": Array("{}".utf8), "large.bin": large, "empty.bin": []], name)
        }
    }

    /// Entries carry no time or owner, so the same calls give byte-identical archives.
    func testSameCallsSameBytes() throws {
        for (index, format) in [ArchiveWriter.Format.tar, .zip].enumerated() {
            var archives: [Data] = []
            for run in 0..<2 {
                let name = path("same-\(index)-\(run)")
                let writer = try ArchiveWriter(path: name, format: format)
                try writer.addFile(path: "tx/transaction.json", bytes: Array("{\"id\":1}".utf8), mode: 0o600)
                try writer.addSymlink(path: "tx/link", target: "/etc/passwd")
                try writer.close()
                archives.append(try Data(contentsOf: URL(fileURLWithPath: name)))
                if run == 0 { Thread.sleep(forTimeInterval: 1.1) }  // a timestamp would differ now
            }
            XCTAssertEqual(archives[0], archives[1], "format \(format)")
        }
    }

    /// The hostile entry kinds are written as those kinds, as GNU tar lists them.
    func testEntryKinds() throws {
        let tar = ["/usr/bin/tar", "/bin/tar"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let executable = try XCTUnwrap(tar, "tar is needed to check entry kinds")
        let name = path("kinds.tar")
        let writer = try ArchiveWriter(path: name, format: .tar)
        try writer.addDirectory(path: "d")
        try writer.addFile(path: "d/f", bytes: [1, 2, 3], mode: 0o640)
        try writer.addSymlink(path: "d/s", target: "../../x")
        try writer.addHardlink(path: "d/h", target: "d/f")
        try writer.addCharacterDevice(path: "d/c")
        try writer.addFIFO(path: "d/p")
        try writer.close()

        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-tvf", name]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let listing = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, listing)
        let lines = listing.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 6, listing)
        let kinds = lines.map { String($0.prefix(10)) }
        XCTAssertEqual(kinds, ["drwxr-xr-x", "-rw-r-----", "lrwxrwxrwx", "hrw-r--r--", "crw-------", "prw-------"], listing)
        XCTAssertTrue(lines[2].hasSuffix("d/s -> ../../x"), lines[2])
        XCTAssertTrue(lines[3].hasSuffix("d/h link to d/f"), lines[3])
        XCTAssertTrue(lines[4].contains("1,3"), "character device 1,3: \(lines[4])")
        XCTAssertTrue(lines.allSatisfy { $0.contains("0/0") && $0.contains("1970-01-01") }, listing)
    }

    func testErrorsAreWriteFailed() throws {
        XCTAssertThrowsError(try ArchiveWriter(path: path("missing/folder/a.tar"), format: .tar)) {
            XCTAssertEqual(($0 as? IngestError)?.code, .writeFailed)
        }
        let writer = try ArchiveWriter(path: path("closed.tar"), format: .tar)
        try writer.close()
        try writer.close()  // a second close does nothing
        XCTAssertThrowsError(try writer.addFile(path: "late", bytes: [1])) {
            XCTAssertEqual(($0 as? IngestError)?.code, .writeFailed)
        }
        XCTAssertThrowsError(try writer.addFIFO(path: "late")) {
            XCTAssertEqual(($0 as? IngestError)?.code, .writeFailed)
        }
    }
}
