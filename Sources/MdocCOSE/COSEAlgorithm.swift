package import MdocCrypto

/// A COSE algorithm identifier (IANA "COSE Algorithms" registry; RFC 9053).
///
/// An unbounded enumeration: any integer is representable, so an unknown algorithm found in a
/// received header survives into reports instead of crashing a switch. The constants are the
/// ones ISO 18013-5 §9.1.2.4/§9.1.3 and Table 22 allow, plus the fully-specified variants.
package struct COSEAlgorithm: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int64
    package init(rawValue: Int64) { self.rawValue = rawValue }

    /// ECDSA with SHA-256 (RFC 9053 §2.1); 18013-5 pairs it with P-256 and brainpoolP256r1.
    package static let es256 = COSEAlgorithm(rawValue: -7)
    /// ECDSA with SHA-384; 18013-5 pairs it with P-384, brainpoolP320r1 and brainpoolP384r1.
    package static let es384 = COSEAlgorithm(rawValue: -35)
    /// ECDSA with SHA-512; 18013-5 pairs it with P-521 and brainpoolP512r1.
    package static let es512 = COSEAlgorithm(rawValue: -36)
    /// EdDSA (RFC 9053 §2.2), Ed25519 or Ed448 by key.
    package static let edDSA = COSEAlgorithm(rawValue: -8)
    /// Fully-specified ECDSA P-256 / SHA-256 (RFC 9864).
    package static let esp256 = COSEAlgorithm(rawValue: -9)
    /// Fully-specified ECDSA P-384 / SHA-384.
    package static let esp384 = COSEAlgorithm(rawValue: -51)
    /// Fully-specified ECDSA P-521 / SHA-512.
    package static let esp512 = COSEAlgorithm(rawValue: -52)
    /// Fully-specified Ed25519.
    package static let ed25519 = COSEAlgorithm(rawValue: -19)
    /// Fully-specified Ed448.
    package static let ed448 = COSEAlgorithm(rawValue: -53)
    /// HMAC with SHA-256, 256-bit tag ("HMAC 256/256", RFC 9053 §3.1); deviceMac in 18013-5 §9.1.3.5.
    package static let hmac256 = COSEAlgorithm(rawValue: 5)
    /// HMAC with SHA-384, 384-bit tag.
    package static let hmac384 = COSEAlgorithm(rawValue: 6)
    /// HMAC with SHA-512, 512-bit tag.
    package static let hmac512 = COSEAlgorithm(rawValue: 7)

    package var description: String {
        switch self {
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .edDSA: "EdDSA"
        case .esp256: "ESP256"
        case .esp384: "ESP384"
        case .esp512: "ESP512"
        case .ed25519: "Ed25519"
        case .ed448: "Ed448"
        case .hmac256: "HMAC 256/256"
        case .hmac384: "HMAC 384/384"
        case .hmac512: "HMAC 512/512"
        default: "alg(\(rawValue))"
        }
    }

    /// The hash of a signature or MAC algorithm; `nil` for EdDSA (which hashes internally) and
    /// for unknown algorithms.
    package var hashFunction: HashFunction? {
        switch self {
        case .es256, .esp256, .hmac256: .sha256
        case .es384, .esp384, .hmac384: .sha384
        case .es512, .esp512, .hmac512: .sha512
        default: nil
        }
    }

    /// Whether this is a signature algorithm this verifier implements.
    package var isSupportedSignature: Bool {
        switch self {
        case .es256, .es384, .es512, .edDSA, .esp256, .esp384, .esp512, .ed25519, .ed448: true
        default: false
        }
    }

    /// Whether this is a MAC algorithm this verifier implements.
    package var isSupportedMAC: Bool {
        switch self {
        case .hmac256, .hmac384, .hmac512: true
        default: false
        }
    }

    /// The curves the algorithm may be used with (ISO 18013-5 Table 22 for the polymorphic ids,
    /// RFC 9864 for the fully-specified ones). Empty for MACs and unknown algorithms.
    package var allowedCurves: [Curve] {
        switch self {
        case .es256: [.p256, .brainpoolP256r1]
        case .es384: [.p384, .brainpoolP320r1, .brainpoolP384r1]
        case .es512: [.p521, .brainpoolP512r1]
        case .esp256: [.p256]
        case .esp384: [.p384]
        case .esp512: [.p521]
        case .edDSA: [.ed25519, .ed448]
        case .ed25519: [.ed25519]
        case .ed448: [.ed448]
        default: []
        }
    }

    /// Whether a key on `curve` may be used with this algorithm: `allowedCurves.contains(curve)`
    /// without building the array (asked for every signature verified).
    package func allows(_ curve: Curve) -> Bool {
        switch self {
        case .es256: curve == .p256 || curve == .brainpoolP256r1
        case .es384: curve == .p384 || curve == .brainpoolP320r1 || curve == .brainpoolP384r1
        case .es512: curve == .p521 || curve == .brainpoolP512r1
        case .esp256: curve == .p256
        case .esp384: curve == .p384
        case .esp512: curve == .p521
        case .edDSA: curve == .ed25519 || curve == .ed448
        case .ed25519: curve == .ed25519
        case .ed448: curve == .ed448
        default: false
        }
    }

    /// The algorithm we use to sign with a key on `curve` (polymorphic ids, as 18013-5 uses).
    package static func signing(for curve: Curve) -> COSEAlgorithm? {
        switch curve {
        case .p256, .brainpoolP256r1: .es256
        case .p384, .brainpoolP320r1, .brainpoolP384r1: .es384
        case .p521, .brainpoolP512r1: .es512
        case .ed25519, .ed448: .edDSA
        default: nil
        }
    }
}
