internal import COpenSSL
import Foundation

/// A certificate revocation list (RFC 5280 §5), parsed once and kept immutable.
///
/// Parsing checks the encoding only. It does not check the signature (``isSigned(by:)``),
/// that the issuer is entitled to sign CRLs (cRLSign), the update times against any instant,
/// delta or indirect CRL semantics, or issuing distribution points: that is the Trust layer's job.
package final class CRL: @unchecked Sendable, CustomStringConvertible {
    // @unchecked Sendable: the X509_CRL is never modified after init; the revocation table is a
    // Swift dictionary built in init.

    let crl: OpaquePointer
    /// The encoding exactly as received.
    package let der: [UInt8]
    package let issuer: DistinguishedName
    /// thisUpdate.
    package let thisUpdate: Date
    /// nextUpdate, when present.
    package let nextUpdate: Date?
    /// The keyIdentifier of authorityKeyIdentifier (RFC 5280 §5.2.1).
    package let authorityKeyIdentifier: [UInt8]?
    /// cRLNumber (RFC 5280 §5.2.3) as canonical hex.
    package let crlNumberHex: String?
    /// Revoked serial numbers (canonical hex, see ``Certificate/serialNumberHex``) → entry.
    private let revocations: [String: Revocation]

    /// Parses one DER CRL.
    /// - Throws: `.invalidCRL` (not a CRL, trailing bytes, unreadable dates or entries).
    package init(der input: some Collection<UInt8>) throws {
        let bytes = Array(input)
        let crl = try bytes.withUnsafeBufferPointer { buffer -> OpaquePointer in
            guard let base = buffer.baseAddress else { throw CryptoError(.invalidCRL, "empty CRL") }
            var cursor: UnsafePointer<UInt8>? = base
            guard let crl = d2i_X509_CRL(nil, &cursor, buffer.count) else {
                throw CryptoError.fromOpenSSL(.invalidCRL, "not a DER X.509 CRL")
            }
            guard let cursor, cursor - base == buffer.count else {
                X509_CRL_free(crl)
                throw CryptoError(.invalidCRL, "trailing bytes after the CRL")
            }
            return crl
        }
        do {
            guard let issuerName = X509_CRL_get_issuer(crl) else {
                throw CryptoError(.invalidCRL, "CRL without issuer")
            }
            issuer = try distinguishedName(issuerName)
            guard let thisUpdate = date(from: X509_CRL_get0_lastUpdate(crl)) else {
                throw CryptoError(.invalidCRL, "unreadable thisUpdate")
            }
            self.thisUpdate = thisUpdate
            if let next = X509_CRL_get0_nextUpdate(crl) {
                guard let nextUpdate = date(from: next) else { throw CryptoError(.invalidCRL, "unreadable nextUpdate") }
                self.nextUpdate = nextUpdate
            } else {
                nextUpdate = nil
            }
            authorityKeyIdentifier = try Self.authorityKeyIdentifier(crl)
            crlNumberHex = try Self.crlNumber(crl)
            revocations = try Self.readRevocations(crl)
        } catch {
            X509_CRL_free(crl)
            throw error
        }
        self.crl = crl
        der = bytes
    }

    deinit { X509_CRL_free(crl) }

    /// Every CRL in `pemOrDER`: one DER CRL, or PEM text with one or more `X509 CRL` blocks.
    /// - Throws: `.invalidPEM` when PEM text has no CRL block, `.invalidCRL` for a bad CRL.
    package static func parseAll(pemOrDER: [UInt8]) throws -> [CRL] {
        if pemOrDER.first == 0x30 { return [try CRL(der: pemOrDER)] }
        let blocks = try PEM.blocks(in: pemOrDER, label: "X509 CRL")
        guard !blocks.isEmpty else { throw CryptoError(.invalidPEM, "no X509 CRL block found") }
        return try blocks.map { try CRL(der: $0) }
    }

    /// The entry for a serial number given as hex (any case, leading zeros ignored); nil when
    /// the serial is not listed (or is not hex).
    package func revocation(ofSerialHex serial: String) -> Revocation? {
        if revocations.isEmpty { return nil }
        // The table's keys are canonical, so a hit on the text as given is the answer, and a miss
        // is final when the text is already canonical (``Certificate/serialNumberHex`` always is):
        // only other spellings pay for canonicalization.
        if let entry = revocations[serial] { return entry }
        if Self.isCanonicalSerialHex(serial) { return nil }
        guard let key = canonicalSerialHex(serial) else { return nil }
        return revocations[key]
    }

    /// Whether `serial` is already in the form of ``Certificate/serialNumberHex``: lower-case hex
    /// without leading zeros ("0" for zero), "-" prefixed when negative (never "-0").
    static func isCanonicalSerialHex(_ serial: String) -> Bool {
        var digits = serial.utf8[...]
        if digits.first == UInt8(ascii: "-") { digits = digits.dropFirst() }
        guard let first = digits.first else { return false }
        if first == UInt8(ascii: "0") { return digits.count == 1 && digits.count == serial.utf8.count }
        return digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The number of revoked entries.
    package var revokedCount: Int { revocations.count }

    /// Whether the CRL's signature verifies with `issuer`'s public key (`X509_CRL_verify`).
    /// Checks nothing else (not the issuer name, key usage or dates).
    package func isSigned(by issuer: Certificate) -> Bool {
        guard let issuerKey = try? issuer.publicKey.pkey else { return false }
        let result = X509_CRL_verify(crl, issuerKey)
        if result != 1 { ERR_clear_error() }
        return result == 1
    }

    /// ``der`` as PEM (`-----BEGIN X509 CRL-----`).
    package var pem: String { PEM.encode(der, label: "X509 CRL") }

    package var description: String { "CRL(\(issuer.rfc2253), \(revocations.count) entries)" }

    private static func readRevocations(_ crl: OpaquePointer) throws -> [String: Revocation] {
        var table: [String: Revocation] = [:]
        guard let entries = X509_CRL_get_REVOKED(crl) else { return table }
        for index in 0..<max(OPENSSL_sk_num(entries), 0) {
            guard let entry = OPENSSL_sk_value(entries, index).map(OpaquePointer.init) else { continue }
            let serial = serialHex(X509_REVOKED_get0_serialNumber(entry))
            guard let revoked = date(from: X509_REVOKED_get0_revocationDate(entry)) else {
                throw CryptoError(.invalidCRL, "unreadable revocationDate for serial \(serial)")
            }
            var critical: Int32 = -1
            var reason: Int?
            if let value = X509_REVOKED_get_ext_d2i(entry, NID_crl_reason, &critical, nil) {
                let enumerated = value.assumingMemoryBound(to: ASN1_ENUMERATED.self)
                defer { ASN1_ENUMERATED_free(enumerated) }
                reason = Int(ASN1_ENUMERATED_get(enumerated))
            } else if critical != -1 {
                throw CryptoError.fromOpenSSL(.invalidCRL, "bad reasonCode for serial \(serial)")
            }
            if table[serial] == nil { table[serial] = Revocation(date: revoked, reason: reason) }
        }
        return table
    }

    private static func authorityKeyIdentifier(_ crl: OpaquePointer) throws -> [UInt8]? {
        var critical: Int32 = -1
        guard let value = X509_CRL_get_ext_d2i(crl, NID_authority_key_identifier, &critical, nil) else {
            if critical != -1 { throw CryptoError.fromOpenSSL(.invalidCRL, "bad authorityKeyIdentifier") }
            return nil
        }
        let identifier = value.assumingMemoryBound(to: AUTHORITY_KEYID.self)
        defer { AUTHORITY_KEYID_free(identifier) }
        return identifier.pointee.keyid.map { asn1StringBytes(UnsafePointer($0)) }
    }

    private static func crlNumber(_ crl: OpaquePointer) throws -> String? {
        var critical: Int32 = -1
        guard let value = X509_CRL_get_ext_d2i(crl, NID_crl_number, &critical, nil) else {
            if critical != -1 { throw CryptoError.fromOpenSSL(.invalidCRL, "bad cRLNumber") }
            return nil
        }
        let number = value.assumingMemoryBound(to: ASN1_INTEGER.self)
        defer { ASN1_INTEGER_free(number) }
        return serialHex(UnsafePointer(number))
    }
}
