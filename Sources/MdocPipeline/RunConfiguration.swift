public import Foundation
public import MdocIngest

/// Everything a run is told on the command line.
public struct RunConfiguration: Sendable {
    public var inputs: [String]
    public var trustDirectory: String
    public var readerTrustDirectory: String?
    /// The verification instant; `nil` means "now" (and enables the freshness window).
    public var verificationTime: Date?
    public var outDirectory: String
    public var databasePath: String?
    public var jobs: Int
    public var force: Bool
    /// How long a result verified "now" may be reused (seed 000's freshness window).
    public var freshFor: TimeInterval
    public var keepValues: Bool
    /// With ``keepValues``: keep byte-string values (portraits) themselves, not only their SHA-256.
    public var keepPortraits: Bool = false
    /// Decode element values for the output (a live capture shows them to the operator) without
    /// storing them unless ``keepValues``.
    public var showValues: Bool = false
    public var signingKeyPath: String?
    public var signingCertificatePath: String?
    public var imageLimit: Int
    public var scanKeyPath: String?
    public var transcriptPath: String?
    public var readerKeyPath: String?
    public var ingestLimits: IngestLimits
    /// Write proofs and a run manifest (on by default).
    public var writeProofs: Bool
    /// Transactions written to the store per database transaction.
    public var batchSize: Int

    public init(inputs: [String], trustDirectory: String, outDirectory: String = "reports") {
        self.inputs = inputs
        self.trustDirectory = trustDirectory
        self.outDirectory = outDirectory
        self.jobs = ProcessInfo.processInfo.activeProcessorCount
        self.force = false
        self.freshFor = 15 * 60
        self.keepValues = false
        self.imageLimit = 1_000_000
        self.ingestLimits = .default
        self.writeProofs = true
        self.batchSize = 256
    }

    public var resolvedDatabasePath: String {
        databasePath ?? (outDirectory as NSString).appendingPathComponent("mdocverify.sqlite")
    }
}

/// A problem with the run's setup: exit code 2, with a message that says what to fix.
public struct PipelineSetupError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
