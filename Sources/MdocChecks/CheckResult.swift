// The vocabulary of verification outcomes shared by every layer: every verification produces a
// list of check results, never a single boolean. A check has a stable dotted id that never
// changes meaning once shipped (reports and proofs store it), a status, a clause and evidence.

/// A stable, dotted check identifier such as `mso.digest` or `issuer.chain`.
///
/// This is an open set: ids are declared as `static let` constants in the `Catalogue*.swift`
/// files of this module and described once in ``CheckCatalogue``. An id read back from a store
/// or a proof that this build does not know is still representable.
package struct CheckID: RawRepresentable, Hashable, Comparable, Sendable, Codable,
    ExpressibleByStringLiteral, CustomStringConvertible
{
    package let rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { self.rawValue = value }

    /// The family: the part before the first dot (`mso` for `mso.digest`).
    package var family: String {
        rawValue.split(separator: ".", maxSplits: 1).first.map(String.init) ?? rawValue
    }

    package var description: String { rawValue }

    package static func < (lhs: CheckID, rhs: CheckID) -> Bool { lhs.rawValue < rhs.rawValue }

    package init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}

/// The outcome of one check.
package enum CheckStatus: String, Sendable, Codable, CaseIterable, Comparable {
    /// The check was performed and the data met it.
    case pass
    /// The check was performed and the data did not meet it: a security or conformance failure.
    case fail
    /// The check was performed; the data met it but something is worth a reader's attention.
    case warn
    /// The check does not apply to this input (e.g. deviceMac when the document uses deviceSignature).
    case skipped
    /// The check applies but could not be performed (missing transcript, missing key, ...);
    /// the detail says why. Kept apart from `fail`: "couldn't check" is not "checked and failed".
    case unchecked

    /// Severity order used to sort reports: fail, unchecked, warn, pass, skipped.
    var severity: Int {
        switch self {
        case .fail: 0
        case .unchecked: 1
        case .warn: 2
        case .pass: 3
        case .skipped: 4
        }
    }

    package static func < (lhs: CheckStatus, rhs: CheckStatus) -> Bool { lhs.severity < rhs.severity }
}

/// The instant a time-dependent check was judged at: capture time or verification time.
package enum CheckInstant: String, Sendable, Codable, CaseIterable {
    /// When the transaction was captured ("was it valid when presented?").
    case capture
    /// The verification time of the run (`--at`, default now).
    case verification
}

/// One piece of evidence: a named value such as a certificate fingerprint, an algorithm or the
/// digest id that failed. Never personal data (element values, portraits).
package struct Evidence: Hashable, Sendable, Codable {
    package var key: String
    package var value: String

    package init(_ key: String, _ value: String) {
        self.key = key
        self.value = value
    }
}

/// The result of running one check on one subject.
package struct CheckResult: Hashable, Sendable, Codable {
    package var id: CheckID
    package var status: CheckStatus
    /// What was found, for people: "digest 7 of org.iso.18013.5.1 does not match", "valid until
    /// 2021-10-01T13:30:02Z". Identifiers and digests only, never element values.
    package var detail: String
    /// What the check was about, when a transaction has several: "doc[0]",
    /// "doc[0]/org.iso.18013.5.1/family_name", "cert[1]", "upload[2]". Empty for the transaction.
    package var subject: String
    /// For time-dependent checks, the instant judged; `nil` for checks that do not depend on time.
    package var instant: CheckInstant?
    package var evidence: [Evidence]

    package init(
        _ id: CheckID, _ status: CheckStatus, _ detail: String = "", subject: String = "",
        instant: CheckInstant? = nil, evidence: [Evidence] = []
    ) {
        self.id = id
        self.status = status
        self.detail = detail
        self.subject = subject
        self.instant = instant
        self.evidence = evidence
    }
}

/// The verdict of a transaction at one instant.
package enum Verdict: String, Sendable, Codable, CaseIterable {
    /// Every check that applies passed (warnings allowed).
    case valid
    /// At least one check failed.
    case invalid
    /// Nothing failed, but a check required for a verdict could not be performed.
    case indeterminate

    /// Judges a list of results at `instant`. Results without an instant count at both instants.
    ///
    /// A `fail` makes the verdict `invalid`. Otherwise an `unchecked` result whose catalogue
    /// entry is ``CheckDefinition/requiredForVerdict`` makes it `indeterminate` (an id unknown
    /// to the catalogue counts as required: fail closed), as does one of `alsoRequired` (the
    /// run's policy, e.g. `--require revocation`). Otherwise `valid`.
    /// An empty list is `indeterminate`: nothing was verified.
    package static func judge(_ results: [CheckResult], at instant: CheckInstant, alsoRequired: Set<CheckID> = []) -> Verdict {
        var sawRequiredUnchecked = false
        var sawAny = false
        // By index, reading only the fields needed, so no result is copied.
        for index in results.indices {
            let judged = results[index].instant
            guard judged == nil || judged == instant else { continue }
            sawAny = true
            switch results[index].status {
            case .fail:
                return .invalid
            case .unchecked:
                if CheckCatalogue.definition(for: results[index].id)?.requiredForVerdict ?? true || alsoRequired.contains(results[index].id) {
                    sawRequiredUnchecked = true
                }
            case .pass, .warn, .skipped:
                break
            }
        }
        if !sawAny || sawRequiredUnchecked { return .indeterminate }
        return .valid
    }
}
