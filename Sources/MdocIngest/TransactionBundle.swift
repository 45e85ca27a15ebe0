internal import MdocCrypto

/// The files of one captured transaction (the bundle layout is in the README), exactly as read.
///
/// A bundle is produced from a transaction folder, from the entries under one folder of an
/// archive, or from a lone `*.cbor` file (then ``files`` is `["device-response.cbor": bytes]`).
/// Nothing here is parsed or checked: `transaction.json` is not decoded, CBOR is not looked at,
/// files with unknown names are kept. The caller decides what each file means.
package struct TransactionBundle: Sendable {
    /// The folder name (or the archive's file name when the archive root is the transaction
    /// folder), or the file name of a lone `.cbor`. The caller may override it with
    /// `transaction.json`'s `id`.
    package let name: String
    /// Where it came from: the input path (folder or `.cbor` file); inside an archive
    /// `"<archive path>!/<folder path inside>"` (`"<archive path>!/"` for the archive root,
    /// `"<archive path>!/<path>.cbor"` for a lone `.cbor` entry).
    package let source: String
    /// Relative POSIX path (no leading `./`, `/`-separated, relative to the transaction folder)
    /// → the file's bytes.
    package private(set) var files: [String: [UInt8]]
    /// SHA-256 of each file's bytes, by the same paths as ``files``.
    package let fileDigests: [String: [UInt8]]
    /// The content identity of the transaction: see ``contentHash(fileDigests:)`` for the exact
    /// serialization. Every file counts, `transaction.json` and unknown files included; the
    /// ``name`` and ``source`` do not.
    package let contentHash: [UInt8]

    /// Lower-case hex of ``contentHash``: the transaction's id, asked for several times per
    /// transaction by the pipeline, so written once.
    package let contentHashHex: String

    /// Builds a bundle and computes its digests.
    package init(name: String, source: String, files: [String: [UInt8]]) {
        // Same keys as `files`: `mapValues` keeps its table, no key is hashed again.
        let digests = files.mapValues { HashFunction.sha256.hash($0) }
        self.name = name
        self.source = source
        self.files = files
        self.fileDigests = digests
        self.contentHash = Self.contentHash(fileDigests: digests)
        self.contentHashHex = hexString(contentHash)
    }

    /// Removes the bytes of the file at `path` and returns them; its digest, and so the
    /// bundle's identity, stay (for a secret its caller keeps elsewhere, the reader's key).
    package mutating func takeFile(_ path: String) -> [UInt8]? { files.removeValue(forKey: path) }

    /// Paths of ``files`` that are not bundle files this project knows (sorted), for the caller
    /// to record. See ``isKnownFile(path:)``.
    package var unknownFiles: [String] {
        files.keys.filter { !Self.isKnownFile(path: $0) }.sorted(by: Self.pathPrecedes)
    }

    /// Domain-separation prefix of the content-hash serialization, version 1.
    package static let contentHashDomain: [UInt8] = Array("mdocverify-bundle-content-v1".utf8)

    /// The content hash of a set of files given their SHA-256 digests.
    ///
    /// SHA-256 over the byte string
    /// ```
    /// "mdocverify-bundle-content-v1"              (28 ASCII bytes, no terminator)
    /// u64be(number of files)
    /// for each file, in ascending byte-wise order of the UTF-8 path:
    ///     u64be(byte length of the UTF-8 path) || UTF-8 path || SHA-256(file bytes)  (32 bytes)
    /// ```
    /// Every field has a fixed length or a length prefix, so two different sets of
    /// (path, digest) pairs never serialize alike. Independent of the order files were read in,
    /// of the archive form and of the bundle's name.
    package static func contentHash(fileDigests: [String: [UInt8]]) -> [UInt8] {
        let entries = fileDigests.sorted(by: { pathPrecedes($0.key, $1.key) })
        var serialized: [UInt8] = []
        serialized.reserveCapacity(
            contentHashDomain.count + 8 + entries.reduce(0) { $0 + 8 + $1.key.utf8.count + $1.value.count })
        serialized += contentHashDomain
        appendBigEndian64(UInt64(entries.count), to: &serialized)
        for (path, digest) in entries {
            appendBigEndian64(UInt64(path.utf8.count), to: &serialized)
            serialized += path.utf8
            serialized += digest
        }
        return HashFunction.sha256.hash(serialized)
    }

    /// Byte-wise order of UTF-8 paths (the order used for hashing and for walking folders).
    static func pathPrecedes(_ lhs: String, _ rhs: String) -> Bool {
        lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private static func appendBigEndian64(_ value: UInt64, to bytes: inout [UInt8]) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    // MARK: Known files

    /// File names that, found directly in a folder, make it a transaction folder:
    /// `transaction.json`, `engagement.png|jpg|jpeg|txt`, `device-response.cbor`,
    /// `session-establishment.cbor`, `session-data.cbor`, `session-data-<n>.cbor` (n decimal),
    /// `reader-key.pem`, `session-transcript.cbor`, `device-request.cbor`.
    /// (`documents/` alone does not make a transaction folder.)
    package static let markerFileNames: Set<String> = [
        "transaction.json",
        "engagement.png", "engagement.jpg", "engagement.jpeg", "engagement.txt",
        "device-response.cbor",
        "session-establishment.cbor",
        "session-data.cbor",
        "reader-key.pem",
        "session-transcript.cbor",
        "device-request.cbor",
    ]

    /// Whether `name` (one path component) marks a transaction folder (see ``markerFileNames``;
    /// `session-data-1.cbor`, `session-data-2.cbor`, … also do).
    package static func isMarkerFileName(_ name: String) -> Bool {
        if markerFileNames.contains(name) { return true }
        let prefix = "session-data-"
        let suffix = ".cbor"
        guard name.hasPrefix(prefix), name.hasSuffix(suffix) else { return false }
        let digits = name.utf8.dropFirst(prefix.utf8.count).dropLast(suffix.utf8.count)
        return !digits.isEmpty && digits.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }

    /// Why the bundle's session messages have no single order (ISO 18013-5 §9.1.1.4: they are
    /// processed in the order exchanged), or nil: `session-data.cbor` alone, or
    /// `session-data-N.cbor` with N written without leading zeros.
    package static func sessionDataAmbiguity(paths: some Sequence<String>) -> String? {
        var single = false
        var numbered: [String] = []
        for path in paths where path.hasPrefix("session-data") && isMarkerFileName(path) {
            if path == "session-data.cbor" { single = true } else { numbered.append(path) }
        }
        if single, let other = numbered.min() {
            return "both session-data.cbor and \(other): keep one form (session-data.cbor, or session-data-1.cbor, session-data-2.cbor, ...)"
        }
        if let padded = numbered.sorted().first(where: { $0.hasPrefix("session-data-0") }) {
            return "\(padded): write the message number without leading zeros (session-data-1.cbor, session-data-2.cbor, ...)"
        }
        return nil
    }

    /// Whether a bundle-relative path is a known bundle file: a marker file at the top, or
    /// anything directly under `documents/` (the manifest and the scans it lists).
    package static func isKnownFile(path: String) -> Bool {
        let slash = UInt8(ascii: "/")
        guard let first = path.utf8.firstIndex(of: slash) else { return isMarkerFileName(path) }
        return path.utf8[..<first].elementsEqual("documents".utf8)
            && !path.utf8[path.utf8.index(after: first)...].contains(slash)
    }
}

/// A failure to ingest one input, one archive or one transaction of an archive.
package struct IngestFailure: Sendable, Error, Hashable, CustomStringConvertible {
    /// The input path, the archive path, or the transaction's source (`"<archive>!/<folder>"`).
    package let source: String
    package let error: IngestError

    package init(source: String, error: IngestError) {
        self.source = source
        self.error = error
    }

    package var description: String { "\(source): \(error)" }
}

/// One item streamed by ``InputReader``.
package enum IngestItem: Sendable {
    case transaction(TransactionBundle)
    case failure(IngestFailure)
}
