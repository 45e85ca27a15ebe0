package import MdocChecks

/// `ble.*`: how a live capture went, from the record `mdocverify capture` writes into
/// `transaction.json` (``CaptureRecord``). A completed exchange passes `ble.capture`; one the
/// holder broke fails its `ble.*` check; one that could not be carried out is `unchecked`.
struct CaptureCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.bleCapture] + CaptureChecks.failing.sorted() + CaptureChecks.incomplete.sorted()
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.metadataFile)]

    func run(_ context: inout CheckContext) {
        guard let record = context.transaction.metadata.capture else { return }
        for result in CaptureChecks.results(record) { context.report(result) }
    }
}
