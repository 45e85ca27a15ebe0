import Foundation
import MdocChecks
import MdocCrypto
import MdocIntake
import MdocKiosk
import MdocSeal
import MdocTestSupport
import NIOConcurrencyHelpers
import XCTest

/// A centre's files (sealing and processor keys and certificates, a kiosks folder) and a kiosk
/// made with `mdocverify kiosk init`, enrolled, whose outbox the tests fill with Annex D captures.
final class KioskCLIFixture {
    let folder: TemporaryFolder
    let kioskDirectory: String
    let out: String
    /// The centre's sealing key, which opens every record sealed to it.
    let sealingKey: PrivateKey

    init(kiosk: String = "kiosk-9") throws {
        folder = try TemporaryFolder(prefix: "mdocverify-kiosk-cli")
        let sealing = try KioskPKI.identity(commonName: "centre sealing")
        sealingKey = sealing.key
        let processor = try KioskPKI.identity(commonName: "centre processor")
        try folder.write("centre/seal-key.pem", Array(try sealing.key.pkcs8PEM().utf8))
        try folder.write("centre/seal-cert.pem", Array(sealing.certificate.pem.utf8))
        try folder.write("centre/proc-key.pem", Array(try processor.key.pkcs8PEM().utf8))
        try folder.write("centre/proc-cert.pem", Array(processor.certificate.pem.utf8))
        try folder.makeDirectory("centre/kiosks")
        kioskDirectory = folder.url("kiosk")
        out = folder.url("centre/out")
        let created = try CLI.run([
            "kiosk", "init", "--id", kiosk, "--central-cert", folder.url("centre/seal-cert.pem"),
            "--receipt-cert", folder.url("centre/proc-cert.pem"), "--dir", kioskDirectory,
        ])
        XCTAssertEqual(created.status, 0, created.stderr)
        try FileManager.default.copyItem(atPath: kioskDirectory + "/kiosk-cert.pem", toPath: folder.url("centre/kiosks/\(kiosk).pem"))
    }

    /// The centre's options, `serve` and `intake` alike.
    var centreOptions: [String] {
        [
            "--sealing-key", folder.url("centre/seal-key.pem"), "--signing-key", folder.url("centre/proc-key.pem"),
            "--signing-cert", folder.url("centre/proc-cert.pem"), "--kiosks", folder.url("centre/kiosks"),
            "--trust", CLI.packageRoot.appendingPathComponent("samples/annex-d/trust").path, "--out", out,
        ]
    }

    /// Seals `count` Annex D captures into the kiosk's outbox; their hashes.
    func seal(_ count: Int) throws -> Set<RecordHash> {
        let outbox = try Outbox(directory: kioskDirectory)
        var hashes: Set<RecordHash> = []
        for index in 0..<count {
            let record = try outbox.seal(KioskCapture(
                files: try KioskPKI.annexDFiles(id: "tx-\(index)"), consent: nil,
                verdict: KioskVerdict(atVerification: .valid, atCapture: .valid, verifiedAt: KioskPKI.annexDTime, trustSnapshot: "kiosk"),
                checks: [CheckResult(.init("mso.digest"), .pass, "ok")]))
            hashes.insert(record.hash)
        }
        return hashes
    }

    /// The records the centre holds (each once: the hash is the store's key).
    func centreHashes() throws -> [RecordHash] {
        guard FileManager.default.fileExists(atPath: out + "/intake.sqlite") else { return [] }
        return try IntakeStore(path: out + "/intake.sqlite").records().map(\.hash)
    }

    /// Nothing lost, nothing deleted without a receipt, nothing stored twice: every sealed record
    /// is at the centre or still in the outbox, and each one the kiosk deleted is at the centre.
    func assertInvariants(sealed: Set<RecordHash>, file: StaticString = #filePath, line: UInt = #line) throws {
        let centre = try centreHashes()
        XCTAssertEqual(centre.count, Set(centre).count, "a record stored twice", file: file, line: line)
        let outbox = try Outbox(directory: kioskDirectory)
        let waiting = try outbox.hashes()
        let delivered = try outbox.deliveredHashes()
        XCTAssertTrue(sealed.subtracting(Set(centre)).isSubset(of: waiting), "a record lost", file: file, line: line)
        XCTAssertTrue(delivered.isSubset(of: Set(centre)), "a record deleted without the centre holding it", file: file, line: line)
        XCTAssertEqual(waiting.union(delivered), sealed, "the outbox's records and receipts", file: file, line: line)
        XCTAssertTrue(Set(centre).isSubset(of: sealed), file: file, line: line)
    }

    /// After a complete sync: everything at the centre exactly once, nothing left in the outbox.
    func assertAllDelivered(sealed: Set<RecordHash>, file: StaticString = #filePath, line: UInt = #line) throws {
        try assertInvariants(sealed: sealed, file: file, line: line)
        let centre = try centreHashes()
        XCTAssertEqual(centre.count, sealed.count, file: file, line: line)
        XCTAssertEqual(Set(centre), sealed, file: file, line: line)
        XCTAssertTrue(try Outbox(directory: kioskDirectory).hashes().isEmpty, "the outbox holds what has a receipt", file: file, line: line)
    }
}

/// A `mdocverify serve` process (optionally inside a network namespace), stopped when dropped.
final class ServeProcess {
    let process = Process()
    /// What the server printed, appended by the pipe's handler.
    private final class Output: Sendable {
        let text = NIOLockedValueBox("")
    }

    private let output = Output()
    private(set) var port = 0

    init(_ arguments: [String], namespace: String? = nil) throws {
        if let namespace {
            process.executableURL = URL(fileURLWithPath: NetworkNamespaces.ip)
            process.arguments = ["netns", "exec", namespace, CLI.binary.path, "serve"] + arguments
        } else {
            process.executableURL = CLI.binary
            process.arguments = ["serve"] + arguments
        }
        process.currentDirectoryURL = CLI.packageRoot
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        pipe.fileHandleForReading.readabilityHandler = { [output] handle in
            let data = handle.availableData
            output.text.withLockedValue { $0 += String(decoding: data, as: UTF8.self) }
        }
        try process.run()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let text = output.text.withLockedValue { $0 }
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                let bound = line.split(separator: ":").last.flatMap({ Int($0) })
            {
                port = bound
                return
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        throw NSError(domain: "serve", code: 1, userInfo: [NSLocalizedDescriptionKey: "serve did not start: \(output.text.withLockedValue { $0 })"])
    }

    var log: String { output.text.withLockedValue { $0 } }

    /// SIGKILL, as a crash or a power cut would stop it.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
    }
}
