@preconcurrency import Glibc
import Dispatch
import Foundation
import NIOConcurrencyHelpers

/// What ends a `verify` run cleanly: SIGINT (Ctrl-C), SIGTERM (a service manager, `kill`) and a
/// reader of standard output that went away (`| head`) each record the batch in flight, then stop;
/// a second signal quits at once. SIGPIPE is ignored, so that a closed output makes the write
/// fail (``flushOutput()``) instead of killing the process between two records.
final class StopSignals: @unchecked Sendable {
    // Made in `init`, cancelled in `cancel()`; never changed in between.
    private var sources: [any DispatchSourceProtocol] = []
    private let received = NIOLockedValueBox<Int>(0)
    private let outputClosed = NIOLockedValueBox(false)
    private let stop: @Sendable () -> Void

    /// `stop` is called once, on the first signal or closed output.
    init(stop: @escaping @Sendable () -> Void) {
        self.stop = stop
        signal(SIGPIPE, SIG_IGN)
        // A signal reaches either a thread that blocks it (libdispatch's workers: the signal
        // source reads it) or one that does not (the handler, which passes it on through a pipe).
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFL, O_NONBLOCK)
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            }
            stopSignalPipe = ends[1]
            let reader = DispatchSource.makeReadSource(fileDescriptor: ends[0], queue: .global())
            reader.setEventHandler { [weak self] in
                var number: UInt8 = 0
                while read(ends[0], &number, 1) == 1 { self?.receive(Int32(number)) }
            }
            reader.resume()
            sources.append(reader)
        }
        for number in [SIGINT, SIGTERM] {
            signal(number, stopSignalPipe >= 0 ? { number in
                var byte = UInt8(truncatingIfNeeded: number)
                _ = write(stopSignalPipe, &byte, 1)
            } : SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in self?.receive(number) }
            source.resume()
            sources.append(source)
        }
    }

    private func receive(_ number: Int32) {
        guard first() else { Foundation.exit(130) }
        let again = number == SIGINT ? "Ctrl-C again to quit" : "a second SIGTERM quits"
        let cause = number == SIGINT ? "" : "terminated: "
        stopping("\(cause)stopping after the batch in flight (\(again) at once; either way, the same command resumes)")
    }

    /// Called after each result printed: flushes it (a reader sees each result as it comes), and
    /// when the write failed (the reader went away), the run stops as it does for Ctrl-C. A
    /// record longer than stdout's buffer is written past it, so its failure leaves nothing to
    /// flush: the stream's error flag tells it.
    func flushOutput() {
        guard fflush(nil) != 0 || ferror(stdout) != 0 else { return }
        let already = outputClosed.withLockedValue { closed in
            defer { closed = true }
            return closed
        }
        guard !already, first() else { return }
        stopping("standard output was closed: stopping after the batch in flight (the same command resumes)")
    }

    /// Counts one stop request; true for the first.
    private func first() -> Bool {
        received.withLockedValue { count in
            count += 1
            return count == 1
        }
    }

    private func stopping(_ message: String) {
        stop()
        FileHandle.standardError.write(Data("mdocverify: \(message)\n".utf8))
    }

    /// Gives SIGINT and SIGTERM back their default action.
    func cancel() {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

/// The write end of the pipe through which the signal handler passes a signal on (-1: none).
nonisolated(unsafe) private var stopSignalPipe: Int32 = -1
