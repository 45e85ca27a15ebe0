import ArgumentParser
import Foundation
import MdocPipeline
import MdocPostgres
import MdocStore

/// `mdocverify queue add|status`: runs verified by workers that share a PostgreSQL database.
struct QueueCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "Add runs to the work queue of a PostgreSQL store, and show how far they are.",
        subcommands: [QueueAddCommand.self, QueueStatusCommand.self])
}

/// The PostgreSQL URI of `--db`, else of MDOCVERIFY_DB: the queue exists only there.
func queueDatabase(_ db: String?) throws -> PostgresURI {
    guard let text = db ?? ProcessInfo.processInfo.environment[PostgresURI.environmentVariable],
        PostgresURI.hasPostgresScheme(text)
    else { throw SetupError("the work queue is in a PostgreSQL store: give --db postgresql://… (or MDOCVERIFY_DB)") }
    do { return try PostgresURI(text) } catch { throw SetupError("--db: \(error)") }
}

struct QueueAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add a run to the work queue: its options, its trust snapshot and its work items.",
        discussion: """
            Takes verify's inputs and options. The run is checked as verify checks it (inputs, trust, \
            keys), then recorded with its options and trust snapshot; each bundle folder, lone .cbor \
            file, part of an archive (--archive-part transactions) and record of a central intake's \
            store (intake.sqlite, with --sealing-key and --kiosks) becomes a work item for \
            `mdocverify worker`; workers share an archive by its parts, each reading the archive up \
            to its part. Inputs, trust folders and keys must be readable at the same paths by every \
            worker (shared storage): a worker whose trust differs from the run's refuses its items.
            Exit codes: 0 added; 2 usage or setup error (no PostgreSQL store, unreachable, a missing input).
            """)

    @OptionGroup var verify: VerifyCommand

    @Option(name: .long, help: "Transactions of an archive per work item (default: \(ArchivePart.defaultSize)).")
    var archivePart = ArchivePart.defaultSize

    func validate() throws {
        guard (1...ArchivePart.maximumSize).contains(archivePart) else {
            throw ValidationError("--archive-part must be 1 to \(ArchivePart.maximumSize)")
        }
    }

    func run() throws {
        let uri = try queueDatabase(verify.db)
        let plan: QueuedRunPlan
        do {
            plan = try QueuedRunPlan(configuration: try verify.runConfiguration(), archivePart: archivePart)
        } catch let error as ValidationError {
            throw error
        } catch {
            throw SetupError("\(error)")
        }
        do {
            try PostgresStore(uri: uri).addRun(QueuedRun(run: plan.run, trustSnapshot: plan.trustSnapshot), inputs: plan.items)
        } catch {
            throw SetupError("\(error) (--db \(uri.redacted))")
        }
        print("added run \(plan.run.id): \(Counting.of(plan.items.count, "work item")) in \(uri.redacted)")
    }
}

struct QueueStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the work items of each queued run, their rate and time left, and the workers of the cluster.",
        discussion: """
            An item whose lease expired (its worker died) counts as pending: any worker takes it. A \
            run's rate is the items done over the last five minutes; its time left, the items not \
            done at that rate. Each worker is shown with its host, process, the items it holds and \
            has done, and its last claim or lease renewal.
            JSON Lines (--format json): one object per run, one per worker ("type": "worker"), then \
            one for the whole queue ("type": "total").
            """)

    @Option(name: .long, help: "The PostgreSQL store (postgresql:// URI). Default: $MDOCVERIFY_DB.")
    var db: String?

    @Option(name: .long, help: "text or json (default: text on a terminal, json otherwise).")
    var format: OutputFormat?

    func run() throws {
        let uri = try queueDatabase(db)
        let runs: [WorkQueueStatus], progress: [WorkQueueProgress], workers: [QueueWorkerStatus]
        do {
            let store = try PostgresStore(uri: uri, access: .readOnly)
            runs = try store.queueStatus()
            progress = try store.queueProgress()
            workers = try store.queueWorkers()
        } catch {
            throw SetupError("\(error) (--db \(uri.redacted))")
        }
        var total = WorkQueueStatus(runID: "")
        for run in runs {
            total.pending += run.pending
            total.leased += run.leased
            total.done += run.done
            total.failed += run.failed
        }
        let rates = Dictionary(progress.map { ($0.runID, $0) }, uniquingKeysWith: { first, _ in first })
        if (format ?? (isatty(STDOUT_FILENO) == 1 ? .text : .json)) == .json {
            func counts(_ status: WorkQueueStatus) -> [(String, JSONValue)] {
                [("pending", .integer(Int64(status.pending))), ("leased", .integer(Int64(status.leased))),
                 ("done", .integer(Int64(status.done))), ("failed", .integer(Int64(status.failed)))]
            }
            func number(_ value: Double?) -> JSONValue { value.map { .number(($0 * 1000).rounded() / 1000) } ?? .null }
            for run in runs {
                print(JSONValue.object([("run", .string(run.runID))] + counts(run) + [
                    ("itemsPerSecond", number(rates[run.runID]?.itemsPerSecond)),
                    ("secondsLeft", number(rates[run.runID]?.secondsLeft)),
                ]).serialized())
            }
            for worker in workers {
                print(JSONValue.object([
                    ("type", .string("worker")), ("worker", .string(worker.name)), ("host", .string(worker.host)),
                    ("pid", .integer(worker.processID)), ("leased", .integer(Int64(worker.leased))),
                    ("done", .integer(Int64(worker.done))), ("lastSeen", .string(Self.instant(worker.lastSeen))),
                ]).serialized())
            }
            print(JSONValue.object([("type", .string("total"))] + counts(total)).serialized())
            return
        }
        let rows = runs.map { run in
            [TerminalText.escaped(run.runID), "\(run.pending)", "\(run.leased)", "\(run.done)", "\(run.failed)",
             rates[run.runID]?.itemsPerSecond.map { String(format: "%.1f", $0) } ?? "-",
             rates[run.runID]?.secondsLeft.map(Self.duration) ?? "-"]
        } + [["all \(Counting.of(runs.count, "run"))", "\(total.pending)", "\(total.leased)", "\(total.done)", "\(total.failed)", "", ""]]
        Self.printTable(["run", "pending", "leased", "done", "failed", "items/s", "left"], rows, leftAligned: 1)
        let all = total.pending + total.leased + total.done + total.failed
        if all > 0 { print("\(100 * (total.done + total.failed) / all)% of \(Counting.of(all, "item")) processed") }
        guard !workers.isEmpty else { return }
        print("")
        let now = Date()
        let workerRows = workers.map { worker in
            [TerminalText.escaped(worker.name), TerminalText.escaped(worker.host), "\(worker.processID)", "\(worker.leased)",
             "\(worker.done)", Self.duration(max(0, now.timeIntervalSince(worker.lastSeen))) + " ago"]
        }
        Self.printTable(["worker", "host", "pid", "leased", "done", "last seen"], workerRows, leftAligned: 2)
    }

    /// Columns padded to their widest cell: the first `leftAligned` left-aligned, the others right-aligned.
    static func printTable(_ header: [String], _ rows: [[String]], leftAligned: Int) {
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(row.enumerated().map { column, cell in
                column < leftAligned ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
        }
    }

    /// `4 s`, `3 min 05 s`, `2 h 10 min`.
    static func duration(_ seconds: Double) -> String {
        let whole = Int(min(seconds.rounded(), 1e9))
        if whole < 60 { return "\(whole) s" }
        if whole < 3600 { return String(format: "%d min %02d s", whole / 60, whole % 60) }
        return String(format: "%d h %02d min", whole / 3600, whole % 3600 / 60)
    }

    static func instant(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
