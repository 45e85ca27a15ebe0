// MdocReports: compliance reports rendered from the report store (DESIGN.md, "What a run leaves
// behind"; docs/report-json.md for the JSON shape of this model).

/// A compliance report over a scope of the report store: what was verified, when, against which
/// trust material, with what outcome, what failed and why, what changed, which issuer
/// certificates are about to expire.
///
/// Every figure is computed by SQL aggregations in the store (``ReportBuilder``); lists of
/// transactions are capped (``ReportLimits``), the CSV files carry them all. Encoded as JSON it
/// is the machine-readable report (`docs/report-json.md` documents each field); the HTML
/// renderer draws the same values.
///
/// Instants are the store's text form (`YYYY-MM-DDTHH:MM:SS.mmmZ`, UTC); shares are fractions
/// between 0 and 1; verdicts, statuses and consent states are their stable raw values.
public struct ComplianceReport: Codable, Sendable, Equatable {
    /// The value of ``format``.
    public static let formatName = "mdocverify.compliance-report"
    /// The value of ``version``: bumped when a field changes meaning or disappears.
    public static let currentVersion = 1

    /// Always ``formatName``.
    public var format: String
    /// Always ``currentVersion`` for reports of this build.
    public var version: Int
    /// When the report was built (wall clock).
    public var generatedAt: String
    /// The instant certificate expiry is judged at (``Trust``): `--at`, default the build time.
    public var referenceTime: String
    /// The program that built it, e.g. `mdocverify 0.1.0`.
    public var generator: String
    public var scope: Scope
    /// Whether personal data (element values) is included: only with `--include-values` and
    /// when the store holds values.
    public var includesValues: Bool
    public var overview: Overview
    public var failures: Failures
    public var timeline: Timeline
    public var trust: Trust
    public var changes: Changes
    public var images: Images
    /// Transactions by consent state (`none`, `valid`, `expired`, `notYetGranted`), every state
    /// present.
    public var consent: [Share]
    public var transactions: TransactionList
    public var ingestFailures: IngestFailures
}

/// The named limits of a report.
public enum ReportLimits {
    /// Most transactions listed in the HTML and JSON table (not valid first); the transactions
    /// CSV lists every transaction of the scope.
    public static let transactionRows = 2_000
    /// Most sources listed (the first by transactions not valid); their number is always given.
    public static let sourceRows = 1_000
    /// Most rows of the changes list (the counts by transition cover all).
    public static let changeRows = 2_000
    /// Most ingest failures listed (the total is always given).
    public static let ingestFailureRows = 500
    /// Most issuer and source rows charted; the tables list them all.
    public static let chartBars = 12
    /// Timelines longer than this many days are drawn by month.
    public static let timelineDays = 92
    /// SQLite page cache of the report's read connection, in MB (the default is 2 MB): a large
    /// part of the peak memory of a report over a million transactions.
    public static let cacheMegabytes = 16
    /// The page cache while the scope of a run is sorted by verification id (a million rows):
    /// SQLite's sorter sizes its in-memory runs by it (``ReportBuilder``).
    public static let sorterMegabytes = 4
    /// Certificates expiring within these many days of the reference time are flagged.
    public static let expiryWarningDays = (soon: 30, later: 90)
}

extension ComplianceReport {
    /// Which transactions the report covers.
    public struct Scope: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            /// The transactions a run touched (verified or reused), with the verification it counts.
            case run
            /// Transactions whose capture time (or, without one, first sighting) falls in a
            /// period, each with its latest current verification.
            case period
        }

        public var kind: Kind
        /// A short name for file names: `run-<id>` or `<since>_<until>`.
        public var label: String
        /// The run, for ``Kind/run``.
        public var runID: String?
        /// First instant of the period (included), for ``Kind/period``; `nil` when open.
        public var since: String?
        /// End of the period (excluded), for ``Kind/period``; `nil` when open.
        public var until: String?
        /// Transactions in scope.
        public var transactions: Int
        /// Of those, results a run reused from an earlier run (run scope; 0 for a period).
        public var reused: Int
        /// The runs that produced the verifications in scope, most recent first.
        public var runs: [Run]
    }

    /// A run row of the store.
    public struct Run: Codable, Sendable, Equatable {
        public var id: String
        public var startedAt: String
        public var finishedAt: String?
        /// `running`, `finished` or `interrupted`.
        public var status: String
        /// The instant the run judged at (`--at`, or its start when "now").
        public var verificationTime: String
        public var verificationTimeIsNow: Bool
        /// SHA-256 of the trust-store snapshot the run used.
        public var trustSnapshot: String
        public var processorVersion: String
        /// The inputs named on the command line.
        public var inputs: [String]
        public var manifestPath: String?
        public var merkleRoot: String?
        public var proofCount: Int?
        /// Verifications of this run in the report's scope.
        public var transactionsInScope: Int
    }

    /// A count and its share of a whole.
    public struct Share: Codable, Sendable, Equatable {
        /// What is counted: a verdict, `noCaptureTime`, a consent state, ...
        public var key: String
        public var count: Int
        /// `count` / the whole (0 when the whole is 0).
        public var share: Double

        public init(key: String, count: Int, of total: Int) {
            self.key = key
            self.count = count
            self.share = total > 0 ? Double(count) / Double(total) : 0
        }
    }

    /// Verdicts of the scope.
    public struct Overview: Codable, Sendable, Equatable {
        public var transactions: Int
        /// By verdict at the verification time: `valid`, `invalid`, `indeterminate`.
        public var now: [Share]
        /// By verdict at the capture time, plus `noCaptureTime` for transactions without one.
        public var atCapture: [Share]
        /// Verdict at capture → verdict now, for every pair that occurs (`atCapture` is `null`
        /// without a capture time).
        public var captureToNow: [VerdictPair]
    }

    /// A number of transactions going from one verdict to another.
    public struct VerdictPair: Codable, Sendable, Equatable {
        public var from: String?
        public var to: String
        public var count: Int
    }

    /// What failed, by check, issuer and source.
    public struct Failures: Codable, Sendable, Equatable {
        /// Check ids with at least one `fail` result in scope, most failed first.
        public var byCheck: [CheckFailures]
        /// Transactions by Document Signer certificate, most not-valid first.
        public var byDocumentSigner: [IssuerOutcome]
        /// Transactions by IACA certificate, most not-valid first.
        public var byIACA: [IssuerOutcome]
        /// Transactions by source (`transaction.json` source, e.g. a kiosk), most not-valid
        /// first, at most ``ReportLimits/sourceRows``.
        public var bySource: [GroupOutcome]
        /// How many sources there are (``bySource`` may list fewer).
        public var sourceCount: Int
    }

    /// How often a check failed in scope.
    public struct CheckFailures: Codable, Sendable, Equatable {
        public var checkID: String
        /// Whether this build's catalogue knows the id (`clause` and `summary` are then set).
        public var known: Bool
        public var clause: String?
        public var summary: String?
        /// Transactions with at least one `fail` result of the check (at either instant).
        public var transactions: Int
        /// `fail` results (a time-dependent check may fail at capture and now).
        public var results: Int
        /// `transactions` / transactions in scope.
        public var share: Double
    }

    /// Verdicts now of a group of transactions.
    public struct GroupOutcome: Codable, Sendable, Equatable {
        public var name: String
        public var transactions: Int
        public var valid: Int
        public var invalid: Int
        public var indeterminate: Int
        /// (invalid + indeterminate) / transactions.
        public var notValidShare: Double
    }

    /// Verdicts now of the transactions whose documents an issuer certificate signed (a
    /// transaction with several documents counts once per certificate).
    public struct IssuerOutcome: Codable, Sendable, Equatable {
        /// SHA-256 of the certificate; `null` for documents without one (no x5chain, or a
        /// response whose documents could not be read are not counted at all).
        public var fingerprint: String?
        /// The certificate's subject (RFC 4514) when the store has the certificate.
        public var subject: String?
        public var transactions: Int
        public var valid: Int
        public var invalid: Int
        public var indeterminate: Int
        public var notValidShare: Double
    }

    /// Transactions by capture day (UTC), or by month for long periods.
    public struct Timeline: Codable, Sendable, Equatable {
        /// `day` (`YYYY-MM-DD`) or `month` (`YYYY-MM`).
        public var granularity: String
        /// In time order; periods without transactions are left out.
        public var points: [TimelinePoint]
        /// Transactions without a capture time (not on the timeline).
        public var withoutCaptureTime: Int
    }

    public struct TimelinePoint: Codable, Sendable, Equatable {
        public var period: String
        public var transactions: Int
        public var valid: Int
        public var invalid: Int
        public var indeterminate: Int
        /// (invalid + indeterminate) / transactions: the failure rate of the period.
        public var notValidShare: Double
    }

    /// The trust material the scope was verified against, and the issuer certificates it met.
    public struct Trust: Codable, Sendable, Equatable {
        /// Trust-store snapshots of the verifications in scope, most used first.
        public var snapshots: [TrustSnapshotUse]
        /// DS and IACA certificates of the documents in scope, soonest expiry first.
        public var certificates: [CertificateUse]
        /// Certificates whose `notAfter` is before the reference time.
        public var expired: Int
        /// Not expired, `notAfter` within 30 days of the reference time.
        public var expiringWithin30Days: Int
        /// Not expired, `notAfter` within 90 days (includes the 30-day ones).
        public var expiringWithin90Days: Int
    }

    public struct TrustSnapshotUse: Codable, Sendable, Equatable {
        /// SHA-256 of the trust-store snapshot.
        public var hash: String
        public var transactions: Int
        /// Earliest and latest verification time judged under it.
        public var firstVerificationTime: String
        public var lastVerificationTime: String
    }

    public struct CertificateUse: Codable, Sendable, Equatable {
        /// `ds` or `iaca`.
        public var role: String
        public var fingerprint: String
        /// `null` when the store has no row for the fingerprint (then the dates are `null` too).
        public var subject: String?
        public var issuer: String?
        public var serial: String?
        public var notBefore: String?
        public var notAfter: String?
        public var country: String?
        /// Transactions in scope with a document under this certificate.
        public var transactions: Int
        /// `expired`, `within30Days`, `within90Days`, `later`, or `unknown` (no certificate row).
        public var expiry: String
        /// Whole days from the reference time to `notAfter` (negative once expired).
        public var daysLeft: Int?
    }

    /// Transactions whose verdict now differs from their previous verification (the one of the
    /// same transaction with the largest id below the one in scope), e.g. valid → invalid after
    /// a revocation.
    public struct Changes: Codable, Sendable, Equatable {
        public var total: Int
        /// Counts by (previous verdict → verdict now), most first.
        public var transitions: [VerdictPair]
        /// The changes, worst first (to `invalid`, then `indeterminate`, then `valid`), at most ``limit``.
        public var rows: [ChangeRow]
        public var limit: Int
        public var truncated: Bool
    }

    public struct ChangeRow: Codable, Sendable, Equatable {
        public var referenceCode: String
        public var transactionID: String
        public var displayName: String
        public var source: String
        public var capturedAt: String?
        public var previousVerdict: String
        public var verdictNow: String
        public var previousRunID: String
        public var runID: String
        public var previousVerificationTime: String
        public var verificationTime: String
        public var previousTrustSnapshot: String
        public var trustSnapshot: String
        /// Check ids with a `fail` result in the verification in scope, sorted.
        public var failingChecks: [String]
    }

    /// Document-scan uploads and what intake did with them (DESIGN.md, "Images").
    public struct Images: Codable, Sendable, Equatable {
        public var uploads: Int
        /// `kept`, `reencoded`, `rejected`, every outcome present.
        public var byOutcome: [ImageOutcome]
        /// Bytes received (every original), and bytes kept (a kept upload's original, a
        /// re-encoded one's output; nothing for a rejected one).
        public var originalBytes: Int
        public var outputBytes: Int
    }

    public struct ImageOutcome: Codable, Sendable, Equatable {
        public var outcome: String
        public var count: Int
        /// Bytes received.
        public var originalBytes: Int
        /// Bytes kept (see ``Images/outputBytes``).
        public var outputBytes: Int
    }

    /// The transactions of the scope, not valid first, capped at ``limit``.
    public struct TransactionList: Codable, Sendable, Equatable {
        public var total: Int
        public var limit: Int
        /// Whether rows were left out (the transactions CSV has them all).
        public var truncated: Bool
        public var rows: [TransactionRow]
    }

    public struct TransactionRow: Codable, Sendable, Equatable {
        public var referenceCode: String
        public var transactionID: String
        public var displayName: String
        public var source: String
        public var capturedAt: String?
        public var verificationTime: String
        public var verdictAtCapture: String?
        public var verdictNow: String
        public var consentState: String
        /// Check ids with a `fail` result, sorted.
        public var failingChecks: [String]
        /// Path of the signed proof bundle, as the run wrote it (relative to where it ran).
        public var proofPath: String?
        /// Element values (personal data): only when ``ComplianceReport/includesValues``.
        public var values: [ElementValue]?
    }

    /// A disclosed element's value as stored (`element.value_json`): CBOR diagnostic notation,
    /// byte strings (portraits) as their SHA-256 unless the run kept them.
    public struct ElementValue: Codable, Sendable, Equatable {
        public var namespace: String
        public var identifier: String
        public var value: String
    }

    /// Inputs that did not become transactions.
    public struct IngestFailures: Codable, Sendable, Equatable {
        public var total: Int
        public var limit: Int
        public var truncated: Bool
        public var rows: [IngestFailureRow]
    }

    public struct IngestFailureRow: Codable, Sendable, Equatable {
        public var runID: String
        public var source: String
        /// The ingest error's stable code (`ingest.pathTraversal`, ...).
        public var code: String
        public var reason: String
    }
}
