/// Why the centre refused a whole request (nothing of it was stored), with a stable code the
/// kiosk acts on: it keeps every record and, for a transient refusal, tries again later.
package struct SyncRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    package struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// The body is not a sync request (CBOR shape, header fields, hash list).
        package static let malformed = Code(rawValue: "request.malformed")
        /// Over ``SyncLimits`` (bytes or records).
        package static let tooLarge = Code(rawValue: "request.tooLarge")
        /// The kiosk is not enrolled, or its certificate was removed (revoked).
        package static let unknownKiosk = Code(rawValue: "request.unknownKiosk")
        /// The kiosk's signature over the request does not verify.
        package static let badSignature = Code(rawValue: "request.badSignature")
        /// The counter is not above the last one accepted from this kiosk (a replay, or an old request).
        package static let staleCounter = Code(rawValue: "request.staleCounter")
        /// The records sent are not those whose hashes the kiosk signed.
        package static let hashMismatch = Code(rawValue: "request.hashMismatch")
        /// The centre's storage is full: try again later.
        package static let storageFull = Code(rawValue: "intake.storageFull")
        /// The centre could not process the request: try again later.
        package static let unavailable = Code(rawValue: "intake.unavailable")
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    /// Whether the same records may succeed later without anything changing at the kiosk.
    package var isTransient: Bool { code == .storageFull || code == .unavailable || code == .staleCounter }

    package var description: String { "\(code): \(reason)" }
    package static func == (lhs: SyncRefusal, rhs: SyncRefusal) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// The named limits of one sync request.
package struct SyncLimits: Sendable, Equatable {
    /// Default ``maximumRequestByteCount``: 64 MiB.
    package static let defaultMaximumRequestByteCount = 64 << 20
    /// Default ``maximumRecordCount``.
    package static let defaultMaximumRecordCount = 1_000
    /// Default ``counterWindow``.
    package static let defaultCounterWindow = 64

    /// Bytes of one request body.
    package var maximumRequestByteCount: Int
    /// Records in one request.
    package var maximumRecordCount: Int
    /// How far below a kiosk's highest accepted counter a request may still arrive: requests
    /// sent together may overtake each other, so a counter inside the window that no request
    /// has used yet is accepted (as a replay window, RFC 4303 §3.4.3); below it, refused.
    /// A kiosk keeps fewer requests in flight than this.
    package var counterWindow: Int

    package init(
        maximumRequestByteCount: Int = SyncLimits.defaultMaximumRequestByteCount,
        maximumRecordCount: Int = SyncLimits.defaultMaximumRecordCount,
        counterWindow: Int = SyncLimits.defaultCounterWindow
    ) {
        self.maximumRequestByteCount = maximumRequestByteCount
        self.maximumRecordCount = maximumRecordCount
        self.counterWindow = max(1, counterWindow)
    }

    package static let `default` = SyncLimits()
}
