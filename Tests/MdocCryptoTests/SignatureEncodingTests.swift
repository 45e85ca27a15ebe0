import COpenSSL
@testable import MdocCrypto
import XCTest

/// The DER ECDSA-Sig-Value that verification hands OpenSSL is written without bignums
/// (`PublicKey.derSignature`); here it is compared byte for byte with OpenSSL's own encoding
/// (`BN_bin2bn`, `ECDSA_SIG_set0`, `i2d_ECDSA_SIG`) on every supported length, with the halves
/// that change the encoding: leading zero bytes, the top bit set, zero, all ones.
final class SignatureEncodingTests: XCTestCase {
    /// OpenSSL's DER for big-endian r and s.
    private func opensslDER(r: [UInt8], s: [UInt8]) throws -> [UInt8] {
        let rNumber = try XCTUnwrap(r.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        let sNumber = try XCTUnwrap(s.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) })
        let signature = try XCTUnwrap(ECDSA_SIG_new())
        defer { ECDSA_SIG_free(signature) }
        XCTAssertEqual(ECDSA_SIG_set0(signature, rNumber, sNumber), 1)
        let length = Int(i2d_ECDSA_SIG(signature, nil))
        var out = [UInt8](repeating: 0, count: max(length, 0))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        XCTAssertEqual(Int(written), length)
        return out
    }

    private func ours(r: [UInt8], s: [UInt8], capacity: Int = PublicKey.maximumDERSignatureByteCount) -> [UInt8]? {
        var out = [UInt8](repeating: 0xEE, count: capacity)
        let length = r.withUnsafeBufferPointer { rBuffer in
            s.withUnsafeBufferPointer { sBuffer in
                out.withUnsafeMutableBufferPointer { outBuffer -> Int? in
                    guard let rBase = rBuffer.baseAddress, let sBase = sBuffer.baseAddress, let outBase = outBuffer.baseAddress
                    else { return nil }
                    return PublicKey.derSignature(r: rBase, s: sBase, halfLength: r.count, into: outBase, capacity: capacity)
                }
            }
        }
        return length.map { Array(out.prefix($0)) }
    }

    /// A half of `length` bytes: `zeros` leading zero bytes, then a byte with or without its
    /// top bit, then random bytes (or all zeros / all ones).
    private func half(length: Int, zeros: Int, topBit: Bool, fill: UInt8?, generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        var bytes = (0..<length).map { _ in fill ?? UInt8.random(in: 0...255, using: &generator) }
        for index in 0..<min(zeros, length) { bytes[index] = 0 }
        if zeros < length, fill == nil {
            bytes[zeros] = topBit ? bytes[zeros] | 0x80 : max(1, bytes[zeros] & 0x7F)
        }
        return bytes
    }

    func testDERSignatureMatchesOpenSSLOnEveryLength() throws {
        var generator = SystemRandomNumberGenerator()
        var compared = 0
        for curve in Curve.all where curve.kind == .weierstrass {
            let length = curve.coordinateByteCount
            for zeros in [0, 1, 2, 3, length - 1, length] {
                for topBit in [false, true] {
                    for fill: UInt8? in [nil, nil, nil, 0x00, 0xFF] {
                        let r = half(length: length, zeros: zeros, topBit: topBit, fill: fill, generator: &generator)
                        let s = half(length: length, zeros: (zeros + 1) % (length + 1), topBit: !topBit, fill: nil, generator: &generator)
                        for (first, second) in [(r, s), (s, r)] {
                            XCTAssertEqual(ours(r: first, s: second), try opensslDER(r: first, s: second), "\(curve) \(first) \(second)")
                            compared += 1
                        }
                    }
                }
            }
        }
        XCTAssertGreaterThan(compared, 200)
        // P-521's long form (SEQUENCE length ≥ 128) and the largest value of each length.
        let ones = [UInt8](repeating: 0xFF, count: 66)
        let longest = try XCTUnwrap(ours(r: ones, s: ones))
        XCTAssertEqual(Array(longest.prefix(3)), [0x30, 0x81, 138])
        XCTAssertEqual(longest.count, PublicKey.maximumDERSignatureByteCount - 19)
        XCTAssertEqual(longest, try opensslDER(r: ones, s: ones))
    }

    func testDERSignatureRefusesWhatDoesNotFit() {
        let ones = [UInt8](repeating: 0xFF, count: 66)
        XCTAssertNil(ours(r: ones, s: ones, capacity: 140), "needs 141 bytes")
        XCTAssertNotNil(ours(r: ones, s: ones, capacity: 141))
        let long = [UInt8](repeating: 1, count: 67)
        XCTAssertNil(ours(r: long, s: long), "longer than P-521's halves")
    }
}
