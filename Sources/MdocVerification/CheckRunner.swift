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

    /// A check with what the runner asks of it, read once from the policy: its prerequisites,
    /// and its ids split by whether the catalogue says they are judged at each instant.
    struct Planned: Sendable {
        let check: any Check
        let scope: CheckScope
        let prerequisites: [Prerequisite]
        let untimedIDs: [CheckID]
        let timedIDs: [CheckID]

        init(_ check: any Check) {
            self.check = check
            self.scope = check.scope
            self.prerequisites = check.prerequisites
            let ids = check.ids
            let timed = ids.map { CheckCatalogue.definition(for: $0)?.timeDependent == true }
            self.untimedIDs = zip(ids, timed).filter { !$0.1 }.map(\.0)
            self.timedIDs = zip(ids, timed).filter { $0.1 }.map(\.0)
        }
    }

    /// A check of the transaction or the response, or a run of consecutive document checks.
    struct Step: Sendable {
        let checks: [Planned]
        let documents: Bool
    }

    /// The steps of each pass, worked out once from the policy.
    let verificationSteps: [Step]
    let replaySteps: [Step]

    init(checks: [any Check]) {
        func steps(_ pass: Pass) -> [Step] {
            var steps: [Step] = []
            var group: [Planned] = []
            for check in checks {
                if check.scope == .document {
                    if Self.belongs(check, to: pass) { group.append(Planned(check)) }
                    continue
                }
                if !group.isEmpty {
                    steps.append(Step(checks: group, documents: true))
                    group = []
                }
                if Self.belongs(check, to: pass) { steps.append(Step(checks: [Planned(check)], documents: false)) }
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
            // By index: the planned check is read in place, not copied out by an iterator.
            for index in step.checks.indices where transactionScope || step.checks[index].scope != .transaction {
                run(step.checks[index], &context)
            }
        }
    }

    /// Whether `check` runs in `pass`.
    static func belongs(_ check: any Check, to pass: Pass) -> Bool {
        let waits = check.prerequisites.contains { $0.fact == .earlierPresentations }
        return waits == (pass == .replay)
    }

    func runDocuments(_ group: [Planned], _ context: inout CheckContext) {
        guard let items = context.transaction.deviceResponse?.documents else { return }
        context.transaction.documents.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            context.document = DocumentFacts(index: index, item: item)
            for check in group.indices { run(group[check], &context) }
            // Moved out, not copied: the facts are dropped with the next document.
            var findings = DocumentFindings(index: index)
            swap(&findings, &context.document.findings)
            context.transaction.documents.append(findings)
        }
        context.document = DocumentFacts(index: -1, item: nil)
    }

    /// Runs `planned`'s check, or reports why it cannot run.
    func run(_ planned: Planned, _ context: inout CheckContext) {
        // By index, the fact alone read while it is present: copying a prerequisite out copies
        // (retains) its reason text, once per check and document.
        for index in planned.prerequisites.indices {
            let fact = planned.prerequisites[index].fact
            // Asked of the context through inout, field by field, so that it is not copied.
            if CheckContext.isPresent(fact, in: &context) { continue }
            let reason: String
            switch planned.prerequisites[index].whenAbsent {
            case .nothing:
                return
            case .unchecked:
                let absence = context.absence(of: fact)
                if let absence, !absence.applies {
                    report(planned, .skipped, absence.reason, &context)
                    return
                }
                reason = absence?.reason ?? fact.missingText
            case .uncheckedBecause(let given):
                if let absence = context.absence(of: fact), !absence.applies {
                    report(planned, .skipped, absence.reason, &context)
                    return
                }
                reason = given
            }
            report(planned, .unchecked, reason, &context)
            return
        }
        planned.check.run(&context)
    }

    /// Reports each of `planned`'s ids with `status` and `detail`: the time-independent ones
    /// first, then, for each instant, the time-dependent ones.
    func report(_ planned: Planned, _ status: CheckStatus, _ detail: String, _ context: inout CheckContext) {
        let subject = planned.scope == .document ? context.document.subject : ""
        for id in planned.untimedIDs { context.report(CheckResult(id, status, detail, subject: subject)) }
        guard !planned.timedIDs.isEmpty else { return }
        for instant in context.instants {
            for id in planned.timedIDs {
                context.report(CheckResult(id, status, detail, subject: subject, instant: instant.instant))
            }
        }
    }
}
