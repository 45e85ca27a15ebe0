package import MdocChecks

/// `response.replayed` (§9.1.3: a DeviceResponse belongs to one session): the same DeviceResponse
/// bytes were not presented in another transaction, of the store or earlier in this run. Runs
/// after the pipeline has looked earlier presentations up, before the verdict is judged.
struct ReplayCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.responseReplayed]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.deviceResponseBytes), .examines(.earlierPresentations)]

    func run(_ context: inout CheckContext) {
        guard let earlier = context.transaction.earlierPresentations else { return }
        if let first = earlier.stored.first {
            context.report(CheckResult(
                .responseReplayed, .warn,
                "the same DeviceResponse was presented before, in \(earlier.storedIsPartial ? "at least " : "")"
                    + "\(earlier.stored.count) other transaction(s)",
                evidence: [Evidence("earlier", first)]))
        } else if let inRun = earlier.earlierInRun {
            context.report(CheckResult(
                .responseReplayed, .warn, "the same DeviceResponse was presented in transaction \(inRun.prefix(16))… of this run",
                evidence: [Evidence("earlier", inRun)]))
        } else {
            context.report(CheckResult(.responseReplayed, .pass, "first presentation of this DeviceResponse"))
        }
    }
}
