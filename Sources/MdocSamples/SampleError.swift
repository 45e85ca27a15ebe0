/// An error of the sample generator: a stable ``Code`` and a human ``reason``. Two errors are
/// equal when their codes are (the reason is for people, not for matching).
package struct SampleError: Error, Hashable, Sendable, CustomStringConvertible {
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        /// An option is out of range or inconsistent (count, share, curve, output path).
        package static let invalidOption = Code("sample.invalidOption")
        /// The output folder or archive cannot be created or written.
        package static let writeFailed = Code("sample.writeFailed")
        /// A key, certificate, CRL or signature could not be made.
        package static let cryptoFailed = Code("sample.cryptoFailed")
        /// libqrencode refused the payload.
        package static let qrEncodingFailed = Code("sample.qrEncodingFailed")
        /// An image (portrait, QR, scan) could not be rendered or encoded.
        package static let imageFailed = Code("sample.imageFailed")
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { reason }
    package static func == (lhs: SampleError, rhs: SampleError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
