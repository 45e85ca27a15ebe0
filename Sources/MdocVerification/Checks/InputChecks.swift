package import MdocChecks

/// `input.metadata`: `transaction.json`, when the bundle has one, is a JSON object whose fields
/// have their types (capture time and consent dates in RFC 3339).
struct MetadataCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.inputMetadata]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.metadataFile)]

    func run(_ context: inout CheckContext) {
        guard let json = context.transaction.inputs.metadataJSON else { return }
        do {
            context.transaction.metadata = try TransactionMetadata(json: json)
            context.report(CheckResult(.inputMetadata, .pass, "transaction.json read"))
        } catch {
            context.report(CheckResult(.inputMetadata, .fail, "\(error)"))
        }
    }
}

/// `input.readable`: the bundle holds a DeviceResponse, in plain form or in SessionData that
/// could be decrypted. Not reported when the session could not be opened for want of a key
/// (the session checks are then `unchecked` and the verdict indeterminate), nor when an earlier
/// check already failed and said why.
struct ResponsePresenceCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.inputReadable]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { [] }

    func run(_ context: inout CheckContext) {
        // The facts are read field by field: bound whole, they would be copied (retaining
        // every buffer they hold) once per transaction.
        guard context.transaction.deviceResponseBytes == nil else { return }
        if context.transaction.undecryptedReason != nil && !context.transaction.inputs.sessionData.isEmpty { return }
        // A live capture that ended early has already said why there is no response.
        if let ending = context.transaction.metadata.capture?.ending, ending != .completed { return }
        guard !context.results.contains(where: { $0.status == .fail }) else { return }
        context.report(CheckResult(
            .inputReadable, .fail,
            "the bundle holds no DeviceResponse: neither device-response.cbor nor a SessionData that could be decrypted"))
    }
}
