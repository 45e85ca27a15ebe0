import Foundation

/// Searches what a kiosk left on disk for plaintext that must not be there.
package enum ResidueScan {
    /// Where `needle` first occurs in `haystack`.
    package static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
            if haystack[start..<start + needle.count].elementsEqual(needle) { return start..<start + needle.count }
        }
        return nil
    }

    /// Every regular file under `roots` (symbolic links not followed) searched for each needle:
    /// the paths searched (relative to their root) and each (needle name, path) found.
    package static func search(_ roots: [String], for needles: [(String, [UInt8])]) throws -> (searched: [String], found: [String]) {
        var searched: [String] = []
        var found: [String] = []
        for root in roots {
            guard let enumerator = FileManager.default.enumerator(atPath: root) else { continue }
            while let relative = enumerator.nextObject() as? String {
                let path = root + "/" + relative
                guard (try? FileManager.default.attributesOfItem(atPath: path)[.type] as? FileAttributeType) == .typeRegular else { continue }
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                searched.append(relative)
                for (name, needle) in needles where range(of: needle, in: bytes) != nil { found.append("\(name) in \(path)") }
            }
        }
        return (searched, found)
    }
}
