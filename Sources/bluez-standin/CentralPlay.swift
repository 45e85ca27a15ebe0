import Foundation
import MdocDBus
import MdocSamples
import NIOConcurrencyHelpers

/// Central client mode: the reader registers a GATT application and an advertisement; the
/// holder's phone (a BLE central) finds the advertisement, connects, reads Ident, subscribes,
/// writes 0x01 to State, and talks through the reader's characteristics, as BlueZ would
/// relay it: ReadValue/WriteValue/StartNotify calls on the application, notifications as the
/// application's PropertiesChanged signals.
final class CentralPlay: @unchecked Sendable {
    // @unchecked Sendable: the mutable state is behind `state`.
    private unowned let standIn: StandIn
    private let tree: DBusObjectTree
    let devicePath = StandIn.adapterPath + "/dev_7E_22_C3_00_18_05"
    private let state = NIOLockedValueBox(Registrations())

    /// A reader's application as found with GetManagedObjects.
    struct Application {
        var owner: String
        var root: String
        var serviceUUID: String
        var state: String
        var client2Server: String
        var server2Client: String
        var ident: String
    }

    private struct Registrations {
        var applications: [String: Application] = [:]
        var advertisements: [String: (owner: String, uuids: [String])] = [:]
        var session: Session?
    }

    private struct Session {
        var holder: SampleWallet
        var application: Application
        var mtu: Int?
        var inbox = HolderInbox()
        var messages = 0
        var subscription: DBusRegistration?
        var connected = true
    }

    init(standIn: StandIn, tree: DBusObjectTree) {
        self.standIn = standIn
        self.tree = tree
    }

    // MARK: Registrations

    func registerApplication(_ call: DBusMethodCall, owner: String, path: String) async {
        do {
            let reply = try await standIn.connection.call(owner, path, DBusObjectTree.objectManagerInterface, "GetManagedObjects", timeout: .seconds(5))
            guard let application = Self.application(in: reply.first, owner: owner, root: path) else {
                return call.fail(DBusError("org.bluez.Error.InvalidArguments", "no GATT service with characteristics under \(path)"))
            }
            state.withLockedValue { $0.applications[path] = application }
            standIn.update {
                $0.applications.append(path)
                $0.applicationHistory.append(path)
            }
            call.reply([])
            await startIfReady()
        } catch {
            call.fail(DBusError("org.bluez.Error.Failed", "cannot read the application: \(error)"))
        }
    }

    func unregisterApplication(_ path: String) -> DBusHandling {
        let known = state.withLockedValue { registrations -> Bool in
            if registrations.session?.application.root == path { registrations.session = nil }
            return registrations.applications.removeValue(forKey: path) != nil
        }
        guard known else { return .error(DBusError("org.bluez.Error.DoesNotExist", "Does Not Exist")) }
        standIn.update { $0.applications.removeAll { $0 == path } }
        return .reply([])
    }

    func registerAdvertisement(_ call: DBusMethodCall, owner: String, path: String) async {
        do {
            let reply = try await standIn.connection.call(
                owner, path, DBusObjectTree.propertiesInterface, "GetAll", [.string("org.bluez.LEAdvertisement1")], timeout: .seconds(5))
            let properties = reply.first?.stringKeyed ?? [:]
            guard properties["Type"]?.string == "peripheral" || properties["Type"]?.string == "broadcast" else {
                return call.fail(DBusError("org.bluez.Error.InvalidArguments", "Type must be peripheral or broadcast"))
            }
            let uuids = (properties["ServiceUUIDs"]?.strings ?? []).map { $0.lowercased() }
            state.withLockedValue { $0.advertisements[path] = (owner, uuids) }
            standIn.update { $0.advertisements.append(path) }
            call.reply([])
            await startIfReady()
        } catch {
            call.fail(DBusError("org.bluez.Error.Failed", "cannot read the advertisement: \(error)"))
        }
    }

    func unregisterAdvertisement(_ path: String) -> DBusHandling {
        let known = state.withLockedValue { $0.advertisements.removeValue(forKey: path) != nil }
        guard known else { return .error(DBusError("org.bluez.Error.DoesNotExist", "Does Not Exist")) }
        standIn.update { $0.advertisements.removeAll { $0 == path } }
        return .reply([])
    }

    /// A GATT service with the four characteristics of central client mode.
    static func application(in objects: DBusValue?, owner: String, root: String) -> Application? {
        let all = objects?.stringKeyed ?? [:]
        for (servicePath, interfaces) in all {
            guard let service = interfaces.stringKeyed?["org.bluez.GattService1"]?.stringKeyed, let uuid = service["UUID"]?.string else {
                continue
            }
            var byUUID: [String: String] = [:]
            for (path, value) in all {
                guard let characteristic = value.stringKeyed?["org.bluez.GattCharacteristic1"]?.stringKeyed,
                    characteristic["Service"]?.string == servicePath, let id = characteristic["UUID"]?.string
                else { continue }
                byUUID[String(id.lowercased().prefix(8))] = path
            }
            if let s = byUUID["00000005"], let c2s = byUUID["00000006"], let s2c = byUUID["00000007"], let ident = byUUID["00000008"] {
                return Application(owner: owner, root: root, serviceUUID: uuid.lowercased(), state: s, client2Server: c2s, server2Client: s2c, ident: ident)
            }
        }
        return nil
    }

    // MARK: The holder's side

    /// When an application and an advertisement of one holder's central client UUID are both
    /// registered, the holder's phone sees the advertisement and connects.
    private func startIfReady() async {
        let ready = state.withLockedValue { registrations -> (SampleWallet, Application)? in
            guard registrations.session == nil else { return nil }
            for application in registrations.applications.values {
                guard registrations.advertisements.values.contains(where: { $0.owner == application.owner && $0.uuids.contains(application.serviceUUID) }),
                    let holder = standIn.holders.first(where: { $0.centralUUID == application.serviceUUID })
                else { continue }
                registrations.session = Session(holder: holder, application: application, mtu: standIn.drawMTU())
                return (holder, application)
            }
            return nil
        }
        guard let (holder, application) = ready, standIn.options.scenario != .unreachable else { return }
        await connect(holder, application)
    }

    private func connect(_ holder: SampleWallet, _ application: Application) async {
        let connection = standIn.connection
        try? await Task.sleep(for: .milliseconds(Int.random(in: 30...120)))
        try? await tree.add(devicePath, [("org.bluez.Device1", [
            ("Address", .string("7E:22:C3:00:18:05")), ("Name", .string("mdoc holder")), ("Adapter", .objectPath(StandIn.adapterPath)),
            ("Connected", .boolean(true)), ("ServicesResolved", .boolean(true)), ("UUIDs", .strings([])),
        ])])
        standIn.update { $0.connected.append(devicePath) }
        do {
            let rule = "type='signal',sender='\(application.owner)',interface='\(DBusObjectTree.propertiesInterface)',member='PropertiesChanged',path_namespace='\(application.root)'"
            let subscription = try await connection.subscribe(rule) { [weak self] signal in self?.notified(signal) }
            state.withLockedValue { $0.session?.subscription = subscription }
            let ident = try await connection.call(
                application.owner, application.ident, "org.bluez.GattCharacteristic1", "ReadValue", [options(offset: true)], timeout: .seconds(5))
            standIn.update { $0.identReads += 1 }
            guard ident.first?.bytes == (try holder.expectedIdent(wrong: standIn.options.scenario == .wrongIdent)) else {
                // Not the reader this holder engaged with: it leaves.
                return await disconnect()
            }
            for path in [application.state, application.server2Client] {
                _ = try await connection.call(application.owner, path, "org.bluez.GattCharacteristic1", "StartNotify", timeout: .seconds(5))
            }
            try await write(application.state, [0x01])
        } catch {
            FileHandle.standardError.write(Data("standin: central client mode: \(error)\n".utf8))
        }
    }

    /// The options BlueZ passes to a GATT application's methods.
    private func options(offset: Bool = false, command: Bool = false) -> DBusValue {
        var entries: [(String, DBusValue)] = [("device", .objectPath(devicePath)), ("link", .string("LE"))]
        if let mtu = state.withLockedValue({ $0.session?.mtu }) { entries.append(("mtu", .uint16(UInt16(mtu)))) }
        if offset { entries.append(("offset", .uint16(0))) }
        if command { entries.append(("type", .string("command"))) }
        return .properties(entries)
    }

    private func write(_ path: String, _ value: [UInt8]) async throws {
        guard let owner = state.withLockedValue({ $0.session?.application.owner }) else { return }
        _ = try await standIn.connection.call(
            owner, path, "org.bluez.GattCharacteristic1", "WriteValue", [.bytes(value), options(command: true)], timeout: .seconds(5))
    }

    /// A notification from the reader (its application's Value changed).
    private func notified(_ signal: DBusSignal) {
        guard signal.arguments.count >= 2, signal.arguments[0].string == "org.bluez.GattCharacteristic1",
            let value = signal.arguments[1].stringKeyed?["Value"]?.bytes
        else { return }
        let outcome = state.withLockedValue { registrations -> (message: [UInt8], index: Int, Session)? in
            guard var session = registrations.session, session.connected else { return nil }
            if signal.path == session.application.state {
                return value == [0x02] ? ([0x02], -1, session) : nil
            }
            guard signal.path == session.application.server2Client, let message = session.inbox.add(value) else {
                registrations.session = session
                return nil
            }
            session.messages += 1
            registrations.session = session
            return (message, session.messages, session)
        }
        guard let (message, index, session) = outcome else { return }
        if index == -1 { return standIn.update { $0.stateEnds += 1 } }
        if index > 1 { return standIn.readerMessage(session.holder, message) }
        standIn.update { $0.mtu = session.mtu ?? 0 }
        Task {
            for action in standIn.respond(session.holder, establishment: message, mtu: session.mtu ?? 23) {
                switch action {
                case .chunks(let chunks):
                    for chunk in chunks {
                        do { try await write(session.application.client2Server, chunk) } catch { return }
                    }
                case .endState:
                    try? await write(session.application.state, [0x02])
                case .disconnect:
                    await disconnect()
                }
            }
        }
    }

    func device(_ call: DBusMethodCall) -> DBusHandling {
        guard call.path == devicePath, tree.contains(devicePath) else {
            return .error(DBusError("org.freedesktop.DBus.Error.UnknownObject", "no device at \(call.path)"))
        }
        switch call.member {
        case "Disconnect":
            Task { await disconnect() }
            return .reply([])
        case "Connect":
            return .reply([])
        default:
            return .notHandled
        }
    }

    /// The phone goes: Connected false, then its device object. (The reader may unregister its
    /// application, which ends the session record, before this runs.)
    private func disconnect() async {
        let subscription = state.withLockedValue { registrations -> DBusRegistration? in
            guard var session = registrations.session else { return nil }
            session.connected = false
            registrations.session = session
            return session.subscription
        }
        subscription?.cancel()
        guard tree.contains(devicePath) else { return }
        try? await tree.set(devicePath, "org.bluez.Device1", "Connected", .boolean(false))
        try? await tree.remove(devicePath)
        standIn.update { $0.connected.removeAll { $0 == devicePath } }
    }
}
