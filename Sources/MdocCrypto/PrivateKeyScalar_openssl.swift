internal import COpenSSL
import NIOConcurrencyHelpers

// EC private keys kept as their scalar: the shared curve groups, the PKCS#8 fast path, d·G,
// the OpenSSL key pair built on first use, and ECDH computed on the scalar.
extension PrivateKey {
    /// One `EC_GROUP` per curve for computing d·G, with its order n as big-endian bytes, made
    /// for every EC curve at first use and never freed: building a group costs more than the
    /// scalar multiplication itself (Montgomery set-up, generator), and `EC_POINT_mul` only
    /// reads the group, so every thread may share it without a lock.
    enum ECGroups {
        struct Group: @unchecked Sendable {  // read-only after creation
            let pointer: OpaquePointer
            /// n, ``Curve/coordinateByteCount`` bytes, big-endian.
            let order: [UInt8]
        }

        private static let groups: [String: Group] = {
            var groups: [String: Group] = [:]
            for curve in Curve.all where curve.kind == .weierstrass {
                guard let groupName = curve.groupName else { continue }
                let nid = OBJ_sn2nid(cString(groupName))
                guard nid != NID_undef, let group = EC_GROUP_new_by_curve_name(nid) else {
                    ERR_clear_error()
                    continue
                }
                var order = [UInt8](repeating: 0, count: curve.coordinateByteCount)
                guard let n = EC_GROUP_get0_order(group),
                    BN_bn2binpad(n, &order, Int32(order.count)) == Int32(order.count)
                else {
                    EC_GROUP_free(group)
                    ERR_clear_error()
                    continue
                }
                groups[curve.name] = Group(pointer: group, order: order)
            }
            return groups
        }()

        static func entry(for curve: Curve) throws -> Group {
            guard curve.groupName != nil else {
                throw CryptoError(.unsupportedCurve, "\(curve) is not an EC curve")
            }
            guard let group = groups[curve.name] else {
                throw CryptoError(.unsupportedCurve, "OpenSSL does not offer \(curve)")
            }
            return group
        }

        static func group(for curve: Curve) throws -> OpaquePointer { try entry(for: curve).pointer }
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

    /// d as a BIGNUM (to be freed with `BN_clear_free`), for a scalar whose range was checked
    /// when its key was made.
    private static func scalarNumber(bytes: UnsafePointer<UInt8>, count: Int) throws -> OpaquePointer {
        guard let d = BN_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_secure_new failed") }
        guard BN_bin2bn(bytes, Int32(count), d) != nil else {
            BN_clear_free(d)
            throw CryptoError.fromOpenSSL(.openSSL, "BN_bin2bn failed")
        }
        return d
    }

    /// Checks 1 ≤ d < n for a raw EC scalar of ``Curve/coordinateByteCount`` bytes: big-endian
    /// numbers of the same length compare as their bytes do.
    static func checkScalarRange(curve: Curve, scalar: [UInt8]) throws {
        let order = try ECGroups.entry(for: curve).order
        guard scalar.count == order.count, scalar.contains(where: { $0 != 0 }),
            scalar.lexicographicallyPrecedes(order)
        else { throw CryptoError(.invalidKey, "\(curve) private scalar is not in [1, n-1]") }
    }

    /// d·G on the curve's shared group, in whatever coordinates OpenSSL leaves it (freed by `body`'s caller).
    /// One fixed-base multiplication: OpenSSL's P-256 code takes G's multiples from its
    /// precomputed table. The scalar's range was checked when the key was made.
    private static func withProduct<R>(
        curve: Curve, scalar: SecureBytes, _ body: (_ group: OpaquePointer, _ product: OpaquePointer, _ context: OpaquePointer) throws -> R
    ) throws -> R {
        let group = try ECGroups.group(for: curve)
        let d = try scalar.withNonNullPointer {
            try scalarNumber(bytes: $0, count: $1)
        }
        defer { BN_clear_free(d) }
        BN_set_flags(d, BN_FLG_CONSTTIME)
        guard let context = BN_CTX_secure_new() else { throw CryptoError.fromOpenSSL(.openSSL, "BN_CTX_secure_new failed") }
        defer { BN_CTX_free(context) }
        guard let product = EC_POINT_new(group) else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_new failed") }
        defer { EC_POINT_clear_free(product) }
        guard EC_POINT_mul(group, product, d, nil, nil, context) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_mul failed")
        }
        return try body(group, product, context)
    }

    /// Q = d·G as an uncompressed SEC1 point.
    static func ecPublicPoint(curve: Curve, scalar: SecureBytes) throws -> [UInt8] {
        try withProduct(curve: curve, scalar: scalar) { group, point, context in
            let pointLength = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, nil, 0, context)
            guard pointLength == 1 + 2 * curve.coordinateByteCount else {
                throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_point2oct failed")
            }
            var encodedPoint = [UInt8](repeating: 0, count: pointLength)
            let written = encodedPoint.withUnsafeMutableBufferPointer {
                EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, context)
            }
            guard written == pointLength else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_point2oct failed") }
            return encodedPoint
        }
    }

    /// Whether the uncompressed SEC1 point `encoded` is d·G. `EC_POINT_cmp` compares d·G as
    /// computed (projective) with the affine point, so no field inversion is spent on turning
    /// d·G into bytes. A point that does not decode (not on the curve) is not d·G.
    static func ecProductEquals(curve: Curve, scalar: SecureBytes, encoded: [UInt8]) throws -> Bool {
        try withProduct(curve: curve, scalar: scalar) { group, product, context in
            guard let point = EC_POINT_new(group) else { throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_new failed") }
            defer { EC_POINT_free(point) }
            let decoded = encoded.withUnsafeBufferPointer { EC_POINT_oct2point(group, point, $0.baseAddress, $0.count, context) }
            guard decoded == 1 else {
                ERR_clear_error()
                return false
            }
            switch EC_POINT_cmp(group, product, point, context) {
            case 0: return true
            case 1: return false
            default: throw CryptoError.fromOpenSSL(.openSSL, "EC_POINT_cmp failed")
            }
        }
    }

    /// Builds the OpenSSL key pair from d and Q (computed by ``ecPublicPoint(curve:scalar:)``,
    /// because `EVP_PKEY_fromdata` with only the private scalar leaves the public key empty in
    /// OpenSSL 3.0).
    static func ecKeyPair(curve: Curve, scalar: SecureBytes, point: [UInt8]) throws -> OpaquePointer {
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

    /// ECDH for a key kept as its scalar (a reader key read from PKCS#8, one per transaction):
    /// the x-coordinate of d·Q computed on the curve's shared `EC_GROUP`, as OpenSSL's own ECDH
    /// does it (`ossl_ecdh_simple_compute_key`: `EC_POINT_mul` with the scalar marked
    /// constant-time, then the affine x), without building an OpenSSL key pair for the scalar
    /// only to use it once. `EC_POINT_oct2point` refuses a point that is not on the curve.
    static func ecdh(curve: Curve, scalar: SecureBytes, peerPoint: [UInt8]) throws -> SecureBytes {
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
}
