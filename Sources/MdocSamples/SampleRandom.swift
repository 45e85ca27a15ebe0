import MdocCrypto

/// Deterministic pseudo-random numbers for the sample generator: SHA-256 in counter mode over
/// `domain ‖ seed ‖ label ‖ counter`.
///
/// Each transaction draws from its own labelled stream (`tx/17`), so what one transaction gets does
/// not depend on how many numbers another one used. Everything here is reproducible across runs,
/// machines and Swift versions (no standard-library shuffles or `random(in:)`, whose algorithms
/// are not specified). Not for secrets: sample keys come from ``SampleKeys`` (HKDF).
package struct SampleRandom: RandomNumberGenerator, Sendable {
    private let prefix: [UInt8]
    private var counter: UInt64 = 0
    private var block: [UInt8] = []
    private var position = 0

    static let domain = Array("mdocverify-samples/random/v1".utf8)

    package init(seed: UInt64, label: String) {
        let labelBytes = Array(label.utf8)
        prefix = Self.domain + bigEndian(seed) + bigEndian(UInt64(labelBytes.count)) + labelBytes
    }

    /// The next 64 bits.
    package mutating func next() -> UInt64 {
        var value: UInt64 = 0
        for byte in bytes(8) { value = value << 8 | UInt64(byte) }
        return value
    }

    /// The next `count` bytes.
    package mutating func bytes(_ count: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(max(0, count))
        while out.count < count {
            if position >= block.count {
                block = HashFunction.sha256.hash(prefix + bigEndian(counter))
                counter &+= 1
                position = 0
            }
            let take = min(count - out.count, block.count - position)
            out += block[position..<(position + take)]
            position += take
        }
        return out
    }

    /// A uniform integer in `0..<bound` (rejection sampling, no modulo bias); 0 when `bound` ≤ 1.
    package mutating func below(_ bound: Int) -> Int {
        guard bound > 1 else { return 0 }
        let limit = UInt64(bound)
        let threshold = (0 &- limit) % limit  // 2^64 mod bound
        while true {
            let value = next()
            if value >= threshold { return Int(value % limit) }
        }
    }

    /// A uniform integer in `range`.
    package mutating func int(in range: ClosedRange<Int>) -> Int {
        let (width, overflow) = range.upperBound.subtractingReportingOverflow(range.lowerBound)
        guard !overflow, width < Int.max else { return range.lowerBound }
        return range.lowerBound + below(width + 1)
    }

    /// A uniform number in `0 ..< 1` with 53 bits of precision.
    package mutating func unit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// `true` with probability `p`.
    package mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// One element of a non-empty array (the first of an empty one is not defined: returns nil).
    package mutating func pick<T>(_ list: [T]) -> T? {
        list.isEmpty ? nil : list[below(list.count)]
    }

    /// A Fisher–Yates shuffle of `list`.
    package mutating func shuffled<T>(_ list: [T]) -> [T] {
        var items = list
        var i = items.count - 1
        while i > 0 {
            let j = below(i + 1)
            items.swapAt(i, j)
            i -= 1
        }
        return items
    }
}

/// Private keys derived from the sample seed: HKDF-SHA-256 (RFC 5869) with the seed as input key
/// material and the key's label as info, giving the raw private value of
/// ``PrivateKey/init(curve:rawPrivate:)``. An EC scalar out of range (0 or ≥ n, likely on the
/// brainpool curves) is derived again with the attempt number appended to the info.
///
/// The same seed and label always give the same key. The signatures made with these keys are
/// still randomized: OpenSSL 3.0 has no deterministic-nonce ECDSA (RFC 6979), so certificates,
/// MSO signatures and deviceSignature differ from run to run (EdDSA signatures do not).
package enum SampleKeys {
    /// Attempts before giving up on a curve (each succeeds with probability at least 1/2).
    package static let maxAttempts = 64
    static let salt = Array("mdocverify-samples/keys/v1".utf8)

    package static func derive(curve: Curve, seed: UInt64, label: String) throws(SampleError) -> PrivateKey {
        let seedMaterial = SecureBytes(bigEndian(seed))
        for attempt in 0..<maxAttempts {
            var raw: [UInt8]
            do {
                raw = try HKDF.deriveKey(
                    hash: .sha256, inputKeyMaterial: seedMaterial, salt: salt,
                    info: Array(label.utf8) + [UInt8(truncatingIfNeeded: attempt)], outputByteCount: curve.coordinateByteCount
                ).bytes
            } catch {
                throw SampleError(.cryptoFailed, "cannot derive the \(label) key: \(error)")
            }
            // P-521's order is just under 2^521: keep the 521 bits, or nearly every draw is out of range.
            if curve == .p521, !raw.isEmpty { raw[0] &= 0x01 }
            defer { for i in raw.indices { raw[i] = 0 } }
            do {
                return try PrivateKey(curve: curve, rawPrivate: raw)
            } catch let error as CryptoError where error.code == .invalidKey {
                continue  // scalar 0 or ≥ n: derive again
            } catch {
                throw SampleError(.cryptoFailed, "cannot make the \(curve) key \(label): \(error)")
            }
        }
        throw SampleError(.cryptoFailed, "no valid \(curve) key for \(label) after \(maxAttempts) attempts")
    }
}

func bigEndian(_ value: UInt64) -> [UInt8] {
    (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
}
