import ArgumentParser
import MdocChecks

/// `mdocverify checks`: the check catalogue.
struct ChecksCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checks",
        abstract: "List every check: id, the clause it enforces, and what it checks.")

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
                    "timeDependent": .bool(definition.timeDependent),
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
                print("  \(id)  \(definition.summary)\(marks)")
                print("  \(String(repeating: " ", count: width))  \(Style.dim(definition.clause))")
            }
            print("\n\(all.count) checks. Statuses: pass, fail, warn, skipped (not applicable), unchecked (could not be performed).")
        }
    }
}

enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
