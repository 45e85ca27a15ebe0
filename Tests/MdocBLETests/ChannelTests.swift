import MdocBLE
import MdocChecks
import XCTest

/// A link in memory: what the reader sends is kept, what the holder sends is pushed by the test.
final class MemoryLink: BLETransport, @unchecked Sendable {
    // @unchecked Sendable: the test drives it from one task at a time.
    let mode = BLEMode.peripheralServer
    let events = BLEEventQueue()
    var mtu: Int?
    var sentChunks: [[UInt8]] = []
    var sentStates: [UInt8] = []
    var closed = 0

    init(mtu: Int? = nil) { self.mtu = mtu }

    func open(until deadline: ContinuousClock.Instant) async throws {}
    func send(chunk: [UInt8]) async throws { sentChunks.append(chunk) }
    func send(state: UInt8) async throws { sentStates.append(state) }
    func close() async { closed += 1 }
}

/// The message channel over a link, and the event queue under it.
final class ChannelTests: XCTestCase {
    static func soon(_ seconds: Double = 2) -> ContinuousClock.Instant { .now + .milliseconds(Int(seconds * 1_000)) }

    func testSendsInChunksSizedForTheMTU() async throws {
        for (mtu, size) in [(nil, 20), (23, 20), (100, 97)] as [(Int?, Int)] {
            let link = MemoryLink(mtu: mtu)
            let channel = BLEMessageChannel(transport: link)
            let message = [UInt8](repeating: 9, count: 500)
            try await channel.send(message)
            XCTAssertTrue(link.sentChunks.allSatisfy { $0.count <= size }, "MTU \(String(describing: mtu))")
            XCTAssertEqual(link.sentChunks.flatMap { $0.dropFirst() }, message)
            XCTAssertEqual(channel.counters.chunksSent, link.sentChunks.count)
            XCTAssertEqual(channel.counters.bytesSent, 500)
        }
    }

    func testReceivesWholeMessagesInOrder() async throws {
        let link = MemoryLink()
        let channel = BLEMessageChannel(transport: link)
        for chunk in BLEFraming.chunks([1, 2, 3], chunkSize: 3) + BLEFraming.chunks([4], chunkSize: 3) { link.events.push(.chunk(chunk)) }
        let first = try await channel.receive(until: Self.soon(), phase: .firstResponse)
        let second = try await channel.receive(until: Self.soon(), phase: .session)
        XCTAssertEqual(first, .message([1, 2, 3]))
        XCTAssertEqual(second, .message([4]))
        link.events.push(.state([0x01]))
        link.events.push(.state([0x02]))
        let third = try await channel.receive(until: Self.soon(), phase: .session)
        XCTAssertEqual(third, .ended, "0x02 on State between messages ends the session; other values are ignored")
    }

    func testAnEndInTheMiddleOfAMessageIsAFramingFault() async {
        let link = MemoryLink()
        let channel = BLEMessageChannel(transport: link)
        link.events.push(.chunk([0x01, 1, 2]))
        link.events.push(.state([0x02]))
        await assertThrows(.bleFraming) { try await channel.receive(until: Self.soon(), phase: .firstResponse) }
    }

    func testADisconnectionSaysHowFarTheMessageGot() async {
        let link = MemoryLink()
        let channel = BLEMessageChannel(transport: link)
        link.events.push(.chunk([0x01, 1, 2, 3]))
        link.events.push(.disconnected)
        let error = await assertThrows(.bleDisconnected) { try await channel.receive(until: Self.soon(), phase: .session) }
        XCTAssertTrue(error?.reason.contains("3 bytes") ?? false, error?.reason ?? "")
    }

    func testATimeoutNamesItsPhase() async {
        let link = MemoryLink()
        let channel = BLEMessageChannel(transport: link)
        let started = ContinuousClock.now
        let error = await assertThrows(.bleTimeout) { try await channel.receive(until: Self.soon(0.2), phase: .firstResponse) }
        XCTAssertEqual(error?.evidence.first { $0.key == "phase" }?.value, "firstResponse")
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(200))
    }

    func testCancellingAReceiveThrowsCancellation() async {
        let link = MemoryLink()
        let channel = BLEMessageChannel(transport: link)
        let task = Task { try await channel.receive(until: .now + .seconds(30), phase: .session) }
        try? await Task.sleep(for: .milliseconds(50))
        task.cancel()
        do {
            _ = try await task.value
            XCTFail("no cancellation")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
    }

    func testTheQueueKeepsOrderAcrossWaits() async throws {
        let queue = BLEEventQueue()
        let reader = Task { () -> [BLEEvent] in
            var got: [BLEEvent] = []
            while got.count < 200, let event = try await queue.next(until: .now + .seconds(5)) { got.append(event) }
            return got
        }
        for n in 0..<200 {
            queue.push(.chunk([UInt8(truncatingIfNeeded: n)]))
            if n % 17 == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
        let got = try await reader.value
        XCTAssertEqual(got, (0..<200).map { BLEEvent.chunk([UInt8(truncatingIfNeeded: $0)]) })
        let none = try await queue.next(until: .now + .milliseconds(20))
        XCTAssertNil(none, "nothing left: the deadline passes")
    }

    @discardableResult
    func assertThrows(
        _ code: CheckID, file: StaticString = #filePath, line: UInt = #line, _ body: @escaping @Sendable () async throws -> Any
    ) async -> BLEError? {
        do {
            _ = try await body()
            XCTFail("expected \(code)", file: file, line: line)
            return nil
        } catch let error as BLEError {
            XCTAssertEqual(error.code, code, error.reason, file: file, line: line)
            return error
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return nil
        }
    }
}
