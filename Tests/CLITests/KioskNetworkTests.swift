import Foundation
import MdocSeal
import MdocTestSupport
import XCTest

/// `serve` at the centre and `sync` at the kiosk, on two hosts (network namespaces joined by a
/// veth pair). After a cut link, a killed centre, repeated and reordered uploads: every record
/// sealed at the kiosk is at the centre exactly once, and the outbox holds what has no receipt.
final class KioskNetworkTests: XCTestCase {
    private let port = 8470

    private func serve(_ fixture: KioskCLIFixture, _ hosts: NetworkNamespaces) throws -> ServeProcess {
        try ServeProcess(["--listen", "\(hosts.centreAddress):\(port)"] + fixture.centreOptions, namespace: hosts.centre)
    }

    private func sync(_ fixture: KioskCLIFixture, _ hosts: NetworkNamespaces, batch: Int, timeout: Int = 3) -> [String] {
        ["sync", "--kiosk", fixture.kioskDirectory, "--to", "http://\(hosts.centreAddress):\(port)", "--batch", "\(batch)", "--timeout", "\(timeout)"]
    }

    /// Waits until the centre holds at least `count` records (or the deadline passes).
    private func waitForCentre(_ fixture: KioskCLIFixture, atLeast count: Int, seconds: TimeInterval = 60) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try fixture.centreHashes().count < count && Date() < deadline { usleep(20_000) }
    }

    func testTheLinkCutMidUploadLosesNothing() throws {
        let hosts = try NetworkNamespaces(tag: 1)
        hosts.delay(milliseconds: 20)
        let fixture = try KioskCLIFixture()
        let sealed = try fixture.seal(240)
        let server = try serve(fixture, hosts)

        let first = try hosts.startInKiosk(sync(fixture, hosts, batch: 10))
        try waitForCentre(fixture, atLeast: 30)
        hosts.setLink(up: false)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 1, "the sync stops when the link is cut")
        try fixture.assertInvariants(sealed: sealed)
        XCTAssertLessThan(try fixture.centreHashes().count, sealed.count, "the cut came mid-upload")

        hosts.setLink(up: true)
        XCTAssertEqual(try hosts.runInKiosk(sync(fixture, hosts, batch: 10, timeout: 30)), 0, server.log)
        try fixture.assertAllDelivered(sealed: sealed)
    }

    func testTheCentreKilledMidBatchAndRestartedLosesNothing() throws {
        let hosts = try NetworkNamespaces(tag: 2)
        hosts.delay(milliseconds: 5)
        let fixture = try KioskCLIFixture()
        let sealed = try fixture.seal(300)
        var server: ServeProcess? = try serve(fixture, hosts)

        let first = try hosts.startInKiosk(sync(fixture, hosts, batch: 60))
        try waitForCentre(fixture, atLeast: 60)
        server?.kill9()
        server = nil
        first.waitUntilExit()
        XCTAssertEqual(first.terminationStatus, 1, "the sync stops when the centre dies")
        try fixture.assertInvariants(sealed: sealed)
        XCTAssertLessThan(try fixture.centreHashes().count, sealed.count, "killed mid-upload")

        server = try serve(fixture, hosts)
        XCTAssertEqual(try hosts.runInKiosk(sync(fixture, hosts, batch: 60, timeout: 60)), 0, server?.log ?? "")
        try fixture.assertAllDelivered(sealed: sealed)
    }

    func testRepeatedAndReorderedUploadsStoreEachRecordOnce() throws {
        let hosts = try NetworkNamespaces(tag: 3)
        hosts.delay(milliseconds: 10)
        let fixture = try KioskCLIFixture()
        let sealed = try fixture.seal(150)
        let server = try serve(fixture, hosts)

        // Carried copies of every record reach the centre too (repeats), before and during the syncs.
        let carry = fixture.folder.url("carry")
        XCTAssertEqual(try CLI.run(["kiosk", "export", "--dir", fixture.kioskDirectory, "--out", carry]).status, 0)
        // Two syncs at once, each with requests in flight: their counters interleave, requests
        // arrive out of order (a counter inside the window is taken once), and both send the
        // same records.
        let a = try hosts.startInKiosk(sync(fixture, hosts, batch: 7))
        let b = try hosts.startInKiosk(sync(fixture, hosts, batch: 11))
        a.waitUntilExit()
        b.waitUntilExit()
        try fixture.assertInvariants(sealed: sealed)

        let receipts = fixture.folder.url("receipts.cose")
        let intake = try CLI.run(["intake", carry] + fixture.centreOptions + ["--receipts", receipts])
        XCTAssertEqual(intake.status, 0, intake.stdout + intake.stderr)
        XCTAssertTrue(intake.stdout.contains("duplicate"), intake.stdout)
        XCTAssertEqual(try CLI.run(["kiosk", "receipts", "--dir", fixture.kioskDirectory, receipts]).status, 0)
        try fixture.assertInvariants(sealed: sealed)

        XCTAssertEqual(try hosts.runInKiosk(sync(fixture, hosts, batch: 13, timeout: 30)), 0, server.log)
        XCTAssertEqual(try hosts.runInKiosk(sync(fixture, hosts, batch: 13, timeout: 30)), 0, "nothing left to send")
        try fixture.assertAllDelivered(sealed: sealed)
    }
}
