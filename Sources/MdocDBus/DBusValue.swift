/// One D-Bus value with its type (D-Bus specification, "Type system"): what a message carries,
/// read from or written to the wire by the connection. Arrays and dictionaries carry their
/// element signature so that an empty one still has a type.
package indirect enum DBusValue: Sendable, Equatable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`, the common case, kept as bytes.
    case bytes([UInt8])
    /// `a<element>` for any element other than a byte or a dictionary entry.
    case array(element: String, [DBusValue])
    /// `a{<key><value>}`.
    case dictionary(key: String, value: String, [DBusDictionaryEntry])
    case variant(DBusValue)
    case structure([DBusValue])

    /// The value's type signature (`s`, `ay`, `a{sv}`, `(ou)`, ...).
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .variant: "v"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        }
    }

    /// `a{sv}` from `entries` (BlueZ's options and property maps), in the given order.
    package static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(key: "s", value: "v", entries.map { DBusDictionaryEntry(.string($0.0), .variant($0.1)) })
    }

    /// `as`.
    package static func strings(_ values: [String]) -> DBusValue {
        .array(element: "s", values.map { .string($0) })
    }

    // MARK: Reading

    /// The value inside a variant (or the value itself).
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    package var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    package var bool: Bool? {
        if case .boolean(let value) = unwrapped { return value }
        return nil
    }

    /// Any unsigned or non-negative integer as an `Int`, when it fits.
    package var int: Int? {
        switch unwrapped {
        case .byte(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(exactly: v)
        default: nil
        }
    }

    /// `ay` as bytes (also an `av`/`ay` read element by element).
    package var bytes: [UInt8]? {
        switch unwrapped {
        case .bytes(let bytes): return bytes
        case .array(let element, let items) where element == "y":
            var out: [UInt8] = []
            for item in items {
                guard case .byte(let b) = item else { return nil }
                out.append(b)
            }
            return out
        default: return nil
        }
    }

    /// `as` (or any array of strings and object paths).
    package var strings: [String]? {
        guard case .array(_, let items) = unwrapped else { return nil }
        var out: [String] = []
        for item in items {
            guard let text = item.string else { return nil }
            out.append(text)
        }
        return out
    }

    /// A dictionary with string keys (`a{sv}`, `a{sa{sv}}`, `a{oa{sa{sv}}}`): key → value (variants unwrapped).
    /// Later duplicates of a key are ignored.
    package var stringKeyed: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            if out[key] == nil { out[key] = entry.value.unwrapped }
        }
        return out
    }
}

/// One entry of a D-Bus dictionary.
package struct DBusDictionaryEntry: Sendable, Equatable {
    package var key: DBusValue
    package var value: DBusValue

    package init(_ key: DBusValue, _ value: DBusValue) {
        self.key = key
        self.value = value
    }
}

/// An error from the bus, the peer (`name` is a D-Bus error name such as
/// `org.bluez.Error.Failed`) or this library (`org.mdocverify.DBus.*`).
package struct DBusError: Error, Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var message: String

    package init(_ name: String, _ message: String) {
        self.name = name
        self.message = message
    }

    package var description: String { message.isEmpty ? name : "\(name): \(message)" }

    /// The bus connection is closed, or could not be opened.
    package static let disconnectedName = "org.freedesktop.DBus.Error.Disconnected"
    /// A call got no reply within its timeout.
    package static let timeoutName = "org.freedesktop.DBus.Error.Timeout"
    package static let noReplyName = "org.freedesktop.DBus.Error.NoReply"
    /// Nobody owns the destination name.
    package static let serviceUnknownName = "org.freedesktop.DBus.Error.ServiceUnknown"
    package static let unknownObjectName = "org.freedesktop.DBus.Error.UnknownObject"
    package static let unknownMethodName = "org.freedesktop.DBus.Error.UnknownMethod"
    package static let invalidArgsName = "org.freedesktop.DBus.Error.InvalidArgs"
    /// A message that this library cannot read (a type it does not support, a broken container).
    package static let unreadableName = "org.mdocverify.DBus.Unreadable"

    /// Whether the call ended because no answer came in time.
    package var isTimeout: Bool { name == Self.timeoutName || name == Self.noReplyName }
}
