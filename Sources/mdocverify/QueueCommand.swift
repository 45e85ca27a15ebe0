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
            file and archive becomes a work item for `mdocverify worker`. Inputs and trust folders must \
            be readable at the same paths by every worker (shared storage): a worker whose trust differs \
            from the run's refuses its items.
            Exit codes: 0 added; 2 usage or setup error (no PostgreSQL store, unreachable, a missing input).
            """)

    @OptionGroup var verify: VerifyCommand

    func run() throws {
        let uri = try queueDatabase(verify.db)
        let plan: QueuedRunPlan
        do {
            plan = try QueuedRunPlan(configuration: try verify.runConfiguration())
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
        abstract: "Show the pending, leased, done and failed work items of each queued run, and in all.",
        discussion: """
            An item whose lease expired (its worker died) counts as pending: any worker takes it.
            JSON Lines (--format json): one object per run, then one for the whole queue.
            """)

    @Option(name: .long, help: "The PostgreSQL store (postgresql:// URI). Default: $MDOCVERIFY_DB.")
    var db: String?

    @Option(name: .long, help: "text or json (default: text on a terminal, json otherwise).")
    var format: OutputFormat?

    func run() throws {
        let uri = try queueDatabase(db)
        let runs: [WorkQueueStatus]
        do {
            runs = try PostgresStore(uri: uri, access: .readOnly).queueStatus()
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
        if (format ?? (isatty(STDOUT_FILENO) == 1 ? .text : .json)) == .json {
            func line(_ status: WorkQueueStatus, _ key: (String, JSONValue)) -> String {
                JSONValue.object([
                    key, ("pending", .integer(Int64(status.pending))), ("leased", .integer(Int64(status.leased))), ("done", .integer(Int64(status.done))),
                    ("failed", .integer(Int64(status.failed))),
                ]).serialized()
            }
            for run in runs { print(line(run, ("run", .string(run.runID)))) }
            print(line(total, ("type", .string("total"))))
            return
        }
        let header = ["run", "pending", "leased", "done", "failed"]
        let rows = runs.map { [TerminalText.escaped($0.runID), "\($0.pending)", "\($0.leased)", "\($0.done)", "\($0.failed)"] }
            + [["all \(Counting.of(runs.count, "run"))", "\(total.pending)", "\(total.leased)", "\(total.done)", "\(total.failed)"]]
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        for row in [header] + rows {
            print(row.enumerated().map { column, cell in
                column == 0 ? cell.padding(toLength: widths[0], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  "))
        }
        let all = total.pending + total.leased + total.done + total.failed
        if all > 0 { print("\(100 * (total.done + total.failed) / all)% of \(Counting.of(all, "item")) processed") }
    }
}
