package import MdocCrypto

/// Human-friendly reference codes derived from a transaction's content hash.
///
/// Crockford base32 (no I, L, O, U: nothing to misread aloud) of the first 80 bits of the hash,
/// in four groups of four: `7K3Q-9XZD-M2F4-HB8T`. Deterministic: the same content always gets
/// the same code; 80 bits make collisions within a store vanishingly unlikely (the store also
/// enforces uniqueness).
package enum ReferenceCode {
    /// The alphabet as ASCII bytes, by 5-bit value.
    static let alphabetBytes: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    /// The same letters as characters, for text that is not ASCII (``isWellFormed(_:)``).
    static let alphabet: [Character] = alphabetBytes.map { Character(Unicode.Scalar($0)) }
    /// Whether each ASCII byte is a letter of the alphabet.
    static let inAlphabet: [Bool] = (0..<128).map { alphabetBytes.contains(UInt8($0)) }

    package static func make(contentHash: [UInt8]) -> String {
        // 80 bits, zero-padded: 16 characters of 5 bits, in four groups of four (19 bytes).
        var bytes = [UInt8](repeating: 0, count: 10)
        for index in 0..<min(10, contentHash.count) { bytes[index] = contentHash[index] }
        return String(unsafeUninitializedCapacity: 19) { out in
            var buffer: UInt32 = 0
            var bits = 0
            var written = 0
            var characters = 0
            for byte in bytes {
                buffer = (buffer << 8) | UInt32(byte)
                bits += 8
                while bits >= 5 {
                    bits -= 5
                    if characters > 0 && characters % 4 == 0 {
                        out[written] = UInt8(ascii: "-")
                        written += 1
                    }
                    out[written] = alphabetBytes[Int((buffer >> UInt32(bits)) & 31)]
                    written += 1
                    characters += 1
                }
                buffer &= (1 << UInt32(bits)) - 1
            }
            return written
        }
    }

    /// The reference code of the transaction whose id (the hex SHA-256 of its content) is
    /// `transactionID`; nil when that is not 64 hex digits.
    package static func make(transactionID: String) -> String? {
        guard transactionID.utf8.count == 64, let hash = bytesFromHex(transactionID) else { return nil }
        return make(contentHash: hash)
    }

    /// Whether `text` has the shape of a reference code.
    package static func isWellFormed(_ text: String) -> Bool {
        // ASCII, byte by byte; any other text by characters, as compared by Swift (a Kelvin sign
        // is canonically equivalent to K).
        let utf8 = text.utf8
        if utf8.allSatisfy({ $0 < 0x80 }) {
            guard utf8.count == 19 else { return false }
            for (offset, byte) in utf8.enumerated() {
                let ok = offset % 5 == 4 ? byte == UInt8(ascii: "-") : inAlphabet[Int(byte)]
                guard ok else { return false }
            }
            return true
        }
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        return groups.count == 4 && groups.allSatisfy { $0.count == 4 && $0.allSatisfy { alphabet.contains($0) } }
    }
}

/// A Merkle tree over proof hashes (RFC 6962 §2.1 shape: leaves `SHA-256(0x00 ‖ h)`, nodes
/// `SHA-256(0x01 ‖ left ‖ right)`, an odd last node promoted), so a run manifest commits to
/// every proof with one hash and a removed or altered proof is detectable.
package enum MerkleTree {
    package static func root(leaves: [[UInt8]]) -> [UInt8] {
        guard !leaves.isEmpty else { return HashFunction.sha256.hash([UInt8]()) }
        // One scratch buffer for what each hash covers: no array made per leaf or node.
        var scratch: [UInt8] = []
        scratch.reserveCapacity(65)
        var level = leaves.map { leaf in
            scratch.removeAll(keepingCapacity: true)
            scratch.append(0x00)
            scratch.append(contentsOf: leaf)
            return HashFunction.sha256.hash(scratch)
        }
        while level.count > 1 {
            var next: [[UInt8]] = []
            next.reserveCapacity((level.count + 1) / 2)
            var i = 0
            while i < level.count {
                if i + 1 < level.count {
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(0x01)
                    scratch.append(contentsOf: level[i])
                    scratch.append(contentsOf: level[i + 1])
                    next.append(HashFunction.sha256.hash(scratch))
                } else {
                    next.append(level[i])
                }
                i += 2
            }
            level = next
        }
        return level[0]
    }
}
