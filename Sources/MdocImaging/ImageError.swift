/// An image could not be read, decoded or encoded.
///
/// Errors compare equal by ``code`` only, so tests and the report store key on the stable code
/// and never on the wording of ``reason`` (which carries the codec's own message).
package struct ImageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A stable error code. The raw string is what reports and the store persist.
    package struct Code: Sendable, Hashable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }

        /// Zero bytes.
        package static let empty = Code("empty")
        /// The bytes start with neither the JPEG (`FF D8 FF`) nor the PNG signature.
        package static let notAnImage = Code("notAnImage")
        /// The data ends early: libjpeg's "Premature end of JPEG file", libpng's "read beyond
        /// end of data", or fewer bytes than a signature.
        package static let truncated = Code("truncated")
        /// The data violates the format (bad marker, bad Huffman code, bad chunk CRC, ...).
        package static let corrupt = Code("corrupt")
        /// Well-formed but not supported: 12-bit or lossless JPEG, unusual component counts.
        package static let unsupported = Code("unsupported")
        /// The header declares more pixels than ``ImageLimits/maxPixels`` (a decompression
        /// bomb), or dimensions the codec refuses. Checked before any pixel is decoded.
        package static let tooManyPixels = Code("tooManyPixels")
        /// The input has more bytes than ``ImageLimits/maxInputBytes``.
        package static let tooLarge = Code("tooLarge")
        /// The encoder failed.
        package static let encodeFailed = Code("encodeFailed")
        /// A parameter out of range (a scale that is not 1, 2, 4 or 8, a quality outside 1...100,
        /// pixel buffers that do not match their dimensions).
        package static let invalidArgument = Code("invalidArgument")
        /// The QR scanner (zbar) reported an internal failure.
        package static let scanFailed = Code("scanFailed")

        package var description: String { rawValue }
    }

    package let code: Code
    /// What went wrong, for people; includes the codec's message when there is one.
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package static func == (lhs: ImageError, rhs: ImageError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }

    package var description: String { "ImageError.\(code): \(reason)" }
}
