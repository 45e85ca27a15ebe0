import Foundation

/// An X.501 distinguished name as it appears in a certificate or CRL (RFC 5280 §4.1.2.4).
///
/// Equality compares every field, so in practice the received DER encoding: two names that
/// RFC 5280 §7.1 would match after case folding but that are encoded differently are not equal.
package struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    /// One attribute of the name, in encoding order.
    package struct Attribute: Hashable, Sendable {
        /// Dotted OID, e.g. "2.5.4.6".
        package let oid: String
        /// OpenSSL's short name ("C", "CN", "O" …) when it knows the attribute.
        package let shortName: String?
        /// The value as UTF-8 text (nil when it cannot be converted).
        package let value: String?
    }

    /// RFC 4514 (formerly RFC 2253) string form, most-specific attribute first, as OpenSSL prints it.
    package let rfc2253: String
    /// The first countryName (2.5.4.6) value.
    package let countryName: String?
    /// The first commonName (2.5.4.3) value.
    package let commonName: String?
    /// The first organizationName (2.5.4.10) value.
    package let organizationName: String?
    /// The first stateOrProvinceName (2.5.4.8) value.
    package let stateOrProvinceName: String?
    /// Every attribute, in encoding order.
    package let attributes: [Attribute]
    /// The DER encoding of the Name.
    package let der: [UInt8]

    package var description: String { rfc2253 }
}

/// The key usage bits of RFC 5280 §4.2.1.3.
package struct KeyUsage: OptionSet, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt16
    package init(rawValue: UInt16) { self.rawValue = rawValue }

    package static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    package static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    package static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    package static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    package static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    package static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    package static let cRLSign = KeyUsage(rawValue: 1 << 6)
    package static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    package static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    /// The bits in RFC 5280 order (bit 0 = digitalSignature), with their ASN.1 names.
    static let named: [(KeyUsage, String)] = [
        (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
        (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
        (.keyAgreement, "keyAgreement"), (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"),
        (.encipherOnly, "encipherOnly"), (.decipherOnly, "decipherOnly"),
    ]

    package var description: String {
        "[" + Self.named.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// One certificate extension: its OID and criticality (RFC 5280 §4.2).
package struct X509Extension: Hashable, Sendable {
    /// Dotted OID, e.g. "2.5.29.19".
    package let oid: String
    package let critical: Bool

    package init(oid: String, critical: Bool) {
        self.oid = oid
        self.critical = critical
    }
}

/// The basicConstraints extension (RFC 5280 §4.2.1.9).
package struct BasicConstraints: Hashable, Sendable {
    package var isCA: Bool
    /// pathLenConstraint, when present.
    package var pathLength: Int?
    package var critical: Bool

    package init(isCA: Bool, pathLength: Int? = nil, critical: Bool = true) {
        self.isCA = isCA
        self.pathLength = pathLength
        self.critical = critical
    }
}

/// A CRL entry for a certificate (RFC 5280 §5.3).
package struct Revocation: Hashable, Sendable {
    /// revocationDate.
    package let date: Date
    /// The CRLReason code (RFC 5280 §5.3.1), when the entry has one.
    package let reason: Int?

    package init(date: Date, reason: Int?) {
        self.date = date
        self.reason = reason
    }
}

/// Why a certification path did not validate: OpenSSL's `X509_V_ERR_*` code, its text and the
/// depth in the chain (0 = leaf) where it was found.
package struct PathValidationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// `X509_V_ERR_*`, e.g. 10 = certificate has expired, 34 = unhandled critical extension.
    package let code: Int32
    /// `X509_verify_cert_error_string(code)`.
    package let reason: String
    package let depth: Int

    package init(code: Int32, reason: String, depth: Int) {
        self.code = code
        self.reason = reason
        self.depth = depth
    }

    package var description: String { "X509_V_ERR \(code) at depth \(depth): \(reason)" }
}
