package import Foundation
internal import MdocChecks
internal import MdocIngest
package import MdocStore

/// A run for the work queue (`mdocverify queue add`): checked as `verify` checks a run, nothing
/// created; its record, the options its workers read back, and its work items.
package struct QueuedRunPlan: Sendable {
    package let run: RunInfo
    /// What the run's trust snapshot hash is the SHA-256 of.
    package let trustSnapshot: [UInt8]
    /// One per bundle folder or lone `.cbor` file, one per archive, in input order: each is
    /// read by one worker at the same path.
    package let items: [String]

    package init(configuration: RunConfiguration, now: Date = Date()) throws {
        let preflight = try Preflight(configuration)
        let id = Orchestrator.newRunID(now: now)
        let options = try QueuedOptions(configuration).json()
        run = RunInfo(
            id: id, startedAt: now, verificationTime: configuration.verificationTime ?? now,
            verificationTimeIsNow: configuration.verificationTime == nil, trustSnapshotHash: preflight.trust.snapshotHash,
            contextHash: preflight.contextHash, optionsJSON: options, processorVersion: ProcessorInfo.version,
            inputs: configuration.inputs, proofFile: ProveStage.relativePath(runID: id), trustItems: preflight.trustMaterial.items)
        trustSnapshot = preflight.trust.snapshot
        var items: [String] = []
        var seen = Set<String>()
        for item in InputReader(inputs: configuration.inputs, limits: configuration.ingestLimits) {
            let source = switch item {
            case .transaction(let bundle): bundle.source
            case .failure(let failure): failure.source
            }
            // An archive's entries are read by one worker: the archive is the item.
            let input = source.range(of: "!/").map { String(source[..<$0.lowerBound]) } ?? source
            if seen.insert(input).inserted { items.append(input) }
        }
        self.items = items
    }
}

/// The options of a queued run that change its outcomes, kept with it (`run.options_json`):
/// every worker verifies its items alike. Paths are read by every worker (shared storage).
package struct QueuedOptions: Codable, Sendable, Equatable {
    var trustDirectory: String?
    var readerTrustDirectory: String?
    var vicalPaths: [String]
    var vicalAnchorPaths: [String]
    var ricalPaths: [String]
    var ricalAnchorPaths: [String]
    var statusDirectory: String?
    var keepValues: Bool
    var keepPortraits: Bool
    var imageLimit: Int
    var scanKeyPath: String?
    var transcriptPath: String?
    var readerKeyPath: String?
    var alsoRequired: [String]
    var force: Bool

    init(_ configuration: RunConfiguration) {
        trustDirectory = configuration.trustDirectory
        readerTrustDirectory = configuration.readerTrustDirectory
        vicalPaths = configuration.vicalPaths
        vicalAnchorPaths = configuration.vicalAnchorPaths
        ricalPaths = configuration.ricalPaths
        ricalAnchorPaths = configuration.ricalAnchorPaths
        statusDirectory = configuration.statusDirectory
        keepValues = configuration.keepValues
        keepPortraits = configuration.keepPortraits
        imageLimit = configuration.imageLimit
        scanKeyPath = configuration.scanKeyPath
        transcriptPath = configuration.transcriptPath
        readerKeyPath = configuration.readerKeyPath
        alsoRequired = configuration.alsoRequired.map(\.rawValue).sorted()
        force = configuration.force
    }

    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The configuration a worker verifies `inputs` of queued run `run` with, its proofs
    /// signed and its files written under `outDirectory`.
    package static func configuration(run: RunInfo, inputs: [String], outDirectory: String) throws -> RunConfiguration {
        let options: QueuedOptions
        do {
            options = try JSONDecoder().decode(QueuedOptions.self, from: Data(run.optionsJSON.utf8))
        } catch {
            throw PipelineSetupError("run \(run.id) was not added by `mdocverify queue add` (its options do not read): \(error)")
        }
        var configuration = RunConfiguration(inputs: inputs, trustDirectory: options.trustDirectory, outDirectory: outDirectory)
        configuration.readerTrustDirectory = options.readerTrustDirectory
        configuration.vicalPaths = options.vicalPaths
        configuration.vicalAnchorPaths = options.vicalAnchorPaths
        configuration.ricalPaths = options.ricalPaths
        configuration.ricalAnchorPaths = options.ricalAnchorPaths
        configuration.statusDirectory = options.statusDirectory
        configuration.keepValues = options.keepValues
        configuration.keepPortraits = options.keepPortraits
        configuration.imageLimit = options.imageLimit
        configuration.scanKeyPath = options.scanKeyPath
        configuration.transcriptPath = options.transcriptPath
        configuration.readerKeyPath = options.readerKeyPath
        configuration.alsoRequired = Set(options.alsoRequired.map { CheckID($0) })
        configuration.force = options.force
        configuration.verificationTime = run.verificationTime
        configuration.queuedRunID = run.id
        configuration.batchSize = batchSize(claimed: inputs.count, runBatchSize: configuration.batchSize)
        return configuration
    }

    /// The batch size of a claim of `claimed` items: one batch is recorded while the next is
    /// verified, so a claim of one batch would leave the cores idle while it commits and the
    /// server idle while it verifies. A claim is split in ``batchesPerClaim`` batches of at least
    /// ``smallestClaimBatch`` transactions (an item may hold many: an archive, a folder), none
    /// above a run's batch.
    package static func batchSize(claimed: Int, runBatchSize: Int) -> Int {
        let part = claimed / batchesPerClaim + (claimed % batchesPerClaim == 0 ? 0 : 1)
        return max(1, min(runBatchSize, max(smallestClaimBatch, part)))
    }

    /// Batches a claim is split in (``batchSize(claimed:runBatchSize:)``).
    package static let batchesPerClaim = 4
    /// The fewest transactions in a batch of a claim: below that, each batch's statements cost more than its rows.
    package static let smallestClaimBatch = 16
}
