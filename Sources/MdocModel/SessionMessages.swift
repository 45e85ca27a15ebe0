package import MdocCBOR
package import MdocCOSE
package import MdocCrypto

/// ISO 18013-5 §9.1.1.4 SessionEstablishment: `{ "eReaderKey": EReaderKeyBytes, "data": bstr }`.
package struct SessionEstablishment: Sendable {
    /// EReaderKeyBytes `#6.24(bstr .cbor COSE_Key)` exactly as received.
    package let eReaderKeyBytes: CBOR
    package let eReaderKey: COSEKey
    /// The encrypted DeviceRequest (ciphertext ‖ tag).
    package let data: ArraySlice<UInt8>

    package init(_ item: CBOR) throws {
        let path = "SessionEstablishment"
        guard let map = item.map else { throw ModelError(.wrongType, path, "not a map") }
        self.eReaderKeyBytes = try map.required("eReaderKey", at: path)
        let keyItem = try eReaderKeyBytes.requireEmbedded(at: "\(path).eReaderKey")
        do {
            self.eReaderKey = try COSEKey(keyItem)
        } catch {
            throw ModelError(.invalidValue, "\(path).eReaderKey", "\(error)")
        }
        guard let data = map["data"]?.bytes else {
            throw ModelError(.missingField, "\(path).data", "data is missing or not a byte string")
        }
        self.data = data
    }
}

/// ISO 18013-5 §9.1.1.4 SessionData: `{ ? "data": bstr, ? "status": uint }`.
package struct SessionData: Sendable {
    package let data: ArraySlice<UInt8>?
    package let status: UInt64?

    package init(_ item: CBOR) throws {
        let path = "SessionData"
        guard let map = item.map else { throw ModelError(.wrongType, path, "not a map") }
        if let data = map["data"] {
            guard let bytes = data.bytes else { throw ModelError(.wrongType, "\(path).data", "data is not a byte string") }
            self.data = bytes
        } else {
            self.data = nil
        }
        if let status = map["status"] {
            guard let value = status.uint else { throw ModelError(.wrongType, "\(path).status", "status is not an unsigned integer") }
            self.status = value
        } else {
            self.status = nil
        }
        if data == nil && status == nil {
            throw ModelError(.missingField, path, "SessionData has neither data nor status")
        }
    }

    /// Table 20 of §9.1.1.4.
    package static func statusMeaning(_ status: UInt64) -> String {
        switch status {
        case 10: "error: session encryption"
        case 11: "error: CBOR decoding"
        case 20: "session termination"
        default: "unknown status"
        }
    }
}

/// Session encryption (§9.1.1.5): keys from ECDH + HKDF, AES-256-GCM with a 12-byte IV made of
/// an 8-byte identifier (all zero from the reader, `00..01` from the mdoc) and a 4-byte
/// big-endian message counter starting at 1 for each direction.
package struct SessionKeys: Sendable {
    package let skReader: SecureBytes
    package let skDevice: SecureBytes

    /// Derives SKReader and SKDevice from the reader's ephemeral private key and the mdoc's
    /// ephemeral public key, salted with SHA-256(SessionTranscriptBytes).
    package init(readerPrivateKey: PrivateKey, eDeviceKey: PublicKey, transcript: SessionTranscript) throws {
        let shared = try readerPrivateKey.sharedSecret(with: eDeviceKey)
        let salt = transcript.hkdfSalt
        self.skReader = try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: shared, salt: salt, info: Array("SKReader".utf8), outputByteCount: 32)
        self.skDevice = try HKDF.deriveKey(hash: .sha256, inputKeyMaterial: shared, salt: salt, info: Array("SKDevice".utf8), outputByteCount: 32)
    }

    package init(skReader: SecureBytes, skDevice: SecureBytes) {
        self.skReader = skReader
        self.skDevice = skDevice
    }

    package enum Direction: Sendable {
        case readerToDevice
        case deviceToReader
    }

    /// The IV of message `counter` (1-based) in `direction`.
    package static func iv(_ direction: Direction, counter: UInt32) -> [UInt8] {
        let identifier: [UInt8] = direction == .readerToDevice ? [0, 0, 0, 0, 0, 0, 0, 0] : [0, 0, 0, 0, 0, 0, 0, 1]
        return identifier + [UInt8(truncatingIfNeeded: counter >> 24), UInt8(truncatingIfNeeded: counter >> 16),
                             UInt8(truncatingIfNeeded: counter >> 8), UInt8(truncatingIfNeeded: counter)]
    }

    package func decrypt(_ ciphertext: ArraySlice<UInt8>, direction: Direction, counter: UInt32) throws -> [UInt8] {
        let key = direction == .readerToDevice ? skReader : skDevice
        return try AESGCM.open(key: key, nonce: Self.iv(direction, counter: counter), ciphertextAndTag: ciphertext)
    }

    package func encrypt(_ plaintext: [UInt8], direction: Direction, counter: UInt32) throws -> [UInt8] {
        let key = direction == .readerToDevice ? skReader : skDevice
        return try AESGCM.seal(key: key, nonce: Self.iv(direction, counter: counter), plaintext: plaintext)
    }
}

/// ISO 18013-5 §8.3.2.1.2.1 DeviceRequest.
///
/// ```
/// DeviceRequest = { "version": tstr, "docRequests": [+ DocRequest] }
/// DocRequest = { "itemsRequest": ItemsRequestBytes, ? "readerAuth": ReaderAuth }
/// ItemsRequestBytes = #6.24(bstr .cbor ItemsRequest)
/// ItemsRequest = { "docType": DocType, "nameSpaces": NameSpaces, ? "requestInfo": {* tstr => any} }
/// NameSpaces = { + NameSpace => DataElements }   DataElements = { + DataElementIdentifier => IntentToRetain }
/// ```
package struct DeviceRequest: Sendable {
    package struct DocRequest: Sendable {
        /// ItemsRequestBytes exactly as received (part of ReaderAuthentication).
        package let itemsRequestBytes: CBOR
        package let docType: String
        /// namespace → [(identifier, intentToRetain)].
        package let requested: [(namespace: String, elements: [(identifier: String, intentToRetain: Bool)])]
        package let readerAuth: COSESign1?
    }

    package let version: String
    package let docRequests: [DocRequest]
    /// The DeviceRequest bytes as decoded.
    package let encoded: ArraySlice<UInt8>

    package init(_ item: CBOR) throws {
        let path = "DeviceRequest"
        self.encoded = item.encoded
        guard let map = item.map else { throw ModelError(.wrongType, path, "not a map") }
        self.version = try map.requiredText("version", at: path)
        var docRequests: [DocRequest] = []
        for (i, request) in try map.requiredArray("docRequests", at: path).enumerated() {
            let requestPath = "\(path).docRequests[\(i)]"
            guard let requestMap = request.map else { throw ModelError(.wrongType, requestPath, "not a map") }
            let itemsRequestBytes = try requestMap.required("itemsRequest", at: requestPath)
            let itemsRequest = try itemsRequestBytes.requireEmbedded(at: "\(requestPath).itemsRequest")
            guard let itemsMap = itemsRequest.map else {
                throw ModelError(.wrongType, "\(requestPath).itemsRequest", "ItemsRequest is not a map")
            }
            let docType = try itemsMap.requiredText("docType", at: "\(requestPath).itemsRequest")
            var requested: [(String, [(String, Bool)])] = []
            for entry in try itemsMap.requiredMap("nameSpaces", at: "\(requestPath).itemsRequest") {
                guard let namespace = entry.key.text, let elements = entry.value.map else {
                    throw ModelError(.wrongType, "\(requestPath).itemsRequest.nameSpaces", "not NameSpace => DataElements")
                }
                var list: [(String, Bool)] = []
                for element in elements {
                    guard let id = element.key.text, let retain = element.value.bool else {
                        throw ModelError(.wrongType, "\(requestPath).itemsRequest.nameSpaces.\(namespace)", "not identifier => bool")
                    }
                    list.append((id, retain))
                }
                requested.append((namespace, list))
            }
            var readerAuth: COSESign1?
            if let auth = requestMap["readerAuth"] {
                do {
                    readerAuth = try COSESign1(auth)
                } catch {
                    throw ModelError(.invalidValue, "\(requestPath).readerAuth", "\(error)")
                }
            }
            docRequests.append(DocRequest(itemsRequestBytes: itemsRequestBytes, docType: docType, requested: requested, readerAuth: readerAuth))
        }
        self.docRequests = docRequests
    }
}

/// ReaderAuthenticationBytes (§9.1.4.4):
/// `#6.24(bstr .cbor ["ReaderAuthentication", SessionTranscript, ItemsRequestBytes])`.
package func readerAuthenticationBytes(transcript: SessionTranscript, itemsRequestBytes: CBOR) -> [UInt8] {
    CBORNode.embedded(.array([.text("ReaderAuthentication"), .raw(transcript.transcript.encoded), .raw(itemsRequestBytes.encoded)]))
        .encoded()
}
