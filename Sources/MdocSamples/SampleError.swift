/// An error of the sample generator: a stable ``Code`` and a human ``reason``. Two errors are
/// equal when their codes are (the reason is for people, not for matching).
public struct SampleError: Error, Hashable, Sendable, CustomStringConvertible {
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An option is out of range or inconsistent (count, share, curve, output path).
        public static let invalidOption = Code("sample.invalidOption")
        /// The output folder or archive cannot be created or written.
        public static let writeFailed = Code("sample.writeFailed")
        /// A key, certificate, CRL or signature could not be made.
        public static let cryptoFailed = Code("sample.cryptoFailed")
        /// libqrencode refused the payload.
        public static let qrEncodingFailed = Code("sample.qrEncodingFailed")
        /// An image (portrait, QR, scan) could not be rendered or encoded.
        public static let imageFailed = Code("sample.imageFailed")
    }

    public let code: Code
    public let reason: String

    public init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    public var description: String { reason }
    public static func == (lhs: SampleError, rhs: SampleError) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
