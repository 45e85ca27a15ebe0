import MdocCrypto
@testable import MdocProof
import XCTest

/// Reference codes and the Merkle root are written byte by byte: they must be those of the
/// straightforward forms below (characters and arrays, the former implementations).
final class ReferenceCodeTests: XCTestCase {
    func testACodeIsTheBase32OfTheFirstEightyBitsInFourGroups() {
        var hashes: [[UInt8]] = [[], [0xff], Array(repeating: 0, count: 10), Array(repeating: 0xff, count: 32)]
        for n in 0..<200 { hashes.append(HashFunction.sha256.hash(Array("transaction \(n)".utf8))) }
        for n in 1..<10 { hashes.append(Array(HashFunction.sha256.hash([UInt8(n)]).prefix(n))) }
        for hash in hashes {
            let code = ReferenceCode.make(contentHash: hash)
            XCTAssertEqual(code, Self.reference(hash))
            XCTAssertTrue(ReferenceCode.isWellFormed(code), code)
        }
        XCTAssertEqual(ReferenceCode.make(contentHash: []), "0000-0000-0000-0000")
        XCTAssertEqual(ReferenceCode.make(contentHash: Array(repeating: 0xff, count: 10)), "ZZZZ-ZZZZ-ZZZZ-ZZZZ")
    }

    func testTheShapeOfACode() {
        for good in ["7K3Q-9XZD-M2F4-HB8T", "0000-0000-0000-0000", "ZZZZ-ZZZZ-ZZZZ-ZZZZ"] {
            XCTAssertTrue(ReferenceCode.isWellFormed(good), good)
        }
        for bad in [
            "", "7K3Q-9XZD-M2F4-HB8", "7K3Q-9XZD-M2F4-HB8TT", "7K3Q9XZD-M2F4-HB8T-", "7k3q-9xzd-m2f4-hb8t", "7K3Q-9XZD-M2F4-HB8I",
            "7K3Q-9XZD-M2F4-HB8L", "7K3Q-9XZD-M2F4-HB8O", "7K3Q-9XZD-M2F4-HB8U", "7K3Q_9XZD-M2F4-HB8T", "7K3Q-9XZD-M2F4-HB8\u{7f}",
            "7K3Q-9XZD-M2F4-HB8É", "7K3Q-9XZD-M2F4-HB8\u{0}", "-7K3Q-9XZD-M2F4-HB8", "7K3Q--9XZD-M2F4-HB8",
        ] {
            XCTAssertFalse(ReferenceCode.isWellFormed(bad), bad)
        }
        // Beyond ASCII, characters compare as Swift compares them: the Kelvin sign is a K.
        XCTAssertTrue(ReferenceCode.isWellFormed("7\u{212A}3Q-9XZD-M2F4-HB8T"))
        XCTAssertFalse(ReferenceCode.isWellFormed("7K3Q-9XZD-M2F4-HB8T\u{301}"))
    }

    func testTheMerkleRootIsTheTreeOfRFC6962sShape() {
        for count in [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 100] {
            let leaves = (0..<count).map { HashFunction.sha256.hash([UInt8(truncatingIfNeeded: $0)]) }
            XCTAssertEqual(MerkleTree.root(leaves: leaves), Self.root(leaves), "\(count) leaves")
        }
    }

    static func reference(_ contentHash: [UInt8]) -> String {
        let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
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
        return stride(from: 0, to: characters.count, by: 4).map { String(characters[$0..<min($0 + 4, characters.count)]) }
            .joined(separator: "-")
    }

    static func root(_ leaves: [[UInt8]]) -> [UInt8] {
        guard !leaves.isEmpty else { return HashFunction.sha256.hash([UInt8]()) }
        var level = leaves.map { HashFunction.sha256.hash([0x00] + $0) }
        while level.count > 1 {
            level = stride(from: 0, to: level.count, by: 2).map { i in
                i + 1 < level.count ? HashFunction.sha256.hash([0x01] + level[i] + level[i + 1]) : level[i]
            }
        }
        return level[0]
    }
}
