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
