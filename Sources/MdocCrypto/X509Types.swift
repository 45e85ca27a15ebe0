import Foundation

/// An X.501 distinguished name as it appears in a certificate or CRL (RFC 5280 §4.1.2.4).
///
/// Equality compares every field, so in practice the received DER encoding: two names that
/// RFC 5280 §7.1 would match after case folding but that are encoded differently are not equal.
public struct DistinguishedName: Hashable, Sendable, CustomStringConvertible {
    /// One attribute of the name, in encoding order.
    public struct Attribute: Hashable, Sendable {
        /// Dotted OID, e.g. "2.5.4.6".
        public let oid: String
        /// OpenSSL's short name ("C", "CN", "O" …) when it knows the attribute.
        public let shortName: String?
        /// The value as UTF-8 text (nil when it cannot be converted).
        public let value: String?
    }

    /// RFC 4514 (formerly RFC 2253) string form, most-specific attribute first, as OpenSSL prints it.
    public let rfc2253: String
    /// The first countryName (2.5.4.6) value.
    public let countryName: String?
    /// The first commonName (2.5.4.3) value.
    public let commonName: String?
    /// The first organizationName (2.5.4.10) value.
    public let organizationName: String?
    /// The first stateOrProvinceName (2.5.4.8) value.
    public let stateOrProvinceName: String?
    /// Every attribute, in encoding order.
    public let attributes: [Attribute]
    /// The DER encoding of the Name.
    public let der: [UInt8]

    public var description: String { rfc2253 }
}

/// The key usage bits of RFC 5280 §4.2.1.3.
public struct KeyUsage: OptionSet, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let digitalSignature = KeyUsage(rawValue: 1 << 0)
    public static let nonRepudiation = KeyUsage(rawValue: 1 << 1)
    public static let keyEncipherment = KeyUsage(rawValue: 1 << 2)
    public static let dataEncipherment = KeyUsage(rawValue: 1 << 3)
    public static let keyAgreement = KeyUsage(rawValue: 1 << 4)
    public static let keyCertSign = KeyUsage(rawValue: 1 << 5)
    public static let cRLSign = KeyUsage(rawValue: 1 << 6)
    public static let encipherOnly = KeyUsage(rawValue: 1 << 7)
    public static let decipherOnly = KeyUsage(rawValue: 1 << 8)

    /// The bits in RFC 5280 order (bit 0 = digitalSignature), with their ASN.1 names.
    static let named: [(KeyUsage, String)] = [
        (.digitalSignature, "digitalSignature"), (.nonRepudiation, "nonRepudiation"),
        (.keyEncipherment, "keyEncipherment"), (.dataEncipherment, "dataEncipherment"),
        (.keyAgreement, "keyAgreement"), (.keyCertSign, "keyCertSign"), (.cRLSign, "cRLSign"),
        (.encipherOnly, "encipherOnly"), (.decipherOnly, "decipherOnly"),
    ]

    public var description: String {
        "[" + Self.named.filter { contains($0.0) }.map(\.1).joined(separator: ", ") + "]"
    }
}

/// One certificate extension: its OID and criticality (RFC 5280 §4.2).
public struct X509Extension: Hashable, Sendable {
    /// Dotted OID, e.g. "2.5.29.19".
    public let oid: String
    public let critical: Bool

    public init(oid: String, critical: Bool) {
        self.oid = oid
        self.critical = critical
    }
}

/// The basicConstraints extension (RFC 5280 §4.2.1.9).
public struct BasicConstraints: Hashable, Sendable {
    public var isCA: Bool
    /// pathLenConstraint, when present.
    public var pathLength: Int?
    public var critical: Bool

    public init(isCA: Bool, pathLength: Int? = nil, critical: Bool = true) {
        self.isCA = isCA
        self.pathLength = pathLength
        self.critical = critical
    }
}

/// A CRL entry for a certificate (RFC 5280 §5.3).
public struct Revocation: Hashable, Sendable {
    /// revocationDate.
    public let date: Date
    /// The CRLReason code (RFC 5280 §5.3.1), when the entry has one.
    public let reason: Int?

    public init(date: Date, reason: Int?) {
        self.date = date
        self.reason = reason
    }
}

/// Why a certification path did not validate: OpenSSL's `X509_V_ERR_*` code, its text and the
/// depth in the chain (0 = leaf) where it was found.
public struct PathValidationFailure: Error, Hashable, Sendable, CustomStringConvertible {
    /// `X509_V_ERR_*`, e.g. 10 = certificate has expired, 34 = unhandled critical extension.
    public let code: Int32
    /// `X509_verify_cert_error_string(code)`.
    public let reason: String
    public let depth: Int

    public init(code: Int32, reason: String, depth: Int) {
        self.code = code
        self.reason = reason
        self.depth = depth
    }

    public var description: String { "X509_V_ERR \(code) at depth \(depth): \(reason)" }
}
