import MdocCrypto
import MdocTestSupport
import XCTest

/// The Annex D PKI (D.5.2 IACA → DS, D.5.4 reader root → reader certificate).
final class AnnexDCertificateTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        guard let bytes = Hex.decode(text) else {
            XCTFail("bad hex in test")
            return []
        }
        return bytes
    }

    private func ds() throws -> Certificate { try Certificate(der: AnnexD.dsCertificateDER()) }
    private func iaca() throws -> Certificate { try Certificate(der: AnnexD.iacaCertificateDER()) }

    private func failureOf(_ result: Result<[Certificate], PathValidationFailure>) -> PathValidationFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    func testDSCertificateFields() throws {
        let ds = try ds()
        XCTAssertEqual(ds.subject.countryName, "US")
        XCTAssertEqual(ds.subject.commonName, "utopia ds")
        XCTAssertNil(ds.subject.organizationName)
        XCTAssertEqual(ds.subject.rfc2253, "C=US,CN=utopia ds")
        XCTAssertEqual(ds.subject.attributes.map(\.shortName), ["CN", "C"])
        XCTAssertEqual(ds.issuer.commonName, "utopia iaca")
        XCTAssertEqual(ds.serialNumberHex, "3c4416eed784f3b413e48f56f075abfa6d87eb84")
        XCTAssertEqual(ds.notBefore, Date(timeIntervalSince1970: 1_601_510_400))  // 2020-10-01T00:00:00Z
        XCTAssertEqual(ds.notAfter, Date(timeIntervalSince1970: 1_633_046_400))  // 2021-10-01T00:00:00Z
        XCTAssertEqual(ds.extendedKeyUsage, ["1.0.18013.5.1.2"])
        XCTAssertTrue(ds.extendedKeyUsageCritical)
        XCTAssertEqual(ds.keyUsage, [.digitalSignature])
        XCTAssertTrue(ds.keyUsageCritical)
        XCTAssertNil(ds.basicConstraints)
        XCTAssertEqual(ds.subjectKeyIdentifier, hex("14e29017a6c35621ffc7a686b7b72db06cd12351"))
        XCTAssertEqual(ds.authorityKeyIdentifier, hex("54fa2383a04c28e0d930792261c80c4881d2c00b"))
        XCTAssertEqual(ds.signatureAlgorithm, "ecdsa-with-SHA256")
        XCTAssertEqual(ds.signatureAlgorithmOID, "1.2.840.10045.4.3.2")
        XCTAssertEqual(ds.issuerAlternativeNames, ["email:example@example.com"])
        XCTAssertEqual(ds.crlDistributionPointNames, ["DNS:example.com"])
        XCTAssertEqual(ds.crlDistributionPointURIs, [])
        XCTAssertEqual(
            ds.extensions,
            [
                X509Extension(oid: "2.5.29.18", critical: false), X509Extension(oid: "2.5.29.31", critical: false),
                X509Extension(oid: "2.5.29.14", critical: false), X509Extension(oid: "2.5.29.35", critical: false),
                X509Extension(oid: "2.5.29.15", critical: true), X509Extension(oid: "2.5.29.37", critical: true),
            ])
        XCTAssertEqual(ds.publicKey.curve, .p256)
        XCTAssertEqual(
            ds.publicKey.sec1UncompressedPoint,
            hex(
                "04ace7ab7340e5d9648c5a72a9a6f56745c7aad436a03a43efea77b5fa7b88f0197d57d8983e1b37d3a539f4d588365e38cbbf5b94d68c547b5bc8731dcd2f146b"
            ))
        XCTAssertFalse(ds.isSelfIssued)
        XCTAssertEqual(ds.der, try AnnexD.dsCertificateDER())
        XCTAssertEqual(ds.sha256Fingerprint, HashFunction.sha256.hash(try AnnexD.dsCertificateDER()))
        XCTAssertEqual(ds.fingerprintHex, hexString(ds.sha256Fingerprint))
    }

    func testIACACertificateFields() throws {
        let iaca = try iaca()
        let ds = try ds()
        XCTAssertEqual(iaca.basicConstraints, BasicConstraints(isCA: true, pathLength: 0, critical: true))
        XCTAssertEqual(iaca.keyUsage, [.keyCertSign, .cRLSign])
        XCTAssertTrue(iaca.keyUsageCritical)
        XCTAssertNil(iaca.extendedKeyUsage)
        XCTAssertFalse(iaca.extendedKeyUsageCritical)
        XCTAssertEqual(iaca.subjectKeyIdentifier, ds.authorityKeyIdentifier)
        XCTAssertEqual(iaca.subject, ds.issuer)
        XCTAssertEqual(iaca.subject.countryName, ds.subject.countryName)
        XCTAssertTrue(iaca.isSelfIssued)
        XCTAssertTrue(iaca.isSigned(by: iaca))
        XCTAssertEqual(iaca.notAfter, Date(timeIntervalSince1970: 1_885_334_400))  // 2029-09-29T00:00:00Z
    }

    func testSignatureRelations() throws {
        let iaca = try iaca()
        let ds = try ds()
        XCTAssertTrue(ds.isSigned(by: iaca))
        XCTAssertFalse(ds.isSigned(by: ds))
        XCTAssertFalse(iaca.isSigned(by: ds))
        let reader = try Certificate(der: AnnexD.readerCertificateDER())
        XCTAssertFalse(ds.isSigned(by: reader))
    }

    func testPathValidationAtReferenceTime() throws {
        let iaca = try iaca()
        let ds = try ds()
        let result = PathValidator.validate(leaf: ds, intermediates: [], roots: [iaca], at: AnnexD.referenceTime)
        XCTAssertEqual(try result.get(), [ds, iaca])
    }

    func testPathValidationNowFailsAsExpired() throws {
        let result = PathValidator.validate(leaf: try ds(), intermediates: [], roots: [try iaca()], at: Date())
        let failure = failureOf(result)
        XCTAssertEqual(failure?.code, 10)  // X509_V_ERR_CERT_HAS_EXPIRED
        XCTAssertEqual(failure?.depth, 0)
        XCTAssertEqual(failure?.reason, "certificate has expired")
    }

    func testPathValidationWithoutTime() throws {
        let result = PathValidator.validate(leaf: try ds(), intermediates: [], roots: [try iaca()], at: nil)
        XCTAssertEqual(try result.get().count, 2)
    }

    func testPathValidationBeforeValidity() throws {
        let before = Date(timeIntervalSince1970: 1_601_510_400 - 1)
        let failure = failureOf(
            PathValidator.validate(leaf: try ds(), intermediates: [], roots: [try iaca()], at: before))
        XCTAssertEqual(failure?.code, 9)  // X509_V_ERR_CERT_NOT_YET_VALID
    }

    func testPathValidationWithoutTheRootFails() throws {
        let ds = try ds()
        let reader = try Certificate(der: AnnexD.readerRootCertificateDER())
        let failure = failureOf(
            PathValidator.validate(leaf: ds, intermediates: [], roots: [reader], at: AnnexD.referenceTime))
        XCTAssertEqual(failure?.code, 20)  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
        // Given only as an untrusted intermediate, the IACA is no anchor.
        let untrusted = failureOf(
            PathValidator.validate(leaf: ds, intermediates: [try iaca()], roots: [], at: AnnexD.referenceTime))
        XCTAssertEqual(untrusted?.code, 19)  // X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN
    }

    func testReaderCertificateChainsToReaderRoot() throws {
        let reader = try Certificate(der: AnnexD.readerCertificateDER())
        let root = try Certificate(der: AnnexD.readerRootCertificateDER())
        XCTAssertEqual(reader.extendedKeyUsage, ["1.0.18013.5.1.6"])
        XCTAssertTrue(reader.isSigned(by: root))
        XCTAssertEqual(reader.authorityKeyIdentifier, root.subjectKeyIdentifier)
        XCTAssertEqual(
            try PathValidator.validate(leaf: reader, intermediates: [], roots: [root], at: AnnexD.referenceTime).get(),
            [reader, root])
        XCTAssertNotNil(
            failureOf(
                PathValidator.validate(leaf: reader, intermediates: [], roots: [try iaca()], at: AnnexD.referenceTime)))
    }

    func testPEMParsing() throws {
        let fromPEM = try Certificate.parseAll(pemOrDER: AnnexD.iacaCertificatePEM())
        XCTAssertEqual(fromPEM, [try iaca()])
        let fromDER = try Certificate.parseAll(pemOrDER: AnnexD.dsCertificateDER())
        XCTAssertEqual(fromDER, [try ds()])

        let both = try AnnexD.iacaCertificatePEM() + Array("\n".utf8) + AnnexD.file("ds_cert.pem")
        let parsed = try Certificate.parseAll(pemOrDER: both)
        XCTAssertEqual(parsed, [try iaca(), try ds()])

        // `pem` round trip.
        let ds = try ds()
        XCTAssertTrue(ds.pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        XCTAssertEqual(try Certificate.parseAll(pemOrDER: Array(ds.pem.utf8)), [ds])
    }

    func testPEMErrors() throws {
        func assertPEMError(_ text: String, line: UInt = #line) {
            XCTAssertThrowsError(try Certificate.parseAll(pemOrDER: Array(text.utf8)), line: line) {
                XCTAssertEqual(($0 as? CryptoError)?.code, .invalidPEM, "\($0)", line: line)
            }
        }
        assertPEMError("")
        assertPEMError("hello")
        assertPEMError("-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n")
        assertPEMError("-----BEGIN CERTIFICATE-----\nMIIB\n")  // no END line
        // A well-formed block of another kind is not a certificate.
        assertPEMError("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n")
        // A CERTIFICATE block whose body is not a certificate.
        XCTAssertThrowsError(
            try Certificate.parseAll(
                pemOrDER: Array("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".utf8))
        ) { XCTAssertEqual(($0 as? CryptoError)?.code, .invalidCertificate) }
    }

    func testPEMBlockLimit() throws {
        let pem = try iaca().pem
        let atLimit = String(repeating: pem, count: 1024)
        XCTAssertEqual(try Certificate.parseAll(pemOrDER: Array(atLimit.utf8)).count, 1024)
        let overLimit = atLimit + pem
        XCTAssertThrowsError(try Certificate.parseAll(pemOrDER: Array(overLimit.utf8))) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidPEM)
        }
    }

    func testEveryStrictPrefixOfTheDSCertificateThrows() throws {
        let der = try AnnexD.dsCertificateDER()
        for length in 0..<der.count {
            XCTAssertThrowsError(try Certificate(der: der.prefix(length)), "prefix \(length)") {
                XCTAssertEqual(($0 as? CryptoError)?.code, .invalidCertificate, "prefix \(length)")
            }
        }
        XCTAssertThrowsError(try Certificate(der: der + [0x00])) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidCertificate)
        }
        XCTAssertNoThrow(try Certificate(der: der[...]))
    }

    func testCorruptedSignedBytesNeverVerify() throws {
        // Flip a bit in every third byte of tbsCertificate: the result either fails to parse or
        // parses and no longer verifies under the IACA key. Nothing may trap.
        let der = try AnnexD.dsCertificateDER()
        XCTAssertEqual(Array(der.prefix(2)), [0x30, 0x82])
        XCTAssertEqual(Array(der[4..<6]), [0x30, 0x82])
        let tbsEnd = 8 + Int(der[6]) << 8 + Int(der[7])
        let iaca = try iaca()
        var parsedCount = 0
        for index in Swift.stride(from: 8, to: tbsEnd, by: 3) {
            var corrupted = der
            corrupted[index] ^= 0x04
            let certificate: Certificate
            do { certificate = try Certificate(der: corrupted) } catch { continue }
            parsedCount += 1
            XCTAssertFalse(certificate.isSigned(by: iaca), "bit flip at \(index) still verifies")
        }
        XCTAssertGreaterThan(parsedCount, 0)
    }
}
