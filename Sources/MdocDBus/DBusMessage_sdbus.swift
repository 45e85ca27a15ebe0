internal import CSDBus

/// Reads and writes ``DBusValue``s in an sd-bus message. Called on the bus thread only (sd-bus
/// objects are not thread-safe).
enum DBusMarshal {
    /// Every argument of `message` (or of the container the read position is in).
    static func readAll(_ message: OpaquePointer) throws(DBusError) -> [DBusValue] {
        var values: [DBusValue] = []
        while true {
            var type: CChar = 0
            var contents: UnsafePointer<CChar>?
            let peeked = sd_bus_message_peek_type(message, &type, &contents)
            if peeked < 0 { throw unreadable("cannot read the message (\(errnoName(-peeked)))") }
            if peeked == 0 { return values }
            values.append(try readOne(message, type: UInt8(bitPattern: type), contents: contents.map { String(cString: $0) }))
        }
    }

    private static func readOne(_ m: OpaquePointer, type: UInt8, contents: String?) throws(DBusError) -> DBusValue {
        func basic<T>(_ initial: T) throws(DBusError) -> T {
            var value = initial
            let result = withUnsafeMutablePointer(to: &value) { sd_bus_message_read_basic(m, CChar(bitPattern: type), $0) }
            if result <= 0 { throw unreadable("cannot read a value of type \(Character(Unicode.Scalar(type)))") }
            return value
        }
        switch type {
        case UInt8(ascii: "y"): return .byte(try basic(UInt8(0)))
        case UInt8(ascii: "b"): return .boolean(try basic(Int32(0)) != 0)
        case UInt8(ascii: "n"): return .int16(try basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(try basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(try basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(try basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(try basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(try basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(try basic(Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer: UnsafePointer<CChar>? = try basic(nil)
            guard let pointer else { throw unreadable("a string without characters") }
            let text = String(cString: pointer)
            if type == UInt8(ascii: "s") { return .string(text) }
            return type == UInt8(ascii: "o") ? .objectPath(text) : .signature(text)
        case UInt8(ascii: "a"):
            guard let contents else { throw unreadable("an array without an element type") }
            if contents == "y" {
                var pointer: UnsafeRawPointer?
                var size = 0
                guard sd_bus_message_read_array(m, CChar(bitPattern: UInt8(ascii: "y")), &pointer, &size) >= 0 else {
                    throw unreadable("cannot read a byte array")
                }
                guard let pointer, size > 0 else { return .bytes([]) }
                return .bytes(Array(UnsafeRawBufferPointer(start: pointer, count: size)))
            }
            try enter(m, "a", contents)
            if contents.hasPrefix("{") {
                let inner = String(contents.dropFirst().dropLast())
                guard let keyType = inner.first else { throw unreadable("a dictionary entry without a key type") }
                var entries: [DBusDictionaryEntry] = []
                while true {
                    var entryType: CChar = 0
                    var entryContents: UnsafePointer<CChar>?
                    let peeked = sd_bus_message_peek_type(m, &entryType, &entryContents)
                    if peeked < 0 { throw unreadable("cannot read a dictionary") }
                    if peeked == 0 { break }
                    try enter(m, "e", inner)
                    let pair = try readAll(m)
                    try exit(m)
                    guard pair.count == 2 else { throw unreadable("a dictionary entry of \(pair.count) values") }
                    entries.append(DBusDictionaryEntry(pair[0], pair[1]))
                }
                try exit(m)
                return .dictionary(key: String(keyType), value: String(inner.dropFirst()), entries)
            }
            let items = try readAll(m)
            try exit(m)
            return .array(element: contents, items)
        case UInt8(ascii: "v"):
            guard let contents else { throw unreadable("a variant without a type") }
            try enter(m, "v", contents)
            let inner = try readAll(m)
            try exit(m)
            guard inner.count == 1, let value = inner.first else { throw unreadable("a variant of \(inner.count) values") }
            return .variant(value)
        case UInt8(ascii: "r"):
            guard let contents else { throw unreadable("a structure without field types") }
            try enter(m, "r", contents)
            let fields = try readAll(m)
            try exit(m)
            return .structure(fields)
        default:
            // Unix file descriptors ('h') and anything newer: not used by this reader.
            throw unreadable("values of type \(Character(Unicode.Scalar(type))) are not supported")
        }
    }

    private static func enter(_ m: OpaquePointer, _ type: Character, _ contents: String) throws(DBusError) {
        let result = contents.withCString { sd_bus_message_enter_container(m, CChar(bitPattern: type.asciiValue ?? 0), $0) }
        if result <= 0 { throw unreadable("cannot enter a container of type \(type)\(contents)") }
    }

    private static func exit(_ m: OpaquePointer) throws(DBusError) {
        if sd_bus_message_exit_container(m) < 0 { throw unreadable("cannot leave a container") }
    }

    // MARK: Writing

    static func append(_ values: [DBusValue], to m: OpaquePointer) throws(DBusError) {
        for value in values { try append(value, to: m) }
    }

    static func append(_ value: DBusValue, to m: OpaquePointer) throws(DBusError) {
        func basic<T>(_ type: Character, _ value: T) throws(DBusError) {
            var copy = value
            let result = withUnsafePointer(to: &copy) { sd_bus_message_append_basic(m, CChar(bitPattern: type.asciiValue ?? 0), $0) }
            if result < 0 { throw unwritable(type, result) }
        }
        func text(_ type: Character, _ value: String) throws(DBusError) {
            let result = value.withCString { sd_bus_message_append_basic(m, CChar(bitPattern: type.asciiValue ?? 0), $0) }
            if result < 0 { throw unwritable(type, result) }
        }
        switch value {
        case .byte(let v): try basic("y", v)
        case .boolean(let v): try basic("b", Int32(v ? 1 : 0))
        case .int16(let v): try basic("n", v)
        case .uint16(let v): try basic("q", v)
        case .int32(let v): try basic("i", v)
        case .uint32(let v): try basic("u", v)
        case .int64(let v): try basic("x", v)
        case .uint64(let v): try basic("t", v)
        case .double(let v): try basic("d", v)
        case .string(let v): try text("s", v)
        case .objectPath(let v): try text("o", v)
        case .signature(let v): try text("g", v)
        case .bytes(let bytes):
            // A one-byte buffer stands in for an empty array: sd-bus wants a pointer either way.
            let storage = bytes.isEmpty ? [0] : bytes
            let result = storage.withUnsafeBytes {
                sd_bus_message_append_array(m, CChar(bitPattern: UInt8(ascii: "y")), $0.baseAddress, bytes.count)
            }
            if result < 0 { throw unwritable("a", result) }
        case .array(let element, let items):
            try open(m, "a", element)
            for item in items { try append(item, to: m) }
            try close(m)
        case .dictionary(let key, let valueType, let entries):
            try open(m, "a", "{" + key + valueType + "}")
            for entry in entries {
                try open(m, "e", key + valueType)
                try append(entry.key, to: m)
                try append(entry.value, to: m)
                try close(m)
            }
            try close(m)
        case .variant(let inner):
            try open(m, "v", inner.signature)
            try append(inner, to: m)
            try close(m)
        case .structure(let fields):
            try open(m, "r", fields.map(\.signature).joined())
            for field in fields { try append(field, to: m) }
            try close(m)
        }
    }

    private static func open(_ m: OpaquePointer, _ type: Character, _ contents: String) throws(DBusError) {
        let result = contents.withCString { sd_bus_message_open_container(m, CChar(bitPattern: type.asciiValue ?? 0), $0) }
        if result < 0 { throw unwritable(type, result) }
    }

    private static func close(_ m: OpaquePointer) throws(DBusError) {
        let result = sd_bus_message_close_container(m)
        if result < 0 { throw unwritable(")", result) }
    }

    // MARK: Errors

    static func unreadable(_ message: String) -> DBusError {
        DBusError(DBusError.unreadableName, message)
    }

    static func unwritable(_ type: Character, _ result: Int32) -> DBusError {
        DBusError(DBusError.invalidArgsName, "cannot write a value of type \(type) (\(errnoName(-result)))")
    }

    /// `strerror` of an errno value, for messages.
    static func errnoName(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }

    /// The error a message carries, or the errno sd-bus reported.
    static func error(of message: OpaquePointer) -> DBusError {
        guard let error = sd_bus_message_get_error(message), let name = error.pointee.name else {
            return DBusError("org.freedesktop.DBus.Error.Failed", "error \(sd_bus_message_get_errno(message))")
        }
        return DBusError(String(cString: name), error.pointee.message.map { String(cString: $0) } ?? "")
    }
}
