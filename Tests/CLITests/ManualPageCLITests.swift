import Foundation
import MdocTestSupport
import XCTest

/// The committed manual page (docs/mdocverify.1, written by bin/man-page from the command
/// definitions) describes the CLI as it is: every command and subcommand, and every option each
/// shows in --help, as the binary itself lists them (`--experimental-dump-help`).
final class ManualPageCLITests: XCTestCase {
    /// A command of the dump: its path and the long names of the options and flags it shows.
    struct Command {
        var path: [String]
        var abstract: String
        var options: [String]
    }

    /// Every command the binary shows, from the root down.
    func commands() throws -> [Command] {
        let dump = try CLI.run(["--experimental-dump-help"])
        XCTAssertEqual(dump.status, 0, dump.stderr)
        let root = try XCTUnwrap((try JSONSerialization.jsonObject(with: Data(dump.stdout.utf8)) as? [String: Any])?["command"] as? [String: Any])
        var found: [Command] = []
        func walk(_ command: [String: Any], _ path: [String]) {
            let arguments = command["arguments"] as? [[String: Any]] ?? []
            let options = arguments.filter { ($0["shouldDisplay"] as? Bool) != false && ($0["kind"] as? String) != "positional" }
                .compactMap { argument in
                    (argument["names"] as? [[String: Any]])?.first { $0["kind"] as? String == "long" }?["name"] as? String
                }
            found.append(Command(path: path, abstract: command["abstract"] as? String ?? "", options: options))
            for sub in command["subcommands"] as? [[String: Any]] ?? [] where (sub["shouldDisplay"] as? Bool) != false {
                walk(sub, path + [sub["commandName"] as? String ?? "?"])
            }
        }
        walk(root, ["mdocverify"])
        return found
    }

    func testTheCommittedManualPageHasEverySubcommandAndOption() throws {
        let page = try String(contentsOf: CLI.packageRoot.appendingPathComponent("docs/mdocverify.1"), encoding: .utf8)
        XCTAssertTrue(page.contains(".Dt MDOCVERIFY 1"), "a section 1 page")
        let lines = page.split(separator: "\n").map(String.init)
        let commands = try commands()
        XCTAssertGreaterThan(commands.count, 20, "the dump lists the subcommands")
        var missing: [String] = []
        for command in commands {
            // A subcommand is an item of its parent's list.
            if command.path.count > 1, !lines.contains(".It Em \(command.path.last ?? "")") {
                missing.append(command.path.joined(separator: " "))
            }
            for option in command.options where !page.contains("Fl -\(option)") {
                missing.append("\(command.path.joined(separator: " ")) --\(option)")
            }
        }
        XCTAssertEqual(missing, [], "docs/mdocverify.1 is behind the CLI: run bin/man-page and commit it")
        // Each command's one-line summary is there too (an edited --help shows up as a change).
        for command in commands where !command.abstract.isEmpty && !page.contains(command.abstract) {
            XCTFail("no \"\(command.abstract)\" (\(command.path.joined(separator: " "))) in docs/mdocverify.1: run bin/man-page")
        }
    }
}
