package import Foundation
package import MdocChecks
package import MdocIngest
package import MdocStore

/// Everything a run is told on the command line.
package struct RunConfiguration: Sendable {
    package var inputs: [String]
    /// The trust folder (IACAs, CRLs, `*.vical`); `nil` when the VICALs alone give the IACAs.
    package var trustDirectory: String?
    package var readerTrustDirectory: String?
    /// VICALs (`--vical`; the trust folder's `*.vical` files are added) and the roots of their
    /// providers (`--vical-anchor`).
    package var vicalPaths: [String] = []
    package var vicalAnchorPaths: [String] = []
    /// RICALs (`--rical`), whose entries are reader roots, and their providers' roots.
    package var ricalPaths: [String] = []
    package var ricalAnchorPaths: [String] = []
    /// The status and identifier list tokens (`--status`); `nil` takes the trust folder's
    /// `status/` when there is one.
    package var statusDirectory: String?
    /// The verification instant; `nil` means "now" (and enables the freshness window).
    package var verificationTime: Date?
    package var outDirectory: String
    package var databasePath: String?
    /// The store when it is not a SQLite file (`--db postgresql://…`); `nil` for the file at
    /// ``resolvedDatabasePath``.
    package var serverStore: ServerStore?
    /// The queued run a worker verifies items of (`mdocverify worker`): the run exists already
    /// (``verificationTime`` is its), and the worker neither begins nor finishes it.
    package var queuedRunID: String?
    package var jobs: Int
    package var force: Bool
    /// How long a result verified "now" may be reused (`--fresh-for`).
    package var freshFor: TimeInterval
    package var keepValues: Bool
    /// With ``keepValues``: keep byte-string values (portraits) themselves, not only their SHA-256.
    package var keepPortraits: Bool = false
    /// Decode element values for the output (a live capture shows them to the operator) without
    /// storing them unless ``keepValues``.
    package var showValues: Bool = false
    package var signingKeyPath: String?
    package var signingCertificatePath: String?
    package var imageLimit: Int
    package var scanKeyPath: String?
    package var transcriptPath: String?
    package var readerKeyPath: String?
    /// Checks required beyond the catalogue's (`--require revocation`): unchecked ⇒ indeterminate.
    package var alsoRequired: Set<CheckID> = []
    package var ingestLimits: IngestLimits
    /// Records received by a central intake among the inputs (`--sealing-key`, `--kiosks`): the
    /// centre's sealing key and its enrolled kiosks, kept with a queued run for its workers.
    package var intakeSealingKeyPath: String?
    package var intakeKiosksDirectory: String?
    /// What reads those records (built from the two paths above by the caller).
    package var recordInputs: (any RecordInputs)?
    /// Write proofs and a run manifest (on by default).
    package var writeProofs: Bool
    /// Transactions written to the store per database transaction.
    package var batchSize: Int

    package init(inputs: [String], trustDirectory: String?, outDirectory: String = "reports") {
        self.inputs = inputs
        self.trustDirectory = trustDirectory
        self.outDirectory = outDirectory
        self.jobs = ProcessInfo.processInfo.activeProcessorCount
        self.force = false
        self.freshFor = 15 * 60
        self.keepValues = false
        self.imageLimit = 1_000_000
        self.ingestLimits = .default
        // A run hands on the bytes an archive's first pass read when they fit.
        ingestLimits.maxBytesKeptBetweenPasses = IngestLimits.runKeptBytes
        self.writeProofs = true
        self.batchSize = 256
    }

    package var resolvedDatabasePath: String {
        databasePath ?? (outDirectory as NSString).appendingPathComponent("mdocverify.sqlite")
    }

    /// Where the store is, for messages and the run's summary (a server's URI without its password).
    package var storeLocation: String { serverStore?.location ?? resolvedDatabasePath }
}

/// A store on a database server: where it is (without a password), and how to open it, which
/// the pre-flight does first (an unreachable server, wrong credentials or a newer schema stop
/// the run before anything is created).
package struct ServerStore: Sendable {
    package let location: String
    package let open: @Sendable () throws -> any PipelineStore

    package init(location: String, open: @escaping @Sendable () throws -> any PipelineStore) {
        self.location = location
        self.open = open
    }
}

/// A problem with the run's setup: exit code 2, with a message that says what to fix.
package struct PipelineSetupError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
