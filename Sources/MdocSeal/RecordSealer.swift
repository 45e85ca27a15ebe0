internal import MdocCBOR
internal import MdocCOSE
package import MdocCrypto

/// A kiosk's signing identity: its id, its P-256 key and the certificate the centre enrols.
package struct KioskSigner: Sendable {
    package let id: KioskID
    package let key: PrivateKey
    package let certificate: Certificate

    package init(id: KioskID, key: PrivateKey, certificate: Certificate) {
        self.id = id
        self.key = key
        self.certificate = certificate
    }
}

/// Seals records: the kiosk signs the content (COSE_Sign1, ES256, kid = kiosk id), then encrypts
/// the signed message to the centre (COSE_Encrypt, ECDH-ES + HKDF-256, A256GCM).
package struct RecordSealer: Sendable {
    package let signer: KioskSigner
    package let recipient: SealingRecipient
    package let limits: SealLimits

    package init(signer: KioskSigner, recipient: SealingRecipient, limits: SealLimits = .default) {
        self.signer = signer
        self.recipient = recipient
        self.limits = limits
    }

    /// Seals `content`, which must name this kiosk. The plaintext copies made here (the content's
    /// CBOR, the signed message) are wiped before returning; the caller's `content` is its own.
    /// - Throws: ``SealError/Code/kioskMismatch`` for another kiosk's content,
    ///   ``SealError/Code/tooLarge`` past ``SealLimits/maximumRecordByteCount`` (or the file or
    ///   check count limits), and COSE or crypto errors from signing and encryption.
    package func seal(_ content: RecordContent) throws -> SealedRecord {
        guard content.kiosk == signer.id else {
            throw SealError(.kioskMismatch, "the content names kiosk \(content.kiosk), this kiosk is \(signer.id)")
        }
        guard content.files.count <= limits.maximumFileCount, content.checks.count <= limits.maximumCheckCount else {
            throw SealError(.tooLarge, "\(content.files.count) files and \(content.checks.count) checks: over the limits")
        }
        var payload = content.cbor()
        defer { wipe(&payload) }
        var signed = try COSESign1.sign(
            payload: payload, key: signer.key,
            protected: [.init(.int(COSEHeaders.Label.keyID), .bytes(Array(signer.id.rawValue.utf8)))])
        defer { wipe(&signed) }
        let sealed = try COSEEncrypt.seal(signed, to: recipient.publicKey, keyID: recipient.keyID)
        guard sealed.count <= limits.maximumRecordByteCount else {
            throw SealError(.tooLarge, "the sealed record is \(sealed.count) bytes, over the limit of \(limits.maximumRecordByteCount)")
        }
        return SealedRecord(bytes: sealed, kiosk: content.kiosk, sequence: content.sequence)
    }
}
