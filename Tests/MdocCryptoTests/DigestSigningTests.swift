@testable import MdocCrypto
import XCTest

/// Hashing from pieces and ECDSA over a digest computed beforehand: how a COSE Sig_structure is
/// signed without being built.
final class DigestSigningTests: XCTestCase {
    private static let ecdsaCurves: [(Curve, HashFunction)] = [
        (.p256, .sha256), (.p384, .sha384), (.p521, .sha512), (.brainpoolP256r1, .sha256), (.brainpoolP384r1, .sha384),
    ]

    func testDigestOfPartsIsTheDigestOfTheirConcatenation() {
        let bytes = (0..<1_000).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        // Splits across SHA-256's and SHA-512's block boundaries, with empty parts among them.
        let splits: [[Int]] = [[], [0], [1_000], [0, 0, 1_000], [63, 64, 65], [127, 128, 500, 999], [1, 2, 3, 4, 5, 900]]
        for hash in HashFunction.allCases {
            for split in splits {
                var parts: [ArraySlice<UInt8>] = []
                var start = 0
                for end in split + [bytes.count] {
                    parts.append(bytes[start..<max(start, end)])
                    start = max(start, end)
                }
                let digest = withPointers(parts) { hash.digest(parts: $0) }
                XCTAssertEqual(digest.bytes, hash.hash(bytes), "\(hash) \(split)")
            }
            XCTAssertEqual(hash.digest(parts: []).bytes, hash.hash([UInt8]()), "\(hash) of nothing")
            XCTAssertNotEqual(
                withPointers([bytes[..<500], bytes[501...]]) { hash.digest(parts: $0) }.bytes, hash.hash(bytes), "\(hash): a byte left out")
        }
    }

    func testASignatureOverADigestVerifiesOverItsMessage() throws {
        let message = Array("[\"Signature1\", h'a10126', h'', payload]".utf8)
        for (curve, hash) in Self.ecdsaCurves {
            // A generated key (an OpenSSL key pair) and one read from its scalar (kept as d).
            let generated = try PrivateKey.generate(curve: curve)
            let fromScalar = try PrivateKey(curve: curve, rawPrivate: try generated.rawPrivateBytes().bytes)
            for key in [generated, fromScalar] {
                let digest = hash.digest(message[...])
                let first = try key.sign(digest: digest)
                let second = try key.sign(digest: digest)
                XCTAssertEqual(first.count, curve.signatureByteCount, "\(curve)")
                XCTAssertNotEqual(first, second, "\(curve): each signature takes a fresh nonce")
                for signature in [first, second] {
                    XCTAssertTrue(try key.publicKey.verify(signature: signature, message: message, hash: hash), "\(curve)")
                    XCTAssertFalse(try key.publicKey.verify(signature: signature, message: message + [0], hash: hash), "\(curve)")
                }
                // A signature over the message verifies the same way.
                XCTAssertTrue(try key.publicKey.verify(signature: try key.sign(message: message, hash: hash), message: message, hash: hash))
            }
        }
    }

    func testKeysThatDoNotSignWithECDSARefuseADigest() throws {
        let digest = HashFunction.sha256.digest([1, 2, 3][...])
        for curve in [Curve.ed25519, .x25519] {
            XCTAssertThrowsError(try PrivateKey.generate(curve: curve).sign(digest: digest)) {
                XCTAssertEqual(($0 as? CryptoError)?.code, .unsupportedAlgorithm, "\(curve)")
            }
        }
    }

    func testOneKeySignsDigestsConcurrently() async throws {
        let key = try PrivateKey(curve: .p256, rawPrivate: try PrivateKey.generate(curve: .p256).rawPrivateBytes().bytes)
        let publicKey = key.publicKey
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<64 {
                group.addTask {
                    let message = Array("message \(index)".utf8)
                    let signature = try key.sign(digest: HashFunction.sha256.digest(message[...]))
                    return try publicKey.verify(signature: signature, message: message, hash: .sha256)
                }
            }
            for try await verified in group { XCTAssertTrue(verified) }
        }
    }

    private func withPointers<R>(_ parts: [ArraySlice<UInt8>], _ body: ([UnsafeRawBufferPointer]) -> R) -> R {
        guard let first = parts.first else { return body([]) }
        return first.withUnsafeBytes { head in
            withPointers(Array(parts.dropFirst())) { rest in body([head] + rest) }
        }
    }
}
