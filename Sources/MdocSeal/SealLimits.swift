/// The named limits on what a kiosk seals and a centre opens. Every one is tested at its edge
/// (the limit passes, one more fails); a record past one is refused with ``SealError/Code/tooLarge``
/// or ``SealError/Code/invalidContent``, and the rest of the batch goes on.
package struct SealLimits: Sendable, Equatable {
    /// Default ``maximumRecordByteCount``: 16 MiB of sealed bytes (a bundle with its scans).
    package static let defaultMaximumRecordByteCount = 16 << 20
    /// Default ``maximumFileCount``.
    package static let defaultMaximumFileCount = 1_024
    /// Default ``maximumCheckCount``.
    package static let defaultMaximumCheckCount = 10_000
    /// Longest bundle-relative path, in UTF-8 bytes.
    package static let maximumPathByteCount = 1_024

    /// Sealed bytes of one record (the whole COSE_Encrypt).
    package var maximumRecordByteCount: Int
    /// Files of one bundle.
    package var maximumFileCount: Int
    /// Check results carried with the kiosk's verdict.
    package var maximumCheckCount: Int

    package init(
        maximumRecordByteCount: Int = SealLimits.defaultMaximumRecordByteCount,
        maximumFileCount: Int = SealLimits.defaultMaximumFileCount,
        maximumCheckCount: Int = SealLimits.defaultMaximumCheckCount
    ) {
        self.maximumRecordByteCount = maximumRecordByteCount
        self.maximumFileCount = maximumFileCount
        self.maximumCheckCount = maximumCheckCount
    }

    package static let `default` = SealLimits()
}
