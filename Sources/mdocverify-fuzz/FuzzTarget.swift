import Foundation

/// One fuzz target: an entry point that takes untrusted bytes. `prepare` builds what the target
/// needs once per process (trust material, keys) and returns the function run on every input;
/// that function must return normally on any input (a crash, a trap or a sanitizer report is a
/// finding). `seeds` makes the starting corpus from the repository's samples and vectors.
struct FuzzTarget: Sendable {
    typealias Run = @Sendable ([UInt8]) -> Void

    let name: String
    let summary: String
    let prepare: @Sendable (FuzzFixtures) throws -> Run
    let seeds: @Sendable (FuzzFixtures) throws -> [FuzzSeed]

    static let all: [FuzzTarget] = decoderTargets + trustTargets + verificationTargets + edgeTargets

    /// The target libFuzzer's callback runs (a C function pointer captures nothing).
    nonisolated(unsafe) static var active: Run?

    static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// A seed input and the file name it gets in the corpus.
struct FuzzSeed: Sendable {
    let name: String
    let bytes: [UInt8]

    init(_ name: String, _ bytes: [UInt8]) {
        self.name = name
        self.bytes = bytes
    }
}

/// Inputs made of several byte strings (a transaction's files, BLE chunks, a trust folder's
/// files) are one input split at ``separator``: mutations that copy or cross parts keep the
/// structure, and a part may contain any other bytes.
enum FuzzParts {
    static let separator = Array("\n--part--\n".utf8)

    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var parts: [[UInt8]] = []
        var start = 0
        var i = 0
        while i + separator.count <= bytes.count {
            if bytes[i..<(i + separator.count)].elementsEqual(separator) {
                parts.append(Array(bytes[start..<i]))
                i += separator.count
                start = i
            } else {
                i += 1
            }
        }
        parts.append(Array(bytes[start...]))
        return parts
    }

    static func join(_ parts: [[UInt8]]) -> [UInt8] {
        Array(parts.joined(separator: separator))
    }
}

/// Where a target finds the repository's files: its fixtures (`Fuzz/<target>/fixtures`, shared
/// ones in `Fuzz/fixtures`), the samples and the test vectors.
struct FuzzFixtures: Sendable {
    let root: URL

    /// `MDOC_FUZZ_ROOT` when set (bin/fuzz sets it), else the checkout this file was built from.
    static var standard: FuzzFixtures {
        if let root = ProcessInfo.processInfo.environment["MDOC_FUZZ_ROOT"], !root.isEmpty {
            return FuzzFixtures(root: URL(fileURLWithPath: root))
        }
        let source = URL(fileURLWithPath: #filePath)
        return FuzzFixtures(root: source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent())
    }

    func url(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    func read(_ relative: String) throws -> [UInt8] { Array(try Data(contentsOf: url(relative))) }

    /// A hex vector file (whitespace ignored) as bytes.
    func hex(_ relative: String) throws -> [UInt8] {
        let text = String(decoding: try read(relative), as: UTF8.self).filter { !$0.isWhitespace }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) ?? text.endIndex
            guard let byte = UInt8(text[index..<next], radix: 16) else { throw FuzzSetupError("\(relative) is not hex") }
            bytes.append(byte)
            index = next
        }
        return bytes
    }

    /// The regular files of a folder whose names end with `suffix`, sorted by name.
    func files(in relative: String, suffix: String = "") throws -> [(name: String, bytes: [UInt8])] {
        let names = try FileManager.default.contentsOfDirectory(atPath: url(relative).path).filter { name in
            var isDirectory: ObjCBool = false
            return name.hasSuffix(suffix) && FileManager.default.fileExists(atPath: url("\(relative)/\(name)").path, isDirectory: &isDirectory)
                && !isDirectory.boolValue
        }.sorted()
        return try names.map { ($0, try read("\(relative)/\($0)")) }
    }

    /// The sample transaction folders (`samples/transactions/…`).
    func sampleTransactions() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url("samples/transactions").path).sorted()
            .map { "samples/transactions/\($0)" }
    }

    /// A fresh, empty scratch folder for one process (archives and trust folders are read from files).
    func scratch(_ name: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mdocverify-fuzz-\(getpid())-\(name)")
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}

struct FuzzSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
