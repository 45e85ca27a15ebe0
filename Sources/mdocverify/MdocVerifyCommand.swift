import ArgumentParser
import Foundation
import MdocCrypto
import MdocStore

/// `mdocverify`: batch and offline verification of ISO/IEC 18013-5 mobile documents.
///
/// Exit codes (documented in the README):
/// - 0: every input verified `valid`;
/// - 1: at least one input `invalid` or `indeterminate` (or rejected);
/// - 2: usage or setup error (unknown flag, unreadable trust folder, ...), with a message saying what to fix.
@main
struct MdocVerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mdocverify",
        abstract: "Verify ISO/IEC 18013-5 mobile documents (mDL) offline, in batches.",
        discussion: """
            Every command takes --color auto|always|never: auto (the default) colours standard \
            output only on a terminal, and not when NO_COLOR is set.
            Environment: MDOCVERIFY_TRUST, MDOCVERIFY_OUT and MDOCVERIFY_DB stand for --trust, --out \
            and --db when those are not given (verify; report reads MDOCVERIFY_OUT and MDOCVERIFY_DB).
            'mdocverify completions bash|zsh|fish' prints a shell completion script.
            Exit codes (verify; each command's --help gives its own): 0 all inputs valid; 1 at least one \
            invalid, indeterminate or rejected; 2 usage or setup error; 130 interrupted (Ctrl-C).
            """,
        version: ProcessorVersion.current,
        subcommands: [
            VerifyCommand.self, ReportCommand.self, SampleCommand.self, InspectCommand.self, ChecksCommand.self, ProofCommand.self,
            ImageCommand.self, TrustCommand.self, CaptureCommand.self, KioskCommand.self, SyncCommand.self,
            ServeCommand.self, IntakeCommand.self, QueueCommand.self, WorkerCommand.self, CompletionsCommand.self,
        ],
        defaultSubcommand: nil
    )

    /// Runs the command, mapping argument and setup errors to exit code 2 (ArgumentParser's
    /// default would be 64) and keeping 0/1 for verification outcomes.
    static func main() async {
        let arguments: [String]
        do {
            arguments = try ColorOption.strip(Array(CommandLine.arguments.dropFirst())).arguments
        } catch {
            FileHandle.standardError.write(Data("mdocverify: \(error.message)\n".utf8))
            Foundation.exit(2)
        }
        if arguments == ["--version"] {
            print(ProcessorVersion.full)
            Foundation.exit(0)
        }
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as ExitCode {
            Foundation.exit(exit.rawValue)
        } catch let error as SetupError {
            FileHandle.standardError.write(Data("mdocverify: \(error.message)\n".utf8))
            Foundation.exit(2)
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help / --version
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(2)
        }
    }
}

/// An error in the run's setup (trust folder, key files, options): exit code 2.
struct SetupError: Error, CustomStringConvertible {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

enum ProcessorVersion {
    static let current = "0.1.0"

    /// `--version`: this build (its version and the commit it was built from, `unknown` when
    /// built outside a git checkout) and the libraries it runs with (OpenSSL and SQLite are linked
    /// from the system, so they may change under the same build).
    static var full: String {
        """
        mdocverify \(current)
        commit \(buildCommit)
        OpenSSL \(OpenSSLLibrary.version.replacingOccurrences(of: "OpenSSL ", with: ""))
        SQLite \(SQLiteLibrary.version ?? "unknown")
        """
    }
}
