import Foundation
import MdocChecks
import MdocCrypto
import MdocTestSupport
import MdocVerification
import XCTest

/// `session.*` (SessionChecks.swift), on Annex D's session messages.
final class SessionChecksTests: XCTestCase {
    func annexDSession() throws -> TransactionInputs {
        var inputs = TransactionInputs()
        inputs.sessionEstablishment = try AnnexD.sessionEstablishment()
        inputs.sessionData = [try AnnexD.sessionData()]
        inputs.transcript = try AnnexD.sessionTranscriptBytes()
        inputs.readerKeyPEM = Array(try PrivateKey(curve: .p256, rawPrivate: try AnnexD.eReaderKeyPrivate()).pkcs8PEM().utf8)
        return inputs
    }

    func testTheSessionOpensAndGivesTheResponse() throws {
        let opened = openSession(try annexDSession())
        for id: CheckID in [.sessionTranscript, .sessionReaderKey, .sessionEstablishment, .sessionData, .readerRequest] {
            XCTAssertEqual(opened.checks.of(id).map(\.status), [.pass], id.rawValue)
        }
        // The decrypted response goes back to the caller (a transaction's session keeps it); the
        // verification keeps no copy.
        XCTAssertEqual(opened.decryptedResponse, try AnnexD.deviceResponse())
        XCTAssertNil(opened.facts.deviceResponseBytes)
        XCTAssertNotNil(opened.facts.deviceRequest)
        XCTAssertNil(opened.facts.undecryptedReason)
    }

    /// Without the reader key the session cannot be decrypted: unchecked, with the reason.
    func testWithoutTheReaderKeyItIsUnchecked() throws {
        var inputs = try annexDSession()
        inputs.readerKeyPEM = nil
        let opened = openSession(inputs)
        XCTAssertEqual(opened.checks.of(.sessionData).map(\.status), [.unchecked])
        XCTAssertTrue(opened.facts.undecryptedReason?.contains("reader key") ?? false)
        XCTAssertNil(opened.facts.deviceResponseBytes)
        // A tampered message fails.
        var tampered = try annexDSession()
        tampered.sessionData[0][tampered.sessionData[0].count - 3] ^= 1
        XCTAssertEqual(openSession(tampered).checks.of(.sessionData).map(\.status), [.fail])
    }
}
