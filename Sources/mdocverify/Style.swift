import Foundation

/// Terminal styling: ANSI colours per `--color auto|always|never` (any command); `auto`, the
/// default, colours standard output only when it is a terminal and NO_COLOR is unset.
enum Style {
    static let enabled: Bool = switch ColorOption.requested(CommandLine.arguments) {
    case .always: true
    case .never: false
    case .auto, nil: isatty(STDOUT_FILENO) == 1 && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty
    }

    static func wrap(_ text: String, _ code: String) -> String { enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }
    static func bold(_ text: String) -> String { wrap(text, "1") }
    static func dim(_ text: String) -> String { wrap(text, "2") }
    static func red(_ text: String) -> String { wrap(text, "31") }
    static func green(_ text: String) -> String { wrap(text, "32") }
    static func yellow(_ text: String) -> String { wrap(text, "33") }
}

/// `--color WHEN`, taken from the command line before the commands parse it, so that every
/// command accepts it.
enum ColorOption: String, CaseIterable {
    case auto, always, never

    /// The last `--color WHEN` or `--color=WHEN` of `arguments` (`nil`: none, or not a valid WHEN).
    static func requested(_ arguments: [String]) -> ColorOption? {
        (try? strip(Array(arguments.dropFirst())))?.mode
    }

    /// `arguments` without their `--color` options, and the mode they asked for.
    /// - Throws: a message naming the valid values when WHEN is missing or unknown.
    static func strip(_ arguments: [String]) throws(ColorOptionError) -> (arguments: [String], mode: ColorOption?) {
        var rest: [String] = []
        var mode: ColorOption?
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                rest += arguments[index...]
                break
            }
            var value: String?
            if argument == "--color" {
                guard index + 1 < arguments.count else { throw ColorOptionError(value: nil) }
                value = arguments[index + 1]
                index += 1
            } else if argument.hasPrefix("--color=") {
                value = String(argument.dropFirst("--color=".count))
            }
            if let value {
                guard let parsed = ColorOption(rawValue: value) else { throw ColorOptionError(value: value) }
                mode = parsed
            } else {
                rest.append(argument)
            }
            index += 1
        }
        return (rest, mode)
    }
}

struct ColorOptionError: Error {
    let value: String?
    var message: String {
        "--color \(value ?? ""): choose auto (colours on a terminal unless NO_COLOR is set), always or never"
    }
}
