internal import MdocChecks
package import MdocDBus

/// BlueZ's D-Bus API (doc/org.bluez.*.rst): the names this reader uses.
package enum BlueZ {
    package static let service = "org.bluez"
    package static let adapter = "org.bluez.Adapter1"
    package static let device = "org.bluez.Device1"
    package static let gattService = "org.bluez.GattService1"
    package static let gattCharacteristic = "org.bluez.GattCharacteristic1"
    package static let gattManager = "org.bluez.GattManager1"
    package static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    package static let advertisement = "org.bluez.LEAdvertisement1"

    /// The object path of adapter `name` (`hci0` → `/org/bluez/hci0`).
    package static func adapterPath(_ name: String) -> String { "/org/bluez/" + name }

    /// BlueZ's objects: path → interface → property → value.
    package typealias Objects = [String: [String: [String: DBusValue]]]

    /// GetManagedObjects on BlueZ's root, read into ``Objects`` (malformed entries skipped).
    package static func objects(_ connection: DBusConnection, timeout: Duration = .seconds(10)) async throws -> Objects {
        let reply = try await connection.call(service, "/", DBusObjectTree.objectManagerInterface, "GetManagedObjects", timeout: timeout)
        return parseObjects(reply.first)
    }

    /// `a{oa{sa{sv}}}` → ``Objects``.
    package static func parseObjects(_ value: DBusValue?) -> Objects {
        var objects: Objects = [:]
        for (path, interfaces) in value?.stringKeyed ?? [:] {
            var entry: [String: [String: DBusValue]] = [:]
            for (name, properties) in interfaces.stringKeyed ?? [:] {
                entry[name] = properties.stringKeyed ?? [:]
            }
            objects[path] = entry
        }
        return objects
    }

    /// Whether `uuids` (BlueZ's `UUIDs` property) holds `uuid`, ignoring case.
    package static func contains(_ uuids: DBusValue?, _ uuid: String) -> Bool {
        (uuids?.strings ?? []).contains { $0.lowercased() == uuid.lowercased() }
    }

    /// A BlueZ error as a `ble.gatt` failure (or `ble.timeout` for a call that timed out).
    package static func failure(_ what: String, _ error: any Error, phase: BLEPhase) -> any Error {
        if error is CancellationError { return error }
        if let error = error as? DBusError {
            if error.isTimeout { return BLEError.timeout(phase, "\(what): BlueZ did not answer in time") }
            return BLEError(.bleGatt, "\(what): \(error)", evidence: [Evidence("dbusError", error.name)])
        }
        return error
    }
}

/// Live capture's pre-flight: BlueZ on the system bus, the adapter present and powered.
package enum BlueZPreflight {
    /// Throws ``BLEError`` `ble.noBlueZ`, `ble.noAdapter` or `ble.adapterOff` with what to do.
    package static func check(_ connection: DBusConnection, adapter: String) async throws {
        let objects: BlueZ.Objects
        do {
            objects = try await BlueZ.objects(connection, timeout: .seconds(5))
        } catch let error as DBusError {
            throw BLEError(.bleNoBlueZ, "BlueZ (org.bluez) does not answer on the system bus (\(error.name)): install and start bluetoothd")
        }
        let adapters = objects.filter { $0.value[BlueZ.adapter] != nil }.keys.sorted()
        guard let properties = objects[BlueZ.adapterPath(adapter)]?[BlueZ.adapter] else {
            let known = adapters.map { String($0.split(separator: "/").last ?? "") }
            throw BLEError(
                .bleNoAdapter,
                known.isEmpty ? "no Bluetooth adapter: plug one in (bluetoothctl list shows none)"
                    : "no adapter \(adapter); BlueZ has \(known.joined(separator: ", ")) (--adapter)")
        }
        guard properties["Powered"]?.bool == true else {
            throw BLEError(.bleAdapterOff, "the adapter \(adapter) is off: bluetoothctl power on (and rfkill unblock bluetooth if it is blocked)")
        }
    }
}
