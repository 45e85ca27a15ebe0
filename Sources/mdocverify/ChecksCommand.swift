import ArgumentParser
import MdocChecks

/// `mdocverify checks`: the check catalogue.
struct ChecksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checks",
        abstract: "List every check: id, the clause it enforces, and what it checks.",
        discussion: "Exit codes: 0 listed; 2 usage error; 130 interrupted (Ctrl-C).")

    @Option(name: .long, help: "Output format: text or json.")
    var format: OutputFormat = .text

    func run() throws {
        let all = CheckCatalogue.all
        switch format {
        case .json:
            for definition in all {
                let object: [String: JSONValue] = [
                    "id": .string(definition.id.rawValue), "clause": .string(definition.clause),
                    "summary": .string(definition.summary), "requiredForVerdict": .bool(definition.requiredForVerdict),
                    "timeDependent": .bool(definition.timeDependent), "failureClass": .string(definition.failureClass.rawValue),
                ]
                print(JSONValue.object(object).serialized())
            }
        case .text:
            let width = all.map { $0.id.rawValue.count }.max() ?? 10
            var family = ""
            for definition in all {
                if definition.id.family != family {
                    family = definition.id.family
                    print("\n\(Style.bold(family))")
                }
                let id = definition.id.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
                let marks = (definition.timeDependent ? " [at capture and now]" : "")
                    + (definition.requiredForVerdict ? "" : " [optional]")
                print("  \(id)  \(definition.summary)\(marks)" + Style.dim(" [\(definition.failureClass.rawValue)]"))
                print("  \(String(repeating: " ", count: width))  \(Style.dim(definition.clause))")
            }
            print("""

                \(all.count) checks. Statuses: pass, fail, warn, skipped (not applicable), unchecked (could not be performed).
                [at capture and now]: judged at the capture time and at the verification time.
                [optional]: left unchecked (e.g. no CRL, no reader trust folder), it does not make the verdict \
                indeterminate; a failure still makes it invalid.
                A failure is [authenticity] (forged, tampered, malformed or untrusted data), [validity] \
                (expired, not yet valid or revoked at the instant judged) or [policy] (consent, upload \
                limits, request coverage).
                """)
        }
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
