import Foundation
import MdocTestSupport
import XCTest

/// Two hosts on one machine: a kiosk and a centre, each in a network namespace of its own,
/// joined by a veth pair (10.231.n.1 ↔ 10.231.n.2). Made by the test, removed with it.
final class NetworkNamespaces {
    static let ip = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"

    let kiosk: String
    let centre: String
    let kioskLink: String
    let centreLink: String
    let kioskAddress: String
    let centreAddress: String

    /// Skips the test where namespaces cannot be made (not root, no iproute2).
    init(tag: Int) throws {
        let suffix = "\(getpid() % 100_000)\(tag)"
        kiosk = "mdv-kiosk-\(suffix)"
        centre = "mdv-centre-\(suffix)"
        kioskLink = "mvk\(suffix)"
        centreLink = "mvc\(suffix)"
        let subnet = 10 + Int(getpid() % 200) + tag
        kioskAddress = "10.231.\(subnet).1"
        centreAddress = "10.231.\(subnet).2"
        try XCTSkipUnless(geteuid() == 0 && FileManager.default.isExecutableFile(atPath: Self.ip), "network namespaces need root and iproute2")
        guard Self.run(["netns", "add", kiosk]) == 0 else { throw XCTSkip("ip netns add is not permitted here") }
        for command in [
            ["netns", "add", centre],
            ["link", "add", kioskLink, "type", "veth", "peer", "name", centreLink],
            ["link", "set", kioskLink, "netns", kiosk], ["link", "set", centreLink, "netns", centre],
            ["-n", kiosk, "addr", "add", "\(kioskAddress)/30", "dev", kioskLink],
            ["-n", centre, "addr", "add", "\(centreAddress)/30", "dev", centreLink],
            ["-n", kiosk, "link", "set", "lo", "up"], ["-n", centre, "link", "set", "lo", "up"],
            ["-n", kiosk, "link", "set", kioskLink, "up"], ["-n", centre, "link", "set", centreLink, "up"],
        ] {
            XCTAssertEqual(Self.run(command), 0, "ip \(command.joined(separator: " "))")
        }
    }

    deinit {
        _ = Self.run(["netns", "del", kiosk])
        _ = Self.run(["netns", "del", centre])
    }

    /// Delays every packet each way (netem), so that a batch is in flight long enough to be cut.
    func delay(milliseconds: Int) {
        for (namespace, link) in [(kiosk, kioskLink), (centre, centreLink)] {
            _ = Self.run(["netns", "exec", namespace, "tc", "qdisc", "add", "dev", link, "root", "netem", "delay", "\(milliseconds)ms"])
        }
    }

    /// Takes the kiosk's end of the link down (a cut cable) or up again.
    func setLink(up: Bool) {
        XCTAssertEqual(Self.run(["-n", kiosk, "link", "set", kioskLink, up ? "up" : "down"]), 0)
    }

    /// `mdocverify ARGS` run inside the kiosk's namespace, started.
    func startInKiosk(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.ip)
        process.arguments = ["netns", "exec", kiosk, CLI.binary.path] + arguments
        process.currentDirectoryURL = CLI.packageRoot
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// `mdocverify ARGS` inside the kiosk's namespace, to completion; its exit status.
    func runInKiosk(_ arguments: [String]) throws -> Int32 {
        let process = try startInKiosk(arguments)
        process.waitUntilExit()
        return process.terminationStatus
    }

    @discardableResult
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ip)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return -1
        }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
