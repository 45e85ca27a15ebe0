package import MdocCBOR
package import MdocCrypto

/// A COSE_Key (RFC 9052 §7, RFC 9053 §7) holding a public key: EC2 or OKP.
///
/// ```
/// EC2: { 1 (kty): 2, -1 (crv): int, -2 (x): bstr, -3 (y): bstr / bool }
/// OKP: { 1 (kty): 1, -1 (crv): int, -2 (x): bstr }
/// ```
/// ISO 18013-5 uses it for EDeviceKey/EReaderKey (§9.1.1.4) and the MSO deviceKey (§9.1.2.4).
package struct COSEKey: Sendable {
    package enum KeyType: Int64, Sendable { case okp = 1, ec2 = 2 }

    package let keyType: KeyType
    package let curveIdentifier: Int64
    package let curve: Curve
    package let x: ArraySlice<UInt8>
    /// The y coordinate (EC2 uncompressed form) or nil for OKP / compressed points.
    package let y: ArraySlice<UInt8>?
    /// For a compressed EC2 point: the sign bit carried as y (RFC 9053 §7.1.1).
    package let ySign: Bool?

    /// The COSE "Elliptic Curves" registry entries ISO 18013-5 Table 22 uses.
    package static func curve(forIdentifier id: Int64) -> Curve? {
        switch id {
        case 1: .p256
        case 2: .p384
        case 3: .p521
        case 4: .x25519
        case 5: .x448
        case 6: .ed25519
        case 7: .ed448
        case 256: .brainpoolP256r1
        case 257: .brainpoolP320r1
        case 258: .brainpoolP384r1
        case 259: .brainpoolP512r1
        default: nil
        }
    }

    package static func identifier(for curve: Curve) -> Int64? {
        switch curve {
        case .p256: 1
        case .p384: 2
        case .p521: 3
        case .x25519: 4
        case .x448: 5
        case .ed25519: 6
        case .ed448: 7
        case .brainpoolP256r1: 256
        case .brainpoolP320r1: 257
        case .brainpoolP384r1: 258
        case .brainpoolP512r1: 259
        default: nil
        }
    }

    /// Decodes the map. Checks types and that the key type fits the curve; does not check the
    /// point is on the curve (``publicKey()`` does).
    package init(_ item: CBOR) throws {
        guard let map = item.map else { throw COSEError(.invalidKey, "COSE_Key is not a map") }
        guard let ktyValue = map.intValue(forKey: 1) ?? nil, let kty = KeyType(rawValue: ktyValue) else {
            throw COSEError(.invalidKey, "COSE_Key kty is missing or not EC2/OKP")
        }
        guard let crv = map.intValue(forKey: -1) ?? nil else { throw COSEError(.invalidKey, "COSE_Key crv is missing") }
        guard let curve = Self.curve(forIdentifier: crv) else {
            throw COSEError(.invalidKey, "COSE_Key crv \(crv) is not supported")
        }
        // The OKP curves are crv 4...7 (X25519, X448, Ed25519, Ed448; see curve(forIdentifier:)):
        // decided from the identifier, without an array of the four curves on every key.
        let isOKPCurve = (4...7).contains(crv)
        guard (kty == .okp) == isOKPCurve else {
            throw COSEError(.invalidKey, "COSE_Key kty \(kty) does not fit curve \(curve)")
        }
        guard let x = map.bytesValue(forKey: -2) ?? nil else { throw COSEError(.invalidKey, "COSE_Key x is missing") }
        self.keyType = kty
        self.curveIdentifier = crv
        self.curve = curve
        self.x = x
        if kty == .ec2 {
            if let y = map.bytesValue(forKey: -3) ?? nil {
                self.y = y
                self.ySign = nil
            } else if let sign = map[key: -3]?.bool {
                self.y = nil
                self.ySign = sign
            } else {
                throw COSEError(.invalidKey, "COSE_Key y is missing")
            }
        } else {
            self.y = nil
            self.ySign = nil
        }
    }

    /// The public key, validated (an EC point must lie on the curve).
    package func publicKey() throws -> PublicKey {
        switch keyType {
        case .okp:
            return try PublicKey(curve: curve, raw: Array(x))
        case .ec2:
            if let y {
                let n = curve.coordinateByteCount
                guard curve.kind == .weierstrass, x.count == n, y.count == n else {
                    // The checks and errors of the coordinates' initializer.
                    return try PublicKey(curve: curve, x: Array(x), y: Array(y))
                }
                // The same key built from one uncompressed point, without copying the
                // coordinates into arrays of their own first.
                var point: [UInt8] = []
                point.reserveCapacity(1 + 2 * n)
                point.append(0x04)
                point.append(contentsOf: x)
                point.append(contentsOf: y)
                return try PublicKey(curve: curve, sec1Point: point)
            }
            let prefix: UInt8 = (ySign ?? false) ? 0x03 : 0x02
            return try PublicKey(curve: curve, sec1Point: [prefix] + Array(x))
        }
    }

    /// The COSE_Key of a public key, for what we produce (EC2 uncompressed or OKP).
    package static func node(for key: PublicKey) throws -> CBORNode {
        guard let crv = identifier(for: key.curve) else {
            throw COSEError(.invalidKey, "no COSE curve identifier for \(key.curve)")
        }
        if let (x, y) = key.affineCoordinates {
            return .map([
                .init(.int(1), .int(KeyType.ec2.rawValue)), .init(.int(-1), .int(crv)),
                .init(.int(-2), .bytes(x)), .init(.int(-3), .bytes(y)),
            ])
        }
        if let raw = key.rawOKP {
            return .map([
                .init(.int(1), .int(KeyType.okp.rawValue)), .init(.int(-1), .int(crv)), .init(.int(-2), .bytes(raw)),
            ])
        }
        throw COSEError(.invalidKey, "the key has neither EC coordinates nor an OKP encoding")
    }
}
