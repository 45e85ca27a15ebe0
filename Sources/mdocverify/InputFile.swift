import Foundation

/// Reading single input files with errors that say what is wrong.
enum InputFile {
    /// A named limit on a file read whole (a CBOR message, a key).
    static let maxBytes = 64 * 1024 * 1024

    static func read(_ path: String) throws -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SetupError("\(path) does not exist")
        }
        guard !isDirectory.boolValue else { throw SetupError("\(path) is a folder, not a file") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        if let size = attributes?[.size] as? NSNumber, size.intValue > maxBytes {
            throw SetupError("\(path) is \(size.intValue) bytes, over the \(maxBytes)-byte limit for one file")
        }
        do {
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw SetupError("cannot read \(path): \(error.localizedDescription)")
        }
    }

    /// Reads CBOR given as binary, or as hex text (as the Annex D vectors are).
    static func readCBOR(_ path: String) throws -> [UInt8] {
        let bytes = try read(path)
        let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty, text.utf8.count % 2 == 0, text.utf8.allSatisfy({ $0 < 0x80 && isxdigit(Int32($0)) != 0 }),
            let decoded = decodeHex(text)
        {
            return decoded
        }
        return bytes
    }

    static func decodeHex(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case 0x30...0x39: v = c - 0x30
            case 0x61...0x66: v = c - 0x61 + 10
            case 0x41...0x46: v = c - 0x41 + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }
}
