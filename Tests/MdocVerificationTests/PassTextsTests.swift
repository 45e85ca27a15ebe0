import MdocChecks
import MdocCOSE
import MdocCrypto
@testable import MdocVerification
import XCTest

/// The details and evidence built once (PassTexts) are the ones each verification built before.
final class PassTextsTests: XCTestCase {
    func testTablesHoldTheTextsBuiltPerResponse() {
        let algorithms: [COSEAlgorithm] = PassTexts.signatureAlgorithms + [.hmac256, COSEAlgorithm(rawValue: -999)]
        for algorithm in algorithms {
            XCTAssertEqual(PassTexts.evidence(algorithm), [Evidence("alg", algorithm.description)])
            for curve in Curve.all {
                let pair = PassTexts.algorithmPair(algorithm, curve)
                if algorithm.isSupportedSignature && algorithm.allows(curve) {
                    XCTAssertEqual(pair?.detail, "\(algorithm.description) with \(curve.description)")
                    XCTAssertEqual(pair?.evidence, [Evidence("alg", algorithm.description), Evidence("curve", curve.description)])
                } else {
                    XCTAssertNil(pair, "\(algorithm) \(curve)")
                }
            }
        }
        for curve in Curve.all { XCTAssertEqual(PassTexts.deviceKeyText(curve), "\(curve.description) device key") }
        for count in [0, 1, 2, 12, 63, 64, 65, 1000] {
            XCTAssertEqual(PassTexts.documentCount(count), "\(count) document(s)")
            XCTAssertEqual(PassTexts.digestIDCount(count), "all \(count) digest ids present")
            for hash in HashFunction.allCases {
                let texts = PassTexts.allDigestsMatch(hash, count)
                XCTAssertEqual(texts.detail, "\(count) of \(count) \(hash.rawValue) digests match")
                XCTAssertEqual(texts.evidence, [Evidence("algorithm", hash.rawValue), Evidence("count", String(count))])
            }
        }
    }
}
