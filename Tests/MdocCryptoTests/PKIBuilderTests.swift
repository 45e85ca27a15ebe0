import MdocCrypto
import MdocTestSupport
import XCTest

/// A test PKI generated in code (ISO 18013-5 Annex B shapes: IACA → DS), built with
/// ``CertificateBuilder`` and ``CRLBuilder`` and checked with ``PathValidator``.
final class PKIBuilderTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_700_000_000)  // 2023-11-14T22:13:20Z
    private var end: Date { start.addingTimeInterval(3 * 365 * 86_400) }
    private var during: Date { start.addingTimeInterval(86_400) }
    private static let mdlDS = "1.0.18013.5.1.2"

    private struct PKI {
        let iacaKey: PrivateKey
        let iaca: Certificate
        let dsKey: PrivateKey
        let ds: Certificate
    }

    private func hashFor(_ curve: Curve) -> HashFunction? {
        switch curve {
        case .p384: .sha384
        case .p521: .sha512
        case .ed25519, .ed448: nil
        default: .sha256
        }
    }

    private func makeIACA(curve: Curve, name: String = "Test IACA", serial: [UInt8] = [0x01]) throws -> (
        PrivateKey, Certificate
    ) {
        let key = try PrivateKey.generate(curve: curve)
        var builder = CertificateBuilder(
            subject: [("C", "US"), ("O", "mdocverify tests"), ("CN", name)], serialNumber: serial, notBefore: start,
            notAfter: end, publicKey: key.publicKey)
        builder.basicConstraints = (isCA: true, pathLength: 0, critical: true)
        builder.keyUsage = ([.keyCertSign, .cRLSign], critical: true)
        builder.issuerAlternativeNameURI = "https://iaca.example/"
        builder.crlDistributionPointURI = "https://iaca.example/crl"
        return (key, try builder.sign(issuer: nil, issuerKey: key, hash: hashFor(curve)))
    }

    private func dsBuilder(curve: Curve, key: PrivateKey, serial: [UInt8] = [0x00, 0x9a, 0x01]) -> CertificateBuilder {
        var builder = CertificateBuilder(
            subject: [("C", "US"), ("CN", "Test DS")], serialNumber: serial, notBefore: start,
            notAfter: start.addingTimeInterval(457 * 86_400), publicKey: key.publicKey)
        builder.keyUsage = ([.digitalSignature], critical: true)
        builder.extendedKeyUsage = ([Self.mdlDS], critical: true)
        builder.crlDistributionPointURI = "https://iaca.example/crl"
        return builder
    }

    private func makePKI(curve: Curve) throws -> PKI {
        let (iacaKey, iaca) = try makeIACA(curve: curve)
        let dsKey = try PrivateKey.generate(curve: curve)
        let ds = try dsBuilder(curve: curve, key: dsKey).sign(issuer: iaca, issuerKey: iacaKey, hash: hashFor(curve))
        return PKI(iacaKey: iacaKey, iaca: iaca, dsKey: dsKey, ds: ds)
    }

    private func failureOf(_ result: Result<[Certificate], PathValidationFailure>) -> PathValidationFailure? {
        if case .failure(let failure) = result { return failure }
        return nil
    }

    func testIACAAndDSOnSeveralCurves() throws {
        for curve in [Curve.p256, .p384, .ed25519, .brainpoolP256r1, .ed448] {
            let pki = try makePKI(curve: curve)
            let iaca = pki.iaca
            let ds = pki.ds
            XCTAssertEqual(
                iaca.basicConstraints, BasicConstraints(isCA: true, pathLength: 0, critical: true), "\(curve)")
            XCTAssertEqual(iaca.keyUsage, [.keyCertSign, .cRLSign])
            XCTAssertTrue(iaca.keyUsageCritical)
            XCTAssertTrue(iaca.isSelfIssued)
            XCTAssertTrue(iaca.isSigned(by: iaca))
            XCTAssertEqual(iaca.subject.rfc2253, "CN=Test IACA,O=mdocverify tests,C=US")
            XCTAssertEqual(iaca.subject.organizationName, "mdocverify tests")
            XCTAssertEqual(iaca.issuerAlternativeNames, ["URI:https://iaca.example/"])
            XCTAssertEqual(iaca.crlDistributionPointURIs, ["https://iaca.example/crl"])
            XCTAssertEqual(iaca.authorityKeyIdentifier, iaca.subjectKeyIdentifier)
            XCTAssertEqual(iaca.subjectKeyIdentifier?.count, 20)
            XCTAssertEqual(iaca.notBefore, start)
            XCTAssertEqual(iaca.notAfter, end)
            XCTAssertTrue(iaca.publicKey.isSameKey(as: pki.iacaKey.publicKey))

            XCTAssertEqual(ds.extendedKeyUsage, [Self.mdlDS], "\(curve)")
            XCTAssertTrue(ds.extendedKeyUsageCritical)
            XCTAssertEqual(ds.keyUsage, [.digitalSignature])
            XCTAssertNil(ds.basicConstraints)
            XCTAssertEqual(ds.issuer, iaca.subject)
            XCTAssertEqual(ds.authorityKeyIdentifier, iaca.subjectKeyIdentifier)
            XCTAssertEqual(ds.serialNumberHex, "9a01")
            XCTAssertEqual(ds.subject.countryName, "US")
            XCTAssertTrue(ds.isSigned(by: iaca))
            XCTAssertFalse(ds.isSelfIssued)
            XCTAssertEqual(ds.publicKey.curve, curve)
            let expectedAlgorithm =
                switch curve {
                case .ed25519: "ED25519"
                case .ed448: "ED448"
                case .p384: "ecdsa-with-SHA384"
                default: "ecdsa-with-SHA256"
                }
            XCTAssertEqual(ds.signatureAlgorithm, expectedAlgorithm)

            let chain = try PathValidator.validate(leaf: ds, intermediates: [], roots: [iaca], at: during).get()
            XCTAssertEqual(chain, [ds, iaca], "\(curve)")

            // The DS key signs what the DS certificate's key verifies.
            let signature = try pki.dsKey.sign(message: [1, 2, 3], hash: hashFor(curve))
            XCTAssertTrue(try ds.publicKey.verify(signature: signature, message: [1, 2, 3], hash: hashFor(curve)))
        }
    }

    func testValidityEdges() throws {
        let pki = try makePKI(curve: .p256)
        let dsEnd = start.addingTimeInterval(457 * 86_400)
        XCTAssertNoThrow(
            try PathValidator.validate(leaf: pki.ds, intermediates: [], roots: [pki.iaca], at: start).get())
        XCTAssertNoThrow(
            try PathValidator.validate(
                leaf: pki.ds, intermediates: [], roots: [pki.iaca], at: dsEnd.addingTimeInterval(-1)
            ).get())
        // OpenSSL counts the notAfter second itself as expired (documented on PathValidator).
        XCTAssertEqual(
            failureOf(PathValidator.validate(leaf: pki.ds, intermediates: [], roots: [pki.iaca], at: dsEnd))?.code, 10)
        XCTAssertEqual(
            failureOf(
                PathValidator.validate(
                    leaf: pki.ds, intermediates: [], roots: [pki.iaca], at: start.addingTimeInterval(-1)))?
                .code, 9)
    }

    func testDSSignedByAnotherIACAFails() throws {
        let pki = try makePKI(curve: .p256)
        // Same IACA name, different key.
        let (otherKey, otherIACA) = try makeIACA(curve: .p256)
        XCTAssertEqual(otherIACA.subject, pki.iaca.subject)
        let rogue = try dsBuilder(curve: .p256, key: pki.dsKey).sign(
            issuer: otherIACA, issuerKey: otherKey, hash: .sha256)
        XCTAssertFalse(rogue.isSigned(by: pki.iaca))
        XCTAssertTrue(rogue.isSigned(by: otherIACA))
        let failure = failureOf(PathValidator.validate(leaf: rogue, intermediates: [], roots: [pki.iaca], at: during))
        XCTAssertEqual(failure?.code, 20)  // AKI does not match: X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY

        // Without an AKI, OpenSSL picks the IACA by name and the signature check fails.
        var builder = dsBuilder(curve: .p256, key: pki.dsKey)
        builder.authorityKeyIdentifier = false
        let rogueWithoutAKI = try builder.sign(issuer: otherIACA, issuerKey: otherKey, hash: .sha256)
        XCTAssertNil(rogueWithoutAKI.authorityKeyIdentifier)
        let signatureFailure = failureOf(
            PathValidator.validate(leaf: rogueWithoutAKI, intermediates: [], roots: [pki.iaca], at: during))
        XCTAssertEqual(signatureFailure?.code, 7)  // X509_V_ERR_CERT_SIGNATURE_FAILURE
        XCTAssertEqual(signatureFailure?.depth, 0)
    }

    func testUnknownCriticalExtensionFailsPathValidation() throws {
        let pki = try makePKI(curve: .p256)
        var builder = dsBuilder(curve: .p256, key: pki.dsKey)
        builder.customExtensions = [(oid: "1.3.6.1.4.1.55555.1", critical: true, derValue: [0x05, 0x00])]
        let ds = try builder.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256)
        XCTAssertEqual(ds.extensions.last, X509Extension(oid: "1.3.6.1.4.1.55555.1", critical: true))
        let failure = failureOf(PathValidator.validate(leaf: ds, intermediates: [], roots: [pki.iaca], at: during))
        XCTAssertEqual(failure?.code, 34)  // X509_V_ERR_UNHANDLED_CRITICAL_EXTENSION
        XCTAssertEqual(failure?.depth, 0)

        // The same extension, non-critical, is ignored.
        builder.customExtensions = [(oid: "1.3.6.1.4.1.55555.1", critical: false, derValue: [0x05, 0x00])]
        let tolerated = try builder.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256)
        XCTAssertNoThrow(
            try PathValidator.validate(leaf: tolerated, intermediates: [], roots: [pki.iaca], at: during).get())
    }

    func testIntermediatesAndPartialChains() throws {
        let rootKey = try PrivateKey.generate(curve: .p384)
        var rootBuilder = CertificateBuilder(
            subject: [("CN", "Root")], serialNumber: [1], notBefore: start, notAfter: end, publicKey: rootKey.publicKey)
        rootBuilder.basicConstraints = (isCA: true, pathLength: nil, critical: true)
        rootBuilder.keyUsage = ([.keyCertSign, .cRLSign], critical: true)
        let root = try rootBuilder.sign(issuer: nil, issuerKey: rootKey, hash: .sha384)
        XCTAssertEqual(root.basicConstraints, BasicConstraints(isCA: true, pathLength: nil, critical: true))

        let intermediateKey = try PrivateKey.generate(curve: .p256)
        var intermediateBuilder = CertificateBuilder(
            subject: [("CN", "Intermediate")], serialNumber: [2], notBefore: start, notAfter: end,
            publicKey: intermediateKey.publicKey)
        intermediateBuilder.basicConstraints = (isCA: true, pathLength: 0, critical: true)
        intermediateBuilder.keyUsage = ([.keyCertSign], critical: true)
        let intermediate = try intermediateBuilder.sign(issuer: root, issuerKey: rootKey, hash: .sha384)

        let leafKey = try PrivateKey.generate(curve: .p256)
        let leaf = try CertificateBuilder(
            subject: [("CN", "Leaf")], serialNumber: [3], notBefore: start, notAfter: end, publicKey: leafKey.publicKey
        ).sign(issuer: intermediate, issuerKey: intermediateKey, hash: .sha256)

        XCTAssertEqual(
            try PathValidator.validate(leaf: leaf, intermediates: [intermediate], roots: [root], at: during).get(),
            [leaf, intermediate, root])
        XCTAssertEqual(
            try PathValidator.validate(leaf: leaf, intermediates: [], roots: [intermediate], at: during).get(),
            [leaf, intermediate])
        XCTAssertEqual(
            failureOf(
                PathValidator.validate(
                    leaf: leaf, intermediates: [], roots: [intermediate], at: during, allowPartialChain: false))?
                .code, 2)  // X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT
        XCTAssertEqual(
            failureOf(PathValidator.validate(leaf: leaf, intermediates: [], roots: [root], at: during))?.code, 20)
    }

    func testSelfSignedProcessorCertificate() throws {
        let key = try PrivateKey.generate(curve: .ed25519)
        var builder = CertificateBuilder(
            subject: [("CN", "mdocverify processor")], serialNumber: SecureRandom.bytes(16), notBefore: start,
            notAfter: end,
            publicKey: key.publicKey)
        builder.keyUsage = ([.digitalSignature], critical: true)
        builder.authorityKeyIdentifier = false
        let certificate = try builder.sign(issuer: nil, issuerKey: key, hash: nil)
        XCTAssertTrue(certificate.isSelfIssued)
        XCTAssertTrue(certificate.isSigned(by: certificate))
        XCTAssertNil(certificate.authorityKeyIdentifier)
        XCTAssertNotNil(certificate.subjectKeyIdentifier)
        XCTAssertEqual(
            try PathValidator.validate(leaf: certificate, intermediates: [], roots: [certificate], at: during).get(),
            [certificate])
        XCTAssertEqual(try Certificate.parseAll(pemOrDER: Array(certificate.pem.utf8)), [certificate])
    }

    func testBuilderInputErrors() throws {
        let pki = try makePKI(curve: .p256)
        let other = try PrivateKey.generate(curve: .p256)
        let builder = dsBuilder(curve: .p256, key: pki.dsKey)
        func assertCode(_ code: CryptoError.Code, _ body: @autoclosure () throws -> Certificate, line: UInt = #line) {
            XCTAssertThrowsError(try body(), line: line) {
                XCTAssertEqual(($0 as? CryptoError)?.code, code, "\($0)", line: line)
            }
        }
        assertCode(.keyMismatch, try builder.sign(issuer: pki.iaca, issuerKey: other, hash: .sha256))
        assertCode(.keyMismatch, try builder.sign(issuer: nil, issuerKey: other, hash: .sha256))
        assertCode(.unsupportedAlgorithm, try builder.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: nil))
        var serial = builder
        serial.serialNumber = [UInt8](repeating: 0x11, count: 21)
        assertCode(.invalidLength, try serial.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256))
        serial.serialNumber = [UInt8](repeating: 0x11, count: 20)
        XCTAssertEqual(
            try serial.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256).serialNumberHex,
            String(repeating: "11", count: 20))
        serial.serialNumber = []
        assertCode(.invalidLength, try serial.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256))
        var oid = builder
        oid.extendedKeyUsage = (["not an oid"], critical: true)
        assertCode(.invalidCertificate, try oid.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256))
        var country = builder
        country.subject = [("C", "USA")]  // countryName is exactly two letters
        assertCode(.invalidCertificate, try country.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256))
        var time = builder
        time.notAfter = Date(timeIntervalSince1970: 1e15)
        assertCode(.invalidLength, try time.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256))
        let x25519 = try PrivateKey.generate(curve: .x25519)
        var agreement = builder
        agreement.publicKey = x25519.publicKey
        // A certificate may carry an X25519 key, but an X25519 key cannot sign one.
        XCTAssertEqual(
            try agreement.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256).publicKey.curve, .x25519)
        assertCode(.unsupportedAlgorithm, try agreement.sign(issuer: nil, issuerKey: x25519, hash: nil))
    }

    func testEndEntityBasicConstraints() throws {
        let pki = try makePKI(curve: .p256)
        var builder = dsBuilder(curve: .p256, key: pki.dsKey)
        builder.basicConstraints = (isCA: false, pathLength: nil, critical: false)
        let ds = try builder.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256)
        XCTAssertEqual(ds.basicConstraints, BasicConstraints(isCA: false, pathLength: nil, critical: false))
        XCTAssertTrue(ds.extensions.contains(X509Extension(oid: "2.5.29.19", critical: false)))
        XCTAssertNoThrow(try PathValidator.validate(leaf: ds, intermediates: [], roots: [pki.iaca], at: during).get())
        // A DS that claims to be a CA is still a valid leaf for OpenSSL: profile checks are the Trust layer's.
        builder.basicConstraints = (isCA: true, pathLength: nil, critical: true)
        let caDS = try builder.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256)
        XCTAssertEqual(caDS.basicConstraints?.isCA, true)
    }

    func testHighBitSerialIsPositive() throws {
        let pki = try makePKI(curve: .p256)
        var builder = dsBuilder(curve: .p256, key: pki.dsKey)
        builder.serialNumber = [0xff, 0x00, 0x01]
        XCTAssertEqual(
            try builder.sign(issuer: pki.iaca, issuerKey: pki.iacaKey, hash: .sha256).serialNumberHex, "ff0001")
    }

    func testCRLRevokesTheDS() throws {
        let pki = try makePKI(curve: .p256)
        let revokedAt = start.addingTimeInterval(10 * 86_400)
        let thisUpdate = start.addingTimeInterval(11 * 86_400)
        let nextUpdate = start.addingTimeInterval(41 * 86_400)
        var builder = CRLBuilder(
            issuer: pki.iaca, issuerKey: pki.iacaKey, thisUpdate: thisUpdate, nextUpdate: nextUpdate,
            revoked: [(serialHex: pki.ds.serialNumberHex, date: revokedAt), (serialHex: "0A", date: start)])
        builder.reasonCodes = ["0A": 1]
        builder.crlNumber = 7
        let crl = try builder.sign(hash: .sha256)

        XCTAssertEqual(crl.revocation(ofSerialHex: pki.ds.serialNumberHex), Revocation(date: revokedAt, reason: nil))
        XCTAssertEqual(crl.revocation(ofSerialHex: "009A01"), Revocation(date: revokedAt, reason: nil))
        XCTAssertEqual(crl.revocation(ofSerialHex: "a"), Revocation(date: start, reason: 1))
        XCTAssertNil(crl.revocation(ofSerialHex: "9a02"))
        XCTAssertNil(crl.revocation(ofSerialHex: "not hex"))
        XCTAssertNil(crl.revocation(ofSerialHex: "\u{FF19}\u{FF41}01"))  // fullwidth "9a" is not hex
        XCTAssertNil(crl.revocation(ofSerialHex: ""))
        XCTAssertEqual(crl.revokedCount, 2)
        XCTAssertTrue(crl.isSigned(by: pki.iaca))
        XCTAssertFalse(crl.isSigned(by: pki.ds))
        XCTAssertEqual(crl.issuer, pki.iaca.subject)
        XCTAssertEqual(crl.thisUpdate, thisUpdate)
        XCTAssertEqual(crl.nextUpdate, nextUpdate)
        XCTAssertEqual(crl.authorityKeyIdentifier, pki.iaca.subjectKeyIdentifier)
        XCTAssertEqual(crl.crlNumberHex, "7")

        // Parsing: DER, PEM, truncation, trailing bytes.
        XCTAssertEqual(try CRL.parseAll(pemOrDER: crl.der).first?.der, crl.der)
        XCTAssertEqual(try CRL.parseAll(pemOrDER: Array((crl.pem + crl.pem).utf8)).map(\.der), [crl.der, crl.der])
        for length in 0..<crl.der.count {
            XCTAssertThrowsError(try CRL(der: crl.der.prefix(length)), "prefix \(length)") {
                XCTAssertEqual(($0 as? CryptoError)?.code, .invalidCRL)
            }
        }
        XCTAssertThrowsError(try CRL(der: crl.der + [0])) { XCTAssertEqual(($0 as? CryptoError)?.code, .invalidCRL) }
        XCTAssertThrowsError(try CRL.parseAll(pemOrDER: Array(pki.iaca.pem.utf8))) {
            XCTAssertEqual(($0 as? CryptoError)?.code, .invalidPEM)
        }
    }

    func testEmptyCRLWithoutNextUpdateAndEdDSA() throws {
        let pki = try makePKI(curve: .ed25519)
        let crl = try CRLBuilder(issuer: pki.iaca, issuerKey: pki.iacaKey, thisUpdate: start, nextUpdate: nil).sign(
            hash: nil)
        XCTAssertNil(crl.nextUpdate)
        XCTAssertEqual(crl.revokedCount, 0)
        XCTAssertNil(crl.revocation(ofSerialHex: pki.ds.serialNumberHex))
        XCTAssertTrue(crl.isSigned(by: pki.iaca))
    }

    func testCRLBuilderInputErrors() throws {
        let pki = try makePKI(curve: .p256)
        func assertCode(_ code: CryptoError.Code, _ builder: CRLBuilder, hash: HashFunction?, line: UInt = #line) {
            XCTAssertThrowsError(try builder.sign(hash: hash), line: line) {
                XCTAssertEqual(($0 as? CryptoError)?.code, code, "\($0)", line: line)
            }
        }
        let base = CRLBuilder(issuer: pki.iaca, issuerKey: pki.iacaKey, thisUpdate: start, nextUpdate: nil, revoked: [])
        var wrongKey = base
        wrongKey.issuerKey = pki.dsKey
        assertCode(.keyMismatch, wrongKey, hash: .sha256)
        assertCode(.unsupportedAlgorithm, base, hash: nil)
        var badSerial = base
        badSerial.revoked = [(serialHex: "xyz", date: start)]
        assertCode(.invalidLength, badSerial, hash: .sha256)
        badSerial.revoked = [(serialHex: String(repeating: "ab", count: 21), date: start)]
        assertCode(.invalidLength, badSerial, hash: .sha256)
        badSerial.revoked = [(serialHex: "-01", date: start)]
        assertCode(.invalidLength, badSerial, hash: .sha256)
    }

    func testCertificatesAreHashableByDER() throws {
        let pki = try makePKI(curve: .p256)
        let again = try Certificate(der: pki.ds.der)
        XCTAssertEqual(again, pki.ds)
        XCTAssertEqual(Set([pki.ds, again, pki.iaca]).count, 2)
    }
}
