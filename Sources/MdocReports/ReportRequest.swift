import Foundation

/// What report to build: scope, times, personal data, limits.
package struct ReportRequest: Sendable {
    /// Which transactions the report covers.
    package enum Scope: Sendable, Equatable {
        /// The most recently started run of the store.
        case latestRun
        /// The transactions run `id` touched (verified or reused).
        case run(String)
        /// Transactions whose capture time (or, without one, first sighting) lies in
        /// `[since, until)`, each with its latest current verification. `nil` leaves that end open.
        case period(since: Date?, until: Date?)
    }

    package var scope: Scope
    /// The instant certificate expiry is judged at (default: now).
    package var referenceTime: Date
    /// The wall-clock time written as ``ComplianceReport/generatedAt``.
    package var generatedAt: Date
    /// Written as ``ComplianceReport/generator``, e.g. `mdocverify 0.1.0`.
    package var generator: String
    /// Include element values (personal data) when the store has them.
    package var includeValues: Bool
    /// Most rows of the transaction table (``ReportLimits/transactionRows``).
    package var transactionLimit: Int
    /// Most rows of the changes list (``ReportLimits/changeRows``).
    package var changeLimit: Int

    package init(
        scope: Scope = .latestRun, referenceTime: Date = Date(), generatedAt: Date = Date(),
        generator: String = "mdocverify", includeValues: Bool = false
    ) {
        self.scope = scope
        self.referenceTime = referenceTime
        self.generatedAt = generatedAt
        self.generator = generator
        self.includeValues = includeValues
        self.transactionLimit = ReportLimits.transactionRows
        self.changeLimit = ReportLimits.changeRows
    }
}

/// Why a report could not be built. The messages say what to do.
package struct ReportError: Error, Sendable, CustomStringConvertible {
    /// A stable code.
    package enum Code: String, Sendable {
        /// The store holds no run yet.
        case noRuns = "report.noRuns"
        /// No run with the id asked for.
        case unknownRun = "report.unknownRun"
        /// The period is empty or inverted.
        case invalidPeriod = "report.invalidPeriod"
        /// A limit is negative.
        case invalidLimit = "report.invalidLimit"
        /// A report file could not be written.
        case cannotWrite = "report.cannotWrite"
    }

    package let code: Code
    package let message: String

    package init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }
}
