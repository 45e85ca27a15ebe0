import Foundation
import MdocCrypto
import MdocTestSupport
import XCTest

/// SoftHSM2 tokens in a temporary folder, made once per test process: SoftHSM reads its
/// configuration (`SOFTHSM2_CONF`) when the module is first initialised, and the pkcs11 engine
/// lists the tokens then, so every token the tests use exists before the first key is loaded.
///
/// - `mdoc-signer` (PIN 246810): `processor`, a P-256 key made here and imported
///   (`softhsm2-util --import`), and `generated`, a P-384 key pair made inside the token
///   (`pkcs11-tool --keypairgen`);
/// - `mdoc-locked` (PIN 135790): the same imported key; only ever given a wrong PIN.
final class SoftHSMTokens: @unchecked Sendable {  // immutable after init
    static let modulePath = "/usr/lib/softhsm/libsofthsm2.so"
    static let signerPIN = "246810"
    static let lockedPIN = "135790"

    static let shared = Result { try SoftHSMTokens() }

    let folder: TemporaryFolder
    /// The key imported as `processor`.
    let importedKey: PrivateKey

    private init() throws {
        folder = try TemporaryFolder(prefix: "mdoc-softhsm")
        try folder.makeDirectory("tokens")
        let configuration = try folder.write(
            "softhsm2.conf",
            Array("directories.tokendir = \(folder.url("tokens"))\nobjectstore.backend = file\nlog.level = ERROR\n".utf8))
        setenv("SOFTHSM2_CONF", configuration, 1)
        importedKey = try PrivateKey.generate(curve: .p256)
        let keyFile = try folder.write("processor.pem", Array(try importedKey.pkcs8PEM().utf8))
        for (label, pin) in [("mdoc-signer", Self.signerPIN), ("mdoc-locked", Self.lockedPIN)] {
            try Self.run("softhsm2-util", ["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", "97531"])
            try Self.run(
                "softhsm2-util",
                ["--import", keyFile, "--token", label, "--label", "processor", "--id", "01", "--pin", pin])
        }
        try Self.run(
            "pkcs11-tool",
            [
                "--module", Self.modulePath, "--token-label", "mdoc-signer", "--login", "--pin", Self.signerPIN,
                "--keypairgen", "--key-type", "EC:secp384r1", "--label", "generated", "--id", "02",
            ])
    }

    struct ToolFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs a tool from PATH (Debian `softhsm2`, `opensc`; bin/setup installs them).
    private static func run(_ tool: String, _ arguments: [String]) throws {
        let (status, output) = try runProcess("/usr/bin/env", [tool] + arguments)
        guard status == 0 else {
            throw ToolFailure(description: "\(tool) \(arguments.joined(separator: " ")) failed (run bin/setup): \(output)")
        }
    }
}

/// Runs `executable` to completion; its exit status and its standard output and error together.
private func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (process.terminationStatus, text)
}

/// Private keys loaded from a PKCS#11 token (``PrivateKey/init(pkcs11URI:environment:)``) sign
/// exactly as file keys do, and every way of getting there wrong has its own error code.
final class PKCS11KeyTests: XCTestCase {
    private var tokens: SoftHSMTokens!

    override func setUpWithError() throws {
        tokens = try SoftHSMTokens.shared.get()
    }

    /// The tokens live as long as the process (SoftHSM holds them open); their folder goes when
    /// the last of these tests has run.
    override class func tearDown() {
        if case .success(let tokens) = SoftHSMTokens.shared {
            try? FileManager.default.removeItem(atPath: tokens.folder.path)
        }
        super.tearDown()
    }

    private func uri(_ path: String, _ query: String = "pin-value=\(SoftHSMTokens.signerPIN)") -> String {
        "pkcs11:\(path)?module-path=\(SoftHSMTokens.modulePath)" + (query.isEmpty ? "" : "&\(query)")
    }

    private func assertCode(
        _ code: CryptoError.Code, _ body: @autoclosure () throws -> some Any, file: StaticString = #filePath,
        line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            XCTAssertEqual((error as? CryptoError)?.code, code, "\(error)", file: file, line: line)
        }
    }

    /// ES256 as COSE needs it (raw r‖s, RFC 9053 §2.1) with the key in the token, checked with
    /// the public key of the file the key was imported from.
    func testSignsWithAnImportedTokenKey() throws {
        let key = try PrivateKey(pkcs11URI: uri("token=mdoc-signer;object=processor;type=private"), environment: [:])
        XCTAssertEqual(key.curve, .p256)
        XCTAssertTrue(key.publicKey.isSameKey(as: tokens.importedKey.publicKey))
        let message = Array("proof payload".utf8)
        let signature = try key.sign(message: message, hash: .sha256)
        XCTAssertEqual(signature.count, 64)
        XCTAssertTrue(try tokens.importedKey.publicKey.verify(signature: signature, message: message, hash: .sha256))
        XCTAssertFalse(try tokens.importedKey.publicKey.verify(signature: signature, message: message + [0], hash: .sha256))
        // The private half never leaves the token.
        assertCode(.keyNotExportable, try key.pkcs8PEM())
        assertCode(.keyNotExportable, try key.rawPrivateBytes())
    }

    /// A key pair made inside the token (P-384, found by its id) signs ES384.
    func testSignsWithAKeyMadeInTheToken() throws {
        let key = try PrivateKey(pkcs11URI: uri("token=mdoc-signer;id=%02"), environment: [:])
        XCTAssertEqual(key.curve, .p384)
        let message = Array("run manifest".utf8)
        let signature = try key.sign(message: message, hash: .sha384)
        XCTAssertEqual(signature.count, 96)
        XCTAssertTrue(try key.publicKey.verify(signature: signature, message: message, hash: .sha384))
    }

    /// The PIN from `pin-source` (a path or a `file:` URI, first line), from the environment,
    /// and the loader that takes either a URI or a PEM path.
    func testPINSourcesAndTheLoader() throws {
        let pinFile = try tokens.folder.write("pin.txt", Array("\(SoftHSMTokens.signerPIN)\r\nignored\n".utf8))
        let path = "token=mdoc-signer;object=processor"
        for text in [uri(path, "pin-source=\(pinFile)"), uri(path, "pin-source=file:\(pinFile)"), uri(path, "")] {
            let key = try PrivateKey.load(
                signingKey: text, environment: [PKCS11URI.pinEnvironmentVariable: SoftHSMTokens.signerPIN])
            XCTAssertTrue(key.publicKey.isSameKey(as: tokens.importedKey.publicKey), text)
        }
        let fromFile = try PrivateKey.load(signingKey: tokens.folder.url("processor.pem"), environment: [:])
        XCTAssertTrue(fromFile.publicKey.isSameKey(as: tokens.importedKey.publicKey))
        assertCode(.invalidPKCS11URI, try PrivateKey(pkcs11URI: uri(path, "pin-source=\(pinFile).missing"), environment: [:]))
    }

    /// A wrong PIN, and none at all (the URI gives none and neither does the environment).
    func testWrongOrMissingPINIsALoginFailure() {
        assertCode(
            .pkcs11LoginFailed,
            try PrivateKey(pkcs11URI: uri("token=mdoc-locked;object=processor", "pin-value=000000"), environment: [:]))
        assertCode(.pkcs11LoginFailed, try PrivateKey(pkcs11URI: uri("token=mdoc-locked;object=processor", ""), environment: [:]))
    }

    func testMissingTokenAndKeyHaveTheirOwnCodes() {
        assertCode(.pkcs11TokenNotFound, try PrivateKey(pkcs11URI: uri("token=no-such-token;object=processor"), environment: [:]))
        assertCode(.pkcs11KeyNotFound, try PrivateKey(pkcs11URI: uri("token=mdoc-signer;object=no-such-key"), environment: [:]))
        assertCode(.pkcs11KeyNotFound, try PrivateKey(pkcs11URI: uri("token=mdoc-signer;id=%7f"), environment: [:]))
    }

    /// A module that is not there, and a file that is not a PKCS#11 module.
    func testMissingOrBrokenModuleIsUnavailable() throws {
        assertCode(
            .pkcs11Unavailable,
            try PrivateKey(pkcs11URI: "pkcs11:token=mdoc-signer?module-path=/nonexistent/libpkcs11.so", environment: [:]))
        let notAModule = try tokens.folder.write("not-a-module.so", Array("text".utf8))
        assertCode(
            .pkcs11Unavailable,
            try PrivateKey(
                pkcs11URI: "pkcs11:token=mdoc-signer?module-path=\(notAModule)&pin-value=\(SoftHSMTokens.signerPIN)",
                environment: [:]))
    }

    func testMalformedURIsAreRefused() {
        for text in [
            "file:/key.pem", "pkcs11:token", "pkcs11:=x", "pkcs11:token=a;token=b", "pkcs11:slot-id=1",
            "pkcs11:token=a;type=public", "pkcs11:object=%zz", "pkcs11:token=a?module-name=softhsm2",
            "pkcs11:token=a?module-path=relative.so", "pkcs11:token=a?pin-value=1&pin-source=/p",
            "pkcs11:token=a?pin-value=1&pin-value=2", "pkcs11:token=%ff%fe",
            "pkcs11:token=" + String(repeating: "a", count: PKCS11URI.maximumByteCount),
        ] {
            assertCode(.invalidPKCS11URI, try PKCS11URI(text))
        }
    }

    func testURIAttributesAreDecoded() throws {
        let uri = try PKCS11URI(
            "PKCS11:token=My%20Token;manufacturer=SoftHSM%20project;serial=5e;model=x;object=a%3Bb;id=%01%FF;pin-value=1%262?module-path=/m.so"
        )
        XCTAssertEqual(uri.token, "My Token")
        XCTAssertEqual(uri.manufacturer, "SoftHSM project")
        XCTAssertEqual(uri.serial, "5e")
        XCTAssertEqual(uri.model, "x")
        XCTAssertEqual(uri.object, "a;b")
        XCTAssertEqual(uri.id, [0x01, 0xFF])
        XCTAssertEqual(uri.pinValue, "1&2")
        XCTAssertEqual(uri.modulePath, "/m.so")
        XCTAssertEqual(try uri.pin(environment: [PKCS11URI.pinEnvironmentVariable: "other"]), "1&2")
        XCTAssertNil(try PKCS11URI("pkcs11:token=t").pin(environment: [:]))
    }

    func testOverlongPINSourceIsRefused() throws {
        let tokens = try XCTUnwrap(tokens)
        let limit = PKCS11URI.maximumPINByteCount
        let atLimit = try tokens.folder.write("pin-at-limit", Array(String(repeating: "7", count: limit).utf8))
        XCTAssertEqual(try PKCS11URI("pkcs11:token=t?pin-source=\(atLimit)").pin(environment: [:])?.count, limit)
        let over = try tokens.folder.write("pin-over", Array(String(repeating: "7", count: limit + 1).utf8))
        assertCode(.invalidPKCS11URI, try PKCS11URI("pkcs11:token=t?pin-source=\(over)").pin(environment: [:]))
    }
}

/// Without the OpenSSL pkcs11 engine a token key is `.pkcs11Unavailable`. OpenSSL keeps an
/// engine once it has loaded it, so this runs in a child process of its own (the test binary
/// again) whose `OPENSSL_ENGINES` names an empty folder.
final class PKCS11EngineTests: XCTestCase {
    private static let childMarker = "MDOCVERIFY_TEST_WITHOUT_PKCS11_ENGINE"

    func testMissingEngineIsUnavailable() throws {
        let empty = try TemporaryFolder(prefix: "mdoc-no-engines")
        var environment = ProcessInfo.processInfo.environment
        environment["OPENSSL_ENGINES"] = empty.path
        environment[Self.childMarker] = "1"
        let (status, text) = try runProcess(
            CommandLine.arguments[0], ["MdocCryptoTests.PKCS11EngineTests/testWithoutTheEngine"], environment: environment)
        XCTAssertEqual(status, 0, text)
        XCTAssertTrue(text.contains("Executed 1 test, with 0 failures"), text)
        XCTAssertTrue(text.contains("PKCS11EngineTests.testWithoutTheEngine' passed"), text)
    }

    /// The child's side of ``testMissingEngineIsUnavailable()``.
    func testWithoutTheEngine() throws {
        guard ProcessInfo.processInfo.environment[Self.childMarker] != nil else {
            throw XCTSkip("runs in the child process of testMissingEngineIsUnavailable")
        }
        XCTAssertThrowsError(
            try PrivateKey(
                pkcs11URI: "pkcs11:token=any?module-path=\(SoftHSMTokens.modulePath)&pin-value=1234", environment: [:])
        ) { error in
            XCTAssertEqual((error as? CryptoError)?.code, .pkcs11Unavailable, "\(error)")
        }
    }
}
