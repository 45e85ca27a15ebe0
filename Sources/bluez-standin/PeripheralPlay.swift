import Foundation
import MdocDBus
import MdocSamples
import NIOConcurrencyHelpers

/// Peripheral server mode: the holder's phone is a BLE peripheral that BlueZ finds in a scan;
/// its GATT service (State, Client2Server, Server2Client) appears under its device object once
/// BlueZ has resolved the services, some time after Connect returned.
final class PeripheralPlay: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `state`; `filter` is written by the bus
    // thread only (SetDiscoveryFilter) and read when the scan starts.
    private unowned let standIn: StandIn
    private let tree: DBusObjectTree
    let devicePath = StandIn.adapterPath + "/dev_5A_11_C3_00_18_05"
    var filter: [String] = []
    private let state = NIOLockedValueBox(Session())

    private struct Session {
        var holder: SampleWallet?
        var mtu: Int?
        var inbox = HolderInbox()
        var messages = 0
        var servicesAdded = false
    }

    private var servicePath: String { devicePath + "/service0010" }
    private var statePath: String { servicePath + "/char0011" }
    private var client2ServerPath: String { servicePath + "/char0013" }
    private var server2ClientPath: String { servicePath + "/char0015" }

    init(standIn: StandIn, tree: DBusObjectTree) {
        self.standIn = standIn
        self.tree = tree
    }

    /// A scan found the holder whose peripheral server UUID the reader filters on.
    func appear() async {
        guard standIn.options.scenario != .unreachable else { return }
        let wanted = Set(filter.map { $0.lowercased() })
        guard let holder = standIn.holders.first(where: {
            standIn.options.offer.contains("peripheral-server") && (wanted.isEmpty || wanted.contains($0.peripheralUUID))
        }) else { return }
        try? await Task.sleep(for: .milliseconds(Int.random(in: 30...120)))
        state.withLockedValue { $0 = Session(holder: holder, mtu: standIn.drawMTU()) }
        try? await tree.add(devicePath, [("org.bluez.Device1", [
            ("Address", .string("5A:11:C3:00:18:05")), ("Name", .string("mdoc holder")), ("Alias", .string("mdoc holder")),
            ("Adapter", .objectPath(StandIn.adapterPath)), ("UUIDs", .strings([holder.peripheralUUID])),
            ("Connected", .boolean(false)), ("ServicesResolved", .boolean(false)), ("Paired", .boolean(false)), ("RSSI", .int16(-52)),
        ])])
    }

    func device(_ call: DBusMethodCall) -> DBusHandling {
        switch call.member {
        case "Connect":
            guard tree.contains(devicePath) else { return .error(DBusError("org.bluez.Error.DoesNotExist", "Does Not Exist")) }
            // BlueZ answers Connect before the services are resolved.
            Task {
                try? await tree.set(devicePath, "org.bluez.Device1", "Connected", .boolean(true))
                standIn.update { $0.connected.append(devicePath) }
                try? await Task.sleep(for: .milliseconds(Int.random(in: 80...250)))
                await addServices()
                try? await tree.set(devicePath, "org.bluez.Device1", "ServicesResolved", .boolean(true))
            }
            return .reply([])
        case "Disconnect":
            Task { await disconnect() }
            return .reply([])
        default:
            return .notHandled
        }
    }

    private func addServices() async {
        let mtu = state.withLockedValue { session -> Int? in
            session.servicesAdded = true
            return session.mtu
        }
        standIn.update { $0.mtu = mtu ?? 0 }
        let uuids = ["00000001", "00000002", "00000003"].map { $0 + "-a123-48ce-896b-4c76973373e6" }
        guard let holder = state.withLockedValue({ $0.holder }) else { return }
        try? await tree.add(servicePath, [("org.bluez.GattService1", [
            ("UUID", .string(holder.peripheralUUID)), ("Primary", .boolean(true)), ("Device", .objectPath(devicePath)),
        ])])
        for (path, uuid, flags) in [
            (statePath, uuids[0], ["notify", "write-without-response"]), (client2ServerPath, uuids[1], ["write-without-response"]),
            (server2ClientPath, uuids[2], ["notify"]),
        ] {
            var properties: [(String, DBusValue)] = [
                ("UUID", .string(uuid)), ("Service", .objectPath(servicePath)), ("Flags", .strings(flags)),
                ("Value", .bytes([])), ("Notifying", .boolean(false)),
            ]
            if let mtu { properties.append(("MTU", .uint16(UInt16(mtu)))) }
            try? await tree.add(path, [("org.bluez.GattCharacteristic1", properties)])
        }
    }

    /// The holder leaves (or the reader disconnected it): services gone, Connected false.
    private func disconnect() async {
        let had = state.withLockedValue { session -> Bool in
            defer { session.servicesAdded = false }
            return session.servicesAdded
        }
        if had {
            for path in [server2ClientPath, client2ServerPath, statePath, servicePath] { try? await tree.remove(path) }
        }
        try? await tree.set(devicePath, "org.bluez.Device1", "ServicesResolved", .boolean(false))
        try? await tree.set(devicePath, "org.bluez.Device1", "Connected", .boolean(false))
        standIn.update { $0.connected.removeAll { $0 == devicePath } }
    }

    func characteristic(_ call: DBusMethodCall, _ args: [DBusValue]) -> DBusHandling {
        guard [statePath, client2ServerPath, server2ClientPath].contains(call.path), tree.contains(call.path) else {
            return .error(DBusError("org.freedesktop.DBus.Error.UnknownObject", "no characteristic at \(call.path)"))
        }
        switch call.member {
        case "StartNotify", "StopNotify":
            guard call.path != client2ServerPath else { return .error(DBusError("org.bluez.Error.NotSupported", "Operation is not supported")) }
            tree.store(call.path, "org.bluez.GattCharacteristic1", "Notifying", .boolean(call.member == "StartNotify"))
            return .reply([])
        case "WriteValue":
            guard call.path != server2ClientPath, let value = args.first?.bytes else {
                return .error(DBusError("org.bluez.Error.NotPermitted", "Write not permitted"))
            }
            written(value, to: call.path)
            return .reply([])
        case "ReadValue", "AcquireWrite", "AcquireNotify":
            return .error(DBusError("org.bluez.Error.NotPermitted", "Read not permitted"))
        default:
            return .notHandled
        }
    }

    private func written(_ value: [UInt8], to path: String) {
        if path == statePath {
            if value == [0x02] { standIn.update { $0.stateEnds += 1 } }
            return
        }
        let (message, index, holder, mtu) = state.withLockedValue { session -> ([UInt8]?, Int, SampleWallet?, Int?) in
            guard let message = session.inbox.add(value) else { return (nil, 0, nil, nil) }
            session.messages += 1
            return (message, session.messages, session.holder, session.mtu)
        }
        guard let message, let holder else { return }
        if index > 1 { return standIn.readerMessage(holder, message) }
        Task {
            for action in standIn.respond(holder, establishment: message, mtu: mtu ?? 23) { await perform(action) }
        }
    }

    /// Notifications go out in bursts of a few, with short pauses between bursts.
    private func perform(_ action: StandIn.Action) async {
        switch action {
        case .chunks(let chunks):
            guard tree.property(server2ClientPath, "org.bluez.GattCharacteristic1", "Notifying")?.bool == true else { return }
            let burst = Int.random(in: 4...16)
            for (index, chunk) in chunks.enumerated() {
                try? await tree.set(server2ClientPath, "org.bluez.GattCharacteristic1", "Value", .bytes(chunk))
                if index % burst == burst - 1 { try? await Task.sleep(for: .microseconds(500)) }
            }
        case .endState:
            try? await tree.set(statePath, "org.bluez.GattCharacteristic1", "Value", .bytes([0x02]))
        case .disconnect:
            await disconnect()
        }
    }
}
