/// Why the centre refused a whole request (nothing of it was stored), with a stable code the
/// kiosk acts on: it keeps every record and, for a transient refusal, tries again later.
public struct SyncRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The body is not a sync request (CBOR shape, header fields, hash list).
        public static let malformed = Code(rawValue: "request.malformed")
        /// Over ``SyncLimits`` (bytes or records).
        public static let tooLarge = Code(rawValue: "request.tooLarge")
        /// The kiosk is not enrolled, or its certificate was removed (revoked).
        public static let unknownKiosk = Code(rawValue: "request.unknownKiosk")
        /// The kiosk's signature over the request does not verify.
        public static let badSignature = Code(rawValue: "request.badSignature")
        /// The counter is not above the last one accepted from this kiosk (a replay, or an old request).
        public static let staleCounter = Code(rawValue: "request.staleCounter")
        /// The records sent are not those whose hashes the kiosk signed.
        public static let hashMismatch = Code(rawValue: "request.hashMismatch")
        /// The centre's storage is full: try again later.
        public static let storageFull = Code(rawValue: "intake.storageFull")
        /// The centre could not process the request: try again later.
        public static let unavailable = Code(rawValue: "intake.unavailable")
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Whether the same records may succeed later without anything changing at the kiosk.
    public var isTransient: Bool { code == .storageFull || code == .unavailable || code == .staleCounter }

    public var description: String { "\(code): \(reason)" }
    public static func == (lhs: SyncRefusal, rhs: SyncRefusal) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// The named limits of one sync request.
public struct SyncLimits: Sendable, Equatable {
    /// Default ``maximumRequestByteCount``: 64 MiB.
    public static let defaultMaximumRequestByteCount = 64 << 20
    /// Default ``maximumRecordCount``.
    public static let defaultMaximumRecordCount = 1_000

    /// Bytes of one request body.
    public var maximumRequestByteCount: Int
    /// Records in one request.
    public var maximumRecordCount: Int

    public init(
        maximumRequestByteCount: Int = SyncLimits.defaultMaximumRequestByteCount,
        maximumRecordCount: Int = SyncLimits.defaultMaximumRecordCount
    ) {
        self.maximumRequestByteCount = maximumRequestByteCount
        self.maximumRecordCount = maximumRecordCount
    }

    public static let `default` = SyncLimits()
}
