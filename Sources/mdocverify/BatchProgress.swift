import Foundation
import MdocChecks
import MdocReports

/// A one-line progress display on a terminal (standard error): count, rate, not valid so far,
/// and an ETA once the total is known and a few seconds of data make the rate meaningful.
final class Progress: @unchecked Sendable {
    /// Seconds of data before a rate or an ETA is shown: the first transactions include start-up.
    static let settleSeconds: Double = 3
    /// Seconds between two redraws.
    static let redrawInterval: Double = 0.1

    let enabled: Bool
    private let width: Int
    private let lock = NSLock()
    private var done = 0
    private var notValid = 0
    private var rejected = 0
    private let started: Date
    private var lastDraw = Date.distantPast
    private var total: Int?
    private var finished = false

    init(enabled: Bool, width: Int = Terminal.columns(of: STDERR_FILENO), started: Date = Date()) {
        self.enabled = enabled
        self.width = width
        self.started = started
    }

    func setTotal(_ total: Int) { lock.withLock { self.total = total } }
    var isFinished: Bool { lock.withLock { finished } }

    func count(verdict: Verdict) {
        lock.withLock {
            done += 1
            if verdict != .valid { notValid += 1 }
        }
    }

    func countRejected() { lock.withLock { rejected += 1 } }

    func draw() {
        guard enabled else { return }
        lock.withLock {
            let now = Date()
            guard now.timeIntervalSince(lastDraw) > Self.redrawInterval else { return }
            lastDraw = now
            let line = Self.line(done: done, total: total, notValid: notValid, rejected: rejected,
                                 elapsed: now.timeIntervalSince(started), width: width)
            FileHandle.standardError.write(Data("\r\u{1B}[2K\(line)".utf8))
        }
    }

    /// The progress line, at most `width - 1` columns (the cursor stays on the line).
    static func line(done: Int, total: Int?, notValid: Int, rejected: Int, elapsed: Double, width: Int) -> String {
        var parts: [String] = []
        if let total, total > 0 {
            parts.append("\(Counting.number(done))/\(Counting.number(total)) transactions")
        } else {
            parts.append(Counting.of(done, "transaction"))
        }
        if elapsed >= settleSeconds && done > 0 {
            let rate = Double(done) / elapsed
            parts.append(rate >= 10 ? "\(Counting.number(Int(rate.rounded())))/s" : String(format: "%.1f/s", rate))
            if let total, total > done {
                parts.append("ETA " + duration(Double(total - done) / rate))
            }
        }
        parts.append("\(Counting.number(notValid)) not valid")
        if rejected > 0 { parts.append(Counting.of(rejected, "input") + " rejected") }
        let line = "  " + parts.joined(separator: "  ")
        return line.count < width ? line : String(line.prefix(max(0, width - 1)))
    }

    static func duration(_ seconds: Double) -> String {
        let s = Int(min(seconds, 359_999).rounded())
        return s >= 3600 ? String(format: "%dh%02dm", s / 3600, s % 3600 / 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    func finish() {
        lock.withLock { finished = true }
        clear()
    }

    func clear() {
        guard enabled else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}

/// The terminal's size.
enum Terminal {
    /// Columns used when the stream is not a terminal or does not say.
    static let defaultColumns = 100

    static func columns(of descriptor: Int32) -> Int {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let columns = Int(text), columns > 0 { return columns }
        return defaultColumns
    }
}

/// Counts for people: thousands separated, nouns agreeing with their number.
enum Counting {
    static func number(_ n: Int) -> String { ReportFormatter.grouped(n) }

    /// "1 transaction", "3,000 transactions".
    static func of(_ n: Int, _ singular: String, plural: String? = nil) -> String {
        "\(number(n)) " + (n == 1 ? singular : plural ?? singular + "s")
    }
}
