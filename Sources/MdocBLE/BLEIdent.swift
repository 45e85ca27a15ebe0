import MdocCrypto

/// The Ident characteristic's value in central client mode (ISO 18013-5 §8.3.3.1.1.4):
/// HKDF-SHA-256 with IKM = EDeviceKeyBytes (the `#6.24` item as received in the engagement),
/// no salt, info "BLEIdent", 16 bytes. The mdoc reads it to check it found the reader it engaged.
package enum BLEIdent {
    package static let info = Array("BLEIdent".utf8)
    package static let byteCount = 16

    package static func compute(eDeviceKeyBytes: some Collection<UInt8>) throws -> [UInt8] {
        try HKDF.deriveKey(
            hash: .sha256, inputKeyMaterial: SecureBytes(Array(eDeviceKeyBytes)), salt: [], info: info, outputByteCount: byteCount
        ).bytes
    }
}
