internal import COpenSSL
import Foundation

/// An X.509 v3 certificate (RFC 5280), parsed once by OpenSSL and kept immutable.
///
/// Parsing checks the encoding only: the DER must be a whole certificate with no trailing
/// bytes, with well-formed, non-duplicated extensions and a public key on a supported curve.
/// It does **not** check validity dates, signatures, profiles (ISO 18013-5 Annex B) or
/// revocation; use ``isSigned(by:)``, ``PathValidator`` and the Trust layer for that.
///
/// Equality and hashing compare ``der``.
package final class Certificate: @unchecked Sendable, Hashable, CustomStringConvertible {
    // @unchecked Sendable: the X509 object is never modified after init. Its extension cache is
    // filled during init (X509_check_purpose), so later reads from several threads do not write.

    let x509: OpaquePointer

    /// The encoding exactly as received.
    package let der: [UInt8]
    /// SHA-256 of ``der``.
    package let sha256Fingerprint: [UInt8]
    /// ``sha256Fingerprint`` as lower-case hex, computed once (evidence of every verification).
    package let fingerprintHex: String
    package let subject: DistinguishedName
    package let issuer: DistinguishedName
    /// The serial number as lower-case hex without leading zeros ("-" prefixed if negative).
    package let serialNumberHex: String
    package let notBefore: Date
    package let notAfter: Date
    /// The subject public key.
    package let publicKey: PublicKey
    /// basicConstraints (RFC 5280 §4.2.1.9), nil when absent.
    package let basicConstraints: BasicConstraints?
    /// keyUsage (RFC 5280 §4.2.1.3), nil when absent.
    package let keyUsage: KeyUsage?
    package let keyUsageCritical: Bool
    /// extendedKeyUsage purposes as dotted OIDs (RFC 5280 §4.2.1.12), nil when absent.
    package let extendedKeyUsage: [String]?
    package let extendedKeyUsageCritical: Bool
    /// Every extension, in order.
    package let extensions: [X509Extension]
    /// subjectKeyIdentifier (RFC 5280 §4.2.1.2).
    package let subjectKeyIdentifier: [UInt8]?
    /// The keyIdentifier of authorityKeyIdentifier (RFC 5280 §4.2.1.1).
    package let authorityKeyIdentifier: [UInt8]?
    /// The signature algorithm's name as OpenSSL spells it ("ecdsa-with-SHA256", "ED25519"), or
    /// its dotted OID when OpenSSL has no name for it.
    package let signatureAlgorithm: String
    /// The signature algorithm's dotted OID (e.g. "1.2.840.10045.4.3.2").
    package let signatureAlgorithmOID: String
    /// issuerAltName entries (RFC 5280 §4.2.1.7) as "email:…", "URI:…", "DNS:…", "IP:…" (hex),
    /// "DirName:…" or "othername:<type>".
    package let issuerAlternativeNames: [String]
    /// The URIs of every fullName in cRLDistributionPoints (RFC 5280 §4.2.1.13).
    package let crlDistributionPointURIs: [String]
    /// Every fullName GeneralName in cRLDistributionPoints, in the form of
    /// ``issuerAlternativeNames`` (Annex D's IACA uses "DNS:example.com", not a URI).
    package let crlDistributionPointNames: [String]

    private struct Fields {
        var subject: DistinguishedName
        var issuer: DistinguishedName
        var serialNumberHex: String
        var notBefore: Date
        var notAfter: Date
        var publicKey: PublicKey
        var basicConstraints: BasicConstraints?
        var keyUsage: KeyUsage?
        var keyUsageCritical: Bool
        var extendedKeyUsage: [String]?
        var extendedKeyUsageCritical: Bool
        var extensions: [X509Extension]
        var subjectKeyIdentifier: [UInt8]?
        var authorityKeyIdentifier: [UInt8]?
        var signatureAlgorithm: String
        var signatureAlgorithmOID: String
        var issuerAlternativeNames: [String]
        var crlDistributionPointURIs: [String]
        var crlDistributionPointNames: [String]
    }

    /// Parses one DER certificate.
    /// - Throws: `.invalidCertificate` (not a certificate, trailing bytes, malformed or duplicate
    ///   extensions, unreadable dates), `.unsupportedCurve` / `.unsupportedAlgorithm` /
    ///   `.invalidPoint` for a subject key this layer cannot use.
    package init(der input: some Collection<UInt8>) throws {
        let bytes = Array(input)
        let x509 = try bytes.withUnsafeBufferPointer { buffer -> OpaquePointer in
            guard let base = buffer.baseAddress else { throw CryptoError(.invalidCertificate, "empty certificate") }
            var cursor: UnsafePointer<UInt8>? = base
            guard let x509 = d2i_X509(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidCertificate, "not a DER X.509 certificate")
            }
            guard let cursor, cursor - base == buffer.count else {
                X509_free(x509)
                throw CryptoError(.invalidCertificate, "trailing bytes after the certificate")
            }
            return x509
        }
        let fields: Fields
        do {
            fields = try Self.readFields(x509)
        } catch {
            X509_free(x509)
            throw error
        }
        self.x509 = x509
        der = bytes
        sha256Fingerprint = HashFunction.sha256.hash(bytes)
        fingerprintHex = hexString(sha256Fingerprint)
        subject = fields.subject
        issuer = fields.issuer
        serialNumberHex = fields.serialNumberHex
        notBefore = fields.notBefore
        notAfter = fields.notAfter
        publicKey = fields.publicKey
        basicConstraints = fields.basicConstraints
        keyUsage = fields.keyUsage
        keyUsageCritical = fields.keyUsageCritical
        extendedKeyUsage = fields.extendedKeyUsage
        extendedKeyUsageCritical = fields.extendedKeyUsageCritical
        extensions = fields.extensions
        subjectKeyIdentifier = fields.subjectKeyIdentifier
        authorityKeyIdentifier = fields.authorityKeyIdentifier
        signatureAlgorithm = fields.signatureAlgorithm
        signatureAlgorithmOID = fields.signatureAlgorithmOID
        issuerAlternativeNames = fields.issuerAlternativeNames
        crlDistributionPointURIs = fields.crlDistributionPointURIs
        crlDistributionPointNames = fields.crlDistributionPointNames
    }

    deinit { X509_free(x509) }

    /// Every certificate in `pemOrDER`: a single DER certificate (input starting with a SEQUENCE
    /// tag 0x30), or PEM text with one or more `CERTIFICATE` blocks (other blocks are skipped).
    /// - Throws: `.invalidPEM` when PEM text has no certificate block or a malformed block;
    ///   `.invalidCertificate` etc. for a block that is not a usable certificate.
    package static func parseAll(pemOrDER: [UInt8]) throws -> [Certificate] {
        if pemOrDER.first == 0x30 { return [try Certificate(der: pemOrDER)] }
        let blocks = try PEM.blocks(in: pemOrDER, label: "CERTIFICATE")
        guard !blocks.isEmpty else { throw CryptoError(.invalidPEM, "no CERTIFICATE block found") }
        return try blocks.map { try Certificate(der: $0) }
    }

    /// Whether subject and issuer names are the same (RFC 5280 §3.2 "self-issued"), compared
    /// as RFC 5280 §7.1 canonical names (`X509_NAME_cmp`). Says nothing about the signature.
    package var isSelfIssued: Bool {
        X509_NAME_cmp(X509_get_subject_name(x509), X509_get_issuer_name(x509)) == 0
    }

    /// Whether this certificate's signature verifies with `issuer`'s public key (`X509_verify`).
    /// Checks nothing else: not names, validity, key usage or basic constraints.
    package func isSigned(by issuer: Certificate) -> Bool {
        guard let issuerKey = try? issuer.publicKey.pkey else { return false }
        let result = X509_verify(x509, issuerKey)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// ``der`` as PEM (`-----BEGIN CERTIFICATE-----`).
    package var pem: String { PEM.encode(der, label: "CERTIFICATE") }

    package var description: String { "Certificate(\(subject.rfc2253), serial \(serialNumberHex))" }

    package static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.der == rhs.der }
    package func hash(into hasher: inout Hasher) { hasher.combine(der) }

    // MARK: Field extraction

    private static func readFields(_ x509: OpaquePointer) throws -> Fields {
        // Fills OpenSSL's extension cache; flags malformed or duplicated extensions as invalid.
        guard X509_check_purpose(x509, -1, 0) == 1, X509_get_extension_flags(x509) & UInt32(EXFLAG_INVALID) == 0 else {
            throw CryptoError.fromOpenSSL(.invalidCertificate, "malformed or duplicate certificate extensions")
        }
        guard let subjectName = X509_get_subject_name(x509), let issuerName = X509_get_issuer_name(x509) else {
            throw CryptoError.fromOpenSSL(.invalidCertificate, "certificate without subject or issuer")
        }
        guard let notBefore = date(from: X509_get0_notBefore(x509)), let notAfter = date(from: X509_get0_notAfter(x509))
        else { throw CryptoError.fromOpenSSL(.invalidCertificate, "unreadable validity dates") }
        guard let key = X509_get0_pubkey(x509) else {
            throw CryptoError.fromOpenSSL(.unsupportedAlgorithm, "certificate public key cannot be decoded")
        }
        let subjectPublicKey = asn1StringBytes(X509_get0_pubkey_bitstr(x509))
        let publicKey = try PublicKey(sharing: key, receivedPoint: subjectPublicKey.isEmpty ? nil : subjectPublicKey)

        let flags = X509_get_extension_flags(x509)
        var basicConstraints: BasicConstraints?
        if flags & UInt32(EXFLAG_BCONS) != 0 {
            let pathLength = X509_get_pathlen(x509)
            basicConstraints = BasicConstraints(
                isCA: flags & UInt32(EXFLAG_CA) != 0, pathLength: pathLength >= 0 ? Int(pathLength) : nil,
                critical: criticality(x509, NID_basic_constraints) ?? false)
        }

        var keyUsage: KeyUsage?
        if flags & UInt32(EXFLAG_KUSAGE) != 0 {
            keyUsage = Self.keyUsage(fromOpenSSL: X509_get_key_usage(x509))
        }

        var extendedKeyUsage: [String]?
        if let value = try decodedExtension(x509, NID_ext_key_usage) {
            let stack = OpaquePointer(value)
            defer { EXTENDED_KEY_USAGE_free(stack) }
            extendedKeyUsage = (0..<max(OPENSSL_sk_num(stack), 0)).map { index in
                objectText(OPENSSL_sk_value(stack, index).map(OpaquePointer.init))
            }
        }

        var extensions: [X509Extension] = []
        for index in 0..<max(X509_get_ext_count(x509), 0) {
            guard let ext = X509_get_ext(x509, index) else { continue }
            extensions.append(
                X509Extension(
                    oid: objectText(X509_EXTENSION_get_object(ext)), critical: X509_EXTENSION_get_critical(ext) > 0))
        }

        var issuerAlternativeNames: [String] = []
        if let value = try decodedExtension(x509, NID_issuer_alt_name) {
            let names = OpaquePointer(value)
            defer { GENERAL_NAMES_free(names) }
            issuerAlternativeNames = generalNameStrings(names)
        }

        var crlDistributionPointURIs: [String] = []
        var crlDistributionPointNames: [String] = []
        if let value = try decodedExtension(x509, NID_crl_distribution_points) {
            let points = OpaquePointer(value)
            defer { CRL_DIST_POINTS_free(points) }
            for index in 0..<max(OPENSSL_sk_num(points), 0) {
                guard let point = OPENSSL_sk_value(points, index)?.assumingMemoryBound(to: DIST_POINT.self),
                    let name = point.pointee.distpoint, name.pointee.type == 0,
                    let fullName = name.pointee.name.fullname
                else { continue }
                crlDistributionPointURIs += generalNameStrings(fullName, urisOnly: true)
                crlDistributionPointNames += generalNameStrings(fullName)
            }
        }

        var signature: UnsafePointer<ASN1_BIT_STRING>?
        var algorithm: UnsafePointer<X509_ALGOR>?
        X509_get0_signature(&signature, &algorithm, x509)
        let algorithmObject = algorithm?.pointee.algorithm

        return Fields(
            subject: try distinguishedName(subjectName),
            issuer: try distinguishedName(issuerName),
            serialNumberHex: serialHex(X509_get0_serialNumber(x509)),
            notBefore: notBefore,
            notAfter: notAfter,
            publicKey: publicKey,
            basicConstraints: basicConstraints,
            keyUsage: keyUsage,
            keyUsageCritical: keyUsage != nil && criticality(x509, NID_key_usage) == true,
            extendedKeyUsage: extendedKeyUsage,
            extendedKeyUsageCritical: extendedKeyUsage != nil && criticality(x509, NID_ext_key_usage) == true,
            extensions: extensions,
            subjectKeyIdentifier: X509_get0_subject_key_id(x509).map { asn1StringBytes($0) },
            authorityKeyIdentifier: X509_get0_authority_key_id(x509).map { asn1StringBytes($0) },
            signatureAlgorithm: objectText(algorithmObject, numeric: false),
            signatureAlgorithmOID: objectText(algorithmObject),
            issuerAlternativeNames: issuerAlternativeNames,
            crlDistributionPointURIs: crlDistributionPointURIs,
            crlDistributionPointNames: crlDistributionPointNames)
    }

    /// OpenSSL's KU_* bits → ``KeyUsage``.
    static func keyUsage(fromOpenSSL bits: UInt32) -> KeyUsage {
        let mapping: [(UInt32, KeyUsage)] = [
            (UInt32(KU_DIGITAL_SIGNATURE), .digitalSignature), (UInt32(KU_NON_REPUDIATION), .nonRepudiation),
            (UInt32(KU_KEY_ENCIPHERMENT), .keyEncipherment), (UInt32(KU_DATA_ENCIPHERMENT), .dataEncipherment),
            (UInt32(KU_KEY_AGREEMENT), .keyAgreement), (UInt32(KU_KEY_CERT_SIGN), .keyCertSign),
            (UInt32(KU_CRL_SIGN), .cRLSign), (UInt32(KU_ENCIPHER_ONLY), .encipherOnly),
            (UInt32(KU_DECIPHER_ONLY), .decipherOnly),
        ]
        var usage: KeyUsage = []
        for (bit, value) in mapping where bits & bit != 0 { usage.insert(value) }
        return usage
    }

    /// The criticality of the (first) extension `nid`; nil when absent.
    private static func criticality(_ x509: OpaquePointer, _ nid: Int32) -> Bool? {
        let index = X509_get_ext_by_NID(x509, nid, -1)
        guard index >= 0, let ext = X509_get_ext(x509, index) else { return nil }
        return X509_EXTENSION_get_critical(ext) > 0
    }

    /// The decoded value of extension `nid` (caller frees it); nil when absent.
    private static func decodedExtension(_ x509: OpaquePointer, _ nid: Int32) throws -> UnsafeMutableRawPointer? {
        var critical: Int32 = -1
        if let value = X509_get_ext_d2i(x509, nid, &critical, nil) { return value }
        switch critical {
        case -1: return nil
        case -2:
            throw CryptoError(
                .invalidCertificate, "extension \(String(cString: OBJ_nid2ln(nid))) occurs more than once")
        default:
            throw CryptoError.fromOpenSSL(
                .invalidCertificate, "extension \(String(cString: OBJ_nid2ln(nid))) cannot be decoded")
        }
    }
}

// MARK: Shared X.509 helpers

/// Reads an X509_NAME (not owned).
func distinguishedName(_ name: OpaquePointer) throws -> DistinguishedName {
    let bio = try makeMemoryBIO([])
    defer { BIO_free(bio) }
    guard X509_NAME_print_ex(bio, name, 0, mdoc_XN_FLAG_RFC2253()) >= 0 else {
        throw CryptoError.fromOpenSSL(.invalidCertificate, "distinguished name cannot be printed")
    }
    let text = String(decoding: memoryBIOContents(bio), as: UTF8.self)

    let length = i2d_X509_NAME(name, nil)
    guard length >= 0 else {
        throw CryptoError.fromOpenSSL(.invalidCertificate, "distinguished name cannot be encoded")
    }
    var der = [UInt8](repeating: 0, count: Int(length))
    if length > 0 {
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_X509_NAME(name, &cursor)
        }
        guard written == length else { throw CryptoError.fromOpenSSL(.invalidCertificate, "i2d_X509_NAME failed") }
    }

    var attributes: [DistinguishedName.Attribute] = []
    for index in 0..<max(X509_NAME_entry_count(name), 0) {
        guard let entry = X509_NAME_get_entry(name, index) else { continue }
        let object = X509_NAME_ENTRY_get_object(entry)
        let nid = OBJ_obj2nid(object)
        let shortName = nid == NID_undef ? nil : OBJ_nid2sn(nid).map { String(cString: $0) }
        attributes.append(
            DistinguishedName.Attribute(
                oid: objectText(object), shortName: shortName,
                value: asn1StringText(X509_NAME_ENTRY_get_data(entry).map { UnsafePointer($0) })))
    }
    func first(_ oid: String) -> String? { attributes.first { $0.oid == oid }?.value }
    return DistinguishedName(
        rfc2253: text, countryName: first("2.5.4.6"), commonName: first("2.5.4.3"),
        organizationName: first("2.5.4.10"), stateOrProvinceName: first("2.5.4.8"), attributes: attributes, der: der)
}

/// GENERAL_NAMES as strings (see ``Certificate/issuerAlternativeNames``); only URIs when asked.
func generalNameStrings(_ names: OpaquePointer, urisOnly: Bool = false) -> [String] {
    var out: [String] = []
    for index in 0..<max(OPENSSL_sk_num(names), 0) {
        guard let name = OPENSSL_sk_value(names, index)?.assumingMemoryBound(to: GENERAL_NAME.self) else { continue }
        var type: Int32 = -1
        let value = GENERAL_NAME_get0_value(name, &type)
        let string = value.map { UnsafePointer($0.assumingMemoryBound(to: ASN1_STRING.self)) }
        if urisOnly {
            if type == GEN_URI, let text = asn1StringText(string) { out.append(text) }
            continue
        }
        switch type {
        case GEN_EMAIL: out.append("email:" + (asn1StringText(string) ?? ""))
        case GEN_URI: out.append("URI:" + (asn1StringText(string) ?? ""))
        case GEN_DNS: out.append("DNS:" + (asn1StringText(string) ?? ""))
        case GEN_IPADD: out.append("IP:" + hexString(asn1StringBytes(string)))
        case GEN_DIRNAME:
            var text = ""
            if let value {
                do { text = try distinguishedName(OpaquePointer(value)).rfc2253 } catch { text = "(unprintable)" }
            }
            out.append("DirName:" + text)
        default: out.append("othername:\(type)")
        }
    }
    return out
}
