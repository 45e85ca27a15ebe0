import Foundation
import MdocCBOR
import MdocChecks
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// One negative test per check id of the `response.*`, `issuer.*`, `mso.*` and `device.*`
/// families that the planted defects of ``SampleDefect`` do not cover: each flips exactly its
/// check (asserted by id and status), with a PKI generated here.
final class CheckNegativeTests: XCTestCase {
    let t = Scenario.verificationTime

    // MARK: Helpers

    /// A generated PKI with its CRL (so that revocation is checked), and a session transcript.
    struct Setup {
        let authority: IssuingAuthority
        let trust: TrustStore
        let transcript: SessionTranscript
    }

    func setup(_ authority: IssuingAuthority? = nil) throws -> Setup {
        let authority = try authority ?? IssuingAuthority(curve: .p256, profile: .init(notBefore: t.addingTimeInterval(-100 * 86_400)))
        let crl = try authority.crl(revoking: [], thisUpdate: t.addingTimeInterval(-4 * 86_400), nextUpdate: t.addingTimeInterval(30 * 86_400))
        return Setup(authority: authority, trust: TrustStore(anchors: [authority.iaca], crls: [crl]), transcript: try Scenario().transcript)
    }

    func document(_ setup: Setup, _ adjust: (inout DocumentSpec) -> Void = { _ in }) throws -> CBORNode {
        var spec = DocumentSpec(
            disclosed: Scenario.elements, signed: t.addingTimeInterval(-10 * 86_400), deviceKey: try PrivateKey.generate(curve: .p256))
        adjust(&spec)
        return try MdocIssuer.document(spec, authority: setup.authority, transcript: setup.transcript)
    }

    func verify(_ response: [UInt8], _ setup: Setup, captureTime: Date? = nil) -> ResponseVerification {
        let options = ResponseOptions(
            trust: setup.trust, verificationTime: t, captureTime: captureTime, sessionTranscript: setup.transcript)
        return options.verify(response)
    }

    func failing(_ result: ResponseVerification) -> Set<CheckID> { Set(result.checks.filter { $0.status == .fail }.map(\.id)) }
    func warning(_ result: ResponseVerification) -> Set<CheckID> { Set(result.checks.filter { $0.status == .warn }.map(\.id)) }

    func results(_ id: CheckID, _ result: ResponseVerification) -> [CheckResult] { result.checks.filter { $0.id == id } }

    /// `node` with the map entry at `path` replaced by `value`, or removed when `value` is nil.
    func replacing(_ path: [String], in node: CBORNode, with value: CBORNode?) throws -> CBORNode {
        let item = try CBOR(decoding: node.encoded())
        return try replacing(path[...], in: item, with: value)
    }

    func replacing(_ path: ArraySlice<String>, in item: CBOR, with value: CBORNode?) throws -> CBORNode {
        guard let key = path.first else { return value ?? .null }
        let map = try XCTUnwrap(item.map, "not a map at \(key)")
        var entries: [CBORNode.Entry] = []
        var found = false
        for entry in map {
            if entry.key.text == key {
                found = true
                if path.count == 1 {
                    if let value { entries.append(.init(.text(key), value)) }
                } else {
                    entries.append(.init(.text(key), try replacing(path.dropFirst(), in: entry.value, with: value)))
                }
            } else {
                entries.append(.init(.raw(entry.key.encoded), .raw(entry.value.encoded)))
            }
        }
        if !found, path.count == 1, let value { entries.append(.init(.text(key), value)) }
        return .map(entries)
    }

    /// issuerAuth over `payload` (MobileSecurityObjectBytes or anything else), correctly signed by the DS.
    func issuerAuth(payload: [UInt8], _ setup: Setup) throws -> CBORNode {
        .raw(try COSESign1.sign(
            payload: payload, key: setup.authority.dsKey,
            unprotected: [.init(.int(COSEHeaders.Label.x5chain), .bytes(setup.authority.ds.der))], tagged: false)[...])
    }

    // MARK: response.*

    func testResponseVersionNot1xFails() throws {
        let s = try setup()
        let result = verify(MdocIssuer.deviceResponse(documents: [try document(s)], version: "2.0"), s)
        XCTAssertEqual(failing(result), [.responseVersion])
        XCTAssertEqual(results(.responseVersion, result).map(\.status), [.fail])
        XCTAssertEqual(result.verdict, .invalid)
    }

    func testResponseVersionLater1xWarns() throws {
        let s = try setup()
        let result = verify(MdocIssuer.deviceResponse(documents: [try document(s)], version: "1.1"), s)
        XCTAssertEqual(failing(result), [])
        XCTAssertEqual(warning(result), [.responseVersion])
        XCTAssertTrue(try XCTUnwrap(results(.responseVersion, result).first).detail.contains("later 1.x"))
        XCTAssertEqual(result.verdict, .valid, "a warning does not invalidate")
    }

    func testResponseWithoutDocumentsFails() throws {
        let s = try setup()
        for response in [
            MdocIssuer.deviceResponse(documents: []),
            CBORNode.map([.init("version", .text("1.0")), .init("documents", .array([])), .init("status", .unsigned(0))]).encoded(),
        ] {
            let result = verify(response, s)
            XCTAssertEqual(failing(result), [.responseDocuments])
            XCTAssertEqual(results(.responseDocuments, result).first?.detail, "the response carries no document")
            XCTAssertEqual(result.verdict, .invalid)
        }
    }

    func testDocumentErrorsWarn() throws {
        let s = try setup()
        let response = CBORNode.map([
            .init("version", .text("1.0")),
            .init("documents", .array([try document(s)])),
            .init("documentErrors", .array([.map([.init(.text("org.iso.23220.photoid.1"), .int(0))])])),
            .init("status", .unsigned(0)),
        ]).encoded()
        let result = verify(response, s)
        XCTAssertEqual(failing(result), [])
        XCTAssertEqual(warning(result), [.responseDocumentErrors])
        XCTAssertEqual(results(.responseDocumentErrors, result).first?.detail, "documents not returned: org.iso.23220.photoid.1: 0")
        XCTAssertEqual(result.verdict, .valid)
    }

    // MARK: issuer.structure

    func testIssuerAuthNotACOSESign1FailsIssuerStructure() throws {
        let s = try setup()
        for bad: CBORNode in [.array([.bytes([]), .map([])]), .text("issuerAuth"), .array([.int(1), .int(2), .int(3), .int(4)])] {
            let document = try replacing(["issuerSigned", "issuerAuth"], in: try document(s), with: bad)
            let result = verify(MdocIssuer.deviceResponse(documents: [document]), s)
            XCTAssertEqual(failing(result), [.issuerStructure], "\(bad)")
            XCTAssertEqual(results(.issuerStructure, result).first?.subject, "doc[0]")
            XCTAssertEqual(result.verdict, .invalid)
        }
    }

    func testIssuerSignedWithoutIssuerAuthFailsIssuerStructure() throws {
        let s = try setup()
        let document = try replacing(["issuerSigned", "issuerAuth"], in: try document(s), with: nil)
        let result = verify(MdocIssuer.deviceResponse(documents: [document]), s)
        XCTAssertEqual(failing(result), [.issuerStructure])
    }

    // MARK: issuer.iaca.*, issuer.ds.basicConstraints (certificates built here)

    /// An IACA and DS like ``IssuingAuthority``'s, with the knobs the profile checks need.
    func authority(
        iacaKeyUsage: (KeyUsage, critical: Bool) = ([.keyCertSign, .cRLSign], critical: true),
        iacaNotBefore: Date? = nil, iacaValidityDays: Int = 3650, dsIsCA: Bool = false
    ) throws -> IssuingAuthority {
        let iacaKey = try PrivateKey.generate(curve: .p256)
        let iacaStart = iacaNotBefore ?? t.addingTimeInterval(-100 * 86_400)
        var iacaBuilder = CertificateBuilder(
            subject: [("C", "UT"), ("O", "Utopia"), ("CN", "Utopia IACA")], serialNumber: [0x01, 0x23, 0x45],
            notBefore: iacaStart, notAfter: iacaStart.addingTimeInterval(Double(iacaValidityDays) * 86_400), publicKey: iacaKey.publicKey)
        iacaBuilder.basicConstraints = (isCA: true, pathLength: 0, critical: true)
        iacaBuilder.keyUsage = iacaKeyUsage
        let iaca = try iacaBuilder.sign(issuer: nil, issuerKey: iacaKey, hash: .sha256)
        let dsKey = try PrivateKey.generate(curve: .p256)
        let dsStart = t.addingTimeInterval(-100 * 86_400)
        var dsBuilder = CertificateBuilder(
            subject: [("C", "UT"), ("O", "Utopia"), ("CN", "Utopia DS")], serialNumber: [0x02, 0x46],
            notBefore: dsStart, notAfter: dsStart.addingTimeInterval(365 * 86_400), publicKey: dsKey.publicKey)
        if dsIsCA { dsBuilder.basicConstraints = (isCA: true, pathLength: nil, critical: true) }
        dsBuilder.keyUsage = (.digitalSignature, critical: true)
        dsBuilder.extendedKeyUsage = (["1.0.18013.5.1.2"], critical: true)
        let ds = try dsBuilder.sign(issuer: iaca, issuerKey: iacaKey, hash: .sha256)
        return IssuingAuthority(curve: .p256, iacaKey: iacaKey, iaca: iaca, dsKey: dsKey, ds: ds)
    }

    func testTheHandBuiltAuthorityIsValid() throws {
        let s = try setup(try authority())
        let result = verify(MdocIssuer.deviceResponse(documents: [try document(s)]), s)
        XCTAssertEqual(failing(result), [])
        XCTAssertEqual(result.verdict, .valid)
    }

    func testIACAKeyUsageNotTableB1Fails() throws {
        for usage: (KeyUsage, critical: Bool) in [
            ([.keyCertSign], critical: true),  // no cRLSign
            ([.keyCertSign, .cRLSign], critical: false),  // not critical
            ([.keyCertSign, .cRLSign, .digitalSignature], critical: true),  // more than Table B.1
        ] {
            let s = try setup(try authority(iacaKeyUsage: usage))
            let result = verify(MdocIssuer.deviceResponse(documents: [try document(s)]), s)
            XCTAssertEqual(failing(result), [.issuerIacaKeyUsage], "\(usage)")
            XCTAssertTrue(try XCTUnwrap(results(.issuerIacaKeyUsage, result).first).detail.contains("Table B.1"))
        }
    }

    func testExpiredIACAFailsIACAValidity() throws {
        // The IACA expired 5 days before the verification time; the DS (its own validity) has not.
        // Captured 7 days before (the MSO was signed 10 days before): valid then.
        let s = try setup(try authority(iacaNotBefore: t.addingTimeInterval(-400 * 86_400), iacaValidityDays: 395))
        let result = verify(MdocIssuer.deviceResponse(documents: [try document(s)]), s, captureTime: t.addingTimeInterval(-7 * 86_400))
        XCTAssertEqual(failing(result), [.issuerIacaValidity])
        let validity = results(.issuerIacaValidity, result)
        XCTAssertEqual(validity.first { $0.instant == .verification }?.status, .fail)
        XCTAssertEqual(validity.first { $0.instant == .capture }?.status, .pass, "valid when presented")
        XCTAssertEqual(result.verdictAtCapture(known: true), .valid)
        XCTAssertEqual(result.verdict, .invalid)
    }

    func testDSThatIsACAFailsDSBasicConstraints() throws {
        let s = try setup(try authority(dsIsCA: true))
        let result = verify(MdocIssuer.deviceResponse(documents: [try document(s)]), s)
        XCTAssertEqual(failing(result), [.issuerDsBasicConstraints])
        XCTAssertEqual(results(.issuerDsBasicConstraints, result).first?.detail, "the DS certificate is a CA")
    }

    // MARK: mso.structure, mso.expectedUpdate

    func testMalformedMSOPayloadFailsMSOStructure() throws {
        let s = try setup()
        let payloads: [(String, [UInt8])] = [
            ("MSO without valueDigests", CBORNode.embedded(.map([
                .init("version", .text("1.0")), .init("digestAlgorithm", .text("SHA-256")), .init("docType", .text("org.iso.18013.5.1.mDL")),
            ])).encoded()),
            ("MSO not wrapped in tag 24", CBORNode.map([.init("version", .text("1.0"))]).encoded()),
            ("MSO bytes that are not CBOR", CBORNode.tagged(24, .bytes([0xa1, 0x61])).encoded()),
        ]
        for (name, payload) in payloads {
            let document = try replacing(["issuerSigned", "issuerAuth"], in: try document(s), with: try issuerAuth(payload: payload, s))
            let result = verify(MdocIssuer.deviceResponse(documents: [document]), s)
            XCTAssertEqual(failing(result), [.msoStructure], "\(name): \(result.checks.filter { $0.status == .fail })")
            XCTAssertEqual(results(.issuerSignature, result).first?.status, .pass, "\(name): the DS did sign it")
            XCTAssertEqual(result.verdict, .invalid, name)
        }
    }

    func testDetachedMSOFailsMSOStructure() throws {
        let s = try setup()
        let detached = try COSESign1.sign(
            payload: [0xa0], key: s.authority.dsKey,
            unprotected: [.init(.int(COSEHeaders.Label.x5chain), .bytes(s.authority.ds.der))], detached: true, tagged: false)
        let document = try replacing(["issuerSigned", "issuerAuth"], in: try document(s), with: .raw(detached[...]))
        let result = verify(MdocIssuer.deviceResponse(documents: [document]), s)
        XCTAssertTrue(failing(result).contains(.msoStructure), "\(failing(result))")
        XCTAssertTrue(try XCTUnwrap(results(.msoStructure, result).first).detail.contains("detached"))
    }

    func testPastExpectedUpdateWarns() throws {
        let s = try setup()
        let document = try document(s) { $0.expectedUpdate = self.t.addingTimeInterval(-86_400) }
        let result = verify(MdocIssuer.deviceResponse(documents: [document]), s, captureTime: t.addingTimeInterval(-2 * 86_400))
        XCTAssertEqual(failing(result), [])
        XCTAssertEqual(warning(result), [.msoExpectedUpdate])
        let expected = results(.msoExpectedUpdate, result)
        XCTAssertEqual(expected.first { $0.instant == .verification }?.status, .warn)
        XCTAssertEqual(expected.first { $0.instant == .capture }?.status, .pass, "not yet due when captured")
        XCTAssertTrue(expected.contains { $0.detail.contains("may be stale") })
        XCTAssertEqual(result.verdict, .valid)
    }

    // MARK: device.structure

    func testMissingOrMalformedDeviceSignedFailsDeviceStructure() throws {
        let s = try setup()
        let cases: [(String, [String], CBORNode?)] = [
            ("no deviceSigned", ["deviceSigned"], nil),
            ("no deviceAuth", ["deviceSigned", "deviceAuth"], nil),
            ("empty deviceAuth", ["deviceSigned", "deviceAuth"], .map([])),
            ("nameSpaces not tag 24", ["deviceSigned", "nameSpaces"], .map([])),
        ]
        for (name, path, value) in cases {
            let document = try replacing(path, in: try document(s), with: value)
            let result = verify(MdocIssuer.deviceResponse(documents: [document]), s)
            XCTAssertEqual(failing(result), [.deviceStructure], name)
            XCTAssertEqual(results(.deviceSignature, result).first?.status, .unchecked, name)
            XCTAssertEqual(result.verdict, .invalid, name)
        }
    }
}
