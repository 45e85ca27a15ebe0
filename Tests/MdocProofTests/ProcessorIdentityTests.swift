import Foundation
import MdocCrypto
import MdocProof
import MdocTestSupport
import XCTest

/// The local processor identity: made once, never replaced, and a clear error when half of it is gone.
final class ProcessorIdentityTests: XCTestCase {
    func testTheIdentityIsCreatedOnceAndThenLoaded() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-identity")
        let keys = folder.url("out/keys")
        let first = try ProcessorIdentity.local(directory: keys)
        XCTAssertTrue(first.created)
        XCTAssertTrue(first.certificate.publicKey.isSameKey(as: first.key.publicKey))
        let attributes = try FileManager.default.attributesOfItem(atPath: "\(keys)/processor-key.pem")
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let second = try ProcessorIdentity.local(directory: keys)
        XCTAssertFalse(second.created)
        XCTAssertEqual(second.certificate, first.certificate)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: keys)), ["processor-key.pem", "processor-cert.pem", ".identity.lock"])
    }

    func testAKeyWithoutItsCertificateIsAnErrorAndTheKeyStays() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-identity")
        let keys = folder.url("keys")
        _ = try ProcessorIdentity.local(directory: keys)
        let key = try Data(contentsOf: URL(fileURLWithPath: "\(keys)/processor-key.pem"))
        try FileManager.default.removeItem(atPath: "\(keys)/processor-cert.pem")
        XCTAssertThrowsError(try ProcessorIdentity.local(directory: keys)) { error in
            XCTAssertTrue("\(error)".contains("processor-key.pem has no certificate beside it"), "\(error)")
            XCTAssertTrue("\(error)".contains("never replaced"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(keys)/processor-key.pem")), key)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(keys)/processor-cert.pem"))
    }

    func testACertificateWithoutItsKeyOrOfAnotherKeyIsAnError() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-identity")
        let keys = folder.url("keys")
        _ = try ProcessorIdentity.local(directory: keys)
        let other = try ProcessorIdentity.local(directory: folder.url("other"))
        let key = try Data(contentsOf: URL(fileURLWithPath: "\(keys)/processor-key.pem"))
        try Data(other.certificate.pem.utf8).write(to: URL(fileURLWithPath: "\(keys)/processor-cert.pem"))
        XCTAssertThrowsError(try ProcessorIdentity.local(directory: keys)) { XCTAssertTrue("\($0)".contains("does not certify"), "\($0)") }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: "\(keys)/processor-key.pem")), key)
        try FileManager.default.removeItem(atPath: "\(keys)/processor-key.pem")
        XCTAssertThrowsError(try ProcessorIdentity.local(directory: keys)) { XCTAssertTrue("\($0)".contains("has no key beside it"), "\($0)") }
    }

    /// A creator that stopped between linking the key and the certificate: the next one finishes.
    func testACreationStoppedBetweenTheTwoLinksIsFinished() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-identity")
        let keys = folder.url("keys")
        let made = try ProcessorIdentity.local(directory: keys)
        try FileManager.default.moveItem(atPath: "\(keys)/processor-cert.pem", toPath: "\(keys)/.processor-cert.pem.new")
        let finished = try ProcessorIdentity.local(directory: keys)
        XCTAssertEqual(finished.certificate, made.certificate)
        XCTAssertFalse(finished.created)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "\(keys)/.processor-cert.pem.new"))
    }

    /// Many creators at once (each its own open file description, as separate processes have):
    /// one key, and every one of them gets it.
    func testConcurrentCreatorsMakeOneIdentity() async throws {
        for _ in 0..<5 {
            let folder = try TemporaryFolder(prefix: "mdocverify-identity")
            let keys = folder.url("keys")
            let identities = try await withThrowingTaskGroup(of: ProcessorIdentity.self) { group in
                for _ in 0..<8 { group.addTask { try ProcessorIdentity.local(directory: keys) } }
                var all: [ProcessorIdentity] = []
                for try await identity in group { all.append(identity) }
                return all
            }
            XCTAssertEqual(identities.filter(\.created).count, 1)
            XCTAssertEqual(Set(identities.map(\.certificate)).count, 1)
        }
    }
}
