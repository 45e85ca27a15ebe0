import Foundation

/// Loads the ISO/IEC 18013-5 Annex D worked example shipped in `Vectors/iso18013-5`
/// (copied from shared/vectors; provenance and cross-source agreement in `PROVENANCE.md` there).
///
/// Names follow the Annex D clause the values come from. Hex files are decoded to bytes.
package enum AnnexD {
    /// The folder holding the vector files.
    package static var directory: URL {
        Bundle.module.bundleURL.appendingPathComponent("Vectors/iso18013-5", isDirectory: true)
    }

    /// Raw bytes of a vector file (DER, JPEG, text).
    package static func file(_ name: String) throws -> [UInt8] {
        let url = directory.appendingPathComponent(name)
        return Array(try Data(contentsOf: url))
    }

    /// The bytes a `.hex` vector file spells (lower-case hex, one line).
    package static func hex(_ name: String) throws -> [UInt8] {
        let text = String(decoding: try file(name), as: UTF8.self)
        guard let bytes = Hex.decode(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw VectorError(message: "\(name) is not valid hex")
        }
        return bytes
    }

    /// The verification instant inside every validity window of the Annex D PKI and MSO.
    package static let referenceTime = Date(timeIntervalSince1970: 1_609_459_200)  // 2021-01-01T00:00:00Z

    // D.3.1 DeviceEngagement (QR/BLE variant)
    package static func deviceEngagement() throws -> [UInt8] { try hex("device_engagement.hex") }
    // D.4.1.1 / D.4.1.2
    package static func deviceRequest() throws -> [UInt8] { try hex("device_request.hex") }
    package static func deviceResponse() throws -> [UInt8] { try hex("device_response.hex") }
    // D.5.1 session encryption
    package static func sessionTranscriptBytes() throws -> [UInt8] { try hex("session_transcript_bytes.hex") }
    package static func sessionEstablishment() throws -> [UInt8] { try hex("session_establishment.hex") }
    package static func sessionData() throws -> [UInt8] { try hex("session_data.hex") }
    package static func sessionTermination() throws -> [UInt8] { try hex("session_termination.hex") }
    package static func eReaderKeyPrivate() throws -> [UInt8] { try hex("e_reader_key_private.hex") }
    package static func eReaderKeyPublic() throws -> [UInt8] { try hex("e_reader_key_public.hex") }
    package static func eDeviceKeyPrivate() throws -> [UInt8] { try hex("e_device_key_private.hex") }
    package static func eDeviceKeyPublic() throws -> [UInt8] { try hex("e_device_key_public.hex") }
    package static func sharedSecretZab() throws -> [UInt8] { try hex("shared_secret_zab.hex") }
    package static func skReader() throws -> [UInt8] { try hex("sk_reader.hex") }
    package static func skDevice() throws -> [UInt8] { try hex("sk_device.hex") }
    // D.5.2 issuer data authentication
    package static func issuerAuth() throws -> [UInt8] { try hex("issuer_auth.hex") }
    package static func issuerAuthSigStructure() throws -> [UInt8] { try hex("issuer_auth_sig_structure.hex") }
    package static func dsCertificateDER() throws -> [UInt8] { try file("ds_cert.der") }
    package static func iacaCertificateDER() throws -> [UInt8] { try file("iaca_cert.der") }
    package static func iacaCertificatePEM() throws -> [UInt8] { try file("iaca_cert.pem") }
    // D.5.3 mdoc authentication
    package static func sDeviceKeyPrivate() throws -> [UInt8] { try hex("s_device_key_private.hex") }
    package static func sDeviceKeyPublic() throws -> [UInt8] { try hex("s_device_key_public.hex") }
    package static func deviceAuth() throws -> [UInt8] { try hex("device_auth.hex") }
    package static func deviceAuthenticationBytes() throws -> [UInt8] { try hex("device_authentication_bytes.hex") }
    package static func deviceAuthMACStructure() throws -> [UInt8] { try hex("device_auth_mac_structure.hex") }
    package static func eMacKeyZab() throws -> [UInt8] { try hex("emac_key_zab.hex") }
    package static func eMacKey() throws -> [UInt8] { try hex("emac_key.hex") }
    // D.5.4 reader authentication
    package static func readerAuth() throws -> [UInt8] { try hex("reader_auth.hex") }
    package static func readerAuthenticationBytes() throws -> [UInt8] { try hex("reader_authentication_bytes.hex") }
    package static func readerAuthSigStructure() throws -> [UInt8] { try hex("reader_auth_sig_structure.hex") }
    package static func itemsRequest() throws -> [UInt8] { try hex("items_request.hex") }
    package static func readerCertificateDER() throws -> [UInt8] { try file("reader_cert.der") }
    package static func readerRootCertificateDER() throws -> [UInt8] { try file("reader_root_cert.der") }
    package static func portraitJPEG() throws -> [UInt8] { try file("portrait.jpg") }
    package static func qrURI() throws -> String {
        String(decoding: try file("device_engagement_qr_uri.txt"), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

package struct VectorError: Error, CustomStringConvertible {
    package let message: String
    package var description: String { message }
}

/// Hex helpers for tests.
package enum Hex {
    /// Decodes hex (either case); `nil` for an odd length or a non-hex character.
    package static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: return nil
            }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return high == nil ? out : nil
    }

    package static func encode<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
