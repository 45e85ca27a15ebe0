// MdocReports: compliance reports rendered from the report store (docs/report-json.md for the
// JSON shape of this model).

import MdocStore

/// A compliance report over a scope of the report store: what was verified, when, against which
/// trust material, with what outcome, what failed and why, what changed, which issuer
/// certificates are about to expire.
///
/// Every figure is aggregated by the store's report queries (``ReportBuilder``); lists of
/// transactions are capped (``ReportLimits``), the CSV files carry them all. Encoded as JSON it
/// is the machine-readable report (`docs/report-json.md` documents each field); the HTML
/// renderer draws the same values.
///
/// Instants are the store's text form (`YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC); shares are fractions
/// between 0 and 1; verdicts, statuses and consent states are their stable raw values.
package struct ComplianceReport: Codable, Sendable, Equatable {
    /// The value of ``format``.
    package static let formatName = "mdocverify.compliance-report"
    /// The value of ``version``: bumped when a field changes meaning or disappears.
    package static let currentVersion = 1

    /// Always ``formatName``.
    package var format: String
    /// Always ``currentVersion`` for reports of this build.
    package var version: Int
    /// When the report was built (wall clock).
    package var generatedAt: String
    /// The instant certificate expiry is judged at (``Trust``): `--at`, default the build time.
    package var referenceTime: String
    /// The program that built it, e.g. `mdocverify 0.1.0`.
    package var generator: String
    package var scope: Scope
    /// Whether personal data (element values) is included: only with `--include-values` and
    /// when the store holds values.
    package var includesValues: Bool
    package var overview: Overview
    package var failures: Failures
    package var timeline: Timeline
    package var trust: Trust
    package var changes: Changes
    package var images: Images
    /// Transactions by consent state (`none`, `valid`, `expired`, `notYetGranted`), every state
    /// present.
    package var consent: [Share]
    package var transactions: TransactionList
    package var ingestFailures: IngestFailures
    /// A section per kiosk whose records a central intake (`serve`, `intake`) took in among the
    /// transactions in scope; absent when there are none.
    package var kiosks: [KioskReport.Kiosk]? = nil
}

/// The named limits of a report.
package enum ReportLimits {
    /// Most transactions listed in the HTML and JSON table (not valid first); the transactions
    /// CSV lists every transaction of the scope.
    package static let transactionRows = 2_000
    /// Most sources listed (the first by transactions not valid); their number is always given.
    package static let sourceRows = 1_000
    /// Most rows of the changes list (the counts by transition cover all).
    package static let changeRows = 2_000
    /// Most ingest failures listed (the total is always given).
    package static let ingestFailureRows = 500
    /// Most issuer and source rows charted; the tables list them all.
    package static let chartBars = 12
    /// Timelines longer than this many days are drawn by month.
    package static let timelineDays = 92
    /// SQLite page cache of the report's read connection, in MB (the default is 2 MB): a large
    /// part of the peak memory of a report over a million transactions.
    package static let cacheMegabytes = 16
    /// Certificates expiring within these many days of the reference time are flagged.
    package static let expiryWarningDays = (soon: 30, later: 90)
}

extension ComplianceReport {
    /// Which transactions the report covers.
    package struct Scope: Codable, Sendable, Equatable {
        package enum Kind: String, Codable, Sendable {
            /// The transactions a run touched (verified or reused), with the verification it counts.
            case run
            /// Transactions whose capture time (or, without one, first sighting) falls in a
            /// period, each with its latest current verification.
            case period
        }

        package var kind: Kind
        /// A short name for file names: `run-<id>` or `<since>_<until>`.
        package var label: String
        /// The run, for ``Kind/run``.
        package var runID: String?
        /// First instant of the period (included), for ``Kind/period``; `nil` when open.
        package var since: String?
        /// End of the period (excluded), for ``Kind/period``; `nil` when open.
        package var until: String?
        /// Transactions in scope.
        package var transactions: Int
        /// Of those, results a run reused from an earlier run (run scope; 0 for a period).
        package var reused: Int
        /// The runs that produced the verifications in scope, most recent first.
        package var runs: [Run]
    }

    /// A run row of the store.
    package typealias Run = ReportRun

    /// A count and its share of a whole.
    package struct Share: Codable, Sendable, Equatable {
        /// What is counted: a verdict, `noCaptureTime`, a consent state, ...
        package var key: String
        package var count: Int
        /// `count` / the whole (0 when the whole is 0).
        package var share: Double

        package init(key: String, count: Int, of total: Int) {
            self.key = key
            self.count = count
            self.share = total > 0 ? Double(count) / Double(total) : 0
        }
    }

    /// Verdicts of the scope.
    package struct Overview: Codable, Sendable, Equatable {
        package var transactions: Int
        /// By verdict at the verification time: `valid`, `invalid`, `indeterminate`.
        package var now: [Share]
        /// By verdict at the capture time, plus `noCaptureTime` for transactions without one.
        package var atCapture: [Share]
        /// Verdict at capture → verdict now, for every pair that occurs (`atCapture` is `null`
        /// without a capture time).
        package var captureToNow: [VerdictPair]
    }

    /// A number of transactions going from one verdict to another.
    package struct VerdictPair: Codable, Sendable, Equatable {
        package var from: String?
        package var to: String
        package var count: Int
    }

    /// What failed, by check, issuer and source.
    package struct Failures: Codable, Sendable, Equatable {
        /// Check ids with at least one `fail` result in scope, most failed first.
        package var byCheck: [CheckFailures]
        /// Transactions by Document Signer certificate, most not-valid first.
        package var byDocumentSigner: [IssuerOutcome]
        /// Transactions by IACA certificate, most not-valid first.
        package var byIACA: [IssuerOutcome]
        /// Transactions by source (`transaction.json` source, e.g. a kiosk), most not-valid
        /// first, at most ``ReportLimits/sourceRows``.
        package var bySource: [GroupOutcome]
        /// How many sources there are (``bySource`` may list fewer).
        package var sourceCount: Int
    }

    /// How often a check failed in scope.
    package struct CheckFailures: Codable, Sendable, Equatable {
        package var checkID: String
        /// Whether this build's catalogue knows the id (`clause` and `summary` are then set).
        package var known: Bool
        package var clause: String?
        package var summary: String?
        /// What a failure says: `authenticity`, `validity` or `policy` (an unknown id counts as
        /// `authenticity`).
        package var failureClass: String
        /// Transactions with at least one `fail` result of the check (at either instant).
        package var transactions: Int
        /// `fail` results (a time-dependent check may fail at capture and now).
        package var results: Int
        /// `transactions` / transactions in scope.
        package var share: Double
    }

    /// Verdicts now of a group of transactions.
    package struct GroupOutcome: Codable, Sendable, Equatable {
        package var name: String
        package var transactions: Int
        package var valid: Int
        package var invalid: Int
        package var indeterminate: Int
        /// (invalid + indeterminate) / transactions.
        package var notValidShare: Double
    }

    /// Verdicts now of the transactions whose documents an issuer certificate signed (a
    /// transaction with several documents counts once per certificate).
    package struct IssuerOutcome: Codable, Sendable, Equatable {
        /// SHA-256 of the certificate; `null` for documents without one (no x5chain, or a
        /// response whose documents could not be read are not counted at all).
        package var fingerprint: String?
        /// The certificate's subject (RFC 4514) when the store has the certificate.
        package var subject: String?
        package var transactions: Int
        package var valid: Int
        package var invalid: Int
        package var indeterminate: Int
        package var notValidShare: Double
    }

    /// Transactions by capture day (UTC), or by month for long periods.
    package struct Timeline: Codable, Sendable, Equatable {
        /// `day` (`YYYY-MM-DD`) or `month` (`YYYY-MM`).
        package var granularity: String
        /// In time order; periods without transactions are left out.
        package var points: [TimelinePoint]
        /// Transactions without a capture time (not on the timeline).
        package var withoutCaptureTime: Int
    }

    package struct TimelinePoint: Codable, Sendable, Equatable {
        package var period: String
        package var transactions: Int
        package var valid: Int
        package var invalid: Int
        package var indeterminate: Int
        /// (invalid + indeterminate) / transactions: the failure rate of the period.
        package var notValidShare: Double
    }

    /// The trust material the scope was verified against, and the issuer certificates it met.
    package struct Trust: Codable, Sendable, Equatable {
        /// Trust-store snapshots of the verifications in scope, most used first.
        package var snapshots: [TrustSnapshotUse]
        /// DS and IACA certificates of the documents in scope, soonest expiry first.
        package var certificates: [CertificateUse]
        /// Certificates whose `notAfter` is before the reference time.
        package var expired: Int
        /// Not expired, `notAfter` within 30 days of the reference time.
        package var expiringWithin30Days: Int
        /// Not expired, `notAfter` within 90 days (includes the 30-day ones).
        package var expiringWithin90Days: Int
    }

    package struct TrustSnapshotUse: Codable, Sendable, Equatable {
        /// SHA-256 of the trust-store snapshot.
        package var hash: String
        package var transactions: Int
        /// Earliest and latest verification time judged under it.
        package var firstVerificationTime: String
        package var lastVerificationTime: String
    }

    package struct CertificateUse: Codable, Sendable, Equatable {
        /// `ds` or `iaca`.
        package var role: String
        package var fingerprint: String
        /// `null` when the store has no row for the fingerprint (then the dates are `null` too).
        package var subject: String?
        package var issuer: String?
        package var serial: String?
        package var notBefore: String?
        package var notAfter: String?
        package var country: String?
        /// Transactions in scope with a document under this certificate.
        package var transactions: Int
        /// `expired`, `within30Days`, `within90Days`, `later`, or `unknown` (no certificate row).
        package var expiry: String
        /// Whole days from the reference time to `notAfter` (negative once expired).
        package var daysLeft: Int?
    }

    /// Transactions whose verdict now differs from their previous verification (the one of the
    /// same transaction with the largest id below the one in scope), e.g. valid → invalid after
    /// a revocation.
    package struct Changes: Codable, Sendable, Equatable {
        package var total: Int
        /// Counts by (previous verdict → verdict now), most first.
        package var transitions: [VerdictPair]
        /// The changes, worst first (to `invalid`, then `indeterminate`, then `valid`), at most ``limit``.
        package var rows: [ChangeRow]
        package var limit: Int
        package var truncated: Bool
    }

    package typealias ChangeRow = ReportChangeRow

    /// Document-scan uploads and what intake did with them.
    package struct Images: Codable, Sendable, Equatable {
        package var uploads: Int
        /// `kept`, `reencoded`, `rejected`, every outcome present.
        package var byOutcome: [ImageOutcome]
        /// Bytes received (every original), and bytes kept (a kept upload's original, a
        /// re-encoded one's output; nothing for a rejected one).
        package var originalBytes: Int
        package var outputBytes: Int
    }

    package typealias ImageOutcome = ReportImageOutcome

    /// The transactions of the scope, not valid first, capped at ``limit``.
    package struct TransactionList: Codable, Sendable, Equatable {
        package var total: Int
        package var limit: Int
        /// Whether rows were left out (the transactions CSV has them all).
        package var truncated: Bool
        package var rows: [TransactionRow]
    }

    package typealias TransactionRow = ReportTransactionRow

    /// A disclosed element's kept value: CBOR diagnostic notation,
    /// byte strings (portraits) as their SHA-256 unless the run kept them.
    package typealias ElementValue = ReportElementValue

    /// Inputs that did not become transactions.
    package struct IngestFailures: Codable, Sendable, Equatable {
        package var total: Int
        package var limit: Int
        package var truncated: Bool
        package var rows: [IngestFailureRow]
    }

    package typealias IngestFailureRow = ReportIngestFailureRow
}
