internal import COpenSSL
import Synchronization

/// A private key on one of the supported curves: an immutable OpenSSL `EVP_PKEY`.
///
/// The key material lives in OpenSSL's memory and is cleansed by `EVP_PKEY_free` when this
/// object goes away. Exported forms (``pkcs8PEM()``, ``rawPrivateBytes()``) are copies the caller
/// must protect.
public final class PrivateKey: @unchecked Sendable {
    // @unchecked Sendable: the OpenSSL key is built at most once, under `built`'s lock, and
    // never mutated afterwards; each signing or derivation creates its own EVP_PKEY_CTX, and
    // OpenSSL 3 keys are safe for concurrent read-only use.

    public let curve: Curve
    /// The matching public key.
    public let publicKey: PublicKey
    /// The OpenSSL key, once built.
    private let built: Mutex<KeyHandle?>

    /// An owned OpenSSL pointer (an `EVP_PKEY`, or an `EVP_PKEY_CTX` template that is only
    /// duplicated), freed in `deinit` and never mutated once made.
    private struct KeyHandle: @unchecked Sendable {
        let pointer: OpaquePointer
    }

    /// For a key made from a raw EC scalar (``init(curve:rawPrivate:)``, ``init(pem:)``): the
    /// scalar and Q = d·G, from which the OpenSSL key is built on first use. Importing an EC key
    /// pair costs ~20 µs in OpenSSL 3.0 (it rebuilds the curve's group), and a batch opens one
    /// reader key per transaction that is often only compared with EReaderKey. The scalar stays
    /// here (in ``SecureBytes``, wiped when this key goes away) after the OpenSSL key is built.
    private let pendingEC: (scalar: SecureBytes, point: [UInt8])?

    private init(taking key: OpaquePointer, curve: Curve, publicKey: PublicKey) {
        built = Mutex(KeyHandle(pointer: key))
        pendingEC = nil
        self.curve = curve
        self.publicKey = publicKey
    }

    private init(curve: Curve, scalar: SecureBytes, point: [UInt8], publicKey: PublicKey) {
        built = Mutex(nil)
        pendingEC = (scalar, point)
        self.curve = curve
        self.publicKey = publicKey
    }

    deinit {
        signContext.withLock { context in
            if let context { EVP_PKEY_CTX_free(context.pointer) }
        }
        built.withLock { key in
            if let key { EVP_PKEY_free(key.pointer) }
        }
    }

    /// A context initialised for `EVP_PKEY_sign`, made at the first ECDSA signature (a
    /// processor key signs one proof per transaction): each signature duplicates it instead of
    /// fetching the signature implementation again, which takes OpenSSL 3.0's global locks.
    private let signContext = Mutex<KeyHandle?>(nil)

    private func signTemplate() throws -> OpaquePointer {
        let key = try pkey
        return try signContext.withLock { (context: inout KeyHandle?) throws -> KeyHandle in
            if let context { return context }
            guard let made = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
            }
            guard EVP_PKEY_sign_init(made) == 1 else {
                EVP_PKEY_CTX_free(made)
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_sign_init failed")
            }
            context = KeyHandle(pointer: made)
            return KeyHandle(pointer: made)
        }.pointer
    }

    /// The OpenSSL key (owned by this object), built now if it is still pending.
    var pkey: OpaquePointer {
        get throws {
            let curve = curve
            let pendingEC = pendingEC
            return try built.withLock { (key: inout KeyHandle?) throws -> KeyHandle in
                if let key { return key }
                guard let pendingEC else { throw CryptoError(.openSSL, "private key without key material") }
                let made = KeyHandle(pointer: try Self.ecKeyPair(curve: curve, scalar: pendingEC.scalar, point: pendingEC.point))
                key = made
                return made
            }.pointer
        }
    }

    /// Takes ownership of `key` (freed if this throws), identifies its curve and derives the
    /// public key.
    private convenience init(taking key: OpaquePointer, check: Bool) throws {
        do {
            let curve = try PublicKey.curveOf(key)
            if check {
                guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
                    throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
                }
                defer { EVP_PKEY_CTX_free(context) }
                // Full check: public point valid, private scalar in range, and the two belong together.
                guard EVP_PKEY_check(context) == 1 else {
                    throw CryptoError.fromOpenSSL(.invalidKey, "\(curve) private key fails validation")
                }
            }
            if curve.kind == .weierstrass {
                // The encoded point straight from the key: no SPKI round trip through the decoders.
                var point = [UInt8](repeating: 0, count: 1 + 2 * curve.coordinateByteCount)
                var pointLength = 0
                let ok = point.withUnsafeMutableBufferPointer {
                    EVP_PKEY_get_octet_string_param(key, "pub", $0.baseAddress, $0.count, &pointLength) == 1
                }
                if ok, pointLength == point.count {
                    self.init(taking: key, curve: curve, publicKey: try PublicKey(curve: curve, sec1Point: point))
                    return
                }
                ERR_clear_error()
            }
            let length = i2d_PUBKEY(key, nil)
            guard length > 0 else { throw CryptoError.fromOpenSSL(.invalidKey, "cannot encode the public key") }
            var spki = [UInt8](repeating: 0, count: Int(length))
            let written = spki.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var cursor = buffer.baseAddress
                return i2d_PUBKEY(key, &cursor)
            }
            guard written == length else { throw CryptoError.fromOpenSSL(.openSSL, "i2d_PUBKEY failed") }
            let publicKey = try PublicKey(subjectPublicKeyInfoDER: spki)
            self.init(taking: key, curve: curve, publicKey: publicKey)
        } catch {
            EVP_PKEY_free(key)
            throw error
        }
    }

    /// A fresh key pair from OpenSSL's DRBG.
    public static func generate(curve: Curve) throws -> PrivateKey {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, cString(curve.keyType), nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_name(\(curve.keyType)) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_keygen_init failed")
        }
        if let group = curve.groupName {
            guard EVP_PKEY_CTX_set_group_name(context, cString(group)) == 1 else {
                throw CryptoError.fromOpenSSL(.unsupportedCurve, "OpenSSL does not offer \(curve)")
            }
        }
        var key: OpaquePointer?
        guard EVP_PKEY_generate(context, &key) == 1, let key else {
            throw CryptoError.fromOpenSSL(.openSSL, "\(curve) key generation failed")
        }
        return try PrivateKey(taking: key, check: false)
    }

    /// A key from PEM text: PKCS#8 `PRIVATE KEY` (RFC 5958) or SEC1 `EC PRIVATE KEY` (RFC 5915).
    /// Encrypted keys are refused (no passphrase prompt is ever shown). The first key block is used.
    /// - Throws: `.invalidPEM` when no unencrypted private key can be read, `.unsupportedCurve` /
    ///   `.unsupportedAlgorithm` for other key types, `.invalidKey` when the key fails validation.
    public convenience init(pem: [UInt8]) throws {
        // Fast path for the common case, an unencrypted PKCS#8 EC key: OpenSSL's ASN.1 parsers
        // instead of its decoder framework, which costs ~0.5 ms per key in OpenSSL 3.0 (a batch
        // opens one reader key per transaction). Anything else takes the general path below.
        if let blocks = try? PEM.blocks(in: pem, label: "PRIVATE KEY"), blocks.count == 1,
            let (curve, scalar) = Self.ecScalar(pkcs8: blocks[0])
        {
            try self.init(curve: curve, rawPrivate: scalar)
            return
        }
        let bio = try makeMemoryBIO(pem)
        defer { BIO_free(bio) }
        // Returning -1 aborts instead of prompting on the terminal for an encrypted key.
        let refusePassphrase:
            @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?)
                -> Int32 = { _, _, _, _ in -1 }
        guard let key = PEM_read_bio_PrivateKey(bio, nil, refusePassphrase, nil) else {
            throw CryptoError.fromOpenSSL(.invalidPEM, "no unencrypted private key in the PEM text")
        }
        try self.init(taking: key, check: true)
    }

    /// A key from a DER PKCS#8 PrivateKeyInfo (RFC 5958 §2). Trailing bytes are rejected.
    /// - Throws: `.invalidKey`, `.unsupportedCurve`, `.unsupportedAlgorithm`.
    public convenience init(pkcs8DER der: [UInt8]) throws {
        let key = try der.withUnsafeBufferPointer { buffer -> OpaquePointer in
            guard let base = buffer.baseAddress else { throw CryptoError(.invalidKey, "empty PKCS#8 input") }
            var cursor: UnsafePointer<UInt8>? = base
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidKey, "not a DER PKCS#8 PrivateKeyInfo")
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }  // cleanses the key octets
            guard let cursor, cursor - base == buffer.count else {
                throw CryptoError(.invalidKey, "trailing bytes after the PKCS#8 PrivateKeyInfo")
            }
            guard let key = EVP_PKCS82PKEY_ex(info, nil, nil) else {
                throw CryptoError.fromOpenSSL(.invalidKey, "PKCS#8 PrivateKeyInfo holds no usable key")
            }
            return key
        }
        try self.init(taking: key, check: true)
    }

    /// A key from its raw private value: for EC curves the scalar d, big-endian, exactly
    /// ``Curve/coordinateByteCount`` bytes (SEC1 §2.3.7; COSE_Key `d`, RFC 9053 §7.1.1), with
    /// 1 ≤ d < n; for OKP curves the RFC 8032 / RFC 7748 private key.
    /// - Throws: `.invalidLength`, `.invalidKey` (d = 0 or d ≥ n).
    public convenience init(curve: Curve, rawPrivate: [UInt8]) throws {
        guard rawPrivate.count == curve.coordinateByteCount else {
            throw CryptoError(
                .invalidLength,
                "\(curve) private keys are \(curve.coordinateByteCount) bytes, got \(rawPrivate.count)")
        }
        if curve.kind == .weierstrass {
            let point = try Self.ecPublicPoint(curve: curve, scalar: rawPrivate)
            // Q = d·G as just computed: no read-back of the point from an OpenSSL key, and no
            // import either until something needs one (comparing it with EReaderKey does not).
            let publicKey = PublicKey(curve: curve, computedPoint: point)
            self.init(curve: curve, scalar: SecureBytes(rawPrivate), point: point, publicKey: publicKey)
            return
        }
        let created = rawPrivate.withUnsafeBufferPointer {
            EVP_PKEY_new_raw_private_key_ex(nil, cString(curve.keyType), nil, $0.baseAddress, $0.count)
        }
        guard let created else { throw CryptoError.fromOpenSSL(.invalidKey, "\(curve) private key rejected") }
        try self.init(taking: created, check: false)
    }

    /// One `EC_GROUP` per curve for computing d·G, made on first use and never freed: building
    /// a group costs more than the scalar multiplication itself (Montgomery set-up, generator),
    /// and `EC_POINT_mul` only reads the group, so every thread may share it.
    enum ECGroups {
        private struct Group: @unchecked Sendable {  // read-only after creation
            let pointer: OpaquePointer
        }

        private static let groups = Mutex<[String: Group]>([:])

        static func group(for curve: Curve) throws -> OpaquePointer {
            guard let groupName = curve.groupName else {
                throw CryptoError(.unsupportedCurve, "\(curve) is not an EC curve")
            }
            return try groups.withLock { groups in
                if let group = groups[curve.name] { return group.pointer }
                let nid = OBJ_sn2nid(cString(groupName))
                guard nid != NID_undef, let group = EC_GROUP_new_by_curve_name(nid) else {
                    throw CryptoError.fromOpenSSL(.unsupportedCurve, "OpenSSL does not offer \(curve)")
                }
                groups[curve.name] = Group(pointer: group)
                return group
            }
        }
    }

    /// The curve and private scalar of an unencrypted PKCS#8 EC key (RFC 5958 with an RFC 5915
    /// ECPrivateKey), parsed with OpenSSL's ASN.1 functions; `nil` for anything else.
    static func ecScalar(pkcs8 der: [UInt8]) -> (Curve, [UInt8])? {
        der.withUnsafeBufferPointer { buffer -> (Curve, [UInt8])? in
            guard let base = buffer.baseAddress else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            guard let info = d2i_PKCS8_PRIV_KEY_INFO(nil, &cursor, buffer.count) else {
                ERR_clear_error()
                return nil
            }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            guard let end = cursor, end - base == buffer.count else { return nil }
            var algorithm: OpaquePointer?
            var inner: UnsafePointer<UInt8>?
            var innerLength: Int32 = 0
            var parameters: UnsafePointer<X509_ALGOR>?
            guard PKCS8_pkey_get0(&algorithm, &inner, &innerLength, &parameters, info) == 1,
                OBJ_obj2nid(algorithm) == NID_X9_62_id_ecPublicKey, let parameters,
                let curveObject = mdoc_algor_object_param(parameters),
                let shortName = OBJ_nid2sn(OBJ_obj2nid(curveObject)),
                let curve = Curve.forGroupName(String(cString: shortName)), innerLength > 0
            else { return nil }
            // ECPrivateKey ::= SEQUENCE { version INTEGER (1), privateKey OCTET STRING, ... }
            var innerCursor = inner
            guard let sequence = d2i_ASN1_SEQUENCE_ANY(nil, &innerCursor, Int(innerLength)) else {
                ERR_clear_error()
                return nil
            }
            defer { mdoc_sk_ASN1_TYPE_pop_free(sequence) }
            guard mdoc_sk_ASN1_TYPE_num(sequence) >= 2,
                let octets = mdoc_ASN1_TYPE_octet_string(mdoc_sk_ASN1_TYPE_value(sequence, 1)),
                let data = ASN1_STRING_get0_data(octets)
            else { return nil }
            let length = Int(ASN1_STRING_length(octets))
            guard length > 0, length <= curve.coordinateByteCount else { return nil }
            // SEC1 §C.4: the octet string is ceiling(log2(n)/8) bytes; left-pad a shorter one.
            var scalar = [UInt8](repeating: 0, count: curve.coordinateByteCount - length)
            scalar.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
            return (curve, scalar)
        }
    }

    /// Q = d·G as an uncompressed SEC1 point, after checking 1 ≤ d < n.
    private static func ecPublicPoint(curve: Curve, scalar: [UInt8]) throws -> [UInt8] {
        let group = try ECGroups.group(for: curve)
        guard let d = BN_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_secure_new failed") }
        defer { BN_clear_free(d) }
        guard scalar.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), d) }) != nil else {
            throw CryptoError.fromOpenSSL(.openSSL, "BN_bin2bn failed")
        }
        guard let order = EC_GROUP_get0_order(group), BN_is_zero(d) == 0, BN_cmp(d, order) < 0 else {
            throw CryptoError(.invalidKey, "\(curve) private scalar is not in [1, n-1]")
        }
        guard let point = EC_POINT_new(group) else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_new failed") }
        defer { EC_POINT_clear_free(point) }
        guard EC_POINT_mul(group, point, d, nil, nil, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_mul failed")
        }
        let pointLength = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, nil, 0, nil)
        guard pointLength == 1 + 2 * curve.coordinateByteCount else {
            throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_point2oct failed")
        }
        var encodedPoint = [UInt8](repeating: 0, count: pointLength)
        let written = encodedPoint.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, nil)
        }
        guard written == pointLength else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_point2oct failed") }
        return encodedPoint
    }

    /// Builds the OpenSSL key pair from d and Q (computed by ``ecPublicPoint(curve:scalar:)``,
    /// because `EVP_PKEY_fromdata` with only the private scalar leaves the public key empty in
    /// OpenSSL 3.0).
    private static func ecKeyPair(curve: Curve, scalar: SecureBytes, point: [UInt8]) throws -> OpaquePointer {
        guard let groupName = curve.groupName else {
            throw CryptoError(.unsupportedCurve, "\(curve) is not an EC curve")
        }
        guard let d = BN_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_secure_new failed") }
        defer { BN_clear_free(d) }
        guard scalar.withNonNullPointer({ BN_bin2bn($0, Int32($1), d) }) != nil else {
            throw CryptoError.fromOpenSSL(.openSSL, "BN_bin2bn failed")
        }
        var encodedPoint = point
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_name(EC) failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_fromdata_init(context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_fromdata_init failed")
        }
        // OSSL_PARAM integers are native-endian; the buffer is wiped when released.
        let native = try SecureBytes(count: curve.coordinateByteCount) { buffer in
            guard
                BN_bn2nativepad(d, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
                    == Int32(buffer.count)
            else { throw CryptoError.fromOpenSSL(.openSSL, "BN_bn2nativepad failed") }
        }
        var key: OpaquePointer?
        let status = native.withNonNullPointer { scalarPointer, scalarCount in
            encodedPoint.withUnsafeMutableBytes { pointBuffer -> Int32 in
                var params = [
                    OSSL_PARAM_construct_utf8_string(
                        cString("group"), UnsafeMutablePointer(mutating: cString(groupName)), 0),
                    OSSL_PARAM_construct_octet_string(cString("pub"), pointBuffer.baseAddress, pointBuffer.count),
                    OSSL_PARAM_construct_BN(
                        cString("priv"), UnsafeMutablePointer(mutating: scalarPointer), scalarCount),
                    OSSL_PARAM_construct_end(),
                ]
                return params.withUnsafeMutableBufferPointer {
                    EVP_PKEY_fromdata(context, &key, mdoc_EVP_PKEY_KEYPAIR(), $0.baseAddress)
                }
            }
        }
        guard status == 1, let key else { throw CryptoError.fromOpenSSL(.invalidKey, "\(curve) private key rejected") }
        return key
    }

    // MARK: Operations

    /// Signs `message`.
    ///
    /// - ECDSA: hashes with `hash` (required) and returns raw `r‖s`, each half left-padded to
    ///   ``Curve/coordinateByteCount`` bytes (RFC 9053 §2.1). Signatures are randomised.
    /// - EdDSA (RFC 8032, pure): `hash` must be nil; returns the raw signature.
    /// - Throws: `.unsupportedAlgorithm` for a missing/superfluous hash or an X25519/X448 key.
    public func sign(message: some Collection<UInt8>, hash: HashFunction?) throws -> [UInt8] {
        switch curve.kind {
        case .montgomery:
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys cannot sign")
        case .edwards:
            guard hash == nil else {
                throw CryptoError(.unsupportedAlgorithm, "EdDSA (\(curve)) takes no separate hash function")
            }
            return try signEdDSA(message: message)
        case .weierstrass:
            guard let hash else { throw CryptoError(.unsupportedAlgorithm, "ECDSA needs a hash function") }
            return try signECDSA(message: message, hash: hash)
        }
    }

    private func signECDSA(message: some Collection<UInt8>, hash: HashFunction) throws -> [UInt8] {
        let digest = hash.hash(message)
        guard let context = EVP_PKEY_CTX_dup(try signTemplate()) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_dup failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var length = 0
        guard EVP_PKEY_sign(context, nil, &length, digest, digest.count) == 1, length > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_sign (size) failed")
        }
        var der = [UInt8](repeating: 0, count: length)
        guard
            der.withUnsafeMutableBufferPointer({ EVP_PKEY_sign(context, $0.baseAddress, &length, digest, digest.count) }
            ) == 1,
            length <= der.count
        else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_sign failed") }
        return try Self.rawSignature(der: Array(der.prefix(length)), halfLength: curve.coordinateByteCount)
    }

    /// Converts a DER ECDSA-Sig-Value to raw `r‖s` with each half `halfLength` bytes.
    static func rawSignature(der: [UInt8], halfLength: Int) throws -> [UInt8] {
        let signature = try der.withUnsafeBufferPointer { buffer -> OpaquePointer in
            var cursor = buffer.baseAddress
            guard let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidSignatureEncoding, "not a DER ECDSA signature")
            }
            return signature
        }
        defer { ECDSA_SIG_free(signature) }
        guard let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else {
            throw CryptoError(.invalidSignatureEncoding, "ECDSA signature without r or s")
        }
        var out = [UInt8](repeating: 0, count: 2 * halfLength)
        let ok = out.withUnsafeMutableBufferPointer { buffer -> Bool in
            guard let base = buffer.baseAddress else { return false }
            return BN_bn2binpad(r, base, Int32(halfLength)) == Int32(halfLength)
                && BN_bn2binpad(s, base + halfLength, Int32(halfLength)) == Int32(halfLength)
        }
        guard ok else {
            throw CryptoError.fromOpenSSL(.invalidSignatureEncoding, "r or s longer than \(halfLength) bytes")
        }
        return out
    }

    private func signEdDSA(message: some Collection<UInt8>) throws -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit_ex(context, nil, nil, nil, nil, try pkey, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestSignInit_ex failed")
        }
        return try withNonNullBytes(message) { messagePointer, messageCount in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, messagePointer, messageCount) == 1, length > 0 else {
                throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestSign (size) failed")
            }
            var out = [UInt8](repeating: 0, count: length)
            let ok = out.withUnsafeMutableBufferPointer {
                EVP_DigestSign(context, $0.baseAddress, &length, messagePointer, messageCount)
            }
            guard ok == 1, length <= out.count else { throw CryptoError.fromOpenSSL(.openSSL, "EVP_DigestSign failed") }
            return Array(out.prefix(length))
        }
    }

    /// The key-agreement shared secret with `peer`.
    ///
    /// - EC curves: ECDH (SEC1 §3.3.1), the x-coordinate of d·Q, left-padded to the field size;
    ///   this is ISO 18013-5 §9.1.1.4 Zab.
    /// - X25519/X448 (RFC 7748 §6); an all-zero result (small-order peer) is refused.
    /// The peer was validated when its ``PublicKey`` was built (on the curve, coordinates in
    /// range, not the point at infinity; cofactor 1 makes that a full SEC1 §3.2.2.1 validation),
    /// so OpenSSL is not asked to validate it again: its `EVP_PKEY_public_check` adds an n·Q
    /// scalar multiplication that would double the cost of the agreement.
    /// - Throws: `.keyMismatch` when the peer is on another curve, `.unsupportedAlgorithm` for
    ///   Ed25519/Ed448 keys, `.invalidKey` when OpenSSL refuses the peer or the result.
    public func sharedSecret(with peer: PublicKey) throws -> SecureBytes {
        guard curve == peer.curve else {
            throw CryptoError(.keyMismatch, "cannot agree a key between \(curve) and \(peer.curve)")
        }
        guard curve.kind != .edwards else {
            throw CryptoError(.unsupportedAlgorithm, "\(curve) keys cannot do key agreement")
        }
        if let pendingEC, let peerPoint = peer.uncompressedPoint ?? peer.sec1UncompressedPoint {
            return try Self.ecdh(curve: curve, scalar: pendingEC.scalar, peerPoint: peerPoint)
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, try pkey, nil) else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_CTX_new_from_pkey failed")
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_derive_init failed")
        }
        guard EVP_PKEY_derive_set_peer_ex(context, try peer.pkey, 0) == 1 else {
            throw CryptoError.fromOpenSSL(.invalidKey, "peer key refused for key agreement")
        }
        var length = 0
        guard EVP_PKEY_derive(context, nil, &length) == 1, length > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EVP_PKEY_derive (size) failed")
        }
        let expected = length
        return try SecureBytes(count: expected) { buffer in
            guard EVP_PKEY_derive(context, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &length) == 1,
                length == expected
            else { throw CryptoError.fromOpenSSL(.invalidKey, "key agreement failed") }
        }
    }

    /// ECDH for a key kept as its scalar (a reader key read from PKCS#8, one per transaction):
    /// the x-coordinate of d·Q computed on the curve's shared `EC_GROUP`, as OpenSSL's own ECDH
    /// does it (`ossl_ecdh_simple_compute_key`: `EC_POINT_mul` with the scalar marked
    /// constant-time, then the affine x), without building an OpenSSL key pair for the scalar
    /// (~20 µs in OpenSSL 3.0) only to use it once. `EC_POINT_oct2point` refuses a point that is
    /// not on the curve.
    private static func ecdh(curve: Curve, scalar: SecureBytes, peerPoint: [UInt8]) throws -> SecureBytes {
        let group = try ECGroups.group(for: curve)
        guard let context = BN_CTX_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_CTX_secure_new failed") }
        defer { BN_CTX_free(context) }
        guard let peer = EC_POINT_new(group) else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_new failed") }
        defer { EC_POINT_free(peer) }
        let decoded = peerPoint.withUnsafeBufferPointer { EC_POINT_oct2point(group, peer, $0.baseAddress, $0.count, context) }
        guard decoded == 1, EC_POINT_is_at_infinity(group, peer) == 0 else {
            throw CryptoError.fromOpenSSL(.invalidKey, "peer key refused for key agreement")
        }
        guard let d = BN_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_secure_new failed") }
        defer { BN_clear_free(d) }
        BN_set_flags(d, BN_FLG_CONSTTIME)
        guard scalar.withNonNullPointer({ BN_bin2bn($0, Int32($1), d) }) != nil else {
            throw CryptoError.fromOpenSSL(.openSSL, "BN_bin2bn failed")
        }
        guard let product = EC_POINT_new(group) else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_new failed") }
        defer { EC_POINT_clear_free(product) }
        guard EC_POINT_mul(group, product, nil, peer, d, context) == 1 else {
            throw CryptoError.fromOpenSSL(.invalidKey, "key agreement failed")
        }
        guard EC_POINT_is_at_infinity(group, product) == 0 else {
            throw CryptoError(.invalidKey, "key agreement gave the point at infinity")
        }
        guard let x = BN_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_secure_new failed") }
        defer { BN_clear_free(x) }
        guard EC_POINT_get_affine_coordinates(group, product, x, nil, context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_get_affine_coordinates failed")
        }
        return try SecureBytes(count: curve.coordinateByteCount) { buffer in
            guard BN_bn2binpad(x, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == Int32(buffer.count)
            else { throw CryptoError.fromOpenSSL(.openSSL, "BN_bn2binpad failed") }
        }
    }

    /// The key as PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`, RFC 5958, RFC 7468 §10), unencrypted.
    /// The returned string holds the secret and cannot be wiped; keep it out of logs.
    public func pkcs8PEM() throws -> String {
        let bio = try makeMemoryBIO([])
        defer { BIO_free(bio) }  // a memory BIO clears its buffer when freed
        guard PEM_write_bio_PrivateKey(bio, try pkey, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "PEM_write_bio_PrivateKey failed")
        }
        var bytes = memoryBIOContents(bio)
        defer { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The raw private value: EC scalar d left-padded to ``Curve/coordinateByteCount`` bytes, or
    /// the OKP raw private key (the inverse of ``init(curve:rawPrivate:)``).
    public func rawPrivateBytes() throws -> SecureBytes {
        if curve.kind == .weierstrass {
            var number: OpaquePointer?
            guard EVP_PKEY_get_bn_param(try pkey, cString("priv"), &number) == 1, let number else {
                throw CryptoError.fromOpenSSL(.openSSL, "cannot read the private scalar")
            }
            defer { BN_clear_free(number) }
            return try SecureBytes(count: curve.coordinateByteCount) { buffer in
                guard
                    BN_bn2binpad(number, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(buffer.count))
                        == Int32(buffer.count)
                else { throw CryptoError.fromOpenSSL(.openSSL, "BN_bn2binpad failed") }
            }
        }
        let pkey = try pkey
        var length = 0
        guard EVP_PKEY_get_raw_private_key(pkey, nil, &length) == 1, length > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "cannot read the raw private key")
        }
        let expected = length
        return try SecureBytes(count: expected) { buffer in
            guard
                EVP_PKEY_get_raw_private_key(pkey, buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), &length)
                    == 1,
                length == expected
            else { throw CryptoError.fromOpenSSL(.openSSL, "cannot read the raw private key") }
        }
    }
}
