internal import COpenSSL
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A public key on one of the supported curves (``Curve/all``): an immutable OpenSSL `EVP_PKEY`,
/// or, for an EC key made from a point, that validated point until an OpenSSL key of its own is
/// needed (verification uses a per-thread scratch key and context meanwhile: ``ScratchKeys``).
///
/// Built once, a key can verify any number of signatures from any number of threads: OpenSSL 3
/// keys are safe for concurrent use as long as nobody mutates them, and nothing here mutates a
/// shared one. EC points are validated when the key is made (on the curve, coordinates in range,
/// not the point at infinity); all supported Weierstrass curves have cofactor 1, so that is a
/// full public-key validation (SEC1 §3.2.2.1).
public final class PublicKey: @unchecked Sendable {
    // @unchecked Sendable: `builtKey` and `verifyTemplate` are never mutated after init, a
    // deferred key is built at most once under `deferredKey`'s lock and never mutated after;
    // concurrent reads of an EVP_PKEY and EVP_PKEY_CTX_dup of a context nobody uses are
    // thread-safe.

    /// The OpenSSL key (owned), for keys imported when they were made.
    private let builtKey: OpaquePointer?
    /// For an EC key made from a point (``init(curve:sec1Point:)``, ``init(curve:x:y:)``,
    /// a private key's d·G): the OpenSSL key, built from ``uncompressedPoint`` only when
    /// something needs one of its own (export, comparison, agreement through OpenSSL). Such
    /// keys (device keys, ephemeral keys) are mostly compared with a COSE_Key, used once as the
    /// peer of an agreement, or verify one signature, which ``verify(signature:message:hash:)``
    /// does with this thread's scratch key (``ScratchKeys``): an import copies the curve's
    /// parameters (~150 OpenSSL allocations, ~11 µs) and frees them again.
    private let deferredKey = Mutex<KeyHandle?>(nil)

    private struct KeyHandle: @unchecked Sendable {  // owned; freed in deinit
        let pointer: OpaquePointer
    }

    /// The OpenSSL key (owned by this object), imported now if it was deferred.
    var pkey: OpaquePointer {
        get throws {
            if let builtKey { return builtKey }
            let curve = curve
            let point = uncompressedPoint
            return try deferredKey.withLock { (key: inout KeyHandle?) throws -> KeyHandle in
                if let key { return key }
                guard let point else { throw CryptoError(.openSSL, "public key without key material") }
                let made = KeyHandle(pointer: try Self.ecParts(curve: curve, point: point).pkey)
                key = made
                return made
            }.pointer
        }
    }
    /// The key's curve.
    public let curve: Curve
    /// For ECDSA keys read from certificates and SubjectPublicKeyInfo (DS keys, verified again and
    /// again): a context already initialised for `EVP_PKEY_verify`. Each verification duplicates
    /// it, which skips the per-call fetch of the signature implementation. Keys imported from a
    /// point have none (see ``ecParts(curve:point:)``).
    private let verifyTemplate: OpaquePointer?
    /// For EC keys built from an uncompressed point: that point (`04‖x‖y`), so that the
    /// coordinates are read back without asking OpenSSL (which converts them from its internal
    /// representation with a modular inversion).
    let uncompressedPoint: [UInt8]?

    private struct Parts {
        let pkey: OpaquePointer
        let curve: Curve
        let verifyTemplate: OpaquePointer?
        var uncompressedPoint: [UInt8]? = nil
    }

    private init(parts: Parts) {
        builtKey = parts.pkey
        curve = parts.curve
        verifyTemplate = parts.verifyTemplate
        uncompressedPoint = parts.uncompressedPoint
    }

    /// A key whose OpenSSL form is built on first use, from an uncompressed point `04‖x‖y` that
    /// is known to be a finite point on the curve: validated by ``validatedPoint(curve:sec1Point:)``
    /// or computed here (Q = d·G of a private key whose scalar was checked to lie in [1, n−1]).
    init(curve: Curve, computedPoint point: [UInt8]) {
        builtKey = nil
        self.curve = curve
        verifyTemplate = nil
        uncompressedPoint = point
    }

    deinit {
        if let verifyTemplate { EVP_PKEY_CTX_free(verifyTemplate) }
        if let builtKey { EVP_PKEY_free(builtKey) }
        deferredKey.withLock { key in
            if let key { EVP_PKEY_free(key.pointer) }
        }
    }

    /// An EC2 key from its affine coordinates (RFC 9053 §7.1.1 `x`, `y`), each exactly
    /// ``Curve/coordinateByteCount`` bytes, big-endian.
    /// - Throws: `.unsupportedCurve` for a non-Weierstrass curve, `.invalidLength` for a
    ///   coordinate of the wrong length, `.invalidPoint` for a point not on the curve.
    public convenience init(curve: Curve, x: [UInt8], y: [UInt8]) throws {
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
    public convenience init(curve: Curve, sec1Point: [UInt8]) throws {
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
    public convenience init(curve: Curve, raw: [UInt8]) throws {
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
        self.init(parts: Parts(pkey: key, curve: curve, verifyTemplate: nil))
    }

    /// A key from a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7; RFC 5480 for EC, RFC 8410 for
    /// Ed/X keys). Trailing bytes are rejected. EC keys must use a named supported curve.
    /// - Throws: `.invalidKey` (not a SubjectPublicKeyInfo, trailing bytes, invalid point),
    ///   `.unsupportedCurve`, `.unsupportedAlgorithm` (e.g. RSA).
    public convenience init(subjectPublicKeyInfoDER der: [UInt8]) throws {
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

    /// A second owner of an existing key (a certificate's), validated like any other.
    convenience init(sharing key: OpaquePointer) throws {
        guard EVP_PKEY_up_ref(key) == 1 else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_up_ref failed") }
        self.init(parts: try Self.finish(taking: key))
    }

    // MARK: Construction helpers

    /// Decodes a SEC1 point with `EC_POINT_oct2point`, which refuses a coordinate outside the
    /// field and a point that is not on the curve (what the import into an OpenSSL key
    /// refuses: the same function decodes the point there); the point at infinity is refused
    /// too. Returns it uncompressed.
    ///
    /// An uncompressed point is decoded by loading it into this thread's scratch key
    /// (``ScratchKeys``), which then holds it for the key's first verification on this thread;
    /// a compressed one (or one on a thread without a scratch key) on the curve's shared group
    /// (``PrivateKey/ECGroups``), which also gives its y.
    static func validatedPoint(curve: Curve, sec1Point: [UInt8]) throws -> [UInt8] {
        guard let prefix = sec1Point.first, prefix == 0x02 || prefix == 0x03 || prefix == 0x04 else {
            throw CryptoError(.invalidPoint, "not a finite SEC1 point on \(curve)")
        }
        if prefix == 0x04, sec1Point.count == 1 + 2 * curve.coordinateByteCount,
            try ScratchKeys.validate(curve: curve, point: sec1Point)
        {
            return sec1Point
        }
        let group = try PrivateKey.ECGroups.group(for: curve)
        guard let point = EC_POINT_new(group) else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_new failed") }
        defer { EC_POINT_free(point) }
        let decoded = sec1Point.withUnsafeBufferPointer { EC_POINT_oct2point(group, point, $0.baseAddress, $0.count, nil) }
        guard decoded == 1, EC_POINT_is_at_infinity(group, point) == 0 else {
            throw CryptoError.fromOpenSSL(.invalidPoint, "not a valid point on \(curve)")
        }
        if prefix == 0x04 { return sec1Point }
        let length = 1 + 2 * curve.coordinateByteCount
        var uncompressed = [UInt8](repeating: 0, count: length)
        let written = uncompressed.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, nil)
        }
        guard written == length else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_point2oct failed") }
        return uncompressed
    }

    /// One EC key per curve and thread, whose public point is replaced
    /// (`EVP_PKEY_set1_encoded_public_key`, which OpenSSL documents for setting the public key
    /// of an existing key) to validate and to verify with a key that has no OpenSSL key of its
    /// own, and one context made from it, initialised again (`EVP_PKEY_verify_init`, which
    /// takes the key as it is then) for every verification: making a context costs ~1 µs of
    /// fetches and lookups, initialising one ~0.4 µs.
    ///
    /// The slot remembers the point it holds, so a key made and then verified on the same
    /// thread (a device key: made from the MSO, then verifying the device signature) decodes
    /// its point once. The point is forgotten before each load: a load that fails may leave
    /// the key holding part of the refused point, and the next use then loads again. Only its
    /// own thread uses a slot; freed when the thread exits.
    enum ScratchKeys {
        final class Slot {
            let curve: Curve
            let key: OpaquePointer
            let context: OpaquePointer
            /// The uncompressed point `key` holds; nil when unknown.
            var loaded: [UInt8]?

            init(curve: Curve, key: OpaquePointer, context: OpaquePointer) {
                self.curve = curve
                self.key = key
                self.context = context
            }

            deinit {
                EVP_PKEY_CTX_free(context)
                EVP_PKEY_free(key)
            }
        }

        /// This thread's slot for `curve`, made on first use; nil when the thread cannot have one.
        private static func slot(for curve: Curve) throws -> Slot? {
            guard let scratch = ThreadScratch.current() else { return nil }
            if let slot = scratch.keys.first(where: { $0.curve == curve }) { return slot }
            let template = try ECParameterTemplates.template(for: curve)
            guard let key = EVP_PKEY_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_new failed") }
            guard EVP_PKEY_copy_parameters(key, template) == 1 else {
                EVP_PKEY_free(key)
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_copy_parameters(\(curve)) failed")
            }
            guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                EVP_PKEY_free(key)
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
            }
            let slot = Slot(curve: curve, key: key, context: context)
            scratch.keys.append(slot)
            return slot
        }

        /// Loads `point` (uncompressed) into `slot`; unless `always`, not when it holds it already.
        /// - Throws: `.invalidPoint` when OpenSSL refuses the point.
        private static func load(_ point: [UInt8], into slot: Slot, always: Bool) throws {
            if !always, let loaded = slot.loaded, loaded == point { return }
            slot.loaded = nil
            let accepted = point.withUnsafeBufferPointer { buffer -> Bool in
                guard let base = buffer.baseAddress else { return false }
                return EVP_PKEY_set1_encoded_public_key(slot.key, base, buffer.count) == 1
            }
            guard accepted else { throw CryptoError.fromOpenSSL(.invalidPoint, "not a valid point on \(slot.curve)") }
            slot.loaded = point
        }

        /// Validates an uncompressed point by loading it into this thread's key for `curve`
        /// (`EVP_PKEY_set1_encoded_public_key` decodes it with `EC_POINT_oct2point`, which
        /// refuses a coordinate outside the field and a point off the curve). False when the
        /// thread has no slot (the caller validates otherwise). Decoded even when the slot
        /// holds the same point already: every new key pays its own decoding, as in a batch of
        /// different keys, and a benchmark repeating one key measures what such a batch costs.
        /// - Throws: `.invalidPoint`.
        static func validate(curve: Curve, point: [UInt8]) throws -> Bool {
            guard let slot = try slot(for: curve) else { return false }
            try load(point, into: slot, always: true)
            return true
        }

        /// Runs `body` with this thread's context for `curve`, holding `point` and initialised
        /// for `EVP_PKEY_verify`; nil when the thread has no slot.
        static func withVerificationContext<R>(
            curve: Curve, point: [UInt8], _ body: (OpaquePointer) throws -> R
        ) throws -> R? {
            guard let slot = try slot(for: curve) else { return nil }
            try load(point, into: slot, always: false)
            guard EVP_PKEY_verify_init(slot.context) == 1 else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_verify_init failed")
            }
            return try body(slot.context)
        }
    }

    /// Imports an EC point into a copy of the curve's parameter template
    /// (``ECParameterTemplates``): `EVP_PKEY_set1_encoded_public_key` decodes the point and
    /// refuses one that is not on the curve or has a coordinate outside the field, and
    /// ``finish(taking:expected:knownCurve:)`` refuses the point at infinity.
    ///
    /// Not `EVP_PKEY_fromdata`: in OpenSSL 3.0 it builds the curve's `EC_GROUP` from scratch
    /// (constants, Montgomery set-up, generator) on every import, ~3× the cost of copying it
    /// from a template, and a batch imports one to three EC keys per transaction.
    ///
    /// No `EVP_PKEY_public_check_quick` afterwards: the decoding already refused every point it
    /// would refuse (off the curve, coordinates out of range), the point at infinity is refused
    /// above, and the context it needs is not made either: most of these keys verify once or
    /// never (device keys, ephemeral keys), so ``verify(signature:message:hash:)`` makes one
    /// when needed instead of keeping a template.
    private static func ecParts(curve: Curve, point: [UInt8]) throws -> Parts {
        // OpenSSL would take `00` as the point at infinity: only the SEC1 forms of a finite point.
        guard let prefix = point.first, prefix == 0x02 || prefix == 0x03 || prefix == 0x04 else {
            throw CryptoError(.invalidPoint, "not a finite SEC1 point on \(curve)")
        }
        let template = try ECParameterTemplates.template(for: curve)
        guard let key = EVP_PKEY_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_new failed") }
        guard EVP_PKEY_copy_parameters(key, template) == 1 else {
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_copy_parameters(\(curve)) failed")
        }
        let accepted = point.withUnsafeBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return EVP_PKEY_set1_encoded_public_key(key, base, buffer.count) == 1
        }
        guard accepted else {
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.invalidPoint, "not a valid point on \(curve)")
        }
        var parts = try finish(taking: key, expected: curve, knownCurve: true, validated: true)
        if point.first == 0x04 && point.count == 1 + 2 * curve.coordinateByteCount { parts.uncompressedPoint = point }
        return parts
    }

    /// One parameters-only `EVP_PKEY` per supported Weierstrass curve (the named group, no key),
    /// made together on first use and never freed; EC public keys are imported into copies of
    /// them. They are only read (`EVP_PKEY_copy_parameters` from them), so every thread may
    /// share them, without a lock.
    enum ECParameterTemplates {
        private struct Template: @unchecked Sendable {  // read-only after creation
            let pointer: OpaquePointer
        }

        private static let templates: [String: Template] = {
            var made: [String: Template] = [:]
            for curve in Curve.all where curve.kind == .weierstrass {
                if let group = curve.groupName, let pointer = parametersOnly(group: group) {
                    made[curve.name] = Template(pointer: pointer)
                }
            }
            return made
        }()

        static func template(for curve: Curve) throws -> OpaquePointer {
            guard curve.kind == .weierstrass else { throw CryptoError(.unsupportedCurve, "\(curve) is not an EC curve") }
            guard let template = templates[curve.name] else {
                throw CryptoError(.unsupportedCurve, "OpenSSL does not offer \(curve)")
            }
            return template.pointer
        }

        private static func parametersOnly(group: StaticString) -> OpaquePointer? {
            guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else { return nil }
            defer { EVP_PKEY_CTX_free(context) }
            guard EVP_PKEY_fromdata_init(context) == 1 else { return nil }
            var made: OpaquePointer?
            var params = [
                OSSL_PARAM_construct_utf8_string(cString("group"), UnsafeMutablePointer(mutating: cString(group)), 0),
                OSSL_PARAM_construct_end(),
            ]
            let status = params.withUnsafeMutableBufferPointer {
                EVP_PKEY_fromdata(context, &made, mdoc_EVP_PKEY_KEY_PARAMETERS(), $0.baseAddress)
            }
            guard status == 1 else {
                _ = drainOpenSSLErrors()
                return nil
            }
            return made
        }
    }

    /// `knownCurve`: the key was built here from `expected`'s template, so its curve is not read
    /// back; `validated`: its point was validated when it was decoded (``ecParts(curve:point:)``).
    private static func finish(
        taking key: OpaquePointer, expected: Curve? = nil, knownCurve: Bool = false, validated: Bool = false
    ) throws -> Parts {
        let curve: Curve
        if knownCurve, let expected {
            curve = expected
        } else {
            do {
                curve = try curveOf(key)
            } catch {
                EVP_PKEY_free(key)
                throw error
            }
        }
        if let expected, expected != curve {
            EVP_PKEY_free(key)
            throw CryptoError(.keyMismatch, "expected a \(expected) key, got \(curve)")
        }
        guard curve.kind == .weierstrass, !validated else { return Parts(pkey: key, curve: curve, verifyTemplate: nil) }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        // Point at infinity, coordinates outside the field, point not on the curve. The n·Q = O
        // test of the full check is implied by cofactor 1 for every supported Weierstrass curve.
        guard EVP_PKEY_public_check_quick(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.invalidPoint, "\(curve) public key fails validation")
        }
        guard EVP_PKEY_verify_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_verify_init failed")
        }
        return Parts(pkey: key, curve: curve, verifyTemplate: context)
    }

    /// The supported curve of an OpenSSL key.
    static func curveOf(_ key: OpaquePointer) throws -> Curve {
        if EVP_PKEY_is_a(key, "EC") == 1 {
            var buffer = [CChar](repeating: 0, count: 80)
            var length = 0
            let ok = buffer.withUnsafeMutableBufferPointer {
                EVP_PKEY_get_utf8_string_param(key, cString("group"), $0.baseAddress, $0.count, &length) == 1
            }
            guard ok else {
                throw CryptoError.fromOpenSSL(.unsupportedCurve, "EC key without a named curve (explicit parameters)")
            }
            let name = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress ?? cString("")) }
            guard let curve = Curve.forGroupName(name) else {
                throw CryptoError(.unsupportedCurve, "EC curve \(name) is not supported")
            }
            // OpenSSL names explicit parameters after the built-in curve they resemble, even with
            // a cofactor missing or wrong; only a named curve is allowed (RFC 5480 §2.1.1).
            var encoding = [CChar](repeating: 0, count: 32)
            let explicit = encoding.withUnsafeMutableBufferPointer { text in
                guard let base = text.baseAddress else { return false }
                return EVP_PKEY_get_utf8_string_param(key, cString("encoding"), base, text.count, &length) == 1
                    && String(cString: base) == "explicit"
            }
            ERR_clear_error()
            guard !explicit else {
                throw CryptoError(.unsupportedCurve, "EC key with explicit curve parameters (only named curves are allowed)")
            }
            return curve
        }
        for curve in [Curve.ed25519, .ed448, .x25519, .x448] where EVP_PKEY_is_a(key, cString(curve.keyType)) == 1 {
            return curve
        }
        let type = EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
        throw CryptoError(.unsupportedAlgorithm, "\(type) keys are not supported")
    }

    // MARK: Accessors

    /// The affine coordinates of an EC key, each left-padded to ``Curve/coordinateByteCount``
    /// bytes (the COSE_Key EC2 `x`/`y`, RFC 9053 §7.1.1); nil for OKP keys.
    public var affineCoordinates: (x: [UInt8], y: [UInt8])? {
        guard curve.kind == .weierstrass else { return nil }
        if let point = uncompressedPoint {
            let n = curve.coordinateByteCount
            return (Array(point[1...n]), Array(point[(n + 1)...]))
        }
        guard let x = bigNumberParameter("qx"), let y = bigNumberParameter("qy") else { return nil }
        return (x, y)
    }

    /// The uncompressed SEC1 point `04‖x‖y` of an EC key; nil for OKP keys.
    public var sec1UncompressedPoint: [UInt8]? {
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
    public var rawOKP: [UInt8]? {
        guard curve.kind != .weierstrass, let pkey = try? pkey else { return nil }
        var length = 0
        guard EVP_PKEY_get_raw_public_key(pkey, nil, &length) == 1, length > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: length)
        let ok = out.withUnsafeMutableBufferPointer { EVP_PKEY_get_raw_public_key(pkey, $0.baseAddress, &length) == 1 }
        return ok && length == out.count ? out : nil
    }

    /// The DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7). EC points are encoded as OpenSSL keeps
    /// them (uncompressed unless the key was built from a compressed point).
    public var subjectPublicKeyInfoDER: [UInt8] {
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
    public func isSameKey(as other: PublicKey) -> Bool {
        guard let pkey = try? pkey, let otherKey = try? other.pkey else { return false }
        let result = EVP_PKEY_eq(pkey, otherKey)
        if result != 1 { _ = drainOpenSSLErrors() }
        return result == 1
    }

    // MARK: Verification

    /// Verifies a signature over `message`.
    ///
    /// - ECDSA (FIPS 186-4 §6.4): `signature` is raw `r‖s` as COSE uses it (RFC 9053 §2.1), each
    ///   half exactly ``Curve/coordinateByteCount`` bytes; it is converted to DER with
    ///   `ECDSA_SIG_set0` + `i2d_ECDSA_SIG`. `hash` is required; any SHA-2 function is accepted
    ///   with any curve (which pairs are allowed is COSE's decision, not this function's).
    /// - EdDSA (RFC 8032, pure, empty context): raw signature, `hash` must be nil.
    ///
    /// - Returns: false when the signature does not verify (including r or s out of range).
    /// - Throws: `.invalidSignatureEncoding` for a signature of the wrong length,
    ///   `.unsupportedAlgorithm` for a missing or superfluous `hash` or an X25519/X448 key.
    public func verify(
        signature: some Collection<UInt8>, message: some Collection<UInt8>, hash: HashFunction?
    ) throws -> Bool {
        switch curve.kind {
        case .montgomery:
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys cannot verify signatures")
        case .edwards:
            guard hash == nil else {
                throw CryptoError(.unsupportedAlgorithm, "EdDSA (\(curve)) takes no separate hash function")
            }
            let signature = Array(signature)
            guard signature.count == curve.signatureByteCount else {
                throw CryptoError(
                    .invalidSignatureEncoding,
                    "\(curve) signatures are \(curve.signatureByteCount) bytes, got \(signature.count)")
            }
            return try verifyEdDSA(signature: signature, message: message)
        case .weierstrass:
            guard let hash else { throw CryptoError(.unsupportedAlgorithm, "ECDSA needs a hash function") }
            let count = signature.count
            guard count == curve.signatureByteCount else {
                throw CryptoError(
                    .invalidSignatureEncoding,
                    "\(curve) raw ECDSA signatures are \(curve.signatureByteCount) bytes, got \(count)")
            }
            return try withNonNullBytes(signature) { signaturePointer, _ in
                try verifyECDSA(rawSignature: signaturePointer, message: message, hash: hash)
            }
        }
    }

    /// The longest DER ECDSA-Sig-Value for the supported curves (P-521: 3 + 2 × (2 + 67) = 141).
    static let maximumDERSignatureByteCount = 160

    private func verifyECDSA(
        rawSignature: UnsafePointer<UInt8>, message: some Collection<UInt8>, hash: HashFunction
    ) throws -> Bool {
        let n = curve.coordinateByteCount
        return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64) { digestBuffer in
            guard let digestBase = digestBuffer.baseAddress else { throw CryptoError(.openSSL, "no digest buffer") }
            let digestLength = withContiguousBytes(message) { pointer, count in
                hash.hash(pointer, count, into: digestBase)
            }
            guard let digestLength, digestLength == hash.outputByteCount else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_Digest failed")
            }
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maximumDERSignatureByteCount) {
                derBuffer in
                guard let derBase = derBuffer.baseAddress,
                    let derLength = Self.derSignature(
                        r: rawSignature, s: rawSignature + n, halfLength: n, into: derBase, capacity: derBuffer.count)
                else { throw CryptoError(.invalidSignatureEncoding, "\(curve) signature does not fit a DER buffer") }
                let verify = { (context: OpaquePointer) -> Int32 in
                    EVP_PKEY_verify(context, derBase, derLength, digestBase, digestLength)
                }
                let result: Int32
                if let template = verifyTemplate, let copy = EVP_PKEY_CTX_dup(template) {
                    defer { EVP_PKEY_CTX_free(copy) }
                    result = verify(copy)
                } else if builtKey == nil, let point = uncompressedPoint,
                    let scratch = try ScratchKeys.withVerificationContext(curve: curve, point: point, verify)
                {
                    result = scratch
                } else {
                    guard let fresh = EVP_PKEY_CTX_new_from_pkey(nil, try pkey, nil) else {
                        throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
                    }
                    defer { EVP_PKEY_CTX_free(fresh) }
                    guard EVP_PKEY_verify_init(fresh) == 1 else {
                        throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_verify_init failed")
                    }
                    result = verify(fresh)
                }
                switch result {
                case 1:
                    return true
                case 0:
                    ERR_clear_error()  // "bad signature" entries are not errors of ours
                    return false
                default:
                    throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_verify failed (\(result))")
                }
            }
        }
    }

    /// Writes the DER ECDSA-Sig-Value (RFC 3279 §2.2.3: `SEQUENCE { r INTEGER, s INTEGER }`) of
    /// big-endian unsigned r and s of `halfLength` bytes each and returns its length; nil when
    /// `halfLength` is not 1...66 (P-521's is 66) or the encoding does not fit `capacity`.
    ///
    /// Each INTEGER is the minimal two's-complement form X.690 §8.3.2 requires: leading zero
    /// bytes dropped (one kept for zero), a zero byte put in front when the first byte left has
    /// its top bit set. Written here rather than through two bignums, `ECDSA_SIG_set0` and
    /// `i2d_ECDSA_SIG` (~0.7 µs per verification; a test compares the two on every length).
    static func derSignature(
        r: UnsafePointer<UInt8>, s: UnsafePointer<UInt8>, halfLength: Int,
        into out: UnsafeMutablePointer<UInt8>, capacity: Int
    ) -> Int? {
        guard (1...66).contains(halfLength) else { return nil }
        // (first significant byte, whether a 00 goes in front, content length): at most 67 bytes.
        func integer(_ bytes: UnsafePointer<UInt8>) -> (start: Int, pad: Bool, length: Int) {
            var start = 0
            while start < halfLength - 1 && bytes[start] == 0 { start += 1 }
            let pad = bytes[start] & 0x80 != 0
            return (start, pad, halfLength - start + (pad ? 1 : 0))
        }
        let rInteger = integer(r)
        let sInteger = integer(s)
        let body = 2 + rInteger.length + 2 + sInteger.length  // at most 138: one length byte
        let total = (body < 0x80 ? 2 : 3) + body
        guard total <= capacity else { return nil }
        var index = 0
        out[index] = 0x30
        index += 1
        if body >= 0x80 {
            out[index] = 0x81
            index += 1
        }
        out[index] = UInt8(body)
        index += 1
        func put(_ bytes: UnsafePointer<UInt8>, _ integer: (start: Int, pad: Bool, length: Int)) {
            out[index] = 0x02
            out[index + 1] = UInt8(integer.length)
            index += 2
            if integer.pad {
                out[index] = 0
                index += 1
            }
            let count = halfLength - integer.start
            (out + index).update(from: bytes + integer.start, count: count)
            index += count
        }
        put(r, rInteger)
        put(s, sInteger)
        return index
    }

    private func verifyEdDSA(signature: [UInt8], message: some Collection<UInt8>) throws -> Bool {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit_ex(context, nil, nil, nil, nil, try pkey, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestVerifyInit_ex failed")
        }
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            withNonNullBytes(message) { messagePointer, messageCount in
                EVP_DigestVerify(
                    context, signatureBuffer.baseAddress, signatureBuffer.count, messagePointer, messageCount)
            }
        }
        switch result {
        case 1:
            return true
        case 0:
            ERR_clear_error()
            return false
        default:
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestVerify failed (\(result))")
        }
    }
}
