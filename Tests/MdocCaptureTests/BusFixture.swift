import Foundation
import MdocDBus
import MdocTestSupport
import XCTest

/// A private D-Bus bus with system-bus semantics (its own `dbus-daemon` and configuration) and,
/// on it, the BlueZ stand-in (`bluez-standin`) playing a holder: started for one test, stopped
/// (both processes terminated and waited for) when the test is done with it.
final class BusFixture: @unchecked Sendable {
    // @unchecked Sendable: set up in init; a test reads it from its tasks and stops it once.
    let folder: TemporaryFolder
    /// `unix:path=...`: what DBUS_SYSTEM_BUS_ADDRESS is set to for the reader.
    let address: String
    /// The IACA of the stand-in's mDLs, as a `--trust` folder.
    let trust: String
    /// The holder's engagements (`mdoc:` URIs), one per `engagements`.
    private(set) var uris: [String] = []
    private let daemon: Process
    private var standIn: Process?

    /// The stand-in's options: a scenario (nil: no stand-in, so org.bluez is absent), the modes
    /// the holder offers, the MTU (a number, `random` or `none`).
    init(scenario: String? = "valid", offer: String = "both", mtu: String = "random", engagements: Int = 1) throws {
        folder = try TemporaryFolder(prefix: "mdocverify-ble")
        let socket = folder.url("bus")
        address = "unix:path=\(socket)"
        trust = folder.url("trust")
        let configuration = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>system</type>
              <listen>\(address)</listen>
              <auth>EXTERNAL</auth>
              <policy context="default">
                <allow user="*"/>
                <allow own="org.bluez"/>
                <allow send_type="method_call"/>
                <allow send_type="signal"/>
                <allow send_type="method_return"/>
                <allow send_type="error"/>
                <allow receive_type="method_call"/>
                <allow receive_type="signal"/>
                <allow receive_type="method_return"/>
                <allow receive_type="error"/>
              </policy>
            </busconfig>
            """
        let configPath = try folder.write("bus.conf", Array(configuration.utf8))
        daemon = Process()
        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(configPath)", "--nofork", "--nopidfile"]
        daemon.standardOutput = FileHandle.nullDevice
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        let deadline = Date().addingTimeInterval(10)
        while !FileManager.default.fileExists(atPath: socket) {
            guard Date() < deadline, daemon.isRunning else {
                stop()
                throw FixtureError("dbus-daemon did not start (is the dbus-daemon package installed? bin/setup installs it)")
            }
            usleep(10_000)
        }
        guard let scenario else { return }
        try startStandIn(["--address", address, "--scenario", scenario, "--offer", offer, "--mtu", mtu,
                          "--engagements", String(engagements), "--trust-out", trust], lines: engagements)
    }

    deinit { stop() }

    /// Fixtures live until their test ends (``BusFixtureTestCase`` stops them in tearDown).

    struct FixtureError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    static var standInBinary: URL {
        let candidates = [
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("bluez-standin"),
            // Beside the test runner: the build's own products (also .build-address, .build-thread).
            Bundle.main.bundleURL.appendingPathComponent("bluez-standin"),
            CLI.packageRoot.appendingPathComponent(".build/debug/bluez-standin"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[2]
    }

    private func startStandIn(_ arguments: [String], lines: Int) throws {
        let process = Process()
        process.executableURL = Self.standInBinary
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        try process.run()
        standIn = process
        // A stand-in that hangs is killed, which ends the read below.
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        defer { watchdog.cancel() }
        var text = ""
        while text.filter({ $0 == "\n" }).count < lines {
            let data = out.fileHandleForReading.availableData
            guard !data.isEmpty else { throw FixtureError("the stand-in ended before it was ready") }
            text += String(decoding: data, as: UTF8.self)
        }
        uris = text.split(separator: "\n").map(String.init)
    }

    /// Stops the stand-in and the bus, and waits for both. The bus is killed: a process started
    /// from the test runner may inherit a mask that blocks SIGTERM, which dbus-daemon keeps.
    func stop() {
        if let standIn, standIn.isRunning {
            standIn.terminate()
            let deadline = Date().addingTimeInterval(5)
            while standIn.isRunning && Date() < deadline { usleep(5_000) }
            if standIn.isRunning { kill(standIn.processIdentifier, SIGKILL) }
            standIn.waitUntilExit()
        }
        if daemon.isRunning {
            kill(daemon.processIdentifier, SIGKILL)
            daemon.waitUntilExit()
        }
    }

    /// A connection of the test's own to the bus.
    func connect() throws -> DBusConnection { try DBusConnection.open(address: address) }

    /// A property of the stand-in's record (`org.mdocverify.StandIn1` on `/org/bluez`).
    func record(_ name: String, on connection: DBusConnection) async throws -> DBusValue {
        let reply = try await connection.call(
            "org.bluez", "/org/bluez", DBusObjectTree.propertiesInterface, "Get", [.string("org.mdocverify.StandIn1"), .string(name)])
        return reply.first?.unwrapped ?? .strings([])
    }

    /// Waits (up to `timeout`) until the stand-in's record property `name` satisfies `done`.
    func wait(
        for name: String, on connection: DBusConnection, timeout: Duration = .seconds(10), _ done: (DBusValue) -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if done(try await record(name, on: connection)) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw FixtureError("the stand-in's \(name) did not reach the expected value in time")
    }
}

/// A test case whose bus fixtures live until the test ends and are stopped after it, whatever
/// its outcome (a fixture held only by a local could be released before the test is done with
/// the processes behind it).
class BusFixtureTestCase: XCTestCase {
    private var fixtures: [BusFixture] = []

    func makeFixture(scenario: String? = "valid", offer: String = "both", mtu: String = "random", engagements: Int = 1) throws -> BusFixture {
        let fixture = try BusFixture(scenario: scenario, offer: offer, mtu: mtu, engagements: engagements)
        fixtures.append(fixture)
        return fixture
    }

    override func tearDown() {
        for fixture in fixtures { fixture.stop() }
        fixtures = []
        super.tearDown()
    }
}
