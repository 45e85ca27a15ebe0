package import Foundation
import MdocFiles

/// The log `mdocverify trust fetch` keeps in the trust folder (`fetch-log.jsonl`): one JSON
/// object per line for each download, with where it came from and when. The status folder reads
/// it to know which address a token was fetched from (a token that answers another uri is then
/// named against the MSO's reference).
package struct TrustFetchLog: Sendable {
    /// The log's name in the trust folder.
    package static let fileName = "fetch-log.jsonl"

    /// One download.
    package struct Entry: Codable, Sendable, Hashable {
        /// What was fetched: `crl`, `vical`, `statusList` (a status or identifier list token).
        package var kind: String
        package var url: String
        /// The file written, relative to the trust folder; `nil` when nothing was.
        package var file: String?
        /// RFC 3339.
        package var fetchedAt: String
        /// Lower-case hex SHA-256 of the bytes received.
        package var sha256: String?
        /// Why nothing was written (the fetch failed, or what came is not what was asked for).
        package var failure: String?

        package init(kind: String, url: String, file: String?, fetchedAt: String, sha256: String?, failure: String?) {
            self.kind = kind
            self.url = url
            self.file = file
            self.fetchedAt = fetchedAt
            self.sha256 = sha256
            self.failure = failure
        }
    }

    package let entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    /// The log of the trust folder `directory`; empty when there is none. Lines that are not an
    /// entry are passed over: the log says where files came from, it is not trust material.
    package init(directory: String) {
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        guard let data = FileManager.default.contents(atPath: path) else {
            self.init(entries: [])
            return
        }
        let decoder = JSONDecoder()
        let entries = data.split(separator: UInt8(ascii: "\n")).compactMap { line in try? decoder.decode(Entry.self, from: Data(line)) }
        self.init(entries: entries)
    }

    /// The address each file of `folder` (a path relative to the trust folder) was fetched from,
    /// by file name; the latest download of a file wins.
    package func origins(inFolder folder: String) -> [String: String] {
        var origins: [String: String] = [:]
        for entry in entries {
            guard let file = entry.file, FilePaths.parent(of: file) == folder else { continue }
            origins[(file as NSString).lastPathComponent] = entry.url
        }
        return origins
    }

    /// `entry` as one line of the log (JSON, sorted keys, a line end).
    package static func line(_ entry: Entry) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(entry)) ?? Data()) + [UInt8(ascii: "\n")]
    }
}
