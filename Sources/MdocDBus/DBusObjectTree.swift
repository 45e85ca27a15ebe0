import NIOConcurrencyHelpers

/// Objects exported under one root path, with the standard interfaces a D-Bus peer expects:
/// `org.freedesktop.DBus.Properties` (Get, GetAll; PropertiesChanged when a property is set) on
/// every object, and `org.freedesktop.DBus.ObjectManager` (GetManagedObjects; InterfacesAdded
/// and InterfacesRemoved) on the root. Other methods go to the tree's handler.
///
/// A GATT application registered with BlueZ, an LE advertisement, and BlueZ's own object tree
/// in the tests' stand-in are all such trees.
package final class DBusObjectTree: Sendable {
    package let root: String
    package let connection: DBusConnection
    private let objects = NIOLockedValueBox<[String: [String: [(name: String, value: DBusValue)]]]>([:])
    private let registration = NIOLockedValueBox<DBusRegistration?>(nil)
    private let methods: @Sendable (DBusMethodCall) -> DBusHandling

    package static let propertiesInterface = "org.freedesktop.DBus.Properties"
    package static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"

    /// Exports an empty tree at `root`; `methods` answers every call that is not a standard one.
    package init(connection: DBusConnection, root: String, methods: @escaping @Sendable (DBusMethodCall) -> DBusHandling) async throws {
        self.connection = connection
        self.root = root
        self.methods = methods
        let handle = try await connection.export(root) { [weak self] call in
            guard let self else { return .notHandled }
            return self.handle(call)
        }
        registration.withLockedValue { $0 = handle }
    }

    /// Stops serving the tree (its objects disappear from the bus at once, without signals).
    package func unexport() {
        registration.withLockedValue { registration in
            registration?.cancel()
            registration = nil
        }
    }

    /// Adds (or replaces) the object at `path` with its interfaces and their properties, and
    /// announces it with InterfacesAdded unless `announce` is false.
    package func add(_ path: String, _ interfaces: [(name: String, properties: [(String, DBusValue)])], announce: Bool = true) async throws {
        objects.withLockedValue { objects in
            var entry: [String: [(name: String, value: DBusValue)]] = [:]
            for interface in interfaces { entry[interface.name] = interface.properties.map { (name: $0.0, value: $0.1) } }
            objects[path] = entry
        }
        guard announce else { return }
        let payload = DBusValue.dictionary(key: "s", value: "a{sv}", interfaces.map { interface in
            DBusDictionaryEntry(.string(interface.name), .properties(interface.properties))
        })
        try await connection.emit(root, Self.objectManagerInterface, "InterfacesAdded", [.objectPath(path), payload])
    }

    /// Removes the object at `path`, announced with InterfacesRemoved unless `announce` is false.
    package func remove(_ path: String, announce: Bool = true) async throws {
        let removed = objects.withLockedValue { objects in objects.removeValue(forKey: path) }
        guard announce, let removed else { return }
        try await connection.emit(
            root, Self.objectManagerInterface, "InterfacesRemoved", [.objectPath(path), .strings(removed.keys.sorted())])
    }

    /// Sets a property and emits PropertiesChanged (unless `notify` is false). A property that
    /// does not exist yet is added.
    package func set(_ path: String, _ interface: String, _ name: String, _ value: DBusValue, notify: Bool = true) async throws {
        guard store(path, interface, name, value), notify else { return }
        try await connection.emit(path, Self.propertiesInterface, "PropertiesChanged", [
            .string(interface), .properties([(name, value)]), .strings([]),
        ])
    }

    /// Sets a property without a signal (from any thread, at once); false when there is no such object.
    @discardableResult
    package func store(_ path: String, _ interface: String, _ name: String, _ value: DBusValue) -> Bool {
        objects.withLockedValue { objects -> Bool in
            guard var interfaces = objects[path] else { return false }
            var properties = interfaces[interface] ?? []
            if let index = properties.firstIndex(where: { $0.name == name }) {
                properties[index].value = value
            } else {
                properties.append((name, value))
            }
            interfaces[interface] = properties
            objects[path] = interfaces
            return true
        }
    }

    /// The value of a property, if the object and property exist.
    package func property(_ path: String, _ interface: String, _ name: String) -> DBusValue? {
        objects.withLockedValue { $0[path]?[interface]?.first { $0.name == name }?.value }
    }

    /// Whether an object exists at `path`.
    package func contains(_ path: String) -> Bool { objects.withLockedValue { $0[path] != nil } }

    /// The paths of the objects that have `interface`.
    package func paths(with interface: String) -> [String] {
        objects.withLockedValue { $0.filter { $0.value[interface] != nil }.map(\.key).sorted() }
    }

    // MARK: Dispatch (on the bus thread)

    private func handle(_ call: DBusMethodCall) -> DBusHandling {
        let snapshot = objects.withLockedValue { $0[call.path] }
        switch (call.interface, call.member) {
        case (Self.objectManagerInterface, "GetManagedObjects") where call.path == root:
            return .reply([managedObjects()])
        case (Self.propertiesInterface, "Get"):
            guard let snapshot else { return .error(Self.unknownObject(call.path)) }
            guard let args = call.arguments, args.count == 2, let interface = args[0].string, let name = args[1].string else {
                return .error(DBusError(DBusError.invalidArgsName, "Get takes (interface, property)"))
            }
            guard let value = snapshot[interface]?.first(where: { $0.name == name })?.value else {
                return .error(DBusError(DBusError.invalidArgsName, "no property \(interface).\(name)"))
            }
            return .reply([.variant(value)])
        case (Self.propertiesInterface, "GetAll"):
            guard let snapshot else { return .error(Self.unknownObject(call.path)) }
            guard let args = call.arguments, args.count == 1, let interface = args[0].string else {
                return .error(DBusError(DBusError.invalidArgsName, "GetAll takes (interface)"))
            }
            return .reply([.properties((snapshot[interface] ?? []).map { ($0.name, $0.value) })])
        case (Self.propertiesInterface, "Set"):
            return .error(DBusError("org.freedesktop.DBus.Error.PropertyReadOnly", "properties are read-only"))
        default:
            guard snapshot != nil || call.path == root else { return .error(Self.unknownObject(call.path)) }
            return methods(call)
        }
    }

    /// `a{oa{sa{sv}}}`: every object below the root.
    private func managedObjects() -> DBusValue {
        let prefix = root == "/" ? "/" : root + "/"
        let all = objects.withLockedValue { $0 }
        let entries = all.keys.sorted().compactMap { path -> DBusDictionaryEntry? in
            guard path.hasPrefix(prefix), path != root, let interfaces = all[path] else { return nil }
            return DBusDictionaryEntry(.objectPath(path), .dictionary(key: "s", value: "a{sv}", interfaces.keys.sorted().map { name in
                DBusDictionaryEntry(.string(name), .properties((interfaces[name] ?? []).map { ($0.name, $0.value) }))
            }))
        }
        return .dictionary(key: "o", value: "a{sa{sv}}", entries)
    }

    static func unknownObject(_ path: String) -> DBusError {
        DBusError(DBusError.unknownObjectName, "no object at \(path)")
    }
}
