package import MdocCrypto

/// Human-friendly reference codes derived from a transaction's content hash.
///
/// Crockford base32 (no I, L, O, U: nothing to misread aloud) of the first 80 bits of the hash,
/// in four groups of four: `7K3Q-9XZD-M2F4-HB8T`. Deterministic: the same content always gets
/// the same code; 80 bits make collisions within a store vanishingly unlikely (the store also
/// enforces uniqueness).
package enum ReferenceCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    package static func make(contentHash: [UInt8]) -> String {
        let bytes = Array(contentHash.prefix(10)) + [UInt8](repeating: 0, count: max(0, 10 - contentHash.count))
        var characters: [Character] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                characters.append(alphabet[Int((buffer >> UInt32(bits)) & 31)])
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        var groups: [String] = []
        var index = 0
        while index < characters.count {
            groups.append(String(characters[index..<min(index + 4, characters.count)]))
            index += 4
        }
        return groups.joined(separator: "-")
    }

    /// The reference code of the transaction whose id (the hex SHA-256 of its content) is
    /// `transactionID`; nil when that is not 64 hex digits.
    package static func make(transactionID: String) -> String? {
        guard transactionID.utf8.count == 64, let hash = bytesFromHex(transactionID) else { return nil }
        return make(contentHash: hash)
    }

    /// Whether `text` has the shape of a reference code.
    package static func isWellFormed(_ text: String) -> Bool {
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
        var level = leaves.map { HashFunction.sha256.hash([0x00] + $0) }
        while level.count > 1 {
            var next: [[UInt8]] = []
            next.reserveCapacity((level.count + 1) / 2)
            var i = 0
            while i < level.count {
                if i + 1 < level.count {
                    next.append(HashFunction.sha256.hash([0x01] + level[i] + level[i + 1]))
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
