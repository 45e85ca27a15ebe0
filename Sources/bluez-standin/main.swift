// bluez-standin: a stand-in for BlueZ on a private D-Bus bus, for the live-capture tests (no
// Bluetooth hardware here). It owns org.bluez on the bus named by --address (or
// DBUS_SYSTEM_BUS_ADDRESS), prints one engagement URI per line on standard output once it is
// ready, and plays the holder behind each until it is terminated.
import Foundation
import MdocDBus

do {
    let options = try StandInOptions(CommandLine.arguments.dropFirst())
    let connection = try options.address.map { try DBusConnection.open(address: $0) } ?? DBusConnection.system()
    let standIn = try StandIn(connection: connection, options: options)
    try await standIn.start()
    FileHandle.standardOutput.write(Data(standIn.holders.map { $0.uri + "\n" }.joined().utf8))
    while true { try await Task.sleep(for: .seconds(3_600)) }
} catch {
    FileHandle.standardError.write(Data("bluez-standin: \(error)\n".utf8))
    exit(2)
}
