internal import COpenSSL
import NIOConcurrencyHelpers
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A public key on one of the supported curves (``Curve/all``): an immutable OpenSSL `EVP_PKEY`,
/// or, for an EC key made from a point, that validated point until an OpenSSL key of its own is
/// needed (verification uses a per-thread scratch key meanwhile: ``ScratchKeys``). ECDSA keys
/// verify with `ECDSA_do_verify` on an `EC_KEY`: the thread's scratch key for a key held as a
/// point, else one of the key's own, made on its first verification.
///
/// Built once, a key can verify any number of signatures from any number of threads: OpenSSL 3
/// keys are safe for concurrent use as long as nobody mutates them, and nothing here mutates a
/// shared one. EC points are validated when the key is made (on the curve, coordinates in range,
/// not the point at infinity); all supported Weierstrass curves have cofactor 1, so that is a
/// full public-key validation (SEC1 §3.2.2.1).
package final class PublicKey: @unchecked Sendable {
    // @unchecked Sendable: `builtKey` is never mutated after init, a deferred key and the
    // verifying `EC_KEY` are made at most once under their box's lock and never mutated after;
    // concurrent reads of an EVP_PKEY and `ECDSA_do_verify` on one EC_KEY are thread-safe
    // (OpenSSL's ECDSA provider verifies on the EC_KEY all of a key's contexts share).

    /// The OpenSSL key (owned), for keys imported when they were made.
    let builtKey: OpaquePointer?
    /// For an EC key made from a point (``init(curve:sec1Point:)``, ``init(curve:x:y:)``,
    /// a private key's d·G): the OpenSSL key, built from ``uncompressedPoint`` only when
    /// something needs one of its own (export, comparison, agreement through OpenSSL). Such
    /// keys (device keys, ephemeral keys) are mostly compared with a COSE_Key, used once as the
    /// peer of an agreement, or verify one signature, which ``verify(signature:message:hash:)``
    /// does with this thread's scratch key (``ScratchKeys``): an import copies the curve's
    /// parameters (many small OpenSSL allocations) and frees them again.
    private let deferredKey = NIOLockedValueBox<KeyHandle?>(nil)

    private struct KeyHandle: @unchecked Sendable {  // owned; freed in deinit
        let pointer: OpaquePointer
    }

    /// For an ECDSA key that OpenSSL holds (or one on a thread without a scratch key): an
    /// `EC_KEY` of its own, made on its first verification and only read after
    /// (``verifyingECKey()``): a certificate's key verifies again and again, and
    /// `EVP_PKEY_verify` would want a context per call and a DER signature it parses and encodes
    /// again.
    private let ownECKey = NIOLockedValueBox<KeyHandle?>(nil)

    /// The OpenSSL key (owned by this object), imported now if it was deferred.
    var pkey: OpaquePointer {
        get throws {
            if let builtKey { return builtKey }
            let curve = curve
            let point = uncompressedPoint
            return try deferredKey.withLockedValue { (key: inout KeyHandle?) throws -> KeyHandle in
                if let key { return key }
                guard let point else { throw CryptoError(.openSSL, "public key without key material") }
                let made = KeyHandle(pointer: try Self.ecParts(curve: curve, point: point).pkey)
                key = made
                return made
            }.pointer
        }
    }
    /// The key's curve.
    package let curve: Curve
    /// For an EC key read from a certificate: the SEC1 point as the certificate carries it
    /// (its subjectPublicKey, RFC 5480 §2.2), which ``verifyingECKey()`` loads; nil otherwise
    /// (then the point is asked from OpenSSL).
    let receivedPoint: [UInt8]?
    /// For EC keys built from an uncompressed point: that point (`04‖x‖y`), so that the
    /// coordinates are read back without asking OpenSSL (which converts them from its internal
    /// representation with a modular inversion).
    let uncompressedPoint: [UInt8]?

    struct Parts {
        let pkey: OpaquePointer
        let curve: Curve
        var uncompressedPoint: [UInt8]? = nil
        var receivedPoint: [UInt8]? = nil
    }

    init(parts: Parts) {
        builtKey = parts.pkey
        curve = parts.curve
        uncompressedPoint = parts.uncompressedPoint
        receivedPoint = parts.curve.kind == .weierstrass ? parts.receivedPoint : nil
    }

    /// A key whose OpenSSL form is built on first use, from an uncompressed point `04‖x‖y` that
    /// is known to be a finite point on the curve: validated by ``validatedPoint(curve:sec1Point:)``
    /// or computed here (Q = d·G of a private key whose scalar was checked to lie in [1, n−1]).
    init(curve: Curve, computedPoint point: [UInt8]) {
        builtKey = nil
        self.curve = curve
        uncompressedPoint = point
        receivedPoint = nil
    }

    deinit {
        if let builtKey { EVP_PKEY_free(builtKey) }
        ownECKey.withLockedValue { key in
            if let key { mdoc_ec_key_free(key.pointer) }
        }
        deferredKey.withLockedValue { key in
            if let key { EVP_PKEY_free(key.pointer) }
        }
    }

    /// An EC2 key from its affine coordinates (RFC 9053 §7.1.1 `x`, `y`), each exactly
    /// ``Curve/coordinateByteCount`` bytes, big-endian.
    /// - Throws: `.unsupportedCurve` for a non-Weierstrass curve, `.invalidLength` for a
    ///   coordinate of the wrong length, `.invalidPoint` for a point not on the curve.
    package convenience init(curve: Curve, x: [UInt8], y: [UInt8]) throws {
        guard curve.kind == .weierstrass else {
            throw CryptoError(.unsupportedCurve, "\(curve) keys have no affine coordinates")
        }
        let n = curve.coordinateByteCount
        guard x.count == n, y.count == n else {
            throw CryptoError(
                .invalidLength, "\(curve) coordinates must be \(n) bytes each, got \(x.count) and \(y.count)")
        }
        self.init(curve: curve, computedPoint: try Self.validatedPoint(curve: curve, sec1Point: [0x04] + x + y))
    }

    /// An EC key from a SEC1 point encoding (SEC1 §2.3.3): uncompressed `04‖x‖y` or compressed
    /// `02‖x` / `03‖x`. The point at infinity (`00`) and hybrid forms are rejected.
    /// - Throws: `.unsupportedCurve`, `.invalidLength` (length or prefix does not match the curve),
    ///   `.invalidPoint`.
    package convenience init(curve: Curve, sec1Point: [UInt8]) throws {
        guard curve.kind == .weierstrass else {
            throw CryptoError(.unsupportedCurve, "\(curve) keys have no SEC1 point encoding")
        }
        let n = curve.coordinateByteCount
        switch (sec1Point.first, sec1Point.count) {
        case (0x04, 1 + 2 * n), (0x02, 1 + n), (0x03, 1 + n): break
        default:
            throw CryptoError(
                .invalidLength,
                "not a SEC1 \(curve) point: \(sec1Point.count) bytes starting \(sec1Point.first.map { hexString([$0]) } ?? "-")"
            )
        }
        self.init(curve: curve, computedPoint: try Self.validatedPoint(curve: curve, sec1Point: sec1Point))
    }

    /// An OKP key (RFC 9053 §7.2, RFC 8032 / RFC 7748 encodings) for Ed25519, Ed448, X25519 or X448.
    /// - Throws: `.unsupportedCurve` for a Weierstrass curve, `.invalidLength` for a key of the wrong length.
    package convenience init(curve: Curve, raw: [UInt8]) throws {
        guard curve.kind != .weierstrass else {
            throw CryptoError(.unsupportedCurve, "\(curve) keys are not raw OKP keys")
        }
        guard raw.count == curve.coordinateByteCount else {
            throw CryptoError(
                .invalidLength, "\(curve) public keys are \(curve.coordinateByteCount) bytes, got \(raw.count)")
        }
        let key = raw.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_public_key_ex(nil, cString(curve.keyType), nil, $0.baseAddress, $0.count)
        }
        guard let key else { throw CryptoError.fromOpenSSL(.invalidKey, "\(curve) public key rejected") }
        self.init(parts: Parts(pkey: key, curve: curve))
    }

    /// A key from a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7; RFC 5480 for EC, RFC 8410 for
    /// Ed/X keys). Trailing bytes are rejected. EC keys must use a named supported curve.
    /// - Throws: `.invalidKey` (not a SubjectPublicKeyInfo, trailing bytes, invalid point),
    ///   `.unsupportedCurve`, `.unsupportedAlgorithm` (e.g. RSA).
    package convenience init(subjectPublicKeyInfoDER der: [UInt8]) throws {
        let key = try der.withUnsafeBufferPointer { buffer -> OpaquePointer in
            guard let base = buffer.baseAddress else {
                throw CryptoError(.invalidKey, "empty SubjectPublicKeyInfo")
            }
            var cursor: UnsafePointer<UInt8>? = base
            guard let key = d2i_PUBKEY(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidKey, "not a DER SubjectPublicKeyInfo")
            }
            guard let cursor, cursor - base == buffer.count else {
                EVP_PKEY_free(key)
                throw CryptoError(.invalidKey, "trailing bytes after the SubjectPublicKeyInfo")
            }
            // d2i also takes BER (long-form or indefinite lengths, constructed strings); the
            // key must be DER (RFC 5280 §4.1), so its encoding must be exactly the input.
            guard Self.encodes(key, as: buffer) else {
                EVP_PKEY_free(key)
                throw CryptoError(.invalidKey, "the SubjectPublicKeyInfo is not DER")
            }
            return key
        }
        self.init(parts: try Self.finish(taking: key))
    }

    /// Whether `key`'s DER SubjectPublicKeyInfo is exactly `der`.
    private static func encodes(_ key: OpaquePointer, as der: UnsafeBufferPointer<UInt8>) -> Bool {
        guard i2d_PUBKEY(key, nil) == der.count else { return false }
        var encoded = [UInt8](repeating: 0, count: der.count)
        let written = encoded.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        return written == der.count && encoded.elementsEqual(der)
    }

    /// A second owner of an existing key (a certificate's), validated like any other;
    /// `receivedPoint`: the certificate's subjectPublicKey, the point `key` was decoded from.
    convenience init(sharing key: OpaquePointer, receivedPoint: [UInt8]?) throws {
        guard EVP_PKEY_up_ref(key) == 1 else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_up_ref failed") }
        var parts = try Self.finish(taking: key)
        parts.receivedPoint = receivedPoint
        self.init(parts: parts)
    }

    /// This key's own `EC_KEY` for `ECDSA_do_verify`, made on first use on a copy of the curve's
    /// shared group from ``receivedPoint``, ``uncompressedPoint`` or the point OpenSSL holds.
    /// - Throws: `.invalidPoint` when OpenSSL refuses the point, `.unsupportedCurve`.
    func verifyingECKey() throws -> OpaquePointer {
        try ownECKey.withLockedValue { (key: inout KeyHandle?) throws -> KeyHandle in
            if let key { return key }
            let point = try receivedPoint ?? uncompressedPoint ?? encodedPoint()
            let group = try PrivateKey.ECGroups.group(for: curve)
            let made = point.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                guard let base = buffer.baseAddress else { return nil }
                return mdoc_ec_key_new_with_point(group, base, buffer.count)
            }
            guard let made else { throw CryptoError.fromOpenSSL(.invalidPoint, "not a valid point on \(curve)") }
            let handle = KeyHandle(pointer: made)
            key = handle
            return handle
        }.pointer
    }

    /// The SEC1 encoding of the point OpenSSL holds for this EC key.
    private func encodedPoint() throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1 + 2 * curve.coordinateByteCount)
        var length = 0
        let pkey = try pkey
        let ok = out.withUnsafeMutableBufferPointer {
            EVP_PKEY_get_octet_string_param(pkey, cString("encoded-pub-key"), $0.baseAddress, $0.count, &length) == 1
        }
        guard ok, length > 0, length <= out.count else {
            throw CryptoError.fromOpenSSL(.openSSL, "the \(curve) key's point cannot be read")
        }
        return Array(out[..<length])
    }

    // MARK: Accessors

    /// The affine coordinates of an EC key, each left-padded to ``Curve/coordinateByteCount``
    /// bytes (the COSE_Key EC2 `x`/`y`, RFC 9053 §7.1.1); nil for OKP keys.
    package var affineCoordinates: (x: [UInt8], y: [UInt8])? {
        guard curve.kind == .weierstrass else { return nil }
        if let point = uncompressedPoint {
            let n = curve.coordinateByteCount
            return (Array(point[1...n]), Array(point[(n + 1)...]))
        }
        guard let x = bigNumberParameter("qx"), let y = bigNumberParameter("qy") else { return nil }
        return (x, y)
    }

    /// The uncompressed SEC1 point `04‖x‖y` of an EC key; nil for OKP keys.
    package var sec1UncompressedPoint: [UInt8]? {
        if let uncompressedPoint { return uncompressedPoint }
        guard let (x, y) = affineCoordinates else { return nil }
        return [0x04] + x + y
    }

    private func bigNumberParameter(_ name: StaticString) -> [UInt8]? {
        var number: OpaquePointer?
        guard let pkey = try? pkey, EVP_PKEY_get_bn_param(pkey, cString(name), &number) == 1, let number else {
            _ = drainOpenSSLErrors()
            return nil
        }
        defer { BN_free(number) }
        var out = [UInt8](repeating: 0, count: curve.coordinateByteCount)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(number, $0.baseAddress, Int32($0.count)) }
        return written == Int32(out.count) ? out : nil
    }

    /// The raw public key of an OKP key (RFC 8032 / RFC 7748 encoding); nil for EC keys.
    package var rawOKP: [UInt8]? {
        guard curve.kind != .weierstrass, let pkey = try? pkey else { return nil }
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pkey, nil, &length) == 1, length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        let ok = out.withUnsafeMutableBufferPointer { EVP_PKEY_get_raw_public_key(pkey, $0.baseAddress, &length) == 1 }
        return ok && length == out.count ? out : nil
    }

    /// The DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7). EC points are encoded as OpenSSL keeps
    /// them (uncompressed unless the key was built from a compressed point).
    package var subjectPublicKeyInfoDER: [UInt8] {
        let pkey: OpaquePointer
        do {
            pkey = try self.pkey
        } catch {
            preconditionFailure("cannot import a public key computed here: \(error)")
        }
        let length = i2d_PUBKEY(pkey, nil)
        guard length > 0 else { preconditionFailure("i2d_PUBKEY failed: \(drainOpenSSLErrors())") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pkey, &cursor)
        }
        precondition(written == length, "i2d_PUBKEY wrote \(written) of \(length) bytes")
        return out
    }

    /// Whether both objects hold the same public key (`EVP_PKEY_eq`: same type, curve and point).
    package func isSameKey(as other: PublicKey) -> Bool {
        guard let pkey = try? pkey, let otherKey = try? other.pkey else { return false }
        let result = EVP_PKEY_eq(pkey, otherKey)
        if result != 1 { _ = drainOpenSSLErrors() }
        return result == 1
    }
}
