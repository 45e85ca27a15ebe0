import Foundation
import NIOConcurrencyHelpers

/// Runs a program of the system or of bin/ to completion, as the tests' PostgreSQL and network
/// helpers need.
package enum Command {
    /// The repository's root (this file is Tests/MdocPostgresTestSupport/Command.swift).
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    package struct Failure: Error, CustomStringConvertible {
        package let command: [String]
        package let status: Int32
        package let stdout: String
        package let stderr: String
        package var description: String {
            "\(command.joined(separator: " ")) exited with \(status): \(stderr.trimmingCharacters(in: .whitespacesAndNewlines))"
        }
    }

    /// Runs `arguments[0]` (a bin/ script as `bin/NAME`, or a program found in PATH) with the
    /// rest; returns its standard output, or throws ``Failure`` when it exits non-zero.
    @discardableResult
    package static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        if let program = arguments.first, program.hasPrefix("bin/") {
            process.executableURL = packageRoot.appendingPathComponent(program)
            process.arguments = Array(arguments.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
        }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Standard error is read on another thread, so that neither pipe fills and blocks the program.
        let errData = NIOLockedValueBox(Data())
        let errRead = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let data = err.fileHandleForReading.readDataToEndOfFile()
            errData.withLockedValue { $0 = data }
            errRead.signal()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        errRead.wait()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let stderr = errData.withLockedValue { String(decoding: $0, as: UTF8.self) }
            throw Failure(
                command: arguments, status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                stderr: stderr)
        }
        return String(decoding: outData, as: UTF8.self)
    }
}
