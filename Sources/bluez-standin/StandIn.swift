import Foundation
import MdocCrypto
import MdocDBus
import MdocSamples
import NIOConcurrencyHelpers

/// The stand-in for BlueZ: owns `org.bluez` on a private bus and exports what a reader uses of
/// BlueZ's API (ObjectManager, Adapter1, GattManager1, LEAdvertisingManager1, Device1,
/// GattService1, GattCharacteristic1), playing the holder's phone behind it in both modes.
///
/// It is awkward where BlueZ is: Connect returns before ServicesResolved, the MTU is drawn
/// between 23 and 517, notifications come in bursts. Unlike BlueZ, it does not drop a client's
/// registrations when the client leaves the bus, so that the tests see whether the reader
/// unregistered them itself. `org.mdocverify.StandIn1` on `/org/bluez` tells the tests what
/// happened (registrations, connections, the statuses the reader sent).
final class StandIn: @unchecked Sendable {
    // @unchecked Sendable: `tree`, `peripheral` and `central` are set once in `start`, before
    // the bus name is taken (no call can arrive earlier); the mutable record is `record`'s.
    let connection: DBusConnection
    let options: StandInOptions
    let holders: [SampleWallet]
    private(set) var tree: DBusObjectTree?
    private var peripheral: PeripheralPlay?
    private var central: CentralPlay?
    let record = NIOLockedValueBox(Record())

    static let adapterPath = "/org/bluez/hci0"
    static let testPath = "/org/bluez"
    static let testInterface = "org.mdocverify.StandIn1"

    /// What the tests read back.
    struct Record {
        var applications: [String] = []
        /// Every application ever registered (the tests check none is still exported).
        var applicationHistory: [String] = []
        var advertisements: [String] = []
        var connected: [String] = []
        var readerStatuses: [UInt64] = []
        var stateEnds = 0
        var identReads = 0
        var requests = 0
        var answered = 0
        var mtu = 0
    }

    init(connection: DBusConnection, options: StandInOptions) throws {
        self.connection = connection
        self.options = options
        let now = Date()
        let authority = try IssuingAuthority(curve: .p256, profile: IssuingAuthority.Profile(notBefore: now.addingTimeInterval(-100 * 86_400)))
        if let trustOut = options.trustOut {
            try FileManager.default.createDirectory(atPath: trustOut, withIntermediateDirectories: true)
            try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: trustOut + "/iaca.pem"))
        }
        holders = try (0..<options.engagements).map { _ in try SampleWallet(authority: authority, peripheralServer: options.offer.contains("peripheral-server"), centralClient: options.offer.contains("central-client")) }
    }

    func start() async throws {
        let tree = try await DBusObjectTree(connection: connection, root: "/") { [weak self] call in
            self?.handle(call) ?? .notHandled
        }
        self.tree = tree
        peripheral = PeripheralPlay(standIn: self, tree: tree)
        central = CentralPlay(standIn: self, tree: tree)
        try await tree.add(Self.testPath, [(Self.testInterface, [])], announce: false)
        publish()
        if options.scenario != .noAdapter {
            try await tree.add(Self.adapterPath, [
                ("org.bluez.Adapter1", [
                    ("Address", .string("00:1A:7D:DA:71:13")), ("Name", .string("standin")), ("Alias", .string("standin")),
                    ("Powered", .boolean(options.scenario != .adapterOff)), ("Discovering", .boolean(false)),
                    ("UUIDs", .strings([])),
                ]),
                ("org.bluez.GattManager1", []),
                ("org.bluez.LEAdvertisingManager1", [
                    ("ActiveInstances", .byte(0)), ("SupportedInstances", .byte(5)), ("SupportedIncludes", .strings(["local-name"])),
                ]),
            ], announce: false)
        }
        try await connection.requestName("org.bluez")
    }

    /// The MTU of the next session: fixed, random in 23...517, or unknown (nil).
    func drawMTU() -> Int? {
        switch options.mtu {
        case .fixed(let value): return value
        case .random: return Int.random(in: 23...517)
        case .none: return nil
        }
    }

    /// Copies ``record`` into StandIn1's properties (read by the tests with Get).
    func publish() {
        guard let tree else { return }
        let current = record.withLockedValue { $0 }
        let i = Self.testInterface
        tree.store(Self.testPath, i, "Applications", .array(element: "o", current.applications.map { .objectPath($0) }))
        tree.store(Self.testPath, i, "ApplicationHistory", .array(element: "o", current.applicationHistory.map { .objectPath($0) }))
        tree.store(Self.testPath, i, "Advertisements", .array(element: "o", current.advertisements.map { .objectPath($0) }))
        tree.store(Self.testPath, i, "Connected", .array(element: "o", current.connected.map { .objectPath($0) }))
        tree.store(Self.testPath, i, "ReaderStatuses", .array(element: "t", current.readerStatuses.map { .uint64($0) }))
        tree.store(Self.testPath, i, "StateEnds", .uint32(UInt32(current.stateEnds)))
        tree.store(Self.testPath, i, "IdentReads", .uint32(UInt32(current.identReads)))
        tree.store(Self.testPath, i, "Requests", .uint32(UInt32(current.requests)))
        tree.store(Self.testPath, i, "Answered", .uint32(UInt32(current.answered)))
        tree.store(Self.testPath, i, "MTU", .uint32(UInt32(current.mtu)))
        let active = UInt8(clamping: current.advertisements.count)
        tree.store(Self.adapterPath, "org.bluez.LEAdvertisingManager1", "ActiveInstances", .byte(active))
    }

    func update(_ body: (inout Record) -> Void) {
        record.withLockedValue { body(&$0) }
        publish()
    }

    // MARK: Dispatch (on the bus thread)

    private func handle(_ call: DBusMethodCall) -> DBusHandling {
        guard let peripheral, let central else { return .notHandled }
        let args = call.arguments ?? []
        switch (call.interface, call.member) {
        case ("org.bluez.Adapter1", "SetDiscoveryFilter"):
            peripheral.filter = args.first?.stringKeyed?["UUIDs"]?.strings ?? []
            return .reply([])
        case ("org.bluez.Adapter1", "StartDiscovery"):
            guard adapterPowered else { return .error(Self.notReady) }
            Task {
                try? await tree?.set(Self.adapterPath, "org.bluez.Adapter1", "Discovering", .boolean(true))
                await peripheral.appear()
            }
            return .reply([])
        case ("org.bluez.Adapter1", "StopDiscovery"):
            Task { try? await tree?.set(Self.adapterPath, "org.bluez.Adapter1", "Discovering", .boolean(false)) }
            return .reply([])
        case ("org.bluez.Adapter1", "RemoveDevice"):
            return .reply([])
        case ("org.bluez.GattManager1", "RegisterApplication"):
            guard adapterPowered else { return .error(Self.notReady) }
            guard let path = args.first?.string else { return .error(Self.invalid("RegisterApplication takes (object, options)")) }
            // BlueZ reads the application's objects before it answers.
            Task { await central.registerApplication(call, owner: call.sender, path: path) }
            return .deferred
        case ("org.bluez.GattManager1", "UnregisterApplication"):
            guard let path = args.first?.string else { return .error(Self.invalid("UnregisterApplication takes (object)")) }
            return central.unregisterApplication(path)
        case ("org.bluez.LEAdvertisingManager1", "RegisterAdvertisement"):
            guard adapterPowered else { return .error(Self.notReady) }
            guard let path = args.first?.string else { return .error(Self.invalid("RegisterAdvertisement takes (object, options)")) }
            Task { await central.registerAdvertisement(call, owner: call.sender, path: path) }
            return .deferred
        case ("org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement"):
            guard let path = args.first?.string else { return .error(Self.invalid("UnregisterAdvertisement takes (object)")) }
            return central.unregisterAdvertisement(path)
        case ("org.bluez.Device1", _):
            if call.path == peripheral.devicePath { return peripheral.device(call) }
            return central.device(call)
        case ("org.bluez.GattCharacteristic1", _):
            return peripheral.characteristic(call, args)
        default:
            return .notHandled
        }
    }

    private var adapterPowered: Bool {
        tree?.property(Self.adapterPath, "org.bluez.Adapter1", "Powered")?.bool == true
    }

    static let notReady = DBusError("org.bluez.Error.NotReady", "Resource Not Ready")
    static func invalid(_ message: String) -> DBusError { DBusError("org.bluez.Error.InvalidArguments", message) }

    /// What the holder sends after the reader's SessionEstablishment, by scenario.
    enum Action {
        case chunks([[UInt8]])
        case endState
        case disconnect
    }

    func respond(_ holder: SampleWallet, establishment: [UInt8], mtu: Int) -> [Action] {
        update { $0.requests += 1 }
        do {
            switch options.scenario {
            case .silent, .wrongIdent, .noAdapter, .adapterOff, .unreachable:
                return []
            case .garbage:
                return [.chunks([[0x5A, 0x01, 0x02, 0x03]])]
            case .oversize:
                let size = 4 * 1024 * 1024 + 4_096
                return [.chunks(HolderFraming.chunks(SecureRandom.bytes(size), mtu: mtu))]
            case .status10, .status11:
                let answer = try holder.answer(establishment: establishment, status: options.scenario == .status10 ? 10 : 11)
                update { $0.answered += 1 }
                return [.chunks(HolderFraming.chunks(answer, mtu: mtu))]
            case .valid:
                let answer = try holder.answer(establishment: establishment)
                update { $0.answered += 1 }
                return [.chunks(HolderFraming.chunks(answer, mtu: mtu))]
            case .disconnect, .truncated:
                let chunks = HolderFraming.chunks(try holder.answer(establishment: establishment), mtu: mtu)
                let part = Array(chunks.prefix(max(1, chunks.count / 2)))
                return [.chunks(part), options.scenario == .disconnect ? .disconnect : .endState]
            }
        } catch {
            FileHandle.standardError.write(Data("standin: cannot answer: \(error)\n".utf8))
            return []
        }
    }

    /// A message from the reader after its SessionEstablishment (its SessionData status).
    func readerMessage(_ holder: SampleWallet, _ message: [UInt8]) {
        if let status = holder.readerStatus(message) { update { $0.readerStatuses.append(status) } }
    }
}
