/// The catalogue of checks: each id, the clause it enforces and what it checks, in one place.
///
/// Each family declares its ids as `static let` constants on ``CheckID`` and its definitions in a
/// `Catalogue+<Family>.swift` file of this module; `mdocverify checks` lists ``all``.
/// An id never changes meaning once shipped: add a new id instead.

/// The documentation of one check id.
package struct CheckDefinition: Sendable, Hashable {
    package let id: CheckID
    /// The ISO/IEC 18013-5 clause, Annex B table or RFC the check enforces.
    package let clause: String
    /// One sentence: what the check verifies.
    package let summary: String
    /// Whether `unchecked` on this id makes the verdict `indeterminate`. Checks that are
    /// evidence or policy extras (revocation with no CRL, reader authentication without a reader
    /// trust folder) are not required.
    package let requiredForVerdict: Bool
    /// Whether the check is judged at both instants (capture and verification time).
    package let timeDependent: Bool
    /// What a failure of the check says about the transaction.
    package let failureClass: FailureClass

    /// `failureClass` defaults to ``FailureClass/validity`` for time-dependent checks (expired,
    /// not yet valid, revoked at the instant judged) and ``FailureClass/authenticity`` otherwise.
    package init(
        _ id: CheckID, clause: String, _ summary: String, required: Bool = true,
        timeDependent: Bool = false, failureClass: FailureClass? = nil
    ) {
        self.id = id
        self.clause = clause
        self.summary = summary
        self.requiredForVerdict = required
        self.timeDependent = timeDependent
        self.failureClass = failureClass ?? (timeDependent ? .validity : .authenticity)
    }
}

/// What a failed check says about a transaction, for people deciding what to do about it.
package enum FailureClass: String, Sendable, Hashable, CaseIterable {
    /// The data cannot be trusted: forged, tampered, malformed, or not from a trusted issuer.
    case authenticity
    /// Authentic, but not valid at the instant judged: expired, not yet valid, revoked.
    case validity
    /// Authentic and valid, but outside the processor's rules: consent, upload limits, coverage.
    case policy
}

package enum CheckCatalogue {
    /// Every check this build knows, sorted by id.
    package static let all: [CheckDefinition] = {
        // One entry per `Catalogue+<Family>.swift` file.
        let families: [[CheckDefinition]] = [
            cborFamily, responseFamily, issuerFamily, msoFamily, deviceFamily, inputFamily,
            engagementFamily, engagementImageFamily, sessionFamily, readerFamily, transactionFamily, imageFamily,
            bleFamily, vicalFamily, statusFamily,
        ]
        return families.flatMap { $0 }.sorted { $0.id < $1.id }
    }()

    private static let index: [CheckID: CheckDefinition] = {
        var index: [CheckID: CheckDefinition] = [:]
        for definition in all { index[definition.id] = definition }
        return index
    }()

    /// The definition of `id`, or `nil` when this build does not know it.
    package static func definition(for id: CheckID) -> CheckDefinition? { index[id] }
}
