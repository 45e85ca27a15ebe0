internal import CSDBus
import Foundation
import NIOConcurrencyHelpers

/// A connection to a D-Bus bus, served by a thread of its own.
///
/// sd-bus objects are not thread-safe, so every use of the `sd_bus` handle, its messages and
/// slots happens on the bus thread: the public methods queue a job there and wake it. Calls are
/// always asynchronous at the sd-bus level, so the bus thread keeps answering incoming method
/// calls while a call of ours waits for its reply (BlueZ calls an application back before it
/// answers RegisterApplication; a blocking call would deadlock).
package final class DBusConnection: @unchecked Sendable {
    // @unchecked Sendable: `bus`, `pending`, `matches` and `exports` are used on the bus thread
    // only (inside jobs and sd-bus callbacks); `queue` is behind its lock; the rest is immutable.
    private let bus: OpaquePointer
    /// A pipe that wakes the bus thread from `poll` when a job is queued: read end, write end.
    private let wakeFDs: (read: Int32, write: Int32)
    private let queue = NIOLockedValueBox(Queue())
    private let finished = DispatchSemaphore(value: 0)
    private var pending: [ObjectIdentifier: PendingCall] = [:]
    private var registrations: [ObjectIdentifier: Registration] = [:]
    private var broken = false
    /// The connection's unique name on the bus (`:1.42`).
    package let uniqueName: String

    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var closing = false
        var closed = false
    }

    /// The default call timeout, as dbus-daemon's and sd-bus's own.
    package static let defaultCallTimeout: Duration = .seconds(25)

    /// Connects to the system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else the standard socket).
    package static func system() throws(DBusError) -> DBusConnection {
        var bus: OpaquePointer?
        let result = sd_bus_open_system(&bus)
        guard result >= 0, let bus else {
            throw DBusError(DBusError.disconnectedName, "cannot connect to the system bus (\(DBusMarshal.errnoName(-result)))")
        }
        return try DBusConnection(bus: bus)
    }

    /// Connects to the bus at `address` (`unix:path=...`) as a bus client.
    package static func open(address: String) throws(DBusError) -> DBusConnection {
        var bus: OpaquePointer?
        guard sd_bus_new(&bus) >= 0, let bus else { throw DBusError(DBusError.disconnectedName, "cannot create a bus object") }
        let configured = address.withCString { sd_bus_set_address(bus, $0) } >= 0 && sd_bus_set_bus_client(bus, 1) >= 0
        let started = configured ? sd_bus_start(bus) : -EINVAL
        guard started >= 0 else {
            sd_bus_unref(bus)
            throw DBusError(DBusError.disconnectedName, "cannot connect to the bus at \(address) (\(DBusMarshal.errnoName(-started)))")
        }
        return try DBusConnection(bus: bus)
    }

    private init(bus: OpaquePointer) throws(DBusError) {
        var unique: UnsafePointer<CChar>?
        let named = sd_bus_get_unique_name(bus, &unique)
        var fds: [Int32] = [-1, -1]
        var piped = pipe(&fds)
        for fd in fds where piped == 0 {
            if fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fcntl(fd, F_SETFL, O_NONBLOCK) != 0 { piped = -1 }
        }
        guard named >= 0, let unique, piped == 0 else {
            if piped == 0 { Glibc.close(fds[0]); Glibc.close(fds[1]) }
            sd_bus_flush_close_unref(bus)
            throw DBusError(DBusError.disconnectedName, "the bus did not accept the connection (\(DBusMarshal.errnoName(-named)))")
        }
        self.bus = bus
        self.wakeFDs = (fds[0], fds[1])
        self.uniqueName = String(cString: unique)
        let thread = Thread { [self] in self.loop() }
        thread.name = "mdocverify D-Bus"
        thread.start()
    }

    deinit {
        // The bus thread holds a reference until it ends, so this runs after `loop` returned.
        Glibc.close(wakeFDs.read)
        Glibc.close(wakeFDs.write)
    }

    /// Closes the connection: pending calls fail with `Disconnected`, exported objects and
    /// matches go away with it. Waits for the bus thread to end (unless called on it).
    package func close() {
        let first = queue.withLockedValue { queue -> Bool in
            defer { queue.closing = true }
            return !queue.closing
        }
        wake()
        if first && !Thread.current.isBusThread { finished.wait() }
    }

    /// Whether the connection is still usable (not closed, not dropped by the bus).
    package var isOpen: Bool { queue.withLockedValue { !$0.closing && !$0.closed } }

    // MARK: Calls

    /// Calls `member` and returns the reply's arguments. Throws ``DBusError`` (the peer's error,
    /// a timeout, a closed connection) or `CancellationError`.
    package func call(
        _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = DBusConnection.defaultCallTimeout
    ) async throws -> [DBusValue] {
        let call = PendingCall()
        let usec = Self.microseconds(timeout)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<[DBusValue], any Error>) in
                guard call.attach(continuation) else { return }
                let queued = enqueue { [self] in
                    start(call, destination: destination, path: path, interface: interface, member: member, arguments: arguments, usec: usec)
                }
                if !queued { call.finish(.failure(Self.closedError)) }
            }
        } onCancel: {
            let queued = enqueue { [self] in
                if let slot = call.slot.take() { sd_bus_slot_unref(slot.pointer) }
                pending[ObjectIdentifier(call)] = nil
                call.finish(.failure(CancellationError()))
            }
            if !queued { call.finish(.failure(CancellationError())) }
        }
    }

    private func start(
        _ call: PendingCall, destination: String, path: String, interface: String, member: String, arguments: [DBusValue], usec: UInt64
    ) {
        guard !call.isFinished else { return }
        guard !broken else { return call.finish(.failure(Self.closedError)) }
        var message: OpaquePointer?
        let created = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
        guard created >= 0, let message else {
            return call.finish(.failure(DBusError(DBusError.invalidArgsName, "cannot make a call to \(interface).\(member) on \(path) (\(DBusMarshal.errnoName(-created)))")))
        }
        defer { sd_bus_message_unref(message) }
        do {
            try DBusMarshal.append(arguments, to: message)
        } catch {
            return call.finish(.failure(error))
        }
        var slot: OpaquePointer?
        let userdata = Unmanaged.passUnretained(call).toOpaque()
        let sent = sd_bus_call_async(bus, &slot, message, { reply, userdata, _ in
            guard let reply, let userdata else { return 0 }
            let call = Unmanaged<PendingCall>.fromOpaque(userdata).takeUnretainedValue()
            call.connection?.complete(call, reply: reply)
            return 1
        }, userdata, usec)
        guard sent >= 0, let slot else {
            return call.finish(.failure(DBusError(DBusError.disconnectedName, "cannot send \(interface).\(member) (\(DBusMarshal.errnoName(-sent)))")))
        }
        call.connection = self
        call.slot.set(SlotPointer(pointer: slot))
        pending[ObjectIdentifier(call)] = call
    }

    /// On the bus thread, from the reply callback.
    private func complete(_ call: PendingCall, reply: OpaquePointer) {
        pending[ObjectIdentifier(call)] = nil
        if let slot = call.slot.take() { sd_bus_slot_unref(slot.pointer) }
        if sd_bus_message_is_method_error(reply, nil) > 0 {
            call.finish(.failure(DBusMarshal.error(of: reply)))
        } else {
            do {
                call.finish(.success(try DBusMarshal.readAll(reply)))
            } catch {
                call.finish(.failure(error))
            }
        }
    }

    // MARK: Signals

    /// Calls `handler` on the bus thread for every message matching `rule` (a D-Bus match rule)
    /// until the returned registration is cancelled or the connection closes.
    package func subscribe(_ rule: String, handler: @escaping @Sendable (DBusSignal) -> Void) async throws -> DBusRegistration {
        let registration = Registration(kind: .match(handler))
        try await install(registration) { [self] userdata in
            var slot: OpaquePointer?
            let result = sd_bus_add_match(bus, &slot, rule, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                let registration = Unmanaged<Registration>.fromOpaque(userdata).takeUnretainedValue()
                guard case .match(let handler) = registration.kind, let signal = DBusSignal(message) else { return 0 }
                handler(signal)
                return 0
            }, userdata)
            return (result, slot, "cannot add the match \(rule)")
        }
        return DBusRegistration(connection: self, registration: registration)
    }

    /// Serves method calls to `prefix` and every object below it with `handler`, on the bus thread.
    package func export(_ prefix: String, handler: @escaping @Sendable (DBusMethodCall) -> DBusHandling) async throws -> DBusRegistration {
        let registration = Registration(kind: .export(handler))
        try await install(registration) { [self] userdata in
            var slot: OpaquePointer?
            let result = sd_bus_add_fallback(bus, &slot, prefix, { message, userdata, _ in
                guard let message, let userdata else { return 0 }
                let registration = Unmanaged<Registration>.fromOpaque(userdata).takeUnretainedValue()
                guard case .export(let handler) = registration.kind, let connection = registration.connection else { return 0 }
                guard sd_bus_message_is_method_call(message, nil, nil) > 0 else { return 0 }
                let call = DBusMethodCall(connection: connection, message: message)
                switch handler(call) {
                case .reply(let values): call.reply(values)
                case .error(let error): call.fail(error)
                case .deferred: break
                case .notHandled:
                    call.abandon()
                    return 0
                }
                return 1
            }, userdata)
            return (result, slot, "cannot export objects under \(prefix)")
        }
        return DBusRegistration(connection: self, registration: registration)
    }

    private func install(
        _ registration: Registration, _ body: @escaping @Sendable (UnsafeMutableRawPointer) -> (Int32, OpaquePointer?, String)
    ) async throws {
        try await perform { [self] () throws(DBusError) in
            registration.connection = self
            let (result, slot, what) = body(Unmanaged.passUnretained(registration).toOpaque())
            guard result >= 0, let slot else { throw DBusError(DBusError.invalidArgsName, "\(what) (\(DBusMarshal.errnoName(-result)))") }
            registration.slot = SlotPointer(pointer: slot)
            registrations[ObjectIdentifier(registration)] = registration
        }
    }

    func remove(_ registration: Registration) {
        _ = enqueue { [self] in
            if let slot = registration.slot { sd_bus_slot_unref(slot.pointer) }
            registration.slot = nil
            registrations[ObjectIdentifier(registration)] = nil
        }
    }

    // MARK: Sending

    /// Emits a signal (PropertiesChanged, InterfacesAdded, ...). Signals leave in the order emitted.
    package func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [DBusValue]) async throws {
        try await perform { [self] () throws(DBusError) in
            var message: OpaquePointer?
            let created = sd_bus_message_new_signal(bus, &message, path, interface, member)
            guard created >= 0, let message else {
                throw DBusError(DBusError.invalidArgsName, "cannot make the signal \(interface).\(member) on \(path)")
            }
            defer { sd_bus_message_unref(message) }
            try DBusMarshal.append(arguments, to: message)
            let sent = sd_bus_send(bus, message, nil)
            if sent < 0 { throw DBusError(DBusError.disconnectedName, "cannot send \(member) (\(DBusMarshal.errnoName(-sent)))") }
        }
    }

    /// Asks the bus for the well-known `name` (fails if another connection owns it).
    package func requestName(_ name: String) async throws {
        try await perform { [self] () throws(DBusError) in
            let result = sd_bus_request_name(bus, name, 0)
            if result < 0 { throw DBusError("org.freedesktop.DBus.Error.AccessDenied", "cannot own \(name) (\(DBusMarshal.errnoName(-result)))") }
        }
    }

    func send(reply message: SlotPointer, _ build: @escaping @Sendable (OpaquePointer) throws(DBusError) -> OpaquePointer?) {
        _ = enqueue { [self] in
            defer { sd_bus_message_unref(message.pointer) }
            guard !broken else { return }
            do throws(DBusError) {
                if let reply = try build(message.pointer) {
                    sd_bus_send(bus, reply, nil)
                    sd_bus_message_unref(reply)
                }
            } catch {
                var e = csdbus_error_null()
                sd_bus_error_set(&e, error.name, error.message)
                sd_bus_reply_method_error(message.pointer, &e)
                sd_bus_error_free(&e)
            }
        }
    }

    /// Runs `body` on the bus thread and returns what it returned (or throws what it threw).
    private func perform(_ body: @escaping @Sendable () throws(DBusError) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let queued = enqueue { [self] in
                guard !broken else { return continuation.resume(throwing: Self.closedError) }
                do {
                    try body()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if !queued { continuation.resume(throwing: Self.closedError) }
        }
    }

    // MARK: The bus thread

    @discardableResult
    private func enqueue(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = queue.withLockedValue { queue -> Bool in
            guard !queue.closing else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { wake() }
        return accepted
    }

    private func wake() {
        var one: UInt8 = 1
        _ = Glibc.write(wakeFDs.write, &one, 1)
    }

    private func loop() {
        Thread.current.threadDictionary[Self.busThreadKey] = true
        while true {
            let (jobs, closing) = queue.withLockedValue { queue -> ([@Sendable () -> Void], Bool) in
                defer { queue.jobs = [] }
                return (queue.jobs, queue.closing)
            }
            for job in jobs { job() }
            if closing { break }
            if !broken {
                while true {
                    let processed = sd_bus_process(bus, nil)
                    if processed < 0 {
                        dropPending()
                        broken = true
                        break
                    }
                    if processed == 0 { break }
                }
            }
            var fds = [pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)]
            var timeout: Int32 = -1
            if !broken {
                fds.append(pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0))
                var deadline: UInt64 = 0
                if sd_bus_get_timeout(bus, &deadline) > 0 && deadline != UInt64.max {
                    var now = timespec()
                    clock_gettime(CLOCK_MONOTONIC, &now)
                    let nowUsec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
                    timeout = deadline <= nowUsec ? 0 : Int32(clamping: (deadline - nowUsec + 999) / 1_000)
                }
            }
            _ = poll(&fds, nfds_t(fds.count), timeout)
            if fds[0].revents & Int16(POLLIN) != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                while Glibc.read(wakeFDs.read, &drain, drain.count) > 0 {}
            }
        }
        // Closing: jobs queued after `closing` was set are refused; release everything here.
        for registration in registrations.values {
            if let slot = registration.slot { sd_bus_slot_unref(slot.pointer) }
            registration.slot = nil
        }
        registrations = [:]
        dropPending()
        sd_bus_flush_close_unref(bus)
        queue.withLockedValue { $0.closed = true }
        finished.signal()
    }

    /// Fails every call still waiting for a reply.
    private func dropPending() {
        let calls = pending.values
        pending = [:]
        for call in calls {
            if let slot = call.slot.take() { sd_bus_slot_unref(slot.pointer) }
            call.finish(.failure(Self.closedError))
        }
    }

    static let busThreadKey = "org.mdocverify.dbus-thread"
    static let closedError = DBusError(DBusError.disconnectedName, "the bus connection is closed")

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 1 }
        return UInt64(seconds) &* 1_000_000 &+ UInt64(attoseconds / 1_000_000_000_000)
    }

    // MARK: Bookkeeping types

    /// A raw sd-bus pointer carried between threads; used on the bus thread only.
    struct SlotPointer: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// A call waiting for its reply: resumed exactly once (reply, error, cancel or close).
    final class PendingCall: @unchecked Sendable {
        // @unchecked Sendable: `state` and `slot` are behind locks; `connection` is written on
        // the bus thread before the call is registered and read there only.
        private let state = NIOLockedValueBox<(continuation: CheckedContinuation<[DBusValue], any Error>?, finished: Bool)>((nil, false))
        let slot = LockedSlot()
        weak var connection: DBusConnection?

        /// Stores the continuation; false (and resumed with CancellationError) when already cancelled.
        func attach(_ continuation: CheckedContinuation<[DBusValue], any Error>) -> Bool {
            let alreadyFinished = state.withLockedValue { state -> Bool in
                if state.finished { return true }
                state.continuation = continuation
                return false
            }
            if alreadyFinished { continuation.resume(throwing: CancellationError()) }
            return !alreadyFinished
        }

        var isFinished: Bool { state.withLockedValue { $0.finished } }

        func finish(_ result: Result<[DBusValue], any Error>) {
            let continuation = state.withLockedValue { state -> CheckedContinuation<[DBusValue], any Error>? in
                guard !state.finished else { return nil }
                state.finished = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume(with: result)
        }
    }

    final class LockedSlot: Sendable {
        private let value = NIOLockedValueBox<SlotPointer?>(nil)
        func set(_ slot: SlotPointer) { value.withLockedValue { $0 = slot } }
        func take() -> SlotPointer? { value.withLockedValue { slot in defer { slot = nil }; return slot } }
    }

    /// A match or an exported subtree.
    final class Registration: @unchecked Sendable {
        // @unchecked Sendable: `slot` and `connection` are read and written on the bus thread only.
        enum Kind {
            case match(@Sendable (DBusSignal) -> Void)
            case export(@Sendable (DBusMethodCall) -> DBusHandling)
        }
        let kind: Kind
        var slot: SlotPointer?
        weak var connection: DBusConnection?
        init(kind: Kind) { self.kind = kind }
    }
}

extension Thread {
    /// Whether this is a connection's bus thread (where `close` must not wait for itself).
    var isBusThread: Bool { threadDictionary[DBusConnection.busThreadKey] as? Bool ?? false }
}
