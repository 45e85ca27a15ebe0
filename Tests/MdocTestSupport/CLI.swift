import Foundation
import NIOConcurrencyHelpers

/// Runs the built `mdocverify` binary, as a user would.
package enum CLI {
    package static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    package static var binary: URL {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mdocverify"),
            Bundle.main.bundleURL.appendingPathComponent("mdocverify"),
            packageRoot.appendingPathComponent(".build/debug/mdocverify"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }

    package struct Result: Sendable {
        package var status: Int32
        package var stdout: String
        package var stderr: String
    }

    /// The binary with `arguments`, run from the package root (not started), with this
    /// process's environment plus `environment`.
    private static func makeProcess(_ arguments: [String], environment: [String: String] = [:]) -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        return process
    }

    /// Runs to completion with the given arguments (cwd = package root).
    package static func run(_ arguments: [String], stdin: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = makeProcess(arguments, environment: environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
        try input.fileHandleForWriting.close()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                      stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Starts the binary and kills it with SIGKILL after `delay` seconds (if still running).
    /// Returns true when the process had already finished on its own.
    package static func runAndKill(_ arguments: [String], after delay: TimeInterval) throws -> Bool {
        let process = makeProcess(arguments)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(delay)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return false
        }
        return process.terminationReason == .exit
    }

    /// Starts the binary, sends it `signal` (SIGINT: Ctrl-C) as soon as it has written its first
    /// line of output (a batch recorded: the run is under way and its handler installed, whatever
    /// the machine's speed or load), and waits for it. `nil` when it finished before the signal.
    /// The output after the signal is returned in `stdout` (the first line included). With
    /// `closeOutput`, no signal is sent: the reader closes its end of standard output instead
    /// (a pipeline whose reader went away: the binary meets SIGPIPE), and `stdout` is the first line.
    package static func runAndInterruptAfterFirstLine(
        _ arguments: [String], signal: Int32 = SIGINT, closeOutput: Bool = false
    ) throws -> Result? {
        let process = makeProcess(arguments)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errorText = drainInBackground(err.fileHandleForReading)
        var output = Data()
        let reader = out.fileHandleForReading
        while !output.contains(0x0a) {
            let chunk = reader.availableData
            if chunk.isEmpty { break }  // end of file: the run finished without a line
            output.append(chunk)
        }
        let interrupted = process.isRunning && output.contains(0x0a)
        if closeOutput {
            try reader.close()
        } else {
            if interrupted { kill(process.processIdentifier, signal) }
            output.append(reader.readDataToEndOfFile())
        }
        process.waitUntilExit()
        let errorData = errorText()
        guard interrupted else { return nil }
        return Result(status: process.terminationStatus, stdout: String(decoding: output, as: UTF8.self),
                      stderr: String(decoding: errorData, as: UTF8.self))
    }
}

extension CLI {
    /// Runs any executable to completion (cwd = package root), capturing its output.
    package static func runProcess(_ executable: String, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        return try collect(process)
    }

    /// A run of the binary started by ``start(_:)``.
    package final class Running: @unchecked Sendable {
        // Set once by the thread that drains the process, read after `done` is signalled.
        private var result: Result?
        private let done = DispatchSemaphore(value: 0)

        init(_ process: Process) throws {
            DispatchQueue.global().async { [self] in
                result = try? CLI.collect(process)
                done.signal()
            }
        }

        /// Waits for the run to end; its status and output.
        package func wait() -> Result {
            done.wait()
            done.signal()
            return result ?? Result(status: -1, stdout: "", stderr: "could not run the binary")
        }
    }

    /// Starts the binary with `arguments` (cwd = package root) without waiting for it.
    package static func start(_ arguments: [String]) throws -> Running {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        return try Running(process)
    }

    /// Runs `process` to completion, draining standard output and error as it goes.
    static func collect(_ process: Process) throws -> Result {
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let errorText = drainInBackground(err.fileHandleForReading)
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorText()
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self))
    }

    /// Reads `handle` to its end on another thread, so that neither pipe of a process can fill
    /// up and block it; the function returned waits for the end and gives what was read.
    static func drainInBackground(_ handle: FileHandle) -> () -> Data {
        let text = NIOLockedValueBox(Data())
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = handle.readDataToEndOfFile()
            text.withLockedValue { $0 = data }
            drained.signal()
        }
        return {
            drained.wait()
            drained.signal()
            return text.withLockedValue { $0 }
        }
    }
}

extension CLI {
    /// Runs the binary under a pseudo-terminal `columns` wide (util-linux `script`), as an
    /// operator would: standard output and error both go to the terminal, whose bytes (ANSI
    /// sequences and carriage returns included) are returned in `stdout`.
    package static func runInTerminal(_ arguments: [String], columns: Int, environment: [String: String] = [:]) throws -> Result {
        let command = (["stty", "cols", String(columns), "rows", "50;", "exec", shellQuoted(binary.path)]
            + arguments.map(shellQuoted)).joined(separator: " ")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        process.currentDirectoryURL = packageRoot
        var inherited = ProcessInfo.processInfo.environment
        inherited.removeValue(forKey: "NO_COLOR")
        var merged = inherited.merging(environment) { $1 }
        merged["TERM"] = merged["TERM"] ?? "xterm"
        process.environment = merged
        return try collect(process)
    }

    /// `text` as one word for /bin/sh.
    package static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension CLI.Result {
    /// The JSON Lines records of `verify --format json` of one type (`transaction`,
    /// `rejectedInput`, `summary`: docs/json-lines.md), whose `type` comes first.
    package func records(_ type: String) -> [Substring] {
        stdout.split(separator: "\n").filter { $0.hasPrefix("{\"type\":\"\(type)\"") }
    }
}
