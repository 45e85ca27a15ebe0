import Foundation
import MdocTestSupport

/// The committed image fixtures (made by scripts/make-qr-fixtures.py).
enum Fixtures {
    static var directory: URL {
        Bundle.module.bundleURL.appendingPathComponent("Fixtures", isDirectory: true)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// The ISO/IEC 18013-5 Annex D device-engagement URI every engagement fixture encodes.
    static func annexDURI() throws -> String {
        String(decoding: try AnnexD.file("device_engagement_qr_uri.txt"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static let engagementImages = ["annexd-qr.png", "annexd-qr-q60.jpg", "annexd-photo.jpg"]
}

/// A small deterministic generator (SplitMix64) so that "random" test inputs are reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
