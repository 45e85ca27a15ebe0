extension FailureClass {
    /// What a failure of `id` says: its catalogue class; an id this build does not know fails
    /// closed, as authenticity.
    package static func of(_ id: CheckID) -> FailureClass { CheckCatalogue.definition(for: id)?.failureClass ?? .authenticity }

    /// The distinct classes of the failed `ids`, in declaration order (authenticity, validity, policy).
    package static func of(failed ids: some Sequence<CheckID>) -> [FailureClass] {
        let failed = Set(ids.map(of))
        return allCases.filter(failed.contains)
    }

    /// The distinct classes of the failed results among `checks`.
    package static func of(_ checks: [CheckResult]) -> [FailureClass] {
        of(failed: checks.lazy.filter { $0.status == .fail }.map(\.id))
    }
}
