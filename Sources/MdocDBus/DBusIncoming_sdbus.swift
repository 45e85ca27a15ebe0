internal import CSDBus
import NIOConcurrencyHelpers

/// What an exported object's handler did with a method call.
package enum DBusHandling: Sendable {
    /// Reply now with these values.
    case reply([DBusValue])
    /// Reply now with this error.
    case error(DBusError)
    /// The handler keeps the ``DBusMethodCall`` and replies later (exactly once).
    case deferred
    /// Not for this handler: sd-bus answers (UnknownMethod, or its own Peer/Introspect).
    case notHandled
}

/// A match or an exported subtree; ``cancel()`` removes it (also done when the connection closes).
package final class DBusRegistration: Sendable {
    private let connection: DBusConnection
    private let registration: DBusConnection.Registration

    init(connection: DBusConnection, registration: DBusConnection.Registration) {
        self.connection = connection
        self.registration = registration
    }

    package func cancel() { connection.remove(registration) }
}

/// A signal (or any message a match rule selected), read on the bus thread.
package struct DBusSignal: Sendable {
    package var sender: String
    package var path: String
    package var interface: String
    package var member: String
    package var arguments: [DBusValue]

    init?(_ message: OpaquePointer) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        sender = text(sd_bus_message_get_sender(message))
        path = text(sd_bus_message_get_path(message))
        interface = text(sd_bus_message_get_interface(message))
        member = text(sd_bus_message_get_member(message))
        guard let arguments = try? DBusMarshal.readAll(message) else { return nil }
        self.arguments = arguments
    }
}

/// An incoming method call to an exported object. Reply exactly once, from any thread.
package final class DBusMethodCall: Sendable {
    package let sender: String
    package let path: String
    package let interface: String
    package let member: String
    /// The arguments; `nil` when they could not be read (the handler should answer InvalidArgs).
    package let arguments: [DBusValue]?
    private let connection: DBusConnection
    private let message: DBusConnection.SlotPointer
    private let answered = NIOLockedValueBox(false)

    /// On the bus thread: keeps a reference to `message` until the reply is sent.
    init(connection: DBusConnection, message: OpaquePointer) {
        func text(_ pointer: UnsafePointer<CChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        self.connection = connection
        self.message = DBusConnection.SlotPointer(pointer: sd_bus_message_ref(message))
        sender = text(sd_bus_message_get_sender(message))
        path = text(sd_bus_message_get_path(message))
        interface = text(sd_bus_message_get_interface(message))
        member = text(sd_bus_message_get_member(message))
        arguments = try? DBusMarshal.readAll(message)
    }

    deinit {
        // A call dropped without an answer is answered, so that the caller does not wait for its timeout.
        if !answered.withLockedValue({ $0 }) {
            let name = member
            connection.send(reply: message) { _ throws(DBusError) in throw DBusError("org.freedesktop.DBus.Error.Failed", "\(name) was not answered") }
        }
    }

    private func claim() -> Bool {
        answered.withLockedValue { answered in
            defer { answered = true }
            return !answered
        }
    }

    package func reply(_ values: [DBusValue] = []) {
        guard claim() else { return }
        connection.send(reply: message) { call throws(DBusError) in
            var reply: OpaquePointer?
            guard sd_bus_message_new_method_return(call, &reply) >= 0, let reply else {
                throw DBusError("org.freedesktop.DBus.Error.NoMemory", "cannot make a reply")
            }
            do throws(DBusError) {
                try DBusMarshal.append(values, to: reply)
            } catch {
                sd_bus_message_unref(reply)
                throw error
            }
            return reply
        }
    }

    package func fail(_ error: DBusError) {
        guard claim() else { return }
        connection.send(reply: message) { _ throws(DBusError) in throw error }
    }

    /// Drops the reference without answering (sd-bus answers instead).
    func abandon() {
        guard claim() else { return }
        connection.send(reply: message) { _ throws(DBusError) in nil }
    }
}
