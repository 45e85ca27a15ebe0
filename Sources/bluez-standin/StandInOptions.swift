/// The stand-in's command line:
/// `bluez-standin [--address unix:path=...] [--scenario NAME] [--offer peripheral-server|central-client|both]
///  [--mtu N|random|none] [--engagements N] [--trust-out DIR]`.
struct StandInOptions {
    enum MTU: Equatable {
        case fixed(Int)
        case random
        case none
    }

    var address: String?
    var scenario = Scenario.valid
    var offer: Set<String> = ["peripheral-server", "central-client"]
    var mtu = MTU.random
    var engagements = 1
    var trustOut: String?

    struct UsageError: Error, CustomStringConvertible {
        let description: String
    }

    init(_ arguments: ArraySlice<String>) throws {
        var rest = arguments
        func value(_ flag: String) throws -> String {
            guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
            return next
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--address": address = try value(flag)
            case "--scenario":
                let name = try value(flag)
                guard let scenario = Scenario(rawValue: name) else {
                    throw UsageError(description: "unknown scenario \(name): \(Scenario.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                self.scenario = scenario
            case "--offer":
                let mode = try value(flag)
                offer = mode == "both" ? ["peripheral-server", "central-client"] : [mode]
            case "--mtu":
                let text = try value(flag)
                if text == "random" {
                    mtu = .random
                } else if text == "none" {
                    mtu = MTU.none
                } else if let number = Int(text), (23...517).contains(number) {
                    mtu = .fixed(number)
                } else {
                    throw UsageError(description: "--mtu takes 23...517, random or none")
                }
            case "--engagements":
                guard let count = Int(try value(flag)), count >= 1 else { throw UsageError(description: "--engagements takes a count") }
                engagements = count
            case "--trust-out": trustOut = try value(flag)
            default: throw UsageError(description: "unknown option \(flag)")
            }
        }
    }
}
