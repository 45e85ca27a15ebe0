import Foundation

/// AAMVA's VICAL of 2025-11-18 with its provider's root and intermediate, shipped in
/// `Vectors/vical-aamva` (provenance in `PROVENANCE.md` there).
package enum AAMVAVical {
    /// The folder holding the files.
    package static var directory: URL {
        Bundle.module.bundleURL.appendingPathComponent("Vectors/vical-aamva", isDirectory: true)
    }

    /// The list, as published.
    package static var listURL: URL { directory.appendingPathComponent("aamva-vical-2025-11-18-1763491092481.cbor") }
    /// AAMVA DTS Root CA (PEM): the list provider's anchor.
    package static var rootURL: URL { directory.appendingPathComponent("aamva_ca_root.crt") }
    /// AAMVA DTS Issuing CA (PEM), which issued the list signer.
    package static var intermediateURL: URL { directory.appendingPathComponent("aamva_ca_intermediate.crt") }

    package static func list() throws -> [UInt8] { Array(try Data(contentsOf: listURL)) }
    package static func root() throws -> [UInt8] { Array(try Data(contentsOf: rootURL)) }
    package static func intermediate() throws -> [UInt8] { Array(try Data(contentsOf: intermediateURL)) }

    /// The list's `date`: 2025-11-18T18:38:12Z.
    package static let date = Date(timeIntervalSince1970: 1_763_491_092)
    /// The list signer's notAfter: 2026-04-18T17:38:41Z.
    package static let signerNotAfter = Date(timeIntervalSince1970: 1_776_533_921)

    /// stateOrProvinceName of the 14 entries, in list order, as published ("AK" beside "US-MD").
    package static let states = [
        "US-MD", "US-UT", "US-VA", "US-VA", "US-CO", "US-GA", "AK", "US-ND", "US-UT", "US-AZ", "US-AZ", "US-AZ", "US-MT", "US-MD",
    ]
}
