/// An elliptic curve (or Edwards/Montgomery key type) this layer supports.
///
/// ISO 18013-5 §9.1.5.2 and RFC 9053 §7.1 list the curves a verifier must handle: the NIST
/// P-curves (FIPS 186-4), the brainpool curves (RFC 5639), Ed25519/Ed448 (RFC 8032) and
/// X25519/X448 (RFC 7748). Mapping COSE `crv` values to these is the COSE layer's job.
package struct Curve: Hashable, Sendable, CustomStringConvertible {
    /// How points on the curve are represented.
    package enum Kind: String, Hashable, Sendable {
        /// Short Weierstrass (EC2 in COSE): ECDSA and ECDH, keys as (x, y).
        case weierstrass
        /// Twisted Edwards (OKP in COSE): EdDSA.
        case edwards
        /// Montgomery (OKP in COSE): X25519/X448 key agreement.
        case montgomery
    }

    /// The name used in this project and in reports: "P-256", "brainpoolP256r1", "Ed25519" …
    package let name: String
    /// For Weierstrass curves the field size in bytes (P-521: 66), which is also the length of
    /// each half of a raw ECDSA signature; for Edwards/Montgomery curves the raw key length.
    package let coordinateByteCount: Int
    package let kind: Kind
    /// The OpenSSL key type ("EC", "ED25519" …), for `EVP_PKEY_CTX_new_from_name`.
    let keyType: StaticString
    /// The OpenSSL group name for Weierstrass curves ("prime256v1" …).
    let groupName: StaticString?
    /// The signature length in bytes (ECDSA raw r‖s or EdDSA); 0 for Montgomery curves.
    package var signatureByteCount: Int {
        switch kind {
        case .weierstrass: 2 * coordinateByteCount
        case .edwards: self == .ed448 ? 114 : 64
        case .montgomery: 0
        }
    }

    package var description: String { name }

    package static func == (lhs: Curve, rhs: Curve) -> Bool { lhs.name == rhs.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }

    package static let p256 = Curve(
        name: "P-256", coordinateByteCount: 32, kind: .weierstrass, keyType: "EC", groupName: "prime256v1")
    package static let p384 = Curve(
        name: "P-384", coordinateByteCount: 48, kind: .weierstrass, keyType: "EC", groupName: "secp384r1")
    package static let p521 = Curve(
        name: "P-521", coordinateByteCount: 66, kind: .weierstrass, keyType: "EC", groupName: "secp521r1")
    package static let brainpoolP256r1 = Curve(
        name: "brainpoolP256r1", coordinateByteCount: 32, kind: .weierstrass, keyType: "EC",
        groupName: "brainpoolP256r1")
    package static let brainpoolP320r1 = Curve(
        name: "brainpoolP320r1", coordinateByteCount: 40, kind: .weierstrass, keyType: "EC",
        groupName: "brainpoolP320r1")
    package static let brainpoolP384r1 = Curve(
        name: "brainpoolP384r1", coordinateByteCount: 48, kind: .weierstrass, keyType: "EC",
        groupName: "brainpoolP384r1")
    package static let brainpoolP512r1 = Curve(
        name: "brainpoolP512r1", coordinateByteCount: 64, kind: .weierstrass, keyType: "EC",
        groupName: "brainpoolP512r1")
    package static let ed25519 = Curve(
        name: "Ed25519", coordinateByteCount: 32, kind: .edwards, keyType: "ED25519", groupName: nil)
    package static let ed448 = Curve(
        name: "Ed448", coordinateByteCount: 57, kind: .edwards, keyType: "ED448", groupName: nil)
    package static let x25519 = Curve(
        name: "X25519", coordinateByteCount: 32, kind: .montgomery, keyType: "X25519", groupName: nil)
    package static let x448 = Curve(
        name: "X448", coordinateByteCount: 56, kind: .montgomery, keyType: "X448", groupName: nil)

    /// Every supported curve.
    package static let all: [Curve] = [
        .p256, .p384, .p521, .brainpoolP256r1, .brainpoolP320r1, .brainpoolP384r1, .brainpoolP512r1,
        .ed25519, .ed448, .x25519, .x448,
    ]

    /// The curve with this project name (``name``), or nil.
    package static func named(_ name: String) -> Curve? { all.first { $0.name == name } }

    /// The Weierstrass curve for an OpenSSL group name. OpenSSL reports short names
    /// ("prime256v1"), but NIST names ("P-256") and SEC names ("secp256r1") are accepted too.
    static func forGroupName(_ group: String) -> Curve? {
        switch group.lowercased() {
        case "prime256v1", "secp256r1", "p-256": .p256
        case "secp384r1", "p-384": .p384
        case "secp521r1", "p-521": .p521
        case "brainpoolp256r1": .brainpoolP256r1
        case "brainpoolp320r1": .brainpoolP320r1
        case "brainpoolp384r1": .brainpoolP384r1
        case "brainpoolp512r1": .brainpoolP512r1
        default: nil
        }
    }

    /// The curve for an OpenSSL key type other than "EC".
    static func forKeyType(_ type: String) -> Curve? {
        switch type.uppercased() {
        case "ED25519": .ed25519
        case "ED448": .ed448
        case "X25519": .x25519
        case "X448": .x448
        default: nil
        }
    }
}
