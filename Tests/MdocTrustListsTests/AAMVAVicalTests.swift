import Foundation
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrustLists
import XCTest

/// Known answers on a real list: AAMVA's VICAL of 2025-11-18 (14 state IACAs), its signer
/// issued by AAMVA DTS Issuing CA under AAMVA DTS Root CA.
final class AAMVAVicalTests: XCTestCase {
    func list() throws -> CertificateList {
        try CertificateList(decoding: try AAMVAVical.list()[...], kind: .vical)
    }

    func root() throws -> [Certificate] { try Certificate.parseAll(pemOrDER: try AAMVAVical.root()) }

    func testParsesWithItsHeaderFields() throws {
        let list = try list()
        XCTAssertEqual(list.version, "1.0")
        XCTAssertEqual(list.provider, "AAMVA")
        XCTAssertEqual(list.issueID, 227_602)
        XCTAssertEqual(list.date, AAMVAVical.date)
        XCTAssertEqual(list.nextUpdate, AAMVAVical.date.addingTimeInterval(86_400))
        XCTAssertNil(list.url)
        XCTAssertFalse(list.envelope.message.isTagged)
        XCTAssertEqual(list.envelope.x5chainBucket, .unprotected)
        // The signer, the issuing CA and the root travel in x5chain.
        XCTAssertEqual(list.envelope.chain.map { $0.subject.commonName }, ["AAMVA Prod Vical-Signer-01", "AAMVA DTS Issuing CA", "AAMVA DTS Root CA"])
        XCTAssertEqual(list.envelope.signer.notAfter, AAMVAVical.signerNotAfter)
    }

    func testListsFourteenIACAsWithTheirDocTypesAndStates() throws {
        let list = try list()
        XCTAssertTrue(list.rejectedEntries.isEmpty, "\(list.rejectedEntries.map(\.error))")
        XCTAssertEqual(list.entries.count, 14)
        XCTAssertEqual(list.entries.map(\.stateOrProvinceName), AAMVAVical.states)
        XCTAssertEqual(Set(list.entries.map(\.docTypes)), [["org.iso.18013.5.1.mDL"]])
        XCTAssertEqual(Set(list.entries.compactMap(\.issuingCountry)), ["US"])
        XCTAssertEqual(list.entries.map(\.index), Array(0..<14))
        // Each entry's certificate is the IACA it describes.
        for entry in list.entries {
            XCTAssertEqual(entry.serialNumber, bytesFromHex(entry.certificate.serialNumberHex), "entry \(entry.index)")
            XCTAssertEqual(entry.issuer.map(Array.init), entry.certificate.issuer.der, "entry \(entry.index)")
        }
    }

    /// A quirk worth knowing: for six entries the list's notAfter is twelve hours before the
    /// certificate's (an afternoon hour written on a 12-hour clock). The certificate is what a
    /// verifier judges; the list's dates are only what the list says.
    func testSixEntriesStateTheirNotAfterTwelveHoursEarly() throws {
        let list = try list()
        var offsets: [Int: TimeInterval] = [:]
        for entry in list.entries {
            let stated = try XCTUnwrap(entry.notAfter)
            offsets[entry.index] = entry.certificate.notAfter.timeIntervalSince(stated)
        }
        XCTAssertEqual(offsets.filter { $0.value == 43_200 }.keys.sorted(), [2, 3, 6, 9, 10, 11])
        XCTAssertEqual(offsets.filter { $0.value == 0 }.count, 8)
    }

    /// Unknown keys are kept, not fatal: AAMVA writes "Extensions" capitalised, and one entry
    /// carries "CertificateProfile".
    func testKeepsTheKeysTheStandardDoesNotName() throws {
        let list = try list()
        XCTAssertTrue(list.entries.allSatisfy { $0.otherFields.map(\.key).contains("Extensions") })
        XCTAssertTrue(list.entries.allSatisfy { $0.extensions == nil })
        XCTAssertEqual(list.entries.filter { $0.otherFields.map(\.key).contains("CertificateProfile") }.count, 1)
        XCTAssertEqual(list.entries[0].otherFields.first { $0.key == "Extensions" }?.value.map?.count, 0)
    }

    func testVerifiesAtItsDate() throws {
        let verification = try list().verify(anchors: try root(), at: AAMVAVical.date)
        XCTAssertEqual(verification.signature, .holds)
        XCTAssertEqual(verification.signer.chain, .holds)
        XCTAssertEqual(verification.signer.validity, .holds)
        XCTAssertEqual(verification.signerProfile, .holds, "the signer carries 1.0.18013.5.1.8")
        XCTAssertTrue(verification.isTrusted)
        XCTAssertFalse(verification.isStale)
        XCTAssertEqual(verification.signer.path.map { $0.subject.commonName }, ["AAMVA Prod Vical-Signer-01", "AAMVA DTS Issuing CA", "AAMVA DTS Root CA"])
    }

    /// Its signer's certificate ended on 2026-04-18T17:38:41Z: trusted up to that second
    /// included, refused after it.
    func testIsRefusedAsExpiredAfterItsSignerEnded() throws {
        let list = try list()
        let anchors = try root()
        XCTAssertTrue(list.verify(anchors: anchors, at: AAMVAVical.signerNotAfter).isTrusted)
        let after = list.verify(anchors: anchors, at: AAMVAVical.signerNotAfter.addingTimeInterval(1))
        XCTAssertFalse(after.isTrusted)
        XCTAssertEqual(after.failures.map(\.code), [.certificateExpired])
        XCTAssertTrue(after.failures[0].reason.contains("AAMVA Prod Vical-Signer-01"), after.failures[0].reason)
        XCTAssertTrue(after.failures[0].reason.contains("2026-04-18T17:38:41Z"), after.failures[0].reason)
        XCTAssertTrue(after.isStale)
        // Today, whatever the day the tests run.
        XCTAssertEqual(list.verify(anchors: anchors, at: Date()).failures.map(\.code), [.certificateExpired])
    }

    func testIsNotTrustedUnderAnotherAnchor() throws {
        let stranger = try ListSigner(name: "Stranger", notBefore: AAMVAVical.date.addingTimeInterval(-86_400))
        let verification = try list().verify(anchors: [stranger.root], at: AAMVAVical.date)
        XCTAssertEqual(verification.signer.chain.failure?.code, .chainUntrusted)
        XCTAssertEqual(verification.signature, .holds, "the signature itself is sound")
        XCTAssertFalse(verification.isTrusted)
    }

    /// One byte of the payload changed (a docType's last letter): the signature fails.
    func testATamperedListFailsItsSignature() throws {
        var bytes = try AAMVAVical.list()
        let docType = Array("org.iso.18013.5.1.mDL".utf8)
        let at = try XCTUnwrap(bytes.firstRange(of: docType)).upperBound - 1
        bytes[at] = UInt8(ascii: "X")
        let tampered = try CertificateList(decoding: bytes[...], kind: .vical)
        XCTAssertEqual(tampered.entries[0].docTypes, ["org.iso.18013.5.1.mDX"])
        let verification = tampered.verify(anchors: try root(), at: AAMVAVical.date)
        XCTAssertEqual(verification.signature.failure?.code, .signatureInvalid)
        XCTAssertFalse(verification.isTrusted)
    }

    /// No prefix of the list decodes (every 61st, and the last few).
    func testTruncatedCopiesAreRefused() throws {
        let bytes = try AAMVAVical.list()
        for length in Array(stride(from: 0, to: bytes.count, by: 61)) + Array(bytes.count - 8..<bytes.count) {
            XCTAssertThrowsError(try CertificateList(decoding: bytes[..<length], kind: .vical), "prefix of \(length) bytes") { error in
                XCTAssertEqual((error as? TrustListError)?.code, .listMalformed, "prefix of \(length) bytes")
            }
        }
    }

    /// As a RICAL it is refused: its x5chain is not in the protected header.
    func testIsNotARICAL() throws {
        XCTAssertThrowsError(try CertificateList(decoding: try AAMVAVical.list()[...], kind: .rical)) { error in
            XCTAssertEqual((error as? TrustListError)?.code, .x5chainNotProtected)
        }
    }
}
