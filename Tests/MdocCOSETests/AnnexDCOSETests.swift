import MdocCOSE
import MdocCrypto
import MdocTestSupport
import XCTest

/// ISO/IEC 18013-5 Annex D: the COSE structures of the worked example (vectors: PROVENANCE.md).
final class AnnexDCOSETests: XCTestCase {
    /// D.5.2: the Sig_structure rebuilt from the received issuerAuth equals the vector.
    func testAnnexD_5_2_issuerAuthSigStructure() throws {
        let sign1 = try COSESign1(decoding: try AnnexD.issuerAuth())
        XCTAssertEqual(try sign1.signatureStructure(), try AnnexD.issuerAuthSigStructure())
        XCTAssertEqual(sign1.headers.algorithm, .es256)
        let chain = try XCTUnwrap(try sign1.headers.x5chain())
        XCTAssertEqual(chain.bucket, .unprotected)
        XCTAssertEqual(chain.certificates.count, 1, "Annex D carries x5chain as one bare bstr")
        XCTAssertEqual(Array(chain.certificates[0]), try AnnexD.dsCertificateDER())
        let ds = try Certificate(der: try AnnexD.dsCertificateDER())
        XCTAssertTrue(try sign1.verify(with: ds.publicKey))
    }
}
