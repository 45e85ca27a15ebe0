/// The named limits on what a kiosk seals and a centre opens. Every one is tested at its edge
/// (the limit passes, one more fails); a record past one is refused with ``SealError/Code/tooLarge``
/// or ``SealError/Code/invalidContent``, and the rest of the batch goes on.
public struct SealLimits: Sendable, Equatable {
    /// Default ``maximumRecordByteCount``: 16 MiB of sealed bytes (a bundle with its scans).
    public static let defaultMaximumRecordByteCount = 16 << 20
    /// Default ``maximumFileCount``.
    public static let defaultMaximumFileCount = 1_024
    /// Default ``maximumCheckCount``.
    public static let defaultMaximumCheckCount = 10_000
    /// Longest bundle-relative path, in UTF-8 bytes.
    public static let maximumPathByteCount = 1_024

    /// Sealed bytes of one record (the whole COSE_Encrypt).
    public var maximumRecordByteCount: Int
    /// Files of one bundle.
    public var maximumFileCount: Int
    /// Check results carried with the kiosk's verdict.
    public var maximumCheckCount: Int

    public init(
        maximumRecordByteCount: Int = SealLimits.defaultMaximumRecordByteCount,
        maximumFileCount: Int = SealLimits.defaultMaximumFileCount,
        maximumCheckCount: Int = SealLimits.defaultMaximumCheckCount
    ) {
        self.maximumRecordByteCount = maximumRecordByteCount
        self.maximumFileCount = maximumFileCount
        self.maximumCheckCount = maximumCheckCount
    }

    public static let `default` = SealLimits()
}
