import MdocCOSE
import MdocCrypto
import XCTest

/// `COSEAlgorithm.allows(_:)` answers `allowedCurves.contains(_:)` without building the array.
final class COSEAlgorithmCurveTests: XCTestCase {
    func testAllowsMatchesAllowedCurves() {
        let curves: [Curve] = [.p256, .p384, .p521, .brainpoolP256r1, .brainpoolP320r1, .brainpoolP384r1, .brainpoolP512r1, .ed25519, .ed448, .x25519, .x448]
        var algorithms: [COSEAlgorithm] = [.es256, .es384, .es512, .edDSA, .esp256, .esp384, .esp512, .ed25519, .ed448, .hmac256, .hmac384, .hmac512]
        algorithms += (-300...300).map { COSEAlgorithm(rawValue: $0) }
        for algorithm in algorithms {
            for curve in curves {
                XCTAssertEqual(algorithm.allows(curve), algorithm.allowedCurves.contains(curve), "\(algorithm) \(curve)")
            }
        }
        XCTAssertTrue(COSEAlgorithm.es256.allows(.p256))
        XCTAssertFalse(COSEAlgorithm.es256.allows(.p384))
    }
}
