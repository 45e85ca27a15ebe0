package import MdocCBOR
package import MdocCrypto

extension COSEAlgorithm {
    /// AES-GCM with a 256-bit key and 128-bit tag (RFC 9053 §4.1).
    package static let a256GCM = COSEAlgorithm(rawValue: 3)
    /// ECDH ephemeral-static, the content key derived directly with HKDF-SHA-256 (RFC 9053 §6.3.1).
    package static let ecdhESHKDF256 = COSEAlgorithm(rawValue: -25)
}

extension COSEHeaders.Label {
    /// Full IV (RFC 9052 §3.1).
    package static let iv: Int64 = 5
    /// ephemeral key: the sender's ephemeral COSE_Key of an ECDH recipient (RFC 9053 §6.4.1).
    package static let ephemeralKey: Int64 = -1
}

/// A COSE_Encrypt message (RFC 9052 §5.1) with one recipient of the kind this project makes:
/// ECDH-ES + HKDF-256 (alg -25) to a static P-256 key, content A256GCM.
///
/// ```
/// COSE_Encrypt = [ protected: bstr, unprotected: header_map, ciphertext: bstr / nil,
///                  recipients: [+ COSE_recipient] ]                    ; #6.96
/// COSE_recipient = [ protected: bstr, unprotected: header_map, ciphertext: bstr / nil,
///                    ? recipients: [+ COSE_recipient] ]
/// ```
/// Decoding keeps every bucket's bytes as received: the AAD (Enc_structure) and the KDF context
/// are built from them, never from a re-encoding.
package struct COSEEncrypt: Sendable {
    /// CBOR tag of a tagged COSE_Encrypt (RFC 9052 §2).
    package static let tag: UInt64 = 96

    /// One recipient structure, decoded.
    package struct Recipient: Sendable {
        package let headers: COSEHeaders
        package let ciphertext: ArraySlice<UInt8>?
        /// Whether it nests recipients of its own (never the case for direct key agreement).
        package let hasNestedRecipients: Bool

        /// The algorithm, from the protected bucket.
        package var algorithm: COSEAlgorithm? { headers.algorithm }

        /// The key identifier (label 4) from either bucket.
        package var keyID: ArraySlice<UInt8>? {
            (headers.protected?[COSEHeaders.Label.keyID] ?? headers.unprotected[COSEHeaders.Label.keyID])?.bytes
        }
    }

    package let encoded: ArraySlice<UInt8>
    package let isTagged: Bool
    package let headers: COSEHeaders
    package let ciphertext: ArraySlice<UInt8>
    package let recipients: [Recipient]

    /// Decodes a COSE_Encrypt, tagged (96) or not. A detached ciphertext (nil) is refused: the
    /// records this project reads always carry theirs.
    package init(_ item: CBOR) throws {
        let body: CBOR
        if let tag = item.tag {
            guard tag == Self.tag, let content = item.tagContent else {
                throw COSEError(.malformed, "COSE_Encrypt carries tag \(tag), not \(Self.tag)")
            }
            body = content
            isTagged = true
        } else {
            body = item
            isTagged = false
        }
        guard let array = body.array, array.count == 4 else {
            throw COSEError(.malformed, "COSE_Encrypt is not an array of 4 items")
        }
        headers = try COSEHeaders(protectedBytes: array[0].bytes, unprotectedMap: array[1].map)
        guard let ciphertext = array[2].bytes else {
            throw COSEError(.malformed, "COSE_Encrypt ciphertext is not a byte string")
        }
        guard let list = array[3].array, !list.isEmpty else {
            throw COSEError(.malformed, "COSE_Encrypt recipients is not a non-empty array")
        }
        var recipients: [Recipient] = []
        for (index, element) in list.enumerated() {
            guard let parts = element.array, parts.count == 3 || parts.count == 4 else {
                throw COSEError(.malformed, "COSE_recipient \(index) is not an array of 3 or 4 items")
            }
            let headers = try COSEHeaders(protectedBytes: parts[0].bytes, unprotectedMap: parts[1].map)
            let ciphertext: ArraySlice<UInt8>?
            if parts[2].isNull {
                ciphertext = nil
            } else if let bytes = parts[2].bytes {
                ciphertext = bytes
            } else {
                throw COSEError(.malformed, "COSE_recipient \(index) ciphertext is neither a byte string nor null")
            }
            recipients.append(Recipient(headers: headers, ciphertext: ciphertext, hasNestedRecipients: parts.count == 4))
        }
        self.encoded = item.encoded
        self.ciphertext = ciphertext
        self.recipients = recipients
    }

    /// Decodes a COSE_Encrypt from bytes under `options` (its limits bound what is read).
    package init(decoding bytes: [UInt8], options: CBORDecodingOptions = .default) throws {
        try self.init(try CBOR(decoding: bytes, options: options))
    }

    // MARK: Sealing

    /// Encrypts `plaintext` to `recipientKey` (P-256): a fresh ephemeral key and a fresh IV each
    /// call, the content key derived by ECDH-ES + HKDF-256 and used once with A256GCM.
    /// `keyID` goes in the recipient's unprotected bucket (label 4) so that the holder of
    /// several keys can tell which one a message is for. Returns the tagged message.
    package static func seal(
        _ plaintext: [UInt8], to recipientKey: PublicKey, keyID: [UInt8]? = nil, externalAAD: [UInt8] = []
    ) throws -> [UInt8] {
        guard recipientKey.curve == .p256 else {
            throw COSEError(.invalidKey, "ECDH-ES + HKDF-256 is used here with P-256 keys only, not \(recipientKey.curve)")
        }
        // The ephemeral private key lives only in this scope; OpenSSL cleanses it when freed.
        let ephemeral = try PrivateKey.generate(curve: .p256)
        let recipientProtected = CBORNode.map([.init(.int(COSEHeaders.Label.algorithm), .int(COSEAlgorithm.ecdhESHKDF256.rawValue))]).encoded()
        var recipientUnprotected = [CBORNode.Entry(.int(COSEHeaders.Label.ephemeralKey), try COSEKey.node(for: ephemeral.publicKey))]
        if let keyID { recipientUnprotected.append(.init(.int(COSEHeaders.Label.keyID), .bytes(keyID))) }
        let contentKey = try deriveContentKey(
            secret: try ephemeral.sharedSecret(with: recipientKey), recipientProtected: recipientProtected[...])

        let protected = CBORNode.map([.init(.int(COSEHeaders.Label.algorithm), .int(COSEAlgorithm.a256GCM.rawValue))]).encoded()
        let iv = SecureRandom.bytes(AESGCM.nonceByteCount)
        let ciphertext = try AESGCM.seal(
            key: contentKey, nonce: iv, plaintext: plaintext,
            aad: encStructure(protected: protected[...], externalAAD: externalAAD))
        let recipient = CBORNode.array([.bytes(recipientProtected), .map(recipientUnprotected), .bytes([])])
        let body = CBORNode.array([
            .bytes(protected), .map([.init(.int(COSEHeaders.Label.iv), .bytes(iv))]), .bytes(ciphertext), .array([recipient]),
        ])
        return CBORNode.tagged(tag, body).encoded()
    }

    // MARK: Opening

    /// Decrypts with `privateKey`: takes the first ECDH-ES + HKDF-256 recipient whose key id,
    /// when it has one, equals `keyID`, derives the content key from its ephemeral key and
    /// opens the A256GCM content. Throws `.noRecipient` when no recipient is for this key,
    /// `.decryptionFailed` when the content does not authenticate (tampered, or sealed to
    /// another key with the same id), `.unsupportedAlgorithm` for any other content algorithm.
    package func open(with privateKey: PrivateKey, keyID: [UInt8]? = nil, externalAAD: [UInt8] = []) throws -> [UInt8] {
        guard headers.algorithm == .a256GCM else {
            throw COSEError(.unsupportedAlgorithm, "content algorithm \(headers.algorithm.map(String.init(describing:)) ?? "none") is not A256GCM")
        }
        guard let iv = headers.unprotected[COSEHeaders.Label.iv]?.bytes ?? headers.protected?[COSEHeaders.Label.iv]?.bytes,
            iv.count == AESGCM.nonceByteCount
        else {
            throw COSEError(.invalidHeader, "the IV (label 5) is missing or not \(AESGCM.nonceByteCount) bytes")
        }
        let candidate = recipients.first { recipient in
            guard recipient.algorithm == .ecdhESHKDF256, !recipient.hasNestedRecipients else { return false }
            guard let keyID, let theirs = recipient.keyID else { return true }
            return theirs.elementsEqual(keyID)
        }
        guard let recipient = candidate else {
            throw COSEError(.noRecipient, "no ECDH-ES + HKDF-256 recipient is addressed to this key")
        }
        guard recipient.ciphertext?.isEmpty ?? true else {
            throw COSEError(.malformed, "a direct key agreement recipient carries a ciphertext")
        }
        guard let ephemeralItem = recipient.headers.unprotected[COSEHeaders.Label.ephemeralKey]
            ?? recipient.headers.protected?[COSEHeaders.Label.ephemeralKey]
        else {
            throw COSEError(.invalidHeader, "the recipient has no ephemeral key (label -1)")
        }
        let ephemeral = try COSEKey(ephemeralItem).publicKey()
        guard ephemeral.curve == privateKey.curve else {
            throw COSEError(.invalidKey, "the ephemeral key is on \(ephemeral.curve), the recipient key on \(privateKey.curve)")
        }
        let contentKey = try Self.deriveContentKey(
            secret: try privateKey.sharedSecret(with: ephemeral), recipientProtected: recipient.headers.protectedBytes)
        do {
            return try AESGCM.open(
                key: contentKey, nonce: Array(iv), ciphertextAndTag: ciphertext,
                aad: Self.encStructure(protected: headers.protectedBytes, externalAAD: externalAAD))
        } catch let error as CryptoError where error.code == .authenticationFailed || error.code == .invalidLength {
            throw COSEError(.decryptionFailed, "the content does not authenticate under the derived key")
        }
    }

    // MARK: Structures

    /// Enc_structure (RFC 9052 §5.3): `["Encrypt", protected, external_aad]`, the AAD of the content.
    package static func encStructure(protected: ArraySlice<UInt8>, externalAAD: [UInt8]) -> [UInt8] {
        CBORNode.array([.text("Encrypt"), .bytes(Array(protected)), .bytes(externalAAD)]).encoded()
    }

    /// COSE_KDF_Context (RFC 9053 §5.2) for an A256GCM content key, with no party information:
    /// `[3, [nil, nil, nil], [nil, nil, nil], [256, recipient protected bytes]]`.
    package static func kdfContext(recipientProtected: ArraySlice<UInt8>) -> [UInt8] {
        let party = CBORNode.array([.null, .null, .null])
        return CBORNode.array([
            .int(COSEAlgorithm.a256GCM.rawValue), party, party,
            .array([.unsigned(UInt64(AESGCM.keyByteCount * 8)), .bytes(Array(recipientProtected))]),
        ]).encoded()
    }

    /// HKDF-SHA-256 without salt over the ECDH secret, info = the KDF context (RFC 9053 §5.1, §6.3.1).
    static func deriveContentKey(secret: SecureBytes, recipientProtected: ArraySlice<UInt8>) throws -> SecureBytes {
        try HKDF.deriveKey(
            hash: .sha256, inputKeyMaterial: secret, salt: [], info: kdfContext(recipientProtected: recipientProtected),
            outputByteCount: AESGCM.keyByteCount)
    }
}
