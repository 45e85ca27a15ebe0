import MdocTime
package import MdocChecks
package import MdocModel

/// `consent.window`: the consent recorded in `transaction.json` was granted before the instant
/// judged and has not expired at it. Consent expired at the verification time means nothing
/// beyond the verdict is kept (no documents, no uploads, no proof).
struct ConsentCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.consentWindow]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.consent)]

    func run(_ context: inout CheckContext) {
        guard let consent = context.transaction.metadata.consent else { return }
        let evidence = [Evidence("reference", consent.reference ?? "")]
        for instant in context.instants {
            let time = instant.time
            if let granted = consent.grantedAt, granted > time {
                context.report(CheckResult(
                    .consentWindow, .fail, "consent granted \(RFC3339.format(granted)), after \(RFC3339.format(time))",
                    instant: instant.instant, evidence: evidence))
            } else if let expires = consent.expiresAt, expires < time {
                context.report(CheckResult(
                    .consentWindow, .fail, "consent expired \(RFC3339.format(expires))", instant: instant.instant, evidence: evidence))
                if instant.instant == .verification { context.transaction.keepData = false }
            } else {
                context.report(CheckResult(
                    .consentWindow, .pass, "consent \(consent.reference ?? "(no reference)") covers \(RFC3339.format(time))",
                    instant: instant.instant, evidence: evidence))
            }
        }
    }
}
