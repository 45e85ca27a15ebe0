import Foundation
import MdocCBOR
import MdocChecks
import MdocTestSupport
import MdocTrust
@testable import MdocVerification
import XCTest

/// The runner: a check runs only with its prerequisites; without one it reports what the
/// prerequisite says (the producer's reason, its own, `skipped` when the fact does not apply,
/// nothing for a fact it only examines); time-dependent ids are reported at each instant; checks
/// that wait for the replay lookup run in ``PendingVerification/finish(_:)``, before the verdict.
final class CheckRunnerTests: XCTestCase {
    /// A check that needs the MSO's device key and reports `mso.deviceKey` when it runs: a probe
    /// of what the runner does around a real prerequisite.
    struct DeviceKeyProbe: Check {
        var prerequisite: Prerequisite
        var ids: [CheckID] { [.msoDeviceKey, .msoValidity] }
        var scope: CheckScope { .document }
        var prerequisites: [Prerequisite] { [.examines(.document), prerequisite] }
        func run(_ context: inout CheckContext) {
            context.report(CheckResult(.msoDeviceKey, .pass, "ran", subject: context.document.subject))
        }
    }

    func results(_ policy: VerificationPolicy, _ scenario: Scenario, captureTime: Date? = nil) -> [CheckResult] {
        Verifier(trust: scenario.trust, verificationTime: Scenario.verificationTime, policy: policy)
            .verifyResponse(scenario.response, captureTime: captureTime, transcript: scenario.transcript)
            .checks
    }

    func testPrerequisitesDecideWhetherACheckRuns() throws {
        let base: [any Check] = [ResponseDecodingCheck(), ResponseStructureCheck(), DocumentStructureCheck()]
        let scenario = try Scenario()
        // Without the MSO check nothing publishes the device key: the fact's own description.
        let missing = results(VerificationPolicy(base + [DeviceKeyProbe(prerequisite: .needs(.deviceKey))]), scenario)
            .filter { $0.id == .msoDeviceKey || $0.id == .msoValidity }
        XCTAssertEqual(missing.map(\.status), [.unchecked, .unchecked])
        XCTAssertEqual(missing.map(\.detail), ["no device key", "no device key"])
        XCTAssertEqual(missing.map(\.instant), [nil, .verification], "a time-dependent id is reported at each instant")
        // With a reason of its own.
        let own = results(
            VerificationPolicy(base + [DeviceKeyProbe(prerequisite: .needs(.deviceKey, otherwise: "no key here"))]), scenario)
        XCTAssertEqual(own.first { $0.id == .msoDeviceKey }?.detail, "no key here")
        // Examined only: nothing at all.
        let examined = results(VerificationPolicy(base + [DeviceKeyProbe(prerequisite: .examines(.deviceKey))]), scenario)
        XCTAssertNil(examined.first { $0.id == .msoDeviceKey })
        // With the MSO check before it, the fact is there and the probe runs.
        let present = results(VerificationPolicy(base + [MSOCheck(), DeviceKeyProbe(prerequisite: .needs(.deviceKey))]), scenario)
        XCTAssertEqual(present.filter { $0.id == .msoDeviceKey }.map(\.detail), ["P-256 device key", "ran"])
        // With a capture time, both instants.
        let captured = results(
            VerificationPolicy(base + [DeviceKeyProbe(prerequisite: .needs(.deviceKey))]), scenario,
            captureTime: Scenario.verificationTime.addingTimeInterval(-60))
        XCTAssertEqual(captured.filter { $0.id == .msoValidity }.map(\.instant), [.capture, .verification])
    }

    /// The producer's reason, and `skipped` for a fact that does not apply.
    func testAbsenceReasonsComeFromTheProducer() throws {
        let deviceSigned: [any Check] = [
            ResponseDecodingCheck(), ResponseStructureCheck(), DocumentStructureCheck(), DeviceSignedCheck(),
        ]
        let mac = try Scenario(deviceAuthMac: true)
        let skipped = results(VerificationPolicy(deviceSigned + [DeviceKeyProbe(prerequisite: .needs(.deviceSignature))]), mac)
        XCTAssertEqual(skipped.first { $0.id == .msoDeviceKey }?.status, .skipped)
        XCTAssertEqual(skipped.first { $0.id == .msoDeviceKey }?.detail, "the document uses deviceMac")
        let noMSO = results(
            VerificationPolicy([ResponseDecodingCheck(), ResponseStructureCheck(), DocumentStructureCheck(), X5ChainCheck(),
                                DeviceKeyProbe(prerequisite: .needs(.receivedChain))]),
            try Scenario(defect: .missingX5chain))
        XCTAssertEqual(noMSO.first { $0.id == .msoDeviceKey }?.detail, "no x5chain")
    }

    /// A document that does not decode gets its structure failure and nothing else.
    func testAnUnreadableDocumentHasNoFurtherResults() throws {
        let response = CBORNodeFixtures.response(documents: [.text("not a document")])
        let verifier = Verifier(trust: TrustStore(anchors: []), verificationTime: Scenario.verificationTime)
        let checks = verifier.verifyResponse(response).checks.filter { $0.subject == "doc[0]" }
        XCTAssertEqual(checks.map(\.id), [.responseStructure])
        XCTAssertEqual(checks.map(\.status), [.fail])
    }

    /// The checks that wait for the replay lookup run in finish, and the verdict is judged
    /// after them.
    func testTheVerdictIsJudgedAfterTheReplayLookup() throws {
        struct FailsOnReplay: Check {
            var ids: [CheckID] { [.responseReplayed] }
            var scope: CheckScope { .transaction }
            var prerequisites: [Prerequisite] { [.examines(.earlierPresentations)] }
            func run(_ context: inout CheckContext) {
                let stored = context.transaction.earlierPresentations?.stored ?? []
                context.report(CheckResult(.responseReplayed, stored.isEmpty ? .pass : .fail, "probe"))
            }
        }
        let scenario = try Scenario()
        var inputs = TransactionInputs()
        inputs.deviceResponse = scenario.response
        inputs.transcript = scenario.transcript.bytes
        inputs.readerKeyPEM = Array(try scenario.readerKey.pkcs8PEM().utf8)
        let policy = VerificationPolicy(VerificationPolicy.standard.checks.filter { !($0 is ReplayCheck) } + [FailsOnReplay()])
        let pending = Verifier(trust: scenario.trust, verificationTime: Scenario.verificationTime, policy: policy).verify(inputs)
        XCTAssertNil(pending.checks.first { $0.id == .responseReplayed }, "not run before the lookup")
        XCTAssertEqual(pending.finish(.none).verdict, .valid)
        let replayed = pending.finish(EarlierPresentations(stored: ["earlier"]))
        XCTAssertEqual(replayed.checks.last?.id, .responseReplayed)
        XCTAssertEqual(replayed.verdict, .invalid, "judged after the replay check")
    }

    /// Every id a check of the standard policy reports is in the catalogue.
    func testEveryCheckReportsCatalogueIDs() {
        for check in VerificationPolicy.standard.checks {
            for id in check.ids {
                XCTAssertNotNil(CheckCatalogue.definition(for: id), "\(type(of: check)): \(id)")
            }
        }
    }
}

/// Small DeviceResponses built for the tests.
enum CBORNodeFixtures {
    static func response(documents: [MdocCBOR.CBORNode], status: UInt64 = 0, version: String = "1.0") -> [UInt8] {
        MdocCBOR.CBORNode.map([
            .init(.text("version"), .text(version)), .init(.text("documents"), .array(documents)),
            .init(.text("status"), .unsigned(status)),
        ]).encoded()
    }
}
