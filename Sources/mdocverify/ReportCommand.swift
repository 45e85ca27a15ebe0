import ArgumentParser
import Foundation
import MdocIntake
import MdocModel
import MdocPostgres
import MdocReports
import MdocStore
import MdocTime

/// `mdocverify report`: the compliance report of a run or a period, from the report database.
struct ReportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Render the compliance report of a run or a period: HTML, CSV and JSON.",
        discussion: """
            Reads the report database written by `mdocverify verify` (never the inputs) and writes, \
            under --out: report-<label>.html (report-<label>.ar.html with --lang ar), report-<label>.json, \
            report-<label>-transactions.csv (every transaction) and report-<label>-check-failures.csv \
            (every failed check result). <label> is run-<id>, or the period's dates. Prints the paths written.
            Default scope: the latest run. --run picks a run; --since/--until pick the transactions \
            captured in a period (YYYY-MM-DD, or RFC 3339; --until YYYY-MM-DD includes that day), each \
            with its latest verification.
            From the report database of a centre (serve, intake record into it), the report adds a section \
            per kiosk and report-<label>-kiosks.csv and report-<label>-kiosk-differences.csv. \
            At a centre, --intake DIR/intake.sqlite writes the kiosk sections alone instead: \
            report-kiosks.html (a section per kiosk: records received, sync lag from sealing to receipt, \
            the verdicts that differ between kiosk and centre and the checks why), report-kiosks.json, \
            report-kiosks.csv and report-kiosks-differences.csv.
            No personal data unless --include-values and the store kept values (verify --keep-values).
            Exit codes: 0 written; 2 usage or setup error (no database, a file that is not an mdocverify \
            database or was written by an earlier build, no runs, unknown run, bad dates), with the error's code; 130 interrupted (Ctrl-C).
            """)

    @Option(name: .long, help: "Report database: a SQLite file, or a postgresql:// URI. Default: $MDOCVERIFY_DB, else $MDOCVERIFY_OUT/mdocverify.sqlite, else reports/mdocverify.sqlite.")
    var db: String?

    @Option(name: .long, help: "The centre's intake store (<serve or intake --out>/intake.sqlite): write the kiosk report.")
    var intake: String?

    @Option(name: .customLong("run"), help: "The run to report on (default: the latest run).")
    var runID: String?

    @Option(name: .long, help: "First capture day (YYYY-MM-DD, UTC) or instant (RFC 3339) of the period.")
    var since: String?

    @Option(name: .long, help: "Last capture day (YYYY-MM-DD, included) or end instant (RFC 3339, excluded) of the period.")
    var until: String?

    @Option(name: .long, help: "Formats to write, comma-separated: html, csv, json.")
    var format: String = "html,csv,json"

    @Option(name: .long, help: "Folder the report files go to; '-' writes the JSON report to standard output instead (no files). Default: $MDOCVERIFY_OUT, else reports.")
    var out: String?

    @Option(name: .long, help: "Language of the HTML report: en or ar.")
    var lang: String = "en"

    @Flag(name: .customLong("include-values"), help: "Include element values (personal data) when the database holds them.")
    var includeValues = false

    @Option(name: .long, help: "Judge certificate expiry at this time (RFC 3339). Default: now.")
    var at: String?

    func validate() throws {
        if intake != nil && (runID != nil || since != nil || until != nil || db != nil || includeValues) {
            throw ValidationError("--intake reports on the kiosks' records: leave out --db, --run, --since, --until and --include-values")
        }
        if runID != nil && (since != nil || until != nil) {
            throw ValidationError("give either --run or --since/--until, not both")
        }
        _ = try formats()
        _ = try language()
        let period = try self.period()
        if let since = period.since, let until = period.until, since >= until {
            throw ValidationError("--since \(self.since ?? "") is not before --until \(self.until ?? "")")
        }
        if let at, RFC3339.parse(at) == nil {
            throw ValidationError("--at \(at) is not an RFC 3339 time; write it like 2026-11-22T12:00:00Z")
        }
    }

    func formats() throws -> Set<ReportFormat> {
        var formats = Set<ReportFormat>()
        for name in format.split(separator: ",") {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let format = ReportFormat(rawValue: trimmed) else {
                throw ValidationError("--format \(name): choose among html, csv, json (comma-separated)")
            }
            formats.insert(format)
        }
        guard !formats.isEmpty else { throw ValidationError("--format needs at least one of html, csv, json") }
        return formats
    }

    func language() throws -> ReportLanguage {
        guard let language = ReportLanguage(rawValue: lang.lowercased()) else {
            throw ValidationError("--lang \(lang): choose en or ar")
        }
        return language
    }

    /// The period's bounds: `since` included, `until` excluded.
    func period() throws -> (since: Date?, until: Date?) {
        func parse(_ text: String?, option: String, endOfDay: Bool) throws -> Date? {
            guard let text else { return nil }
            if text.count == 10, let day = RFC3339.parse(text + "T00:00:00Z") {
                return endOfDay ? day.addingTimeInterval(86_400) : day
            }
            if let instant = RFC3339.parse(text) { return instant }
            throw ValidationError("\(option) \(text) is not a date; write it like 2026-11-22 or 2026-11-22T12:00:00Z")
        }
        return (try parse(since, option: "--since", endOfDay: false), try parse(until, option: "--until", endOfDay: true))
    }

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        let out = self.out ?? environment["MDOCVERIFY_OUT"] ?? "reports"
        if let intake {
            try Self.kioskReport(intake: intake, out: out, formats: try formats())
            return
        }
        let verifyOut = environment["MDOCVERIFY_OUT"] ?? "reports"
        let location = db ?? environment[PostgresURI.environmentVariable]
            ?? (verifyOut as NSString).appendingPathComponent("mdocverify.sqlite")
        let scope: ReportRequest.Scope
        if let runID {
            scope = .run(runID)
        } else if since != nil || until != nil {
            let period = try self.period()
            scope = .period(since: period.since, until: period.until)
        } else {
            scope = .latestRun
        }
        var request = ReportRequest(scope: scope, generator: "mdocverify \(ProcessorVersion.current)", includeValues: includeValues)
        if let at, let time = RFC3339.parse(at) { request.referenceTime = time }
        // `--out -`: the JSON report on standard output, no files.
        let output: ReportOutput? = out == "-" ? nil : ReportOutput(directory: out, formats: try formats(), language: try language())
        let files: ReportFiles?
        do {
            // Read only: the report never writes to the store (which may be on read-only media),
            // and a database that is not a store is refused untouched.
            if PostgresURI.hasPostgresScheme(location) {
                let uri = try PostgresURI(location)
                let store: PostgresStore
                do {
                    store = try PostgresStore(uri: uri, access: .readOnly)
                } catch {
                    throw SetupError("\(error) (--db \(uri.redacted))")
                }
                files = try Self.produce(store: store, named: uri.redacted, request: request, output: output)
            } else {
                let store: ReportStore
                do {
                    store = try ReportStore(path: location, access: .readOnly)
                } catch {
                    throw SetupError("\(error)")
                }
                files = try Self.produce(store: store, named: location, request: request, output: output)
            }
        } catch let error as PostgresError {
            throw SetupError("\(error)")
        }
        guard let files else { return }
        for path in files.all { print(path) }
        if includeValues && !files.report.includesValues {
            FileHandle.standardError.write(Data(
                "mdocverify: --include-values: the database holds no element values (verify with --keep-values); none included\n".utf8))
        }
    }

    /// The kiosk report of the intake store at `intake`: its files under `out`, or JSON on standard output for `-`.
    static func kioskReport(intake: String, out: String, formats: Set<ReportFormat>) throws {
        guard FileManager.default.fileExists(atPath: intake) else {
            throw SetupError("--intake \(intake): no such intake store (serve and intake write <out>/intake.sqlite)")
        }
        do {
            let report = try IntakeStore(path: intake).kioskReport(generator: "mdocverify \(ProcessorVersion.current)")
            if out == "-" {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                FileHandle.standardOutput.write(try encoder.encode(report) + Data("\n".utf8))
                return
            }
            for path in try KioskReportFiles.write(report, output: ReportOutput(directory: out, formats: formats)) { print(path) }
        } catch let error as ReportError {
            throw SetupError(error.message)
        } catch {
            throw SetupError("cannot build the kiosk report from \(intake): \(error)")
        }
    }

    /// The report of `store` (`name` in messages), errors as setup errors: written to the files
    /// of `output`, or with no output as JSON to standard output (nil then).
    static func produce(store: some ReportSource, named name: String, request: ReportRequest, output: ReportOutput?) throws -> ReportFiles? {
        do {
            guard let output else {
                let report = try ReportGenerator.build(store: store, request: request)
                FileHandle.standardOutput.write(try ReportGenerator.json(report))
                FileHandle.standardOutput.write(Data("\n".utf8))
                return nil
            }
            return try ReportGenerator.generate(store: store, request: request, output: output)
        } catch let error as ReportError {
            throw SetupError(error.message)
        } catch {
            throw SetupError("cannot build the report from \(name): \(error)")
        }
    }
}
