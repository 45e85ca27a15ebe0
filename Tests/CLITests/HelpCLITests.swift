import Foundation
import MdocTestSupport
import XCTest

/// `--help` of every command says what each exit code means, Ctrl-C included.
final class HelpCLITests: XCTestCase {
    static let commands: [[String]] = [
        ["verify"], ["report"], ["sample"], ["inspect"], ["checks"], ["proof", "verify"], ["proof", "show"], ["proof", "export"],
        ["image"], ["trust", "show"], ["capture"], ["kiosk", "init"], ["kiosk", "status"], ["kiosk", "export"],
        ["kiosk", "receipts"], ["sync"], ["serve"], ["intake"], ["completions"],
    ]

    func testEveryCommandListsItsExitCodes() throws {
        for command in Self.commands {
            let help = try CLI.run(command + ["--help"])
            XCTAssertEqual(help.status, 0, "\(command): \(help.stderr)")
            let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
            XCTAssertTrue(text.contains("Exit codes: 0 "), "\(command): \(help.stdout)")
            XCTAssertTrue(text.contains("2 usage"), "\(command): \(help.stdout)")
            // Ctrl-C: 130, or for the server, a clean stop.
            XCTAssertTrue(text.contains("130 interrupted") || text.contains("130 cancelled") || text.contains("SIGINT, Ctrl-C"),
                          "\(command): \(help.stdout)")
        }
    }

    /// The format rule is said loudly: JSON only when asked.
    func testVerifyHelpSaysJSONOnlyWhenAsked() throws {
        let help = try CLI.run(["verify", "--help"])
        let text = help.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        XCTAssertTrue(text.contains("JSON Lines only with --format json"), help.stdout)
        XCTAssertTrue(text.contains("docs/json-lines.md"), help.stdout)
    }

    /// Completion scripts for the three shells, each naming the subcommands; bash and zsh parse them.
    func testCompletionScriptsForEachShell() throws {
        for (shell, marker) in [("bash", "-F _mdocverify mdocverify"), ("zsh", "#compdef mdocverify"), ("fish", "complete -c 'mdocverify'")] {
            let script = try CLI.run(["completions", shell])
            XCTAssertEqual(script.status, 0, script.stderr)
            XCTAssertTrue(script.stdout.contains(marker), "\(shell): \(script.stdout.prefix(300))")
            for command in ["verify", "report", "proof", "completions"] {
                XCTAssertTrue(script.stdout.contains(command), "\(shell) completes \(command)")
            }
        }
        let bash = try CLI.run(["completions", "bash"])
        let path = NSTemporaryDirectory() + "mdocverify-completion-\(UUID().uuidString).bash"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bash.stdout.utf8).write(to: URL(fileURLWithPath: path))
        let parsed = try CLI.runProcess("/bin/bash", ["-n", path])
        XCTAssertEqual(parsed.status, 0, parsed.stderr)
        XCTAssertEqual(try CLI.run(["completions", "tcsh"]).status, 2)
    }

    /// --version names the build and the OpenSSL and SQLite it runs with.
    func testVersionNamesTheLibraries() throws {
        let version = try CLI.run(["--version"])
        XCTAssertEqual(version.status, 0)
        let lines = version.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 3, version.stdout)
        XCTAssertTrue(lines[0].hasPrefix("mdocverify 0."), version.stdout)
        XCTAssertTrue(lines[1].range(of: #"^OpenSSL 3\.[0-9]+\.[0-9]+"#, options: .regularExpression) != nil, version.stdout)
        XCTAssertTrue(lines[2].range(of: #"^SQLite 3\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil, version.stdout)
    }
}
