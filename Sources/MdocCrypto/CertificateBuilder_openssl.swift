internal import COpenSSL
import Foundation

/// Issues X.509 v3 certificates (RFC 5280): the test PKI, the sample issuing authority
/// (IACA → DS, ISO 18013-5 Annex B) and the processor's self-signed proof key.
///
/// It encodes what it is told; it does not enforce any profile (Annex B validity limits,
/// mandatory extensions), so it can also make the non-conforming certificates negative tests need.
package struct CertificateBuilder {
    /// Subject attributes in order, as (short name or dotted OID, UTF-8 value):
    /// `[("C", "US"), ("O", "Example"), ("CN", "Example IACA")]`. countryName is encoded as
    /// PrintableString, the others as UTF8String (OpenSSL's string table).
    package var subject: [(String, String)]
    /// The serial number, big-endian, 1...20 bytes (RFC 5280 §4.1.2.2); read as a positive integer.
    package var serialNumber: [UInt8]
    package var notBefore: Date
    package var notAfter: Date
    package var publicKey: PublicKey
    /// basicConstraints; `pathLength` nil omits pathLenConstraint.
    package var basicConstraints: (isCA: Bool, pathLength: Int?, critical: Bool)?
    package var keyUsage: (KeyUsage, critical: Bool)?
    /// Purposes as dotted OIDs, e.g. ["1.0.18013.5.1.2"] (mdlDS).
    package var extendedKeyUsage: ([String], critical: Bool)?
    /// Adds subjectKeyIdentifier = SHA-1 of the subjectPublicKey bits (RFC 5280 §4.2.1.2 method 1).
    package var subjectKeyIdentifier: Bool = true
    /// Adds authorityKeyIdentifier with the issuer's subjectKeyIdentifier (its SHA-1 key hash
    /// when the issuer has none; for a self-signed certificate, the subject's own).
    package var authorityKeyIdentifier: Bool = true
    /// A URI issuerAltName (non-critical).
    package var issuerAlternativeNameURI: String?
    /// One distribution point with a URI fullName (non-critical).
    package var crlDistributionPointURI: String?
    /// Extra extensions, added last: (dotted OID, criticality, DER of the extnValue contents).
    package var customExtensions: [(oid: String, critical: Bool, derValue: [UInt8])] = []

    /// The longest serial number RFC 5280 §4.1.2.2 allows.
    package static let maximumSerialNumberByteCount = 20

    package init(
        subject: [(String, String)], serialNumber: [UInt8], notBefore: Date, notAfter: Date, publicKey: PublicKey
    ) {
        self.subject = subject
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.publicKey = publicKey
    }

    /// Signs the certificate with `issuerKey`: ECDSA with `hash` (required) or EdDSA (`hash` nil).
    /// `issuer` nil makes a self-signed certificate (issuer name = subject name).
    /// - Throws: `.keyMismatch` when `issuerKey` is not the issuer's (or, self-signed, the
    ///   subject's) key; `.unsupportedAlgorithm` for a wrong hash choice or an X25519/X448 signer;
    ///   `.invalidLength` for a bad serial number or a time outside years 1–9999;
    ///   `.invalidCertificate` for a subject attribute or OID OpenSSL refuses.
    package func sign(issuer: Certificate?, issuerKey: PrivateKey, hash: HashFunction?) throws -> Certificate {
        let md = try signatureDigest(for: issuerKey, hash: hash)
        let expectedSigner = issuer?.publicKey ?? publicKey
        guard expectedSigner.isSameKey(as: issuerKey.publicKey) else {
            throw CryptoError(
                .keyMismatch,
                issuer == nil
                    ? "a self-signed certificate must be signed with its own key" : "issuerKey is not the issuer's key")
        }
        guard (1...Self.maximumSerialNumberByteCount).contains(serialNumber.count) else {
            throw CryptoError(.invalidLength, "serial numbers are 1...20 bytes, got \(serialNumber.count)")
        }

        guard let x509 = X509_new() else { throw CryptoError.fromOpenSSL(.openSSL, "X509_new failed") }
        defer { X509_free(x509) }
        guard X509_set_version(x509, 2) == 1 else { throw CryptoError.fromOpenSSL(.openSSL, "X509_set_version failed") }
        let serial = try makeASN1Integer(serialNumber)
        defer { ASN1_INTEGER_free(serial) }
        guard X509_set_serialNumber(x509, serial) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "X509_set_serialNumber failed")
        }
        let start = try makeASN1Time(notBefore)
        defer { ASN1_TIME_free(start) }
        let end = try makeASN1Time(notAfter)
        defer { ASN1_TIME_free(end) }
        guard X509_set1_notBefore(x509, start) == 1, X509_set1_notAfter(x509, end) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "setting the validity failed")
        }
        let name = try makeName(subject)
        defer { X509_NAME_free(name) }
        guard X509_set_subject_name(x509, name) == 1,
            X509_set_issuer_name(x509, issuer.map { X509_get_subject_name($0.x509) } ?? name) == 1
        else { throw CryptoError.fromOpenSSL(.openSSL, "setting the names failed") }
        guard X509_set_pubkey(x509, try publicKey.pkey) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "X509_set_pubkey failed")
        }

        try addExtensions(to: x509, issuer: issuer)

        guard X509_sign(x509, try issuerKey.pkey, md) > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "X509_sign failed")
        }
        return try Certificate(der: encode(x509))
    }

    // MARK: Extensions

    private func addExtensions(to x509: OpaquePointer, issuer: Certificate?) throws {
        if let basicConstraints {
            guard let value = BASIC_CONSTRAINTS_new() else {
                throw CryptoError.fromOpenSSL(.openSSL, "BASIC_CONSTRAINTS_new failed")
            }
            defer { BASIC_CONSTRAINTS_free(value) }
            value.pointee.ca = basicConstraints.isCA ? 0xff : 0
            if let pathLength = basicConstraints.pathLength {
                guard pathLength >= 0, let integer = ASN1_INTEGER_new() else {
                    throw CryptoError(.invalidCertificate, "pathLenConstraint must be non-negative")
                }
                value.pointee.pathlen = integer  // freed with `value`
                guard ASN1_INTEGER_set(integer, pathLength) == 1 else {
                    throw CryptoError.fromOpenSSL(.openSSL, "ASN1_INTEGER_set failed")
                }
            }
            try add(x509, NID_basic_constraints, UnsafeMutableRawPointer(value), critical: basicConstraints.critical)
        }
        if let (usage, critical) = keyUsage {
            guard let bits = ASN1_BIT_STRING_new() else {
                throw CryptoError.fromOpenSSL(.openSSL, "ASN1_BIT_STRING_new failed")
            }
            defer { ASN1_BIT_STRING_free(bits) }
            for (position, (bit, _)) in KeyUsage.named.enumerated() where usage.contains(bit) {
                guard ASN1_BIT_STRING_set_bit(bits, Int32(position), 1) == 1 else {
                    throw CryptoError.fromOpenSSL(.openSSL, "ASN1_BIT_STRING_set_bit failed")
                }
            }
            try add(x509, NID_key_usage, UnsafeMutableRawPointer(bits), critical: critical)
        }
        if let (purposes, critical) = extendedKeyUsage {
            guard let stack = OPENSSL_sk_new_null() else {
                throw CryptoError.fromOpenSSL(.openSSL, "OPENSSL_sk_new_null failed")
            }
            defer { EXTENDED_KEY_USAGE_free(stack) }  // frees the objects too
            for oid in purposes {
                let object = try makeObject(oid)
                guard OPENSSL_sk_push(stack, UnsafeRawPointer(object)) > 0 else {
                    ASN1_OBJECT_free(object)
                    throw CryptoError.fromOpenSSL(.openSSL, "OPENSSL_sk_push failed")
                }
            }
            try add(x509, NID_ext_key_usage, UnsafeMutableRawPointer(stack), critical: critical)
        }
        if subjectKeyIdentifier {
            let identifier = try keyHash(x509)
            let octets = try makeOctetString(identifier)
            defer { ASN1_OCTET_STRING_free(octets) }
            try add(x509, NID_subject_key_identifier, UnsafeMutableRawPointer(octets), critical: false)
        }
        if authorityKeyIdentifier {
            let identifier: [UInt8]
            if let issuer {
                identifier = try issuer.subjectKeyIdentifier ?? keyHash(issuer.x509)
            } else {
                identifier = try keyHash(x509)
            }
            guard let value = AUTHORITY_KEYID_new() else {
                throw CryptoError.fromOpenSSL(.openSSL, "AUTHORITY_KEYID_new failed")
            }
            defer { AUTHORITY_KEYID_free(value) }
            value.pointee.keyid = try makeOctetString(identifier)  // freed with `value`
            try add(x509, NID_authority_key_identifier, UnsafeMutableRawPointer(value), critical: false)
        }
        if let uri = issuerAlternativeNameURI {
            let names = try makeURINames(uri)
            defer { GENERAL_NAMES_free(names) }
            try add(x509, NID_issuer_alt_name, UnsafeMutableRawPointer(names), critical: false)
        }
        if let uri = crlDistributionPointURI {
            let points = try makeDistributionPoints(uri)
            defer { CRL_DIST_POINTS_free(points) }
            try add(x509, NID_crl_distribution_points, UnsafeMutableRawPointer(points), critical: false)
        }
        for custom in customExtensions {
            let object = try makeObject(custom.oid)
            defer { ASN1_OBJECT_free(object) }
            let octets = try makeOctetString(custom.derValue)
            defer { ASN1_OCTET_STRING_free(octets) }
            guard let ext = X509_EXTENSION_create_by_OBJ(nil, object, custom.critical ? 1 : 0, octets) else {
                throw CryptoError.fromOpenSSL(.openSSL, "X509_EXTENSION_create_by_OBJ failed")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(x509, ext, -1) == 1 else {
                throw CryptoError.fromOpenSSL(.openSSL, "X509_add_ext failed")
            }
        }
    }

    private func add(_ x509: OpaquePointer, _ nid: Int32, _ value: UnsafeMutableRawPointer, critical: Bool) throws {
        guard X509_add1_ext_i2d(x509, nid, value, critical ? 1 : 0, UInt(X509V3_ADD_DEFAULT)) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "adding extension \(String(cString: OBJ_nid2ln(nid))) failed")
        }
    }

    private func makeName(_ attributes: [(String, String)]) throws -> OpaquePointer {
        guard let name = X509_NAME_new() else { throw CryptoError.fromOpenSSL(.openSSL, "X509_NAME_new failed") }
        for (field, value) in attributes {
            let bytes = Array(value.utf8)
            let ok = bytes.withUnsafeBufferPointer {
                X509_NAME_add_entry_by_txt(name, field, mdoc_MBSTRING_UTF8(), $0.baseAddress, Int32($0.count), -1, 0)
            }
            guard ok == 1 else {
                X509_NAME_free(name)
                throw CryptoError.fromOpenSSL(.invalidCertificate, "subject attribute \(field)=\(value) refused")
            }
        }
        return name
    }
}

/// Which digest to sign with: ECDSA needs `hash`, EdDSA takes none.
func signatureDigest(for key: PrivateKey, hash: HashFunction?) throws -> OpaquePointer? {
    switch key.curve.kind {
    case .montgomery: throw CryptoError(.unsupportedAlgorithm, "\(key.curve) keys cannot sign")
    case .edwards:
        guard hash == nil else {
            throw CryptoError(.unsupportedAlgorithm, "EdDSA (\(key.curve)) takes no separate hash function")
        }
        return nil
    case .weierstrass:
        guard let hash else { throw CryptoError(.unsupportedAlgorithm, "ECDSA needs a hash function") }
        return hash.evpMD
    }
}

/// SHA-1 of the certificate's subjectPublicKey bits (RFC 5280 §4.2.1.2 method 1).
func keyHash(_ x509: OpaquePointer) throws -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 20)
    var length: UInt32 = 0
    let ok = out.withUnsafeMutableBufferPointer {
        X509_pubkey_digest(x509, FetchedAlgorithms.shared.sha1, $0.baseAddress, &length)
    }
    guard ok == 1, length == 20 else { throw CryptoError.fromOpenSSL(.openSSL, "X509_pubkey_digest failed") }
    return out
}

/// A positive ASN1_INTEGER from big-endian bytes (caller frees).
func makeASN1Integer(_ bytes: [UInt8]) throws -> UnsafeMutablePointer<ASN1_INTEGER> {
    guard let number = bytes.withUnsafeBufferPointer({ BN_bin2bn($0.baseAddress, Int32($0.count), nil) }) else {
        throw CryptoError.fromOpenSSL(.openSSL, "BN_bin2bn failed")
    }
    defer { BN_free(number) }
    guard let integer = BN_to_ASN1_INTEGER(number, nil) else {
        throw CryptoError.fromOpenSSL(.openSSL, "BN_to_ASN1_INTEGER failed")
    }
    return integer
}

/// An ASN1_OCTET_STRING holding `bytes` (caller frees).
func makeOctetString(_ bytes: [UInt8]) throws -> UnsafeMutablePointer<ASN1_OCTET_STRING> {
    guard let octets = ASN1_OCTET_STRING_new() else {
        throw CryptoError.fromOpenSSL(.openSSL, "ASN1_OCTET_STRING_new failed")
    }
    let ok = bytes.withUnsafeBufferPointer { ASN1_OCTET_STRING_set(octets, $0.baseAddress, Int32($0.count)) }
    guard ok == 1 else {
        ASN1_OCTET_STRING_free(octets)
        throw CryptoError.fromOpenSSL(.openSSL, "ASN1_OCTET_STRING_set failed")
    }
    return octets
}

/// An ASN1_OBJECT for a dotted OID (names are not accepted; caller frees).
func makeObject(_ oid: String) throws -> OpaquePointer {
    guard let object = OBJ_txt2obj(oid, 1) else {
        throw CryptoError.fromOpenSSL(.invalidCertificate, "\(oid) is not a dotted OID")
    }
    return object
}

/// GENERAL_NAMES with one uniformResourceIdentifier (caller frees).
func makeURINames(_ uri: String) throws -> OpaquePointer {
    guard let names = OPENSSL_sk_new_null() else {
        throw CryptoError.fromOpenSSL(.openSSL, "OPENSSL_sk_new_null failed")
    }
    guard let name = GENERAL_NAME_new(), let string = ASN1_IA5STRING_new() else {
        GENERAL_NAMES_free(names)
        throw CryptoError.fromOpenSSL(.openSSL, "GENERAL_NAME_new failed")
    }
    let bytes = Array(uri.utf8)
    let set = bytes.withUnsafeBufferPointer { ASN1_STRING_set(string, $0.baseAddress, Int32($0.count)) }
    GENERAL_NAME_set0_value(name, GEN_URI, UnsafeMutableRawPointer(string))  // `name` owns `string`
    guard set == 1, OPENSSL_sk_push(names, UnsafeRawPointer(name)) > 0 else {
        GENERAL_NAME_free(name)
        GENERAL_NAMES_free(names)
        throw CryptoError.fromOpenSSL(.openSSL, "building a URI GeneralName failed")
    }
    return names
}

/// CRLDistributionPoints with one distribution point whose fullName is `uri` (caller frees).
func makeDistributionPoints(_ uri: String) throws -> OpaquePointer {
    guard let points = OPENSSL_sk_new_null() else {
        throw CryptoError.fromOpenSSL(.openSSL, "OPENSSL_sk_new_null failed")
    }
    guard let point = DIST_POINT_new(), let pointName = DIST_POINT_NAME_new() else {
        CRL_DIST_POINTS_free(points)
        throw CryptoError.fromOpenSSL(.openSSL, "DIST_POINT_new failed")
    }
    point.pointee.distpoint = pointName  // `point` owns `pointName`
    guard OPENSSL_sk_push(points, UnsafeRawPointer(point)) > 0 else {
        DIST_POINT_free(point)
        CRL_DIST_POINTS_free(points)
        throw CryptoError.fromOpenSSL(.openSSL, "OPENSSL_sk_push failed")
    }
    do {
        pointName.pointee.type = 0  // fullName
        pointName.pointee.name.fullname = try makeURINames(uri)
    } catch {
        CRL_DIST_POINTS_free(points)
        throw error
    }
    return points
}

/// The DER of an X509 object.
private func encode(_ x509: OpaquePointer) throws -> [UInt8] {
    let length = i2d_X509(x509, nil)
    guard length > 0 else { throw CryptoError.fromOpenSSL(.openSSL, "i2d_X509 failed") }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
        var cursor = buffer.baseAddress
        return i2d_X509(x509, &cursor)
    }
    guard written == length else { throw CryptoError.fromOpenSSL(.openSSL, "i2d_X509 failed") }
    return der
}

/// Issues CRLs (RFC 5280 §5) for tests and the sample issuing authority.
package struct CRLBuilder {
    package var issuer: Certificate
    package var issuerKey: PrivateKey
    package var thisUpdate: Date
    package var nextUpdate: Date?
    /// Revoked certificates: serial number as hex (any case), revocation date.
    package var revoked: [(serialHex: String, date: Date)]
    /// Optional CRLReason codes (RFC 5280 §5.3.1) keyed by serial hex as given in ``revoked``.
    package var reasonCodes: [String: Int] = [:]
    /// cRLNumber (RFC 5280 §5.2.3).
    package var crlNumber: UInt64 = 1

    package init(
        issuer: Certificate, issuerKey: PrivateKey, thisUpdate: Date, nextUpdate: Date?,
        revoked: [(serialHex: String, date: Date)] = []
    ) {
        self.issuer = issuer
        self.issuerKey = issuerKey
        self.thisUpdate = thisUpdate
        self.nextUpdate = nextUpdate
        self.revoked = revoked
    }

    /// Signs a v2 CRL with authorityKeyIdentifier (from the issuer's SKI, when it has one) and cRLNumber.
    /// - Throws: `.keyMismatch` when `issuerKey` is not the issuer's key, `.unsupportedAlgorithm`
    ///   for a wrong hash choice, `.invalidLength` for a serial that is not positive hex of at
    ///   most 20 bytes or a time outside years 1–9999.
    package func sign(hash: HashFunction?) throws -> CRL {
        let md = try signatureDigest(for: issuerKey, hash: hash)
        guard issuer.publicKey.isSameKey(as: issuerKey.publicKey) else {
            throw CryptoError(.keyMismatch, "issuerKey is not the issuer's key")
        }
        guard let crl = X509_CRL_new() else { throw CryptoError.fromOpenSSL(.openSSL, "X509_CRL_new failed") }
        defer { X509_CRL_free(crl) }
        guard X509_CRL_set_version(crl, 1) == 1,
            X509_CRL_set_issuer_name(crl, X509_get_subject_name(issuer.x509)) == 1
        else { throw CryptoError.fromOpenSSL(.openSSL, "setting CRL version/issuer failed") }
        let last = try makeASN1Time(thisUpdate)
        defer { ASN1_TIME_free(last) }
        guard X509_CRL_set1_lastUpdate(crl, last) == 1 else {
            throw CryptoError.fromOpenSSL(.openSSL, "setting thisUpdate failed")
        }
        if let nextUpdate {
            let next = try makeASN1Time(nextUpdate)
            defer { ASN1_TIME_free(next) }
            guard X509_CRL_set1_nextUpdate(crl, next) == 1 else {
                throw CryptoError.fromOpenSSL(.openSSL, "setting nextUpdate failed")
            }
        }
        for (serialText, date) in revoked {
            guard let canonical = canonicalSerialHex(serialText), !canonical.hasPrefix("-"),
                let bytes = bytesFromHex(canonical), bytes.count <= CertificateBuilder.maximumSerialNumberByteCount
            else {
                throw CryptoError(.invalidLength, "\(serialText) is not a positive serial number of at most 20 bytes")
            }
            try addEntry(crl, serial: bytes, date: date, reason: reasonCodes[serialText])
        }
        if let keyIdentifier = issuer.subjectKeyIdentifier {
            guard let value = AUTHORITY_KEYID_new() else {
                throw CryptoError.fromOpenSSL(.openSSL, "AUTHORITY_KEYID_new failed")
            }
            defer { AUTHORITY_KEYID_free(value) }
            value.pointee.keyid = try makeOctetString(keyIdentifier)
            guard X509_CRL_add1_ext_i2d(crl, NID_authority_key_identifier, UnsafeMutableRawPointer(value), 0, 0) == 1
            else {
                throw CryptoError.fromOpenSSL(.openSSL, "adding authorityKeyIdentifier failed")
            }
        }
        guard let number = ASN1_INTEGER_new() else {
            throw CryptoError.fromOpenSSL(.openSSL, "ASN1_INTEGER_new failed")
        }
        defer { ASN1_INTEGER_free(number) }
        guard ASN1_INTEGER_set_uint64(number, crlNumber) == 1,
            X509_CRL_add1_ext_i2d(crl, NID_crl_number, UnsafeMutableRawPointer(number), 0, 0) == 1
        else { throw CryptoError.fromOpenSSL(.openSSL, "adding cRLNumber failed") }
        guard X509_CRL_sort(crl) == 1 else { throw CryptoError.fromOpenSSL(.openSSL, "X509_CRL_sort failed") }
        guard X509_CRL_sign(crl, try issuerKey.pkey, md) > 0 else {
            throw CryptoError.fromOpenSSL(.openSSL, "X509_CRL_sign failed")
        }

        let length = i2d_X509_CRL(crl, nil)
        guard length > 0 else { throw CryptoError.fromOpenSSL(.openSSL, "i2d_X509_CRL failed") }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509_CRL(crl, &cursor)
        }
        guard written == length else { throw CryptoError.fromOpenSSL(.openSSL, "i2d_X509_CRL failed") }
        return try CRL(der: der)
    }

    private func addEntry(_ crl: OpaquePointer, serial: [UInt8], date: Date, reason: Int?) throws {
        guard let entry = X509_REVOKED_new() else { throw CryptoError.fromOpenSSL(.openSSL, "X509_REVOKED_new failed") }
        do {
            let integer = try makeASN1Integer(serial.isEmpty ? [0] : serial)
            defer { ASN1_INTEGER_free(integer) }
            let time = try makeASN1Time(date)
            defer { ASN1_TIME_free(time) }
            guard X509_REVOKED_set_serialNumber(entry, integer) == 1, X509_REVOKED_set_revocationDate(entry, time) == 1
            else {
                throw CryptoError.fromOpenSSL(.openSSL, "setting a CRL entry failed")
            }
            if let reason {
                guard let code = ASN1_ENUMERATED_new() else {
                    throw CryptoError.fromOpenSSL(.openSSL, "ASN1_ENUMERATED_new failed")
                }
                defer { ASN1_ENUMERATED_free(code) }
                guard ASN1_ENUMERATED_set(code, reason) == 1,
                    X509_REVOKED_add1_ext_i2d(entry, NID_crl_reason, UnsafeMutableRawPointer(code), 0, 0) == 1
                else { throw CryptoError.fromOpenSSL(.openSSL, "adding reasonCode failed") }
            }
        } catch {
            X509_REVOKED_free(entry)
            throw error
        }
        guard X509_CRL_add0_revoked(crl, entry) == 1 else {
            X509_REVOKED_free(entry)
            throw CryptoError.fromOpenSSL(.openSSL, "X509_CRL_add0_revoked failed")
        }
    }
}
