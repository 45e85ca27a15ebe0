import Foundation
import MdocCrypto
import MdocTestSupport
import XCTest

/// Project Wycheproof test files (`Vectors/wycheproof`, see PROVENANCE.md there), decoded with
/// Codable and run case by case through MdocCrypto's API.
///
/// Every `valid` case must be accepted with the expected output, every `invalid` case refused;
/// an `acceptable` case gets the outcome its test decides from the case's flags (the decisions
/// and their reasons are in docs/reliability.md). A case with no decision fails.
enum Wycheproof {
    enum Result: String, Decodable {
        case valid, invalid, acceptable
    }

    /// What the API did with one case.
    enum Outcome {
        /// The operation succeeded with the expected output, or the signature or tag verified.
        case accepted
        /// The operation succeeded but gave another output (or two entry points disagreed).
        case wrongOutput(String)
        /// The API refused the input: it threw, or verification returned false.
        case refused(String)
    }

    /// What an `acceptable` case must give.
    enum Expectation: String {
        case accept, refuse
    }

    /// A whole file: test groups of one shape (the file's `schema`).
    struct File<Group: Decodable>: Decodable {
        let algorithm: String
        let numberOfTests: Int
        let testGroups: [Group]
    }

    /// A mistake of the test itself (an unknown curve name...), never counted as a refusal.
    struct SetupError: Error, CustomStringConvertible {
        let description: String
    }

    /// The counts of one file, as docs/reliability.md tabulates them.
    struct Tally: CustomStringConvertible {
        var valid = 0
        var invalid = 0
        var acceptable = 0
        var passed = 0
        var failed = 0
        var acceptableAccepted = 0
        var acceptableRefused = 0
        /// Cases not run, by reason.
        var skipped: [String: Int] = [:]

        var total: Int { valid + invalid + acceptable }
        var skippedCount: Int { skipped.values.reduce(0, +) }

        var description: String {
            var text = "\(total) cases (valid \(valid), invalid \(invalid), acceptable \(acceptable)): passed \(passed)"
            if acceptable > 0 {
                text += " (acceptable accepted \(acceptableAccepted), refused \(acceptableRefused))"
            }
            text += ", failed \(failed), skipped \(skippedCount)"
            for (reason, count) in skipped.sorted(by: { $0.key < $1.key }) { text += " [\(count): \(reason)]" }
            return text
        }
    }

    static func url(_ fileName: String) -> URL {
        Bundle.module.bundleURL.appendingPathComponent("Vectors/wycheproof/\(fileName)")
    }

    static func load<Group: Decodable>(_ fileName: String, as: Group.Type) throws -> File<Group> {
        try JSONDecoder().decode(File<Group>.self, from: Data(contentsOf: url(fileName)))
    }
}

/// One test case; the fields every schema shares.
protocol WycheproofCase: Decodable {
    var tcId: Int { get }
    var comment: String { get }
    var flags: [String] { get }
    var result: Wycheproof.Result { get }
}

/// One test group: its parameters (key, curve, sizes) and its cases.
protocol WycheproofGroup: Decodable {
    associatedtype Case: WycheproofCase
    var tests: [Case] { get }
}

/// Bytes spelled in hex in a test file.
struct HexBytes: Decodable {
    let bytes: [UInt8]

    init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = Hex.decode(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not hex: \(text)"))
        }
        self.bytes = bytes
    }
}

extension XCTestCase {
    /// Runs every case of `fileName` and checks each outcome; returns the counts.
    ///
    /// - `skip`: a reason not to run a group (a key or IV size MdocCrypto does not offer); its
    ///   cases are counted as skipped under that reason.
    /// - `acceptable`: the expectation for an `acceptable` case from its flags; nil (no decision)
    ///   fails the case.
    /// - `prepare`: per group, builds what the group shares (its public key) and returns the
    ///   function that runs one case. A case that throws counts as refused; a group that cannot
    ///   be prepared fails every case in it.
    @discardableResult
    func runWycheproof<Group: WycheproofGroup>(
        _ fileName: String, _ groupType: Group.Type,
        skip: (Group) -> String? = { _ in nil },
        acceptable: (Set<String>) -> Wycheproof.Expectation? = { _ in nil },
        file: StaticString = #filePath, line: UInt = #line,
        prepare: (Group) throws -> (Group.Case) throws -> Wycheproof.Outcome
    ) throws -> Wycheproof.Tally {
        let vectors = try Wycheproof.load(fileName, as: Group.self)
        var tally = Wycheproof.Tally()
        for group in vectors.testGroups {
            for test in group.tests {
                switch test.result {
                case .valid: tally.valid += 1
                case .invalid: tally.invalid += 1
                case .acceptable: tally.acceptable += 1
                }
            }
            if let reason = skip(group) {
                tally.skipped[reason, default: 0] += group.tests.count
                continue
            }
            let run: (Group.Case) throws -> Wycheproof.Outcome
            do {
                run = try prepare(group)
            } catch {
                tally.failed += group.tests.count
                let ids = group.tests.map(\.tcId)
                XCTFail(
                    "\(fileName) tcId \(ids.first ?? 0)...\(ids.last ?? 0): group not prepared: \(error)",
                    file: file, line: line)
                continue
            }
            for test in group.tests {
                let outcome: Wycheproof.Outcome
                do {
                    outcome = try run(test)
                } catch let error as Wycheproof.SetupError {
                    tally.failed += 1
                    XCTFail("\(fileName) tcId \(test.tcId): test setup: \(error)", file: file, line: line)
                    continue
                } catch {
                    outcome = .refused(String(describing: error))
                }
                let label = "\(fileName) tcId \(test.tcId) (\(test.result.rawValue), flags \(test.flags), \"\(test.comment)\")"
                let expected: Wycheproof.Expectation
                switch test.result {
                case .valid: expected = .accept
                case .invalid: expected = .refuse
                case .acceptable:
                    guard let decided = acceptable(Set(test.flags)) else {
                        tally.failed += 1
                        XCTFail("\(label): no decision for these acceptable flags", file: file, line: line)
                        continue
                    }
                    expected = decided
                }
                switch (expected, outcome) {
                case (.accept, .accepted), (.refuse, .refused):
                    tally.passed += 1
                    if test.result == .acceptable {
                        if expected == .accept { tally.acceptableAccepted += 1 } else { tally.acceptableRefused += 1 }
                    }
                case (.accept, .refused(let reason)):
                    tally.failed += 1
                    XCTFail("\(label): expected accepted, was refused: \(reason)", file: file, line: line)
                case (.refuse, .accepted):
                    tally.failed += 1
                    XCTFail("\(label): expected refused, was accepted", file: file, line: line)
                case (_, .wrongOutput(let detail)):
                    tally.failed += 1
                    XCTFail("\(label): expected \(expected.rawValue), gave a wrong output: \(detail)", file: file, line: line)
                }
            }
        }
        XCTAssertEqual(tally.total, vectors.numberOfTests, "\(fileName): cases seen", file: file, line: line)
        XCTAssertEqual(
            tally.passed + tally.failed + tally.skippedCount, tally.total, "\(fileName): every case counted",
            file: file, line: line)
        print("wycheproof \(fileName): \(tally)")
        return tally
    }
}

/// The curve and hash names the test files use.
extension Wycheproof {
    static func curve(_ name: String) throws -> Curve {
        let curve: Curve? =
            switch name {
            case "secp256r1": .p256
            case "secp384r1": .p384
            case "secp521r1": .p521
            case "edwards25519": .ed25519
            case "edwards448": .ed448
            case "curve25519": .x25519
            case "curve448": .x448
            default: Curve.named(name)  // the brainpool curves carry the same names here
            }
        guard let curve else { throw SetupError(description: "unknown curve \(name)") }
        return curve
    }

    static func hash(_ name: String) throws -> HashFunction {
        switch name {
        case "SHA-256": .sha256
        case "SHA-384": .sha384
        case "SHA-512": .sha512
        default: throw SetupError(description: "unknown hash \(name)")
        }
    }

    /// The outcome of comparing an output with the expected one.
    static func compare(_ actual: [UInt8], _ expected: [UInt8]) -> Outcome {
        actual == expected ? .accepted : .wrongOutput("got \(Hex.encode(actual)), expected \(Hex.encode(expected))")
    }
}
