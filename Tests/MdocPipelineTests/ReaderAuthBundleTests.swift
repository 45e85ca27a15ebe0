import Foundation
import MdocCBOR
import MdocCOSE
import MdocChecks
import MdocCrypto
import MdocIngest
import MdocModel
import MdocPipeline
import MdocTestSupport
import MdocTime
import MdocTrust
import MdocVerification
import XCTest

/// readerAuth of a captured DeviceRequest (§9.1.4, Annex B.1.7), through whole bundles made with
/// a generated reader PKI: each defect flips exactly its `reader.*` check.
final class ReaderAuthBundleTests: XCTestCase {
    let t = Scenario.verificationTime

    func context(trust: TrustStore, readerTrust: TrustStore?) -> TransactionContext {
        TransactionContext(
            trust: trust, readerTrust: readerTrust, verificationTime: t,
            )
    }

    func verify(_ scenario: SessionScenario, readerTrust: TrustStore?, files extra: [String: [UInt8]] = [:]) throws -> VerifiedTransaction {
        var files = try scenario.files()
        files.merge(extra) { _, new in new }
        return TransactionVerifier.verify(
            TransactionBundle(name: "reader", source: "memory", files: files),
            context: context(trust: TrustStore(anchors: [scenario.authority.iaca]), readerTrust: readerTrust)).finish(.none)
    }

    func failing(_ verified: VerifiedTransaction) -> Set<CheckID> {
        Set(verified.checks.filter { $0.status == .fail }.map(\.id))
    }

    func only(_ id: CheckID, in verified: VerifiedTransaction, file: StaticString = #filePath, line: UInt = #line) throws -> CheckResult {
        let found = verified.checks.filter { $0.id == id }
        XCTAssertEqual(found.count, 1, "\(id): \(found)", file: file, line: line)
        return try XCTUnwrap(found.first, file: file, line: line)
    }

    func reader(notBefore: Date? = nil, validityDays: Int = 365, eku: [String] = [ReaderPKI.readerAuthEKU]) throws -> ReaderPKI {
        try ReaderPKI(notBefore: notBefore ?? t.addingTimeInterval(-30 * 86_400), validityDays: validityDays, extendedKeyUsage: eku)
    }

    // MARK: pass

    func testReaderAuthPassesAgainstAReaderTrustFolder() throws {
        let pki = try reader()
        let scenario = try SessionScenario(reader: pki)
        let folder = NSTemporaryDirectory() + "reader-trust-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try pki.writeTrust(to: folder)
        let readerTrust = try TrustStore(directory: folder)

        let verified = try verify(scenario, readerTrust: readerTrust)
        XCTAssertEqual(failing(verified), [], "\(verified.checks.filter { $0.status == .fail })")
        XCTAssertEqual(verified.verdict, .valid)
        XCTAssertEqual(try only(.readerRequest, in: verified).status, .pass)
        XCTAssertEqual(try only(.readerSignature, in: verified).status, .pass)
        let certificate = try only(.readerCertificate, in: verified)
        XCTAssertEqual(certificate.status, .pass)
        XCTAssertTrue(certificate.detail.contains("Utopia reader root"), certificate.detail)
        XCTAssertTrue(certificate.evidence.contains(Evidence("reader.sha256", pki.certificate.fingerprintHex)))
        XCTAssertEqual(try only(.readerValidity, in: verified).status, .pass)
    }

    func testReaderCertificateIsUncheckedWithoutReaderTrust() throws {
        let verified = try verify(try SessionScenario(reader: try reader()), readerTrust: nil)
        XCTAssertEqual(failing(verified), [])
        XCTAssertEqual(try only(.readerSignature, in: verified).status, .pass, "the signature is checked with the certificate's key")
        let certificate = try only(.readerCertificate, in: verified)
        XCTAssertEqual(certificate.status, .unchecked)
        XCTAssertTrue(certificate.detail.contains("--reader-trust"), certificate.detail)
        XCTAssertEqual(verified.verdict, .valid, "reader authentication is not required for a verdict")
    }

    func testWithoutReaderAuthTheReaderChecksAreSkipped() throws {
        let verified = try verify(try SessionScenario(), readerTrust: try reader().trust)
        XCTAssertEqual(try only(.readerSignature, in: verified).status, .skipped)
        XCTAssertFalse(verified.checks.contains { $0.id == .readerCertificate })
        XCTAssertEqual(verified.verdict, .valid)
    }

    // MARK: reader.signature

    func testTamperedReaderAuthSignatureFails() throws {
        let pki = try reader()
        var scenario = try SessionScenario(reader: pki)
        // The signature is the last byte string of the COSE_Sign1 array: flip its last bit.
        try scenario.replaceDeviceRequest(try SessionScenario.makeDeviceRequest(
            requested: SessionScenario.defaultRequested, transcript: scenario.transcript, reader: pki,
            alterReaderAuth: { bytes in
                var altered = bytes
                if let last = altered.last { altered[altered.count - 1] = last ^ 0x01 }
                return altered
            }))
        let verified = try verify(scenario, readerTrust: pki.trust)
        XCTAssertEqual(failing(verified), [.readerSignature])
        XCTAssertTrue(try only(.readerSignature, in: verified).detail.contains("does not verify"))
        XCTAssertEqual(try only(.readerCertificate, in: verified).status, .pass)
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testReaderAuthOverAnotherItemsRequestFails() throws {
        let pki = try reader()
        var scenario = try SessionScenario(reader: pki)
        // The reader signed a request for two elements; the request sent asks for six.
        try scenario.replaceDeviceRequest(try SessionScenario.makeDeviceRequest(
            requested: SessionScenario.defaultRequested, transcript: scenario.transcript, reader: pki,
            signedRequested: ["family_name", "age_over_18"]))
        let verified = try verify(scenario, readerTrust: pki.trust)
        XCTAssertEqual(failing(verified), [.readerSignature])
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testReaderAuthFromAnotherSessionFails() throws {
        let pki = try reader()
        var scenario = try SessionScenario(reader: pki)
        let other = try SessionScenario()
        // readerAuth replayed from another session: signed over that session's transcript.
        try scenario.replaceDeviceRequest(try SessionScenario.makeDeviceRequest(
            requested: SessionScenario.defaultRequested, transcript: other.transcript, reader: pki))
        let verified = try verify(scenario, readerTrust: pki.trust)
        XCTAssertEqual(failing(verified), [.readerSignature])
    }

    // MARK: reader.certificate

    func testReaderCertificateWithoutTheReaderAuthEKUFails() throws {
        for eku in [[], ["1.0.18013.5.1.2"]] {
            let pki = try reader(eku: eku)
            let verified = try verify(try SessionScenario(reader: pki), readerTrust: pki.trust)
            XCTAssertEqual(failing(verified), [.readerCertificate], "EKU \(eku)")
            let certificate = try only(.readerCertificate, in: verified)
            XCTAssertTrue(certificate.detail.contains("lacks EKU 1.0.18013.5.1.6"), certificate.detail)
            XCTAssertEqual(try only(.readerSignature, in: verified).status, .pass)
            XCTAssertEqual(verified.verdict, .invalid)
        }
    }

    func testReaderCertificateWithoutEKUIsNotedWhenUnchecked() throws {
        let verified = try verify(try SessionScenario(reader: try reader(eku: [])), readerTrust: nil)
        let certificate = try only(.readerCertificate, in: verified)
        XCTAssertEqual(certificate.status, .unchecked)
        XCTAssertTrue(certificate.detail.contains("EKU 1.0.18013.5.1.6 is missing"), certificate.detail)
    }

    func testReaderCertificateFromAnotherRootFails() throws {
        let verified = try verify(try SessionScenario(reader: try reader()), readerTrust: try reader().trust)
        XCTAssertEqual(failing(verified), [.readerCertificate])
        XCTAssertTrue(try only(.readerCertificate, in: verified).detail.contains("does not chain"))
    }

    func testReaderAuthWithoutX5chainFails() throws {
        let pki = try reader()
        var scenario = try SessionScenario(reader: pki)
        // Re-sign readerAuth without x5chain.
        let items = SessionScenario.itemsRequestBytes(requested: SessionScenario.defaultRequested)
        let payload = readerAuthenticationBytes(transcript: scenario.transcript, itemsRequestBytes: try CBOR(decoding: items))
        let bare = try COSESign1.sign(payload: payload, key: pki.key, detached: true, tagged: false)
        let request = CBORNode.map([
            .init(.text("version"), .text("1.0")),
            .init(.text("docRequests"), .array([.map([.init(.text("itemsRequest"), .raw(items[...])), .init(.text("readerAuth"), .raw(bare[...]))])])),
        ]).encoded()
        try scenario.replaceDeviceRequest(request)
        let verified = try verify(scenario, readerTrust: pki.trust)
        XCTAssertEqual(failing(verified), [.readerCertificate])
        XCTAssertTrue(try only(.readerCertificate, in: verified).detail.contains("no x5chain"))
        XCTAssertEqual(try only(.readerSignature, in: verified).status, .unchecked)
    }

    // MARK: reader.validity

    func testExpiredReaderCertificateFailsValidityAtEachInstant() throws {
        // Valid for 104 days ending 6 days before the verification time; captured 8 days before
        // it (the MSO was signed 10 days before).
        let pki = try reader(notBefore: t.addingTimeInterval(-110 * 86_400), validityDays: 104)
        let scenario = try SessionScenario(reader: pki)
        let capturedAt = RFC3339.format(t.addingTimeInterval(-8 * 86_400))
        let verified = try verify(
            scenario, readerTrust: pki.trust,
            files: ["transaction.json": Array("{\"id\": \"r\", \"capturedAt\": \"\(capturedAt)\"}".utf8)])
        XCTAssertEqual(failing(verified), [.readerValidity])
        let validity = verified.checks.filter { $0.id == .readerValidity }
        XCTAssertEqual(validity.first { $0.instant == .capture }?.status, .pass, "valid when presented")
        XCTAssertEqual(validity.first { $0.instant == .verification }?.status, .fail)
        XCTAssertEqual(verified.verdictAtCapture, .valid)
        XCTAssertEqual(verified.verdict, .invalid)
    }

    func testNotYetValidReaderCertificateFailsValidity() throws {
        let pki = try reader(notBefore: t.addingTimeInterval(86_400))
        let verified = try verify(try SessionScenario(reader: pki), readerTrust: pki.trust)
        XCTAssertEqual(failing(verified), [.readerValidity])
    }

    // MARK: reader.request

    func testMalformedDeviceRequestFailsReaderRequest() throws {
        let malformed: [(String, [UInt8])] = [
            ("docRequests not an array", CBORNode.map([.init(.text("version"), .text("1.0")), .init(.text("docRequests"), .text("x"))]).encoded()),
            ("no docRequests", CBORNode.map([.init(.text("version"), .text("1.0"))]).encoded()),
            ("itemsRequest not embedded", CBORNode.map([
                .init(.text("version"), .text("1.0")),
                .init(.text("docRequests"), .array([.map([.init(.text("itemsRequest"), .map([]))])])),
            ]).encoded()),
            ("readerAuth not a COSE_Sign1", CBORNode.map([
                .init(.text("version"), .text("1.0")),
                .init(.text("docRequests"), .array([.map([
                    .init(.text("itemsRequest"), .raw(SessionScenario.itemsRequestBytes(requested: ["family_name"])[...])),
                    .init(.text("readerAuth"), .array([.int(1)])),
                ])])),
            ]).encoded()),
        ]
        for (name, request) in malformed {
            var scenario = try SessionScenario()
            try scenario.replaceDeviceRequest(request)
            let verified = try verify(scenario, readerTrust: nil)
            XCTAssertEqual(failing(verified), [.readerRequest], name)
            XCTAssertEqual(try only(.sessionEstablishment, in: verified).status, .pass, name)
            XCTAssertEqual(verified.verdict, .invalid, name)
        }
        // Not CBOR at all: the decoding failure, on the request.
        var scenario = try SessionScenario()
        try scenario.replaceDeviceRequest([0xa1, 0x61])
        let verified = try verify(scenario, readerTrust: nil)
        XCTAssertEqual(failing(verified), [.cborWellformed])
        XCTAssertEqual(verified.checks.first { $0.status == .fail }?.subject, "request")
    }
}
