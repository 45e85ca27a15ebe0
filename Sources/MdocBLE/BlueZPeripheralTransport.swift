internal import MdocChecks
package import MdocDBus
import NIOConcurrencyHelpers

/// mdoc central client mode over BlueZ (ISO 18013-5 §8.3.3.1.1): the reader is the GATT server.
/// It registers a GATT application (State, Client2Server, Server2Client, Ident) with
/// GattManager1 and advertises the engagement's central client UUID with
/// LEAdvertisingManager1. The holder connects, reads Ident, subscribes, writes 0x01 to State,
/// then receives the reader's messages as Server2Client notifications and writes its own to
/// Client2Server.
///
/// BlueZ reads the application's objects (GetManagedObjects) before it answers
/// RegisterApplication: the registration is an asynchronous call, and the bus thread answers
/// BlueZ meanwhile.
package final class BlueZPeripheralTransport: BLETransport {
    package let mode = BLEMode.centralClient
    package let events = BLEEventQueue()
    private let connection: DBusConnection
    private let adapterPath: String
    private let serviceUUID: String
    private let ident: [UInt8]
    private let characteristics = BLECharacteristics.centralClient
    private let root: String
    private let link = NIOLockedValueBox(Link())

    private struct Link: Sendable {
        var tree: DBusObjectTree?
        var applicationRegistered = false
        var advertisementRegistered = false
        var device: String?
        var mtu: Int?
        var identRead = false
        var started = false
        var holderLeft = false
        var closed = false
        var registrations: [DBusRegistration] = []
    }

    private static let counter = NIOLockedValueBox(0)

    /// - Parameters:
    ///   - serviceUUID: the engagement's central client UUID (BLE option 11), as text.
    ///   - ident: ``BLEIdent/compute(eDeviceKeyBytes:)`` of the engagement.
    package init(connection: DBusConnection, adapter: String, serviceUUID: String, ident: [UInt8]) {
        self.connection = connection
        self.adapterPath = BlueZ.adapterPath(adapter)
        self.serviceUUID = serviceUUID.lowercased()
        self.ident = ident
        let number = Self.counter.withLockedValue { counter -> Int in
            counter += 1
            return counter
        }
        self.root = "/org/mdocverify/reader\(number)"
    }

    package var mtu: Int? { link.withLockedValue { $0.mtu } }

    /// Where the application lives on the bus (its advertisement is below it).
    package var applicationPath: String { root }
    package var servicePath: String { root + "/service0" }
    package var advertisementPath: String { root + "/advertisement0" }
    private var statePath: String { servicePath + "/char0" }
    private var client2ServerPath: String { servicePath + "/char1" }
    private var server2ClientPath: String { servicePath + "/char2" }
    private var identPath: String { servicePath + "/char3" }

    package func open(until deadline: ContinuousClock.Instant) async throws {
        let tree: DBusObjectTree
        do {
            tree = try await DBusObjectTree(connection: connection, root: root) { [weak self] call in
                self?.handle(call) ?? .notHandled
            }
            link.withLockedValue { $0.tree = tree }
            try await exportObjects(tree)
            let rule = "type='signal',sender='\(BlueZ.service)',interface='\(DBusObjectTree.propertiesInterface)',member='PropertiesChanged',path_namespace='\(adapterPath)'"
            let changed = try await connection.subscribe(rule) { [weak self] signal in self?.propertiesChanged(signal) }
            link.withLockedValue { $0.registrations.append(changed) }
        } catch {
            throw BlueZ.failure("cannot export the reader's GATT application", error, phase: .connect)
        }
        do {
            _ = try await connection.call(BlueZ.service, adapterPath, BlueZ.gattManager, "RegisterApplication", [
                .objectPath(root), .properties([]),
            ], timeout: callTimeout(deadline))
            link.withLockedValue { $0.applicationRegistered = true }
            _ = try await connection.call(BlueZ.service, adapterPath, BlueZ.advertisingManager, "RegisterAdvertisement", [
                .objectPath(advertisementPath), .properties([]),
            ], timeout: callTimeout(deadline))
            link.withLockedValue { $0.advertisementRegistered = true }
        } catch {
            throw BlueZ.failure("cannot register the reader's GATT application and advertisement", error, phase: .connect)
        }
        while true {
            let current = link.withLockedValue { $0 }
            if current.started { break }
            if current.holderLeft {
                throw BLEError(
                    .bleIdentRejected,
                    current.identRead ? "the holder read Ident and disconnected without starting the session: it did not accept this reader"
                        : "the holder connected and left without starting the session")
            }
            guard ContinuousClock.now < deadline else {
                throw BLEError.timeout(.connect, current.device == nil ? "the holder did not connect" : "the holder connected but did not start the session")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
        // Advertising is no longer needed once the holder is connected.
        await unregisterAdvertisement()
    }

    /// The application's objects: the service, its four characteristics, the advertisement.
    private func exportObjects(_ tree: DBusObjectTree) async throws {
        func characteristic(_ uuid: String, _ flags: [String]) -> [(name: String, properties: [(String, DBusValue)])] {
            [(BlueZ.gattCharacteristic, [
                ("UUID", .string(uuid)), ("Service", .objectPath(servicePath)), ("Flags", .strings(flags)),
                ("Notifying", .boolean(false)), ("Value", .bytes([])),
            ])]
        }
        try await tree.add(servicePath, [(BlueZ.gattService, [
            ("UUID", .string(serviceUUID)), ("Primary", .boolean(true)), ("Includes", .array(element: "o", [])),
        ])], announce: false)
        try await tree.add(statePath, characteristic(characteristics.state, ["notify", "write-without-response"]), announce: false)
        try await tree.add(client2ServerPath, characteristic(characteristics.client2Server, ["write-without-response"]), announce: false)
        try await tree.add(server2ClientPath, characteristic(characteristics.server2Client, ["notify"]), announce: false)
        try await tree.add(identPath, characteristic(characteristics.ident ?? "", ["read"]), announce: false)
        try await tree.add(advertisementPath, [(BlueZ.advertisement, [
            ("Type", .string("peripheral")), ("ServiceUUIDs", .strings([serviceUUID])), ("Includes", .strings([])),
        ])], announce: false)
    }

    package func send(chunk: [UInt8]) async throws {
        try await notify(server2ClientPath, chunk, what: "Server2Client")
    }

    package func send(state: UInt8) async throws {
        try await notify(statePath, [state], what: "State")
    }

    /// A notification is a change of the characteristic's Value (BlueZ sends it to subscribers).
    private func notify(_ path: String, _ value: [UInt8], what: String) async throws {
        guard let tree = link.withLockedValue({ $0.tree }) else { throw BLEError(.bleGatt, "the GATT application is not exported") }
        guard tree.property(path, BlueZ.gattCharacteristic, "Notifying")?.bool == true else {
            throw BLEError(.bleGatt, "the holder did not subscribe to \(what)")
        }
        do {
            try await tree.set(path, BlueZ.gattCharacteristic, "Value", .bytes(value))
        } catch {
            throw BlueZ.failure("cannot notify \(what)", error, phase: .session)
        }
    }

    package func close() async {
        let current = link.withLockedValue { link -> Link in
            defer {
                link.closed = true
                link.registrations = []
                link.tree = nil
            }
            return link
        }
        guard !current.closed else { return }
        if let device = current.device, !current.holderLeft {
            _ = try? await connection.call(BlueZ.service, device, BlueZ.device, "Disconnect", timeout: .seconds(5))
        }
        if current.advertisementRegistered { await unregisterAdvertisement() }
        if current.applicationRegistered {
            _ = try? await connection.call(BlueZ.service, adapterPath, BlueZ.gattManager, "UnregisterApplication", [
                .objectPath(root),
            ], timeout: .seconds(5))
        }
        current.tree?.unexport()
        for registration in current.registrations { registration.cancel() }
    }

    private func unregisterAdvertisement() async {
        let registered = link.withLockedValue { link -> Bool in
            defer { link.advertisementRegistered = false }
            return link.advertisementRegistered
        }
        if registered {
            _ = try? await connection.call(BlueZ.service, adapterPath, BlueZ.advertisingManager, "UnregisterAdvertisement", [
                .objectPath(advertisementPath),
            ], timeout: .seconds(5))
        }
    }

    // MARK: Calls from BlueZ (on the bus thread)

    private func handle(_ call: DBusMethodCall) -> DBusHandling {
        guard let arguments = call.arguments else { return .error(DBusError(DBusError.invalidArgsName, "unreadable arguments")) }
        switch (call.interface, call.member) {
        case (BlueZ.advertisement, "Release"):
            link.withLockedValue { $0.advertisementRegistered = false }
            return .reply([])
        case (BlueZ.gattCharacteristic, "ReadValue"):
            guard call.path == identPath else { return .error(Self.notPermitted("read")) }
            let options = arguments.first?.stringKeyed ?? [:]
            note(options)
            link.withLockedValue { $0.identRead = true }
            let offset = min(ident.count, max(0, options["offset"]?.int ?? 0))
            return .reply([.bytes(Array(ident[offset...]))])
        case (BlueZ.gattCharacteristic, "WriteValue"):
            guard arguments.count == 2, let value = arguments[0].bytes else {
                return .error(DBusError(DBusError.invalidArgsName, "WriteValue takes (value, options)"))
            }
            note(arguments[1].stringKeyed ?? [:])
            if call.path == client2ServerPath {
                events.push(.chunk(value))
            } else if call.path == statePath {
                if value == [BLEStateValue.start] {
                    link.withLockedValue { $0.started = true }
                } else {
                    events.push(.state(value))
                }
            } else {
                return .error(Self.notPermitted("write"))
            }
            return .reply([])
        case (BlueZ.gattCharacteristic, "StartNotify"), (BlueZ.gattCharacteristic, "StopNotify"):
            guard call.path == statePath || call.path == server2ClientPath, let tree = link.withLockedValue({ $0.tree }) else {
                return .error(DBusError("org.bluez.Error.NotSupported", "no notifications on this characteristic"))
            }
            tree.store(call.path, BlueZ.gattCharacteristic, "Notifying", .boolean(call.member == "StartNotify"))
            return .reply([])
        case (BlueZ.gattCharacteristic, "AcquireWrite"), (BlueZ.gattCharacteristic, "AcquireNotify"):
            // Writes and notifications go through WriteValue and Value changes.
            return .error(DBusError("org.bluez.Error.NotSupported", "use WriteValue and StartNotify"))
        default:
            return .notHandled
        }
    }

    /// The device and MTU BlueZ passes in the options of each call.
    private func note(_ options: [String: DBusValue]) {
        link.withLockedValue { link in
            if let device = options["device"]?.string, link.device == nil { link.device = device }
            if let mtu = options["mtu"]?.int, mtu >= BLEFraming.minimumMTU { link.mtu = mtu }
        }
    }

    private func propertiesChanged(_ signal: DBusSignal) {
        guard signal.arguments.count >= 2, signal.arguments[0].string == BlueZ.device,
            signal.arguments[1].stringKeyed?["Connected"]?.bool == false
        else { return }
        let left = link.withLockedValue { link -> Bool in
            guard signal.path == link.device, !link.holderLeft else { return false }
            link.holderLeft = true
            return link.started
        }
        if left { events.push(.disconnected) }
    }

    private func callTimeout(_ deadline: ContinuousClock.Instant) -> Duration {
        max(.milliseconds(1), min(DBusConnection.defaultCallTimeout, deadline - .now))
    }

    static func notPermitted(_ what: String) -> DBusError {
        DBusError("org.bluez.Error.NotPermitted", "\(what) is not permitted on this characteristic")
    }
}
