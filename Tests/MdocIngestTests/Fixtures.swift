import Foundation
import MdocCrypto
import MdocIngest
import MdocSamples
import MdocTestSupport
import XCTest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deterministic pseudo-random bytes (xorshift64*), so fixtures are the same on every run.
func pseudoRandomBytes(seed: UInt64, count: Int) -> [UInt8] {
    var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    var out = [UInt8]()
    out.reserveCapacity(count)
    while out.count < count {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let value = state &* 0x2545_F491_4F6C_DD1D
        for shift in stride(from: 0, to: 64, by: 8) where out.count < count {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
    return out
}

/// A set of files forming a tree: relative path → bytes.
typealias Tree = [(path: String, bytes: [UInt8])]

/// The reference fixture: 3 transaction folders (one with documents/, unknown files in two) and
/// 2 lone .cbor files.
enum Fixture {
    static func tree() throws -> Tree {
        let response = try AnnexD.deviceResponse()
        let json = Array(#"{"id":"tx-a-001","capturedAt":"2021-01-01T00:00:00Z","source":"kiosk-17"}"#.utf8)
        let manifest = Array(#"[{"file":"front.jpg","type":"id-card","side":"front"}]"#.utf8)
        let tree: Tree = [
            ("lone-1.cbor", response),
            ("lone-2.cbor", pseudoRandomBytes(seed: 2, count: 70_000)),
            ("tx-a/device-response.cbor", response),
            ("tx-a/notes.txt", Array("operator note".utf8)),
            ("tx-a/transaction.json", json),
            ("tx-b/documents/front.jpg", pseudoRandomBytes(seed: 3, count: 200_000)),
            ("tx-b/documents/manifest.json", manifest),
            ("tx-b/engagement.txt", Array("mdoc:owBjMS4wAYIB2BhYS6QBAiABIVgg".utf8)),
            ("tx-b/reader-key.pem", Array("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8)),
            ("tx-b/session-data-1.cbor", try AnnexD.sessionData()),
            ("tx-b/session-data-2.cbor", pseudoRandomBytes(seed: 4, count: 90)),
            ("tx-b/session-establishment.cbor", try AnnexD.sessionEstablishment()),
            ("tx-c/device-response.cbor", pseudoRandomBytes(seed: 5, count: 1_000)),
            ("tx-c/empty.bin", []),
            ("tx-c/extra/nested.bin", pseudoRandomBytes(seed: 6, count: 3_000)),
        ]
        return tree
    }

    /// The bundles the fixture must give, in walk order: (name, path inside the input, files).
    static func expected(_ tree: Tree) -> [(name: String, path: String, files: [String: [UInt8]])] {
        func folder(_ name: String) -> [String: [UInt8]] {
            var files: [String: [UInt8]] = [:]
            for (path, bytes) in tree where path.hasPrefix(name + "/") {
                files[String(path.dropFirst(name.count + 1))] = bytes
            }
            return files
        }
        func lone(_ name: String) -> [String: [UInt8]] {
            ["device-response.cbor": tree.first { $0.path == name }?.bytes ?? []]
        }
        return [
            ("lone-1.cbor", "lone-1.cbor", lone("lone-1.cbor")),
            ("lone-2.cbor", "lone-2.cbor", lone("lone-2.cbor")),
            ("tx-a", "tx-a", folder("tx-a")),
            ("tx-b", "tx-b", folder("tx-b")),
            ("tx-c", "tx-c", folder("tx-c")),
        ]
    }
}

/// Writes `tree` under `directory`.
func writeFolder(_ tree: Tree, in directory: TemporaryFolder, under prefix: String) throws -> String {
    for (path, bytes) in tree { try directory.write(prefix + "/" + path, bytes) }
    return directory.url(prefix)
}

/// Writes `tree` as an archive, with a directory entry before the first file of each folder
/// (as tar and zip of a directory tree do), entry paths prefixed with `prefix`.
func writeArchive(_ tree: Tree, to path: String, format: ArchiveWriter.Format, prefix: String = "") throws {
    let writer = try ArchiveWriter(path: path, format: format)
    var directories: Set<String> = []
    for (file, bytes) in tree {
        let parts = file.split(separator: "/").dropLast()
        var current = ""
        for part in parts {
            current += part + "/"
            if directories.insert(current).inserted { try writer.addDirectory(path: prefix + current) }
        }
        try writer.addFile(path: prefix + file, bytes: bytes)
    }
    try writer.close()
}

/// The content hash as documented on `TransactionBundle.contentHash(fileDigests:)`, computed
/// independently of the implementation.
func referenceContentHash(_ files: [String: [UInt8]]) -> [UInt8] {
    func u64(_ value: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: UInt64(value) >> (56 - 8 * UInt64($0))) } }
    var message = Array("mdocverify-bundle-content-v1".utf8) + u64(files.count)
    for path in files.keys.sorted(by: { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }) {
        message += u64(path.utf8.count) + Array(path.utf8) + HashFunction.sha256.hash(files[path] ?? [])
    }
    return HashFunction.sha256.hash(message)
}

func readAll(_ inputs: [String], limits: IngestLimits = .default) -> [IngestItem] {
    Array(InputReader(inputs: inputs, limits: limits))
}

extension IngestItem {
    var bundle: TransactionBundle? {
        if case .transaction(let bundle) = self { return bundle }
        return nil
    }

    var failure: IngestFailure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    /// The source of either kind.
    var source: String {
        switch self {
        case .transaction(let bundle): bundle.source
        case .failure(let failure): failure.source
        }
    }
}

/// A 512-byte ustar header written by hand (for archives libarchive will not write).
func ustarHeader(name: String, size: Int, type: UInt8 = UInt8(ascii: "0")) -> [UInt8] {
    var header = [UInt8](repeating: 0, count: 512)
    func put(_ text: String, at offset: Int) {
        for (index, byte) in text.utf8.enumerated() { header[offset + index] = byte }
    }
    put(name, at: 0)
    put("0000644", at: 100)
    put("0000000", at: 108)
    put("0000000", at: 116)
    put(String(repeating: "0", count: 11 - String(size, radix: 8).count) + String(size, radix: 8), at: 124)
    put("00000000000", at: 136)
    put("        ", at: 148)
    header[156] = type
    put("ustar", at: 257)
    put("00", at: 263)
    let sum = header.reduce(0) { $0 + Int($1) }
    let octal = String(sum, radix: 8)
    put(String(repeating: "0", count: 6 - octal.count) + octal, at: 148)
    header[154] = 0
    header[155] = UInt8(ascii: " ")
    return header
}

/// A ustar file entry: header plus data padded to 512 bytes.
func ustarFile(name: String, bytes: [UInt8]) -> [UInt8] {
    let padding = (512 - bytes.count % 512) % 512
    return ustarHeader(name: name, size: bytes.count) + bytes + [UInt8](repeating: 0, count: padding)
}

/// The end-of-archive marker: two zero blocks.
let ustarEnd = [UInt8](repeating: 0, count: 1024)
