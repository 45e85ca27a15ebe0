internal import COpenSSL

// Building and validating public keys: SEC1 point checks, the per-thread scratch keys, the
// per-curve parameter templates, and identifying the curve of an OpenSSL key.
extension PublicKey {
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

    /// One EC key per curve and thread (an `EC_KEY` and a `BN_CTX`, through the C shim), whose
    /// point is replaced (`EC_KEY_oct2key`, the decoding `EVP_PKEY_set1_encoded_public_key`
    /// runs) to validate and to verify with a key that has no OpenSSL key of its own:
    /// `ECDSA_do_verify` takes r and s as numbers, where `EVP_PKEY_verify` would want a context
    /// initialised for the key and a DER signature that it parses and encodes again.
    ///
    /// The slot remembers the point it holds, so a key made and then verified on the same
    /// thread (a device key: made from the MSO, then verifying the device signature) decodes
    /// its point once. The point is forgotten before each load: a load that fails may leave
    /// the key holding part of the refused point, and the next use then loads again. Only its
    /// own thread uses a slot; freed when the thread exits.
    enum ScratchKeys {
        final class Slot {
            let curve: Curve
            /// `EC_KEY`.
            let key: OpaquePointer
            /// `BN_CTX` for the decoding.
            let numbers: OpaquePointer
            /// The uncompressed point `key` holds; nil when unknown.
            var loaded: [UInt8]?

            init(curve: Curve, key: OpaquePointer, numbers: OpaquePointer) {
                self.curve = curve
                self.key = key
                self.numbers = numbers
            }

            deinit {
                BN_CTX_free(numbers)
                mdoc_ec_key_free(key)
            }
        }

        /// This thread's slot for `curve`, made on first use; nil when the thread cannot have one.
        private static func slot(for curve: Curve) throws -> Slot? {
            guard let scratch = ThreadScratch.current() else { return nil }
            if let slot = scratch.keys.first(where: { $0.curve == curve }) { return slot }
            guard curve.kind == .weierstrass, let group = curve.groupName else {
                throw CryptoError(.unsupportedCurve, "\(curve) is not an EC curve")
            }
            guard let key = mdoc_ec_key_new(cString(group)) else {
                throw CryptoError.fromOpenSSL(.unsupportedCurve, "OpenSSL does not offer \(curve)")
            }
            guard let numbers = BN_CTX_new() else {
                mdoc_ec_key_free(key)
                throw CryptoError.fromOpenSSL(.openSSL, "BN_CTX_new failed")
            }
            let slot = Slot(curve: curve, key: key, numbers: numbers)
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
                return mdoc_ec_key_set_point(slot.key, base, buffer.count, slot.numbers) == 1
            }
            guard accepted else { throw CryptoError.fromOpenSSL(.invalidPoint, "not a valid point on \(slot.curve)") }
            slot.loaded = point
        }

        /// Validates an uncompressed point by loading it into this thread's key for `curve`
        /// (`EC_KEY_oct2key` decodes it with `EC_POINT_oct2point`, which refuses a coordinate
        /// outside the field and a point off the curve). False when the thread has no slot (the
        /// caller validates otherwise). Decoded even when the slot holds the same point
        /// already: every new key pays its own decoding, as in a batch of different keys, and a
        /// benchmark repeating one key measures what such a batch costs.
        /// - Throws: `.invalidPoint`.
        static func validate(curve: Curve, point: [UInt8]) throws -> Bool {
            guard let slot = try slot(for: curve) else { return false }
            try load(point, into: slot, always: true)
            return true
        }

        /// ECDSA verification with this thread's key for `curve` holding `point`, of raw r‖s
        /// (`rawSignature`, ``Curve/coordinateByteCount`` bytes each) over `digest`: 1 valid,
        /// 0 invalid, below 0 an error (as `EVP_PKEY_verify`); nil when the thread has no slot.
        static func verify(
            curve: Curve, point: [UInt8], rawSignature: UnsafePointer<UInt8>,
            digest: UnsafePointer<UInt8>, digestLength: Int
        ) throws -> Int32? {
            guard let slot = try slot(for: curve) else { return nil }
            try load(point, into: slot, always: false)
            let n = Int32(curve.coordinateByteCount)
            return mdoc_ecdsa_verify_raw(
                slot.key, digest, Int32(digestLength), rawSignature, rawSignature + Int(n), n)
        }
    }

    /// Imports an EC point into a copy of the curve's parameter template
    /// (``ECParameterTemplates``): `EVP_PKEY_set1_encoded_public_key` decodes the point and
    /// refuses one that is not on the curve or has a coordinate outside the field, and
    /// ``finish(taking:expected:knownCurve:)`` refuses the point at infinity.
    ///
    /// Not `EVP_PKEY_fromdata`: in OpenSSL 3.0 it builds the curve's `EC_GROUP` from scratch
    /// (constants, Montgomery set-up, generator) on every import, which costs more than copying
    /// it from a template, and a batch imports one to three EC keys per transaction.
    ///
    /// No `EVP_PKEY_public_check_quick` afterwards: the decoding already refused every point it
    /// would refuse (off the curve, coordinates out of range), the point at infinity is refused
    /// above, and the context it needs is not made either: these keys verify on an `EC_KEY`
    /// (``verify(signature:message:hash:)``), never through an EVP context.
    static func ecParts(curve: Curve, point: [UInt8]) throws -> Parts {
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
    static func finish(
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
        guard curve.kind == .weierstrass, !validated else { return Parts(pkey: key, curve: curve) }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        // Point at infinity, coordinates outside the field, point not on the curve. The n·Q = O
        // test of the full check is implied by cofactor 1 for every supported Weierstrass curve.
        let checked = EVP_PKEY_public_check_quick(context) == 1
        EVP_PKEY_CTX_free(context)
        guard checked else {
            EVP_PKEY_free(key)
            throw CryptoError.fromOpenSSL(.invalidPoint, "\(curve) public key fails validation")
        }
        return Parts(pkey: key, curve: curve)
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
}
