package import Foundation
internal import MdocChecks
package import MdocIngest
package import MdocStore

/// A run for the work queue (`mdocverify queue add`): checked as `verify` checks a run, nothing
/// created; its record, the options its workers read back, and its work items.
package struct QueuedRunPlan: Sendable {
    package let run: RunInfo
    /// What the run's trust snapshot hash is the SHA-256 of.
    package let trustSnapshot: [UInt8]
    /// One per bundle folder or lone `.cbor` file, one per ``ArchivePart`` of `archivePart`
    /// transactions of an archive (the whole archive when it failed as a whole), one per record
    /// of a central intake's store, in input order: each is read by one worker at the same path.
    package let items: [String]

    package init(configuration: RunConfiguration, archivePart: Int = ArchivePart.defaultSize, now: Date = Date()) throws {
        guard (1...ArchivePart.maximumSize).contains(archivePart) else {
            throw PipelineSetupError("an archive's part holds 1 to \(ArchivePart.maximumSize) transactions, not \(archivePart)")
        }
        let preflight = try Preflight(configuration)
        let id = Orchestrator.newRunID(now: now)
        let options = try QueuedOptions(configuration).json()
        run = RunInfo(
            id: id, startedAt: now, verificationTime: configuration.verificationTime ?? now,
            verificationTimeIsNow: configuration.verificationTime == nil, trustSnapshotHash: preflight.trust.snapshotHash,
            contextHash: preflight.contextHash, optionsJSON: options, processorVersion: ProcessorInfo.version,
            inputs: configuration.inputs, proofFile: ProveStage.relativePath(runID: id), trustItems: preflight.trustMaterial.items)
        trustSnapshot = preflight.trust.snapshot
        var items = ItemList(archivePart: archivePart)
        for path in configuration.inputs {
            // A central intake's store: one item per record it holds.
            if let records = configuration.recordInputs, records.handles(path) {
                items.add(records: try records.expand(path) ?? [path])
                continue
            }
            for item in InputReader(inputs: [path], limits: configuration.ingestLimits) {
                switch item {
                case .transaction(let bundle): items.add(source: bundle.source)
                case .failure(let failure): items.add(source: failure.source)
                }
            }
        }
        self.items = items.finished()
    }

    /// The items of the inputs' sources, in order; an archive's entries counted until it ends.
    private struct ItemList {
        let archivePart: Int
        var items: [String] = []
        var seen = Set<String>()
        /// The archive being read: its path, its entries so far, whether it failed as a whole.
        var archive: (path: String, entries: Int, failed: Bool)?

        init(archivePart: Int) { self.archivePart = archivePart }

        mutating func add(source: String) {
            if let split = source.range(of: "!/") {
                let path = String(source[..<split.lowerBound])
                if archive?.path != path {
                    endArchive()
                    archive = (path, 0, false)
                }
                archive?.entries += 1
            } else if archive?.path == source {
                // A failure of the whole archive after some entries (it changed while read).
                archive?.failed = true
            } else {
                endArchive()
                append(source)
            }
        }

        mutating func add(records: [String]) {
            endArchive()
            for record in records { append(record) }
        }

        mutating func finished() -> [String] {
            endArchive()
            return items
        }

        private mutating func append(_ input: String) {
            if seen.insert(input).inserted { items.append(input) }
        }

        private mutating func endArchive() {
            guard let (path, entries, failed) = archive else { return }
            archive = nil
            guard !failed else { return append(path) }
            for first in stride(from: 0, to: entries, by: archivePart) {
                append(ArchivePart(path: path, first: first, last: min(entries, first + archivePart) - 1).input)
            }
        }
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
    var intakeSealingKeyPath: String?
    var intakeKiosksDirectory: String?

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
        intakeSealingKeyPath = configuration.intakeSealingKeyPath
        intakeKiosksDirectory = configuration.intakeKiosksDirectory
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
        configuration.intakeSealingKeyPath = options.intakeSealingKeyPath
        configuration.intakeKiosksDirectory = options.intakeKiosksDirectory
        configuration.verificationTime = run.verificationTime
        configuration.queuedRunID = run.id
        return configuration
    }

    /// The batch size of a worker's claim of `inputs` (``batchSize(claimed:runBatchSize:)``).
    package static func batchSize(inputs: [String], runBatchSize: Int) -> Int {
        // A part of an archive holds its transactions; any other item is counted as one.
        let claimed = inputs.reduce(0) { total, input in
            total + (ArchivePart(input: input).map { $0.last - $0.first + 1 } ?? 1)
        }
        return batchSize(claimed: claimed, runBatchSize: runBatchSize)
    }

    /// The batch size of a claim of `claimed` transactions: one batch is recorded while the next is
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

/// A part of an archive as a work item, so that several workers share one archive: its
/// transactions `first...last` (0-based, in the order the archive yields them, each entry that
/// did not become a transaction counted too). Its item's input is the archive's path followed by
/// `!/#first-last` (a queued folder whose path has that form is read as a part: not supported).
package struct ArchivePart: Sendable, Hashable {
    package let path: String
    package let first: Int
    package let last: Int

    package init(path: String, first: Int, last: Int) {
        self.path = path
        self.first = first
        self.last = last
    }

    /// The part an item's `input` names, `nil` for any other input.
    package init?(input: String) {
        guard let marker = input.range(of: Self.marker, options: .backwards) else { return nil }
        let bounds = input[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, bounds.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let first = Int(bounds[0]), let last = Int(bounds[1]), first <= last, marker.lowerBound > input.startIndex
        else { return nil }
        self.init(path: String(input[..<marker.lowerBound]), first: first, last: last)
    }

    package var input: String { "\(path)\(Self.marker)\(first)-\(last)" }

    /// What separates the archive's path from the part's bounds.
    static let marker = "!/#"

    /// Transactions per part by default (`queue add --archive-part`): each worker reading a part
    /// reads the archive's entries before it too (a compressed archive cannot seek), so a part is
    /// many batches long.
    package static let defaultSize = 2_500
    /// Most transactions per part.
    package static let maximumSize = 1_000_000
}

/// The items of a queued run's inputs, as ``InputReader`` yields them, except that an
/// ``ArchivePart`` yields only its transactions: the archive is read (both passes of
/// ``InputReader``) up to the part's last one. Consecutive parts of one archive are read in one
/// pass; an archive-level failure comes once per read.
package struct QueuedInputReader: Sequence, Sendable {
    enum Source: Sendable {
        case inputs([String])
        case part(ArchivePart)
    }

    let sources: [Source]
    let limits: IngestLimits

    /// Reads `inputs`; with `parts`, an input naming an ``ArchivePart`` is read as that part.
    package init(inputs: [String], limits: IngestLimits, parts: Bool) {
        self.limits = limits
        guard parts else {
            sources = [.inputs(inputs)]
            return
        }
        var sources: [Source] = []
        for input in inputs {
            guard let part = ArchivePart(input: input) else {
                if case .inputs(let previous) = sources.last {
                    sources[sources.count - 1] = .inputs(previous + [input])
                } else {
                    sources.append(.inputs([input]))
                }
                continue
            }
            if case .part(let previous) = sources.last, previous.path == part.path, previous.last + 1 == part.first {
                sources[sources.count - 1] = .part(ArchivePart(path: part.path, first: previous.first, last: part.last))
            } else {
                sources.append(.part(part))
            }
        }
        self.sources = sources
    }

    package func makeIterator() -> Iterator { Iterator(sources: sources.reversed(), limits: limits) }

    package struct Iterator: IteratorProtocol {
        var sources: [Source]
        let limits: IngestLimits
        var reading: InputReader.Iterator?
        var part: ArchivePart?
        /// The index of the next entry of the part's archive.
        var index = 0

        package mutating func next() -> IngestItem? {
            while true {
                if reading == nil {
                    guard let source = sources.popLast() else { return nil }
                    switch source {
                    case .inputs(let inputs):
                        part = nil
                        reading = InputReader(inputs: inputs, limits: limits).makeIterator()
                    case .part(let next):
                        part = next
                        index = 0
                        reading = InputReader(inputs: [next.path], limits: limits).makeIterator()
                    }
                }
                guard let item = reading?.next() else {
                    reading = nil
                    continue
                }
                guard let part else { return item }
                let source = switch item {
                case .transaction(let bundle): bundle.source
                case .failure(let failure): failure.source
                }
                // An archive-level failure names the archive alone.
                guard source.hasPrefix(part.path + "!/") else { return item }
                let at = index
                index += 1
                guard at >= part.first else { continue }
                // The part's last transaction: the rest of the archive is not read.
                if at == part.last { reading = nil }
                return item
            }
        }
    }
}
