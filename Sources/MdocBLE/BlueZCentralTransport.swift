internal import MdocChecks
package import MdocDBus
import NIOConcurrencyHelpers

/// mdoc peripheral server mode over BlueZ (ISO 18013-5 §8.3.3.1.1): the holder advertises the
/// engagement's service UUID; the reader scans for it, connects, and is the GATT client:
/// it subscribes to State and Server2Client, writes 0x01 to State, then writes its messages to
/// Client2Server and receives the holder's as Server2Client notifications.
///
/// BlueZ's Connect returns before the services are resolved: the transport waits for
/// `ServicesResolved` before it looks for the characteristics.
package final class BlueZCentralTransport: BLETransport {
    package let mode = BLEMode.peripheralServer
    package let events = BLEEventQueue()
    private let connection: DBusConnection
    private let adapterPath: String
    private let serviceUUID: String
    private let characteristics = BLECharacteristics.peripheralServer
    private let link = NIOLockedValueBox(Link())

    /// What is known of the link, updated from BlueZ's signals.
    private struct Link: Sendable {
        var device: String?
        var connected = false
        var servicesResolved = false
        var stateCharacteristic: String?
        var client2Server: String?
        var server2Client: String?
        var mtu: Int?
        var discovering = false
        var opened = false
        var closed = false
        var registrations: [DBusRegistration] = []
    }

    /// - Parameters:
    ///   - adapter: the adapter's name (`hci0`).
    ///   - serviceUUID: the engagement's peripheral server UUID (BLE option 10), as text.
    package init(connection: DBusConnection, adapter: String, serviceUUID: String) {
        self.connection = connection
        self.adapterPath = BlueZ.adapterPath(adapter)
        self.serviceUUID = serviceUUID.lowercased()
    }

    package var mtu: Int? { link.withLockedValue { $0.mtu } }

    /// The device object of the holder, once found.
    package var devicePath: String? { link.withLockedValue { $0.device } }

    package func open(until deadline: ContinuousClock.Instant) async throws {
        try await subscribe()
        // A device BlueZ already knows (a recent scan) is used at once; otherwise scan for the UUID.
        let known = try await objects(phase: .connect)
        if let device = Self.device(in: known, adapter: adapterPath, uuid: serviceUUID) {
            link.withLockedValue { $0.device = device }
        } else {
            do {
                _ = try await connection.call(BlueZ.service, adapterPath, BlueZ.adapter, "SetDiscoveryFilter", [
                    .properties([("UUIDs", .strings([serviceUUID])), ("Transport", .string("le"))]),
                ], timeout: callTimeout(deadline))
                _ = try await connection.call(BlueZ.service, adapterPath, BlueZ.adapter, "StartDiscovery", timeout: callTimeout(deadline))
            } catch {
                throw BlueZ.failure("cannot scan for the holder", error, phase: .connect)
            }
            link.withLockedValue { $0.discovering = true }
            try await wait(until: deadline, phase: .connect, "the holder's service \(serviceUUID) was not found") { $0.device != nil }
        }
        await stopDiscovery()
        guard let device = link.withLockedValue({ $0.device }) else { throw BLEError(.bleGatt, "no device to connect to") }

        // Connect returns before ServicesResolved (BlueZ resolves the services afterwards).
        do {
            _ = try await connection.call(BlueZ.service, device, BlueZ.device, "Connect", timeout: callTimeout(deadline))
        } catch {
            throw BlueZ.failure("cannot connect to the holder", error, phase: .connect)
        }
        let afterConnect = try await objects(phase: .connect)
        link.withLockedValue {
            $0.connected = true
            if afterConnect[device]?[BlueZ.device]?["ServicesResolved"]?.bool == true { $0.servicesResolved = true }
        }
        try await wait(until: deadline, phase: .connect, "the holder's GATT services were not resolved") { link in
            if !link.connected { return true }
            return link.servicesResolved
        }
        guard link.withLockedValue({ $0.connected }) else {
            throw BLEError(.bleDisconnected, "the holder disconnected while its services were being resolved")
        }

        let resolved = try await objects(phase: .connect)
        guard let found = Self.characteristics(in: resolved, device: device, service: serviceUUID, characteristics) else {
            throw BLEError(.bleGatt, "the holder's device has no service \(serviceUUID) with State, Client2Server and Server2Client")
        }
        let mtu = resolved[found.client2Server]?[BlueZ.gattCharacteristic]?["MTU"]?.int
        link.withLockedValue {
            $0.stateCharacteristic = found.state
            $0.client2Server = found.client2Server
            $0.server2Client = found.server2Client
            $0.mtu = mtu
        }
        do {
            for path in [found.server2Client, found.state] {
                _ = try await connection.call(BlueZ.service, path, BlueZ.gattCharacteristic, "StartNotify", timeout: callTimeout(deadline))
            }
        } catch {
            throw BlueZ.failure("cannot subscribe to the holder's notifications", error, phase: .connect)
        }
        try await send(state: BLEStateValue.start)
        link.withLockedValue { $0.opened = true }
    }

    package func send(chunk: [UInt8]) async throws {
        guard let path = link.withLockedValue({ $0.client2Server }) else { throw BLEError(.bleGatt, "not connected") }
        try await write(path, chunk, what: "cannot write to Client2Server")
    }

    package func send(state: UInt8) async throws {
        guard let path = link.withLockedValue({ $0.stateCharacteristic }) else { throw BLEError(.bleGatt, "not connected") }
        try await write(path, [state], what: "cannot write to State")
    }

    private func write(_ path: String, _ value: [UInt8], what: String) async throws {
        do {
            // Write Without Response (§8.3.3.1.1.4: the characteristics allow only that).
            _ = try await connection.call(BlueZ.service, path, BlueZ.gattCharacteristic, "WriteValue", [
                .bytes(value), .properties([("type", .string("command"))]),
            ], timeout: .seconds(10))
        } catch {
            throw BlueZ.failure(what, error, phase: .session)
        }
    }

    package func close() async {
        let current = link.withLockedValue { link -> Link in
            defer {
                link.closed = true
                link.registrations = []
            }
            return link
        }
        guard !current.closed else { return }
        if current.discovering { await stopDiscovery() }
        if let device = current.device, current.connected {
            _ = try? await connection.call(BlueZ.service, device, BlueZ.device, "Disconnect", timeout: .seconds(5))
        }
        for registration in current.registrations { registration.cancel() }
    }

    // MARK: BlueZ's signals

    private func subscribe() async throws {
        let objectManager = "type='signal',sender='\(BlueZ.service)',interface='\(DBusObjectTree.objectManagerInterface)',member='InterfacesAdded'"
        let properties = "type='signal',sender='\(BlueZ.service)',interface='\(DBusObjectTree.propertiesInterface)',member='PropertiesChanged',path_namespace='\(adapterPath)'"
        do {
            let added = try await connection.subscribe(objectManager) { [weak self] signal in self?.interfacesAdded(signal) }
            link.withLockedValue { $0.registrations.append(added) }
            let changed = try await connection.subscribe(properties) { [weak self] signal in self?.propertiesChanged(signal) }
            link.withLockedValue { $0.registrations.append(changed) }
        } catch {
            throw BlueZ.failure("cannot follow BlueZ's signals", error, phase: .connect)
        }
    }

    private func interfacesAdded(_ signal: DBusSignal) {
        guard signal.arguments.count == 2, let path = signal.arguments[0].string,
            let device = signal.arguments[1].stringKeyed?[BlueZ.device]?.stringKeyed,
            path.hasPrefix(adapterPath + "/"), BlueZ.contains(device["UUIDs"], serviceUUID)
        else { return }
        link.withLockedValue { if $0.device == nil { $0.device = path } }
    }

    private func propertiesChanged(_ signal: DBusSignal) {
        guard signal.arguments.count >= 2, let interface = signal.arguments[0].string,
            let changed = signal.arguments[1].stringKeyed
        else { return }
        let path = signal.path
        if interface == BlueZ.gattCharacteristic, let value = changed["Value"]?.bytes {
            let current = link.withLockedValue { $0 }
            if path == current.server2Client {
                events.push(.chunk(value))
            } else if path == current.stateCharacteristic {
                events.push(.state(value))
            }
            return
        }
        guard interface == BlueZ.device else { return }
        let disconnected = link.withLockedValue { link -> Bool in
            if link.device == nil, BlueZ.contains(changed["UUIDs"], serviceUUID) { link.device = path }
            guard path == link.device else { return false }
            if let resolved = changed["ServicesResolved"]?.bool { link.servicesResolved = resolved }
            if changed["Connected"]?.bool == false && link.connected {
                link.connected = false
                return link.opened
            }
            return false
        }
        if disconnected { events.push(.disconnected) }
    }

    // MARK: Helpers

    private func objects(phase: BLEPhase) async throws -> BlueZ.Objects {
        do {
            return try await BlueZ.objects(connection)
        } catch {
            throw BlueZ.failure("cannot read BlueZ's objects", error, phase: phase)
        }
    }

    private func stopDiscovery() async {
        let discovering = link.withLockedValue { link -> Bool in
            defer { link.discovering = false }
            return link.discovering
        }
        if discovering {
            _ = try? await connection.call(BlueZ.service, adapterPath, BlueZ.adapter, "StopDiscovery", timeout: .seconds(5))
        }
    }

    /// Polls the link state every few milliseconds until `done` or `deadline`.
    private func wait(
        until deadline: ContinuousClock.Instant, phase: BLEPhase, _ reason: String, _ done: (Link) -> Bool
    ) async throws {
        while !done(link.withLockedValue({ $0 })) {
            guard ContinuousClock.now < deadline else { throw BLEError.timeout(phase, reason) }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    private func callTimeout(_ deadline: ContinuousClock.Instant) -> Duration {
        max(.milliseconds(1), min(DBusConnection.defaultCallTimeout, deadline - .now))
    }

    /// The first device under `adapter` that advertises `uuid`.
    static func device(in objects: BlueZ.Objects, adapter: String, uuid: String) -> String? {
        objects.keys.sorted().first { path in
            path.hasPrefix(adapter + "/") && BlueZ.contains(objects[path]?[BlueZ.device]?["UUIDs"], uuid)
        }
    }

    /// The State, Client2Server and Server2Client characteristics of `service` on `device`.
    static func characteristics(
        in objects: BlueZ.Objects, device: String, service: String, _ uuids: BLECharacteristics
    ) -> (state: String, client2Server: String, server2Client: String)? {
        let servicePaths = objects.keys.filter { path in
            path.hasPrefix(device + "/") && objects[path]?[BlueZ.gattService]?["UUID"]?.string?.lowercased() == service
        }
        for servicePath in servicePaths.sorted() {
            var byUUID: [String: String] = [:]
            for (path, interfaces) in objects where path.hasPrefix(servicePath + "/") {
                guard let characteristic = interfaces[BlueZ.gattCharacteristic],
                    characteristic["Service"]?.string == servicePath, let uuid = characteristic["UUID"]?.string?.lowercased()
                else { continue }
                byUUID[uuid] = path
            }
            if let state = byUUID[uuids.state], let c2s = byUUID[uuids.client2Server], let s2c = byUUID[uuids.server2Client] {
                return (state, c2s, s2c)
            }
        }
        return nil
    }
}
