import Foundation
import MdocIngest
import MdocSamples
import MdocTestSupport
import XCTest

/// Drip-feed truncation: every prefix of an archive reads without trapping, and never gives
/// bytes that differ from the original's.
final class TruncationTests: XCTestCase {
    func testEveryPrefixOfEveryFormIsHandled() throws {
        let dir = try TemporaryFolder()
        let tree = try Fixture.tree()
        var expected: [String: [String: [UInt8]]] = [:]
        for bundle in Fixture.expected(tree) { expected[bundle.name] = bundle.files }
        let forms: [(String, ArchiveWriter.Format)] = [("tar.gz", .tarGzip), ("tar.xz", .tarXz), ("zip", .zip), ("tar", .tar)]
        for (ext, format) in forms {
            let full = dir.url("full.\(ext)")
            try writeArchive(tree, to: full, format: format)
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: full)))
            let step = max(1, bytes.count / 89)
            var cuts = Array(stride(from: 0, to: bytes.count, by: step))
            cuts += [1, 511, 512, 513, bytes.count - 1]
            for cut in cuts where cut < bytes.count {
                let path = try dir.write("cut-\(cut).\(ext)", Array(bytes.prefix(cut)))
                let items = readAll([path])
                for item in items {
                    guard let bundle = item.bundle else { continue }
                    // A plain tar cut at an entry boundary reads as a shorter archive (libarchive
                    // accepts tar without its end blocks), and a zip cut in its central directory
                    // is read from its local headers; what they give must be original bytes.
                    // Compressed tars detect every cut.
                    XCTAssertTrue(format == .tar || format == .zip, "\(ext) cut at \(cut) gave \(bundle.name)")
                    let original = expected[bundle.name] ?? [:]
                    for (file, content) in bundle.files {
                        XCTAssertEqual(content, original[file], "\(ext) cut at \(cut): \(bundle.name)/\(file)")
                    }
                }
                let failures = items.compactMap(\.failure)
                XCTAssertLessThanOrEqual(failures.count, 1, "\(ext) cut at \(cut): \(failures)")
                XCTAssertTrue(failures.allSatisfy { $0.error.code == .corruptArchive }, "\(ext) cut at \(cut): \(failures)")
                if format == .tarGzip || format == .tarXz {
                    XCTAssertEqual(items.count, 1, "\(ext) cut at \(cut): \(items.map(\.source))")
                    XCTAssertTrue(
                        failures.allSatisfy { $0.source == path && $0.error.code == .corruptArchive },
                        "\(ext) cut at \(cut): \(failures)")
                }
                try FileManager.default.removeItem(atPath: path)
            }
        }
    }
}
