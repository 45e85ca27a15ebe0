package import MdocCBOR
package import MdocCOSE
package import MdocCrypto

/// A COSE_Sign1 (RFC 9052 §4.2) whose signer is named by x5chain (RFC 9360): the envelope of a
/// VICAL or RICAL (18013-5 Annex C) and of a status or identifier list token (a CWT, RFC 8392).
///
/// Decoding checks the structure and reads the certificates; it does not verify the signature
/// (``verifySignature()``) nor judge the signer (``SignerChain``).
package struct SignedEnvelope: Sendable {
    /// The message, with its protected header and payload as received.
    package let message: COSESign1
    /// The attached payload, exactly as received (what the signature covers).
    package let payload: ArraySlice<UInt8>
    /// The x5chain certificates, signer first; never empty.
    package let chain: [Certificate]
    /// The header bucket x5chain came from.
    package let x5chainBucket: COSEHeaders.Bucket

    /// The certificate whose key signed the message.
    package var signer: Certificate { chain[0] }

    /// Where x5chain may be.
    enum Placement {
        /// Either bucket (18013-5 Annex C puts a VICAL's in the unprotected one).
        case anyBucket
        /// The protected bucket only (a RICAL; a status list token).
        case protectedOnly
    }

    /// Decodes `item`: an optional CWT tag 61 (RFC 8392 §6) when `cwt`, then a COSE_Sign1,
    /// tagged 18 or not, with an attached payload and an x5chain of at most
    /// ``TrustListLimits/maximumChainLength`` certificates, placed as `placement` requires.
    /// Structural failures are reported with `malformed`.
    init(
        _ item: CBOR, placement: Placement, cwt: Bool, limits: TrustListLimits, malformed: TrustListError.Code,
        what: String
    ) throws(TrustListError) {
        var item = item
        if cwt, item.tag == 61, let content = item.tagContent { item = content }
        let message: COSESign1
        do {
            message = try COSESign1(item)
        } catch {
            throw TrustListError(malformed, "\(what) is not a COSE_Sign1: \(error)")
        }
        guard let payload = message.payload else {
            throw TrustListError(malformed, "\(what) has a detached payload; it must carry its content")
        }
        let found: (certificates: [ArraySlice<UInt8>], bucket: COSEHeaders.Bucket)?
        do {
            found = try message.headers.x5chain()
        } catch {
            throw TrustListError(.invalidX5Chain, "\(what): \(error)")
        }
        guard let found else {
            throw TrustListError(.noX5Chain, "\(what) names no signer: no x5chain (label 33) in its headers")
        }
        if placement == .protectedOnly, found.bucket != .protected {
            throw TrustListError(.x5chainNotProtected, "\(what) carries x5chain in the unprotected header; it must be protected")
        }
        guard found.certificates.count <= limits.maximumChainLength else {
            throw TrustListError(
                .invalidX5Chain,
                "\(what) carries \(found.certificates.count) certificates in x5chain, over the limit of \(limits.maximumChainLength)")
        }
        var chain: [Certificate] = []
        for (index, der) in found.certificates.enumerated() {
            do {
                chain.append(try Certificate(der: der))
            } catch {
                throw TrustListError(.invalidX5Chain, "\(what): x5chain certificate \(index) does not parse: \(error)")
            }
        }
        guard !chain.isEmpty else { throw TrustListError(.invalidX5Chain, "\(what): x5chain is empty") }
        self.message = message
        self.payload = payload
        self.chain = chain
        self.x5chainBucket = found.bucket
    }

    /// Whether the signature verifies with the signer's key, over the protected header and the
    /// payload as received (RFC 9052 §4.4).
    package func verifySignature() -> Fact {
        do {
            if try message.verify(with: signer.publicKey) { return .holds }
            return .fails(TrustListError(.signatureInvalid, "the signature does not verify with the key of \(signer.subject.rfc2253)"))
        } catch {
            return .fails(TrustListError(.signatureUnverifiable, "the signature cannot be checked: \(error)"))
        }
    }

    /// The payload decoded as a map (a list's fields, a token's claims) under the limits for
    /// files of `maximumBytes`; `malformed` when it is not one.
    func payloadMap(maximumBytes: Int, limits: TrustListLimits, malformed: TrustListError.Code, what: String) throws(TrustListError)
        -> CBORMap
    {
        let payload: CBOR
        do {
            payload = try CBOR(decoding: self.payload, options: limits.decodingOptions(bytes: maximumBytes))
        } catch {
            throw TrustListError(malformed, "\(what) is not well-formed CBOR: \(error)")
        }
        guard let map = payload.map else { throw TrustListError(malformed, "\(what) is not a map") }
        return map
    }

    /// Decodes `bytes` as one CBOR item under the limits, rejecting a file over `maximumBytes`
    /// before reading it.
    static func decodeItem(
        _ bytes: ArraySlice<UInt8>, maximumBytes: Int, limits: TrustListLimits, tooLarge: TrustListError.Code,
        malformed: TrustListError.Code, what: String
    ) throws(TrustListError) -> CBOR {
        guard bytes.count <= maximumBytes else {
            throw TrustListError(tooLarge, "\(what) is \(bytes.count) bytes, over the limit of \(maximumBytes)")
        }
        do {
            return try CBOR(decoding: bytes, options: limits.decodingOptions(bytes: maximumBytes))
        } catch {
            throw TrustListError(malformed, "\(what) is not well-formed CBOR: \(error)")
        }
    }
}

/// One fact established about a signed list or token: it holds, or it fails for a reason. The
/// check units turn facts into check results; this module makes none.
package enum Fact: Sendable, Hashable {
    case holds
    case fails(TrustListError)

    /// The reason it fails; `nil` when it holds.
    package var failure: TrustListError? {
        if case .fails(let error) = self { return error }
        return nil
    }
}
