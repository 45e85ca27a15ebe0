internal import MdocCBOR
internal import MdocCOSE
package import MdocCrypto

/// A record opened at the centre: decrypted, its kiosk signature checked against the enrolled
/// certificate, its content read. The content holds personal data: keep it no longer than the
/// re-verification needs it.
package struct OpenedRecord: Sendable {
    package let hash: RecordHash
    package let sealedByteCount: Int
    package let content: RecordContent
    /// The enrolled certificate whose key signed the record.
    package let kioskCertificate: Certificate
}

/// Opens sealed records with the centre's sealing key.
package struct RecordOpener: Sendable {
    package let sealingKey: PrivateKey
    package let keyID: [UInt8]
    package let limits: SealLimits

    package init(sealingKey: PrivateKey, limits: SealLimits = .default) {
        self.sealingKey = sealingKey
        self.keyID = SealingRecipient.keyID(for: sealingKey.publicKey)
        self.limits = limits
    }

    /// Opens one record. The checks, in order: size (``SealError/Code/tooLarge``), shape
    /// (`malformed`), addressed to this key (`wrongRecipient`), the content authenticates
    /// (`tampered`), the signer is enrolled in `roster` (`unknownKiosk`), the signature verifies
    /// (`badSignature`), the content is a record of this format naming the same kiosk
    /// (`invalidContent`, `kioskMismatch`).
    package func open(_ sealed: [UInt8], roster: KioskRoster) throws -> OpenedRecord {
        guard sealed.count <= limits.maximumRecordByteCount else {
            throw SealError(.tooLarge, "\(sealed.count) bytes, over the limit of \(limits.maximumRecordByteCount)")
        }
        let options = CBORDecodingOptions(maxItems: 64, maxLength: limits.maximumRecordByteCount)
        let message: COSEEncrypt
        do {
            message = try COSEEncrypt(decoding: sealed, options: options)
        } catch {
            throw SealError(.malformed, "not a COSE_Encrypt: \(error)")
        }
        var plaintext: [UInt8]
        do {
            plaintext = try message.open(with: sealingKey, keyID: keyID)
        } catch let error as COSEError where error.code == .noRecipient {
            throw SealError(.wrongRecipient, "the record is sealed to another key")
        } catch let error as COSEError where error.code == .decryptionFailed {
            throw SealError(.tampered, "the record does not authenticate: altered, or sealed to another key")
        } catch is CryptoError {
            throw SealError(.tampered, "the record's ephemeral key is not a valid key: altered")
        } catch {
            throw SealError(.malformed, "the record cannot be decrypted: \(error)")
        }
        defer { wipe(&plaintext) }
        let signed: COSESign1
        do {
            signed = try COSESign1(CBOR(decoding: plaintext, options: options))
        } catch {
            throw SealError(.malformed, "the sealed content is not a COSE_Sign1: \(error)")
        }
        guard let kidBytes = signed.headers.protected?[COSEHeaders.Label.keyID]?.bytes,
            let kiosk = KioskID(rawValue: String(decoding: kidBytes, as: UTF8.self))
        else {
            throw SealError(.malformed, "the kiosk signature names no kiosk (protected kid)")
        }
        guard let certificate = roster.certificate(for: kiosk) else {
            throw SealError(.unknownKiosk, "kiosk \(kiosk) is not enrolled")
        }
        guard let payload = signed.payload else { throw SealError(.malformed, "the kiosk signature has a detached payload") }
        let verified: Bool
        do {
            verified = try signed.verify(with: certificate.publicKey)
        } catch {
            throw SealError(.badSignature, "the kiosk signature cannot be checked: \(error)")
        }
        guard verified else { throw SealError(.badSignature, "the kiosk signature does not verify with kiosk \(kiosk)'s certificate") }
        let content = try RecordContent(decoding: payload, limits: limits)
        guard content.kiosk == kiosk else {
            throw SealError(.kioskMismatch, "signed by kiosk \(kiosk), the content names kiosk \(content.kiosk)")
        }
        return OpenedRecord(hash: RecordHash(of: sealed), sealedByteCount: sealed.count, content: content, kioskCertificate: certificate)
    }
}
