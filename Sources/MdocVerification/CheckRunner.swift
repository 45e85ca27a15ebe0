package import MdocChecks

/// Runs the checks of a policy in order over one transaction (or one DeviceResponse).
///
/// For each check it first reads the check's prerequisites: when one is absent it reports what
/// the prerequisite says (each id `unchecked` or `skipped` with the reason, or nothing) instead
/// of running the check. Checks of ``CheckScope/document`` run once per Document of the
/// DeviceResponse: a run of consecutive document checks is applied to document 0, then to
/// document 1, and so on, each with its own ``DocumentFacts``.
struct CheckRunner: Sendable {
    /// Which checks a pass runs.
    enum Pass {
        /// Every check that does not need ``Fact/earlierPresentations``.
        case verification
        /// Only the checks that need ``Fact/earlierPresentations`` (after the pipeline looked
        /// earlier presentations up).
        case replay
    }

    /// A check of the transaction or the response, or a run of consecutive document checks.
    struct Step: Sendable {
        let checks: [any Check]
        let documents: Bool
    }

    /// The steps of each pass, worked out once from the policy.
    let verificationSteps: [Step]
    let replaySteps: [Step]

    init(checks: [any Check]) {
        func steps(_ pass: Pass) -> [Step] {
            var steps: [Step] = []
            var group: [any Check] = []
            for check in checks {
                if check.scope == .document {
                    if Self.belongs(check, to: pass) { group.append(check) }
                    continue
                }
                if !group.isEmpty {
                    steps.append(Step(checks: group, documents: true))
                    group = []
                }
                if Self.belongs(check, to: pass) { steps.append(Step(checks: [check], documents: false)) }
            }
            if !group.isEmpty { steps.append(Step(checks: group, documents: true)) }
            return steps
        }
        self.verificationSteps = steps(.verification)
        self.replaySteps = steps(.replay)
    }

    /// Runs the checks of `pass`; those of ``CheckScope/transaction`` only when
    /// `transactionScope` (a lone DeviceResponse has no bundle, session or request).
    func run(_ pass: Pass, transactionScope: Bool, _ context: inout CheckContext) {
        for step in pass == .verification ? verificationSteps : replaySteps {
            if step.documents {
                runDocuments(step.checks, &context)
                continue
            }
            for check in step.checks where transactionScope || check.scope != .transaction {
                run(check, &context)
            }
        }
    }

    /// Whether `check` runs in `pass`.
    static func belongs(_ check: any Check, to pass: Pass) -> Bool {
        let waits = check.prerequisites.contains { $0.fact == .earlierPresentations }
        return waits == (pass == .replay)
    }

    func runDocuments(_ group: [any Check], _ context: inout CheckContext) {
        guard let items = context.transaction.deviceResponse?.documents else { return }
        context.transaction.documents.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            context.document = DocumentFacts(index: index, item: item)
            for check in group { run(check, &context) }
            context.transaction.documents.append(context.document.findings)
        }
        context.document = DocumentFacts(index: -1, item: nil)
    }

    /// Runs `check`, or reports why it cannot run.
    func run(_ check: any Check, _ context: inout CheckContext) {
        for prerequisite in check.prerequisites {
            // Asked of the context through inout, field by field, so that it is not copied.
            if CheckContext.isPresent(prerequisite.fact, in: &context) { continue }
            let reason: String
            switch prerequisite.whenAbsent {
            case .nothing:
                return
            case .unchecked, .uncheckedBecause:
                let absence = context.absence(of: prerequisite.fact)
                if let absence, !absence.applies {
                    report(check.ids, .skipped, absence.reason, scope: check.scope, &context)
                    return
                }
                if case .uncheckedBecause(let given) = prerequisite.whenAbsent {
                    reason = given
                } else {
                    reason = absence?.reason ?? prerequisite.fact.missingText
                }
            }
            report(check.ids, .unchecked, reason, scope: check.scope, &context)
            return
        }
        check.run(&context)
    }

    /// Reports each of `ids` with `status` and `detail`: the time-independent ones first, then,
    /// for each instant, the time-dependent ones.
    func report(_ ids: [CheckID], _ status: CheckStatus, _ detail: String, scope: CheckScope, _ context: inout CheckContext) {
        let subject = scope == .document ? context.document.subject : ""
        var timed: [CheckID] = []
        for id in ids {
            if CheckCatalogue.definition(for: id)?.timeDependent == true {
                timed.append(id)
            } else {
                context.report(CheckResult(id, status, detail, subject: subject))
            }
        }
        guard !timed.isEmpty else { return }
        for instant in context.instants {
            for id in timed {
                context.report(CheckResult(id, status, detail, subject: subject, instant: instant.instant))
            }
        }
    }
}
