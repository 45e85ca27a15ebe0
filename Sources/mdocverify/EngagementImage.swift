import Foundation
import MdocCBOR
import MdocModel
import MdocPipeline

/// Engagement QR images in the CLI (decoding lives in MdocImaging).
enum EngagementImage {
    static func looksLikeImage(_ bytes: [UInt8]) -> Bool {
        bytes.starts(with: [0xff, 0xd8, 0xff]) || bytes.starts(with: [0x89, 0x50, 0x4e, 0x47])
    }

    /// The `mdoc:` URI in an image, if one is found.
    static func uri(_ bytes: [UInt8]) -> String? {
        EngagementImages.read(bytes).uri
    }

    static func inspect(_ bytes: [UInt8], name: String) throws {
        let result = EngagementImages.read(bytes)
        let check = EngagementImages.checkResult(result)
        print("\(check.status.rawValue) \(check.id): \(check.detail)")
        guard let uri = result.uri else { throw ExitCode(1) }
        print(uri)
        let engagement = try DeviceEngagement.bytes(fromURI: uri)
        print(try CBOR(decoding: engagement).diagnostic(expandEmbedded: true, pretty: true))
    }
}

import ArgumentParser
