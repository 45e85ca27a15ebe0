import ArgumentParser
import Foundation
import MdocSeal
import MdocTime

/// `mdocverify intake FOLDER…`: carried records, processed as the HTTP intake processes them.
struct IntakeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "intake",
        abstract: "Take in sealed records carried as files (<sha256>.cose) and write a signed receipts file for the kiosk.",
        discussion: """
            Apply the receipts file at the kiosk with 'mdocverify kiosk receipts'. Exit codes: 0 every record stored \
            (or already stored); 1 some were refused (the receipts say why); 2 usage or setup error; 130 interrupted (Ctrl-C).
            """)

    @Argument(help: "Folders of .cose records (or single .cose files).")
    var inputs: [String]

    @OptionGroup var centre: CentreOptions

    @Option(name: .long, help: "The receipts file to write (default <out>/receipts-<time>.cose).")
    var receipts: String?

    func run() async throws {
        var paths: [String] = []
        for input in inputs {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: input, isDirectory: &isFolder) else { throw SetupError("\(input) does not exist") }
            paths += isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: input)) ?? []).filter { $0.hasSuffix(".cose") }.sorted()
                    .map { (input as NSString).appendingPathComponent($0) }
                : [input]
        }
        guard !paths.isEmpty else { throw SetupError("no .cose records in \(inputs.joined(separator: ", "))") }
        let intake = try centre.makeIntake(command: "intake")
        let showProgress = isatty(STDERR_FILENO) == 1
        let signed: [UInt8]
        do {
            signed = try await intake.accept(carried: paths, read: InputFile.read) { done in
                guard showProgress else { return }
                FileHandle.standardError.write(Data("\r\u{1B}[2Kintake: \(Counting.number(done))/\(Counting.number(paths.count)) records".utf8))
            }
            if showProgress { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
            try intake.recorder?.finish()
        } catch {
            if showProgress { FileHandle.standardError.write(Data("\n".utf8)) }
            throw SetupError("\(error)")
        }
        let receipt = try Receipt.verified(signed, signer: intake.signingCertificate)
        let stamp = RFC3339.format(receipt.issuedAt).replacingOccurrences(of: ":", with: "")
        let path = receipts ?? (centre.out as NSString).appendingPathComponent("receipts-\(stamp).cose")
        do {
            try Data(signed).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw SetupError("cannot write \(path): \(error.localizedDescription)")
        }
        var counts: [String: Int] = [:]
        for entry in receipt.entries {
            if case .rejected(let code) = entry.outcome {
                counts["rejected (\(code))", default: 0] += 1
            } else {
                counts[entry.outcome.name, default: 0] += 1
            }
        }
        print(counts.sorted { $0.key < $1.key }.map { "\(Counting.number($0.value)) \($0.key)" }.joined(separator: ", "))
        print("receipts: \(path)")
        if receipt.entries.contains(where: { !$0.outcome.isDelivered }) { throw ExitCode(1) }
    }
}
