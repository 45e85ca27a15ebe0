import MdocCrypto
import MdocSamples
import XCTest

/// The generator's randomness: seeded streams and seeded keys.
final class SampleRandomTests: XCTestCase {
    /// Keys derived from the seed: the same label gives the same key, another label or seed another.
    func testSeededKeys() throws {
        for curve in SampleGenerator.supportedCurves {
            let a = try SampleKeys.derive(curve: curve, seed: 1, label: "k")
            let b = try SampleKeys.derive(curve: curve, seed: 1, label: "k")
            let c = try SampleKeys.derive(curve: curve, seed: 1, label: "l")
            let d = try SampleKeys.derive(curve: curve, seed: 2, label: "k")
            XCTAssertEqual(a.curve, curve)
            XCTAssertTrue(a.publicKey.isSameKey(as: b.publicKey), "\(curve)")
            XCTAssertFalse(a.publicKey.isSameKey(as: c.publicKey), "\(curve)")
            XCTAssertFalse(a.publicKey.isSameKey(as: d.publicKey), "\(curve)")
        }
    }

    func testSeededRandom() {
        var a = SampleRandom(seed: 9, label: "x")
        var b = SampleRandom(seed: 9, label: "x")
        var c = SampleRandom(seed: 9, label: "y")
        let first = (0..<16).map { _ in a.next() }
        XCTAssertEqual(first, (0..<16).map { _ in b.next() })
        XCTAssertNotEqual(first, (0..<16).map { _ in c.next() })
        var seen = Set<Int>()
        for _ in 0..<500 {
            let value = a.below(7)
            XCTAssertTrue((0..<7).contains(value))
            seen.insert(value)
        }
        XCTAssertEqual(seen.count, 7)
        XCTAssertEqual(a.below(1), 0)
        XCTAssertEqual(a.below(0), 0)
        for _ in 0..<100 { XCTAssertTrue((-3...3).contains(a.int(in: -3...3))) }
        XCTAssertEqual(a.shuffled(Array(0..<50)).sorted(), Array(0..<50))
    }
}
