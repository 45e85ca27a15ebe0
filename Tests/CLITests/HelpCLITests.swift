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

    /// --version names the build, the commit it was built from, and the OpenSSL and SQLite it runs with.
    func testVersionNamesTheCommitAndTheLibraries() throws {
        let version = try CLI.run(["--version"])
        XCTAssertEqual(version.status, 0)
        let lines = version.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 4, version.stdout)
        XCTAssertTrue(lines[0].hasPrefix("mdocverify 0."), version.stdout)
        XCTAssertEqual(String(lines[1]), "commit " + (try Self.checkoutCommit(CLI.packageRoot.path)), version.stdout)
        XCTAssertTrue(lines[2].range(of: #"^OpenSSL 3\.[0-9]+\.[0-9]+"#, options: .regularExpression) != nil, version.stdout)
        XCTAssertTrue(lines[3].range(of: #"^SQLite 3\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil, version.stdout)
    }

    /// The commit of the checkout at `root` as git tells it, "-dirty" when tracked files differ.
    static func checkoutCommit(_ root: String) throws -> String {
        let head = try CLI.runProcess("/usr/bin/git", ["-C", root, "rev-parse", "HEAD"])
        guard head.status == 0 else { return "unknown" }
        let status = try CLI.runProcess("/usr/bin/git", ["-C", root, "status", "--porcelain", "--untracked-files=no"])
        let commit = head.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return status.stdout.isEmpty ? commit : commit + "-dirty"
    }

    /// What scripts/build-commit.sh (run before every build) names: the checkout's own commit,
    /// "-dirty" with changes, "unknown" without git metadata or inside another repository, and
    /// the file is rewritten only when the name changes.
    func testTheBuildNamesItsOwnCommitOrUnknownNeverAnother() throws {
        let folder = try TemporaryFolder(prefix: "mdocverify-build-commit")
        let script = CLI.packageRoot.appendingPathComponent("scripts/build-commit.sh").path
        func named(_ root: String) throws -> String {
            let out = folder.url("out/BuildCommit.swift")
            let run = try CLI.runProcess("/bin/sh", [script, root, out])
            XCTAssertEqual(run.status, 0, run.stderr)
            let text = try String(contentsOfFile: out, encoding: .utf8)
            let match = try XCTUnwrap(text.firstMatch(of: /let buildCommit = "([^"]*)"/), text)
            return String(match.output.1)
        }
        func git(_ arguments: [String]) throws {
            let run = try CLI.runProcess("/usr/bin/git", ["-C", folder.url("repo"), "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments)
            XCTAssertEqual(run.status, 0, run.stderr)
        }
        try folder.write("plain/Package.swift", Array("// no git here\n".utf8))
        XCTAssertEqual(try named(folder.url("plain")), "unknown")

        try folder.write("repo/Package.swift", Array("// one\n".utf8))
        try folder.write("repo/inner/Package.swift", Array("// a package inside another repository\n".utf8))
        try git(["init", "-q"])
        try git(["add", "."])
        try git(["commit", "-q", "-m", "one"])
        let head = try Self.checkoutCommit(folder.url("repo"))
        XCTAssertEqual(head.count, 40, head)
        XCTAssertEqual(try named(folder.url("repo")), head)
        XCTAssertEqual(try named(folder.url("repo/inner")), "unknown", "never the outer repository's commit")

        let out = folder.url("out/BuildCommit.swift")
        XCTAssertEqual(try named(folder.url("repo")), head)
        let written = try FileManager.default.attributesOfItem(atPath: out)[.modificationDate] as? Date
        Thread.sleep(forTimeInterval: 1.1)
        XCTAssertEqual(try named(folder.url("repo")), head)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: out)[.modificationDate] as? Date, written, "unchanged: not rewritten")

        try folder.write("repo/Package.swift", Array("// two\n".utf8))
        XCTAssertEqual(try named(folder.url("repo")), head + "-dirty")
    }
}
