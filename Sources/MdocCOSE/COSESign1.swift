package import MdocCBOR
package import MdocCrypto

/// A COSE_Sign1 message (RFC 9052 §4.2), decoded without re-encoding anything.
///
/// ```
/// COSE_Sign1 = [ protected: bstr .cbor header_map / bstr .size 0, unprotected: header_map,
///                payload: bstr / nil, signature: bstr ]          ; optionally #6.18
/// ```
/// ISO 18013-5 uses it for issuerAuth (§9.1.2.4, payload MobileSecurityObjectBytes),
/// deviceSignature (§9.1.3.6, detached payload DeviceAuthenticationBytes) and readerAuth
/// (§9.1.4, detached payload ReaderAuthenticationBytes).
package struct COSESign1: Sendable {
    /// CBOR tag of a tagged COSE_Sign1 (RFC 9052 §2).
    package static let tag: UInt64 = 18

    /// The exact bytes of the message as received.
    package let encoded: ArraySlice<UInt8>
    package let isTagged: Bool
    package let headers: COSEHeaders
    /// The payload bstr content as received; `nil` when the payload is detached (CBOR null).
    package let payload: ArraySlice<UInt8>?
    package let signature: ArraySlice<UInt8>

    /// Decodes a COSE_Sign1 from an item, tagged (18) or not. Another tag is rejected.
    package init(_ item: CBOR) throws {
        let parts = try COSEMessageParts(item, tag: Self.tag, name: "COSE_Sign1", lastName: "signature")
        self.encoded = item.encoded
        self.isTagged = parts.isTagged
        self.headers = parts.headers
        self.payload = parts.payload
        self.signature = parts.last
    }

    /// Decodes a COSE_Sign1 from bytes.
    package init(decoding bytes: [UInt8]) throws {
        try self.init(try CBOR(decoding: bytes))
    }

    /// The Sig_structure (RFC 9052 §4.4) for this message:
    /// `["Signature1", body_protected, external_aad, payload]`, with the protected bytes and the
    /// payload exactly as received. For a detached payload pass it in `detachedPayload`.
    package func signatureStructure(detachedPayload: ArraySlice<UInt8>? = nil, externalAAD: [UInt8] = []) throws
        -> [UInt8]
    {
        Self.signatureStructure(protected: headers.protectedBytes, payload: try content(detachedPayload), externalAAD: externalAAD)
    }

    /// The payload the signature covers: the attached one, or `detachedPayload` when detached.
    func content(_ detachedPayload: ArraySlice<UInt8>?) throws -> ArraySlice<UInt8> {
        switch (payload, detachedPayload) {
        case (let attached?, nil): return attached
        case (nil, let detached?): return detached
        case (nil, nil):
            throw COSEError(.payloadMismatch, "the payload is detached and none was supplied")
        case (.some, .some):
            throw COSEError(.payloadMismatch, "the payload is attached; a detached one was supplied too")
        }
    }

    /// Builds a Sig_structure from its parts (used for verification and for signing).
    package static func signatureStructure(
        protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, externalAAD: [UInt8] = []
    ) -> [UInt8] {
        // Written straight into one buffer of the exact final size: the payload (the whole
        // MSO, or DeviceAuthenticationBytes) is copied once, with no growth checks and no array
        // of the parts. The heads are the shortest ones, as CBORNode writes them.
        let total = signatureStructureLength(protected: protected, payload: payload, externalAAD: externalAAD)
        return [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
            initialized = writeSignatureStructure(into: out, protected: protected, payload: payload, externalAAD: externalAAD)
        }
    }

    static let signatureContext: StaticString = "Signature1"

    /// The length of the Sig_structure of these parts.
    static func signatureStructureLength(protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, externalAAD: [UInt8]) -> Int {
        let context = signatureContext
        return 1 + HeadWriter.length(context.utf8CodeUnitCount) + context.utf8CodeUnitCount
            + HeadWriter.length(protected.count) + protected.count + HeadWriter.length(externalAAD.count) + externalAAD.count
            + HeadWriter.length(payload.count) + payload.count
    }

    /// Writes the Sig_structure of these parts into `out` (of at least
    /// ``signatureStructureLength(protected:payload:externalAAD:)`` bytes); the number written.
    static func writeSignatureStructure(
        into out: UnsafeMutableBufferPointer<UInt8>, protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>,
        externalAAD: [UInt8]
    ) -> Int {
        let context = signatureContext
        var writer = HeadWriter(out: out)
        writer.head(major: 4, 4)
        writer.head(major: 3, context.utf8CodeUnitCount)
        writer.bytes(UnsafeBufferPointer(start: context.utf8Start, count: context.utf8CodeUnitCount))
        writer.head(major: 2, protected.count)
        protected.withUnsafeBufferPointer { writer.bytes($0) }
        writer.head(major: 2, externalAAD.count)
        externalAAD.withUnsafeBufferPointer { writer.bytes($0) }
        writer.head(major: 2, payload.count)
        payload.withUnsafeBufferPointer { writer.bytes($0) }
        return writer.count
    }

    /// The `hash` of the Sig_structure of these parts (RFC 9052 §4.4, no external AAD), hashed
    /// from the parts where they lie: the heads, the protected bytes and the payload.
    static func signatureStructureDigest(protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, hash: HashFunction) -> Digest {
        let context = signatureContext
        // Array head, context text and the protected bstr's head; then the empty external_aad
        // and the payload bstr's head: at most 1 + 1 + 10 + 9 and 1 + 9 bytes.
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { heads in
            var writer = HeadWriter(out: heads)
            writer.head(major: 4, 4)
            writer.head(major: 3, context.utf8CodeUnitCount)
            writer.bytes(UnsafeBufferPointer(start: context.utf8Start, count: context.utf8CodeUnitCount))
            writer.head(major: 2, protected.count)
            let first = writer.count
            writer.head(major: 2, 0)
            writer.head(major: 2, payload.count)
            let second = writer.count
            let base = UnsafeRawBufferPointer(heads)
            return protected.withUnsafeBytes { protectedBytes in
                payload.withUnsafeBytes { payloadBytes in
                    hash.digest(parts: [
                        UnsafeRawBufferPointer(rebasing: base[..<first]), protectedBytes,
                        UnsafeRawBufferPointer(rebasing: base[first..<second]), payloadBytes,
                    ])
                }
            }
        }
    }

    /// Calls `body` with the Sig_structure of these parts (the bytes of
    /// ``signatureStructure(protected:payload:externalAAD:)``) in a temporary buffer, on the
    /// stack when it fits: verification needs the bytes only while they are hashed.
    static func withSignatureStructure<Result>(
        protected: ArraySlice<UInt8>, payload: ArraySlice<UInt8>, externalAAD: [UInt8],
        _ body: (UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result {
        let total = signatureStructureLength(protected: protected, payload: payload, externalAAD: externalAAD)
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: total) { out in
            let count = writeSignatureStructure(into: out, protected: protected, payload: payload, externalAAD: externalAAD)
            return try body(UnsafeBufferPointer(rebasing: out[..<Swift.min(count, out.count)]))
        }
    }

    /// Verifies the signature with `key`, using the algorithm of the protected header.
    ///
    /// Checks that the algorithm is supported and allowed for the key's curve, then verifies
    /// over ``signatureStructure(detachedPayload:externalAAD:)``. Returns `false` when the
    /// signature does not verify; throws when it cannot be checked at all (no alg, unsupported
    /// alg, curve mismatch, malformed signature encoding). Does not check the key's certificate.
    package func verify(
        with key: PublicKey, detachedPayload: ArraySlice<UInt8>? = nil, externalAAD: [UInt8] = []
    ) throws -> Bool {
        guard let algorithm = headers.algorithm else {
            throw COSEError(.missingAlgorithm, "the protected header has no alg")
        }
        guard algorithm.isSupportedSignature else {
            throw COSEError(.unsupportedAlgorithm, "signature algorithm \(algorithm) is not supported")
        }
        guard algorithm.allows(key.curve) else {
            throw COSEError(
                .unsupportedAlgorithm, "\(algorithm) cannot be used with a \(key.curve) key")
        }
        // The Sig_structure in a temporary buffer, not an array: it lives only while hashed.
        // The closure captures only what it needs, not the whole message.
        let signature = self.signature
        let hash = algorithm.hashFunction
        let content = try content(detachedPayload)
        return try Self.withSignatureStructure(protected: headers.protectedBytes, payload: content, externalAAD: externalAAD) {
            toBeSigned in
            try key.verify(signature: signature, message: toBeSigned, hash: hash)
        }
    }

    /// Produces a tagged or untagged COSE_Sign1 (for proofs and test data).
    ///
    /// `protected` holds the protected header entries (alg is added first if absent), encoded
    /// deterministically. With `detached` the payload slot is null and the signature still covers
    /// `payload`.
    package static func sign(
        payload: [UInt8], key: PrivateKey, protected extraProtected: [CBORNode.Entry] = [],
        unprotected: [CBORNode.Entry] = [], detached: Bool = false, tagged: Bool = true
    ) throws -> [UInt8] {
        let headers = try SigningHeaders(key: key, protected: extraProtected, unprotected: unprotected)
        return try sign(payload: payload, key: key, headers: headers, detached: detached, tagged: tagged)
    }

    /// The headers of messages signed with one key, encoded once for all of them (a run's
    /// proofs): the algorithm for the key's curve, the protected header's bytes (alg first,
    /// then `protected`) and the unprotected header map's bytes.
    package struct SigningHeaders: Sendable {
        let algorithm: COSEAlgorithm
        let protectedBytes: [UInt8]
        let unprotectedBytes: [UInt8]

        package init(key: PrivateKey, protected extraProtected: [CBORNode.Entry] = [], unprotected: [CBORNode.Entry] = []) throws {
            guard let algorithm = COSEAlgorithm.signing(for: key.curve) else {
                throw COSEError(.unsupportedAlgorithm, "no COSE signature algorithm for \(key.curve)")
            }
            var protectedEntries = [CBORNode.Entry(.int(COSEHeaders.Label.algorithm), .int(algorithm.rawValue))]
            protectedEntries.append(contentsOf: extraProtected)
            self.algorithm = algorithm
            protectedBytes = CBORNode.map(protectedEntries).encoded()
            unprotectedBytes = CBORNode.map(unprotected).encoded()
        }
    }

    /// ``sign(payload:key:protected:unprotected:detached:tagged:)`` with `headers` made for
    /// `key` beforehand. For ECDSA the Sig_structure is hashed from its pieces, never built;
    /// the message is written once into a buffer of its exact length, the payload copied once.
    package static func sign(
        payload: [UInt8], key: PrivateKey, headers: SigningHeaders, detached: Bool = false, tagged: Bool = true
    ) throws -> [UInt8] {
        let protected = headers.protectedBytes
        let unprotected = headers.unprotectedBytes
        let signature: [UInt8]
        if let hash = headers.algorithm.hashFunction {
            signature = try key.sign(digest: signatureStructureDigest(protected: protected[...], payload: payload[...], hash: hash))
        } else {
            // EdDSA signs the message itself (RFC 8032, pure).
            signature = try key.sign(message: signatureStructure(protected: protected[...], payload: payload[...]), hash: nil)
        }
        let total = (tagged ? HeadWriter.length(Int(tag)) : 0) + 1
            + HeadWriter.length(protected.count) + protected.count + unprotected.count
            + (detached ? 1 : HeadWriter.length(payload.count) + payload.count)
            + HeadWriter.length(signature.count) + signature.count
        return [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
            var writer = HeadWriter(out: out)
            if tagged { writer.head(major: 6, Int(tag)) }
            writer.head(major: 4, 4)
            writer.head(major: 2, protected.count)
            protected.withUnsafeBufferPointer { writer.bytes($0) }
            unprotected.withUnsafeBufferPointer { writer.bytes($0) }
            if detached {
                writer.head(major: 7, 22)
            } else {
                writer.head(major: 2, payload.count)
                payload.withUnsafeBufferPointer { writer.bytes($0) }
            }
            writer.head(major: 2, signature.count)
            signature.withUnsafeBufferPointer { writer.bytes($0) }
            initialized = writer.count
        }
    }
}

/// Writes CBOR heads (shortest form, as ``CBORNode/appendHead(major:_:to:)``) and bytes into a
/// buffer of a size computed beforehand; never writes past its end.
struct HeadWriter {
    let out: UnsafeMutableBufferPointer<UInt8>
    private(set) var count = 0

    init(out: UnsafeMutableBufferPointer<UInt8>) { self.out = out }

    /// The length of the head of an argument `value`.
    static func length(_ value: Int) -> Int {
        switch value {
        case ..<24: 1
        case ..<0x100: 2
        case ..<0x1_0000: 3
        case ..<0x1_0000_0000: 5
        default: 9
        }
    }

    mutating func head(major: UInt8, _ value: Int) {
        let argument = UInt64(clamping: value)
        let initial = major << 5
        let width: Int
        switch argument {
        case 0..<24:
            put(initial | UInt8(truncatingIfNeeded: argument))
            return
        case 24...0xff:
            put(initial | 24)
            width = 1
        case 0x100...0xffff:
            put(initial | 25)
            width = 2
        case 0x1_0000...0xffff_ffff:
            put(initial | 26)
            width = 4
        default:
            put(initial | 27)
            width = 8
        }
        var shift = (width - 1) * 8
        while shift >= 0 {
            put(UInt8(truncatingIfNeeded: argument >> UInt64(shift)))
            shift -= 8
        }
    }

    mutating func bytes(_ source: UnsafeBufferPointer<UInt8>) {
        let n = Swift.min(source.count, out.count - count)
        if n > 0, let target = out.baseAddress, let base = source.baseAddress {
            (target + count).initialize(from: base, count: n)
            count += n
        }
    }

    private mutating func put(_ byte: UInt8) {
        guard count < out.count else { return }
        out[count] = byte
        count += 1
    }
}
