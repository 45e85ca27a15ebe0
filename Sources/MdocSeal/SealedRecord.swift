package import MdocCrypto

/// A record's identity: SHA-256 of its sealed bytes, as sent and as stored.
package struct RecordHash: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Length of the digest in bytes.
    package static let byteCount = 32

    package let bytes: [UInt8]

    /// `nil` unless `bytes` is 32 bytes long.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// The hash of sealed bytes.
    package init(of sealed: some Collection<UInt8>) {
        self.bytes = HashFunction.sha256.hash(sealed)
    }

    /// From 64 lower- or upper-case hex digits (a `<sha256>.cose` file name).
    package init?(hex: some StringProtocol) {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * Self.byteCount else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(Self.byteCount)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        self.bytes = out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Lower-case hex.
    package var hex: String { hexString(bytes) }
    package var description: String { hex }
    package static func < (lhs: RecordHash, rhs: RecordHash) -> Bool { lhs.bytes.lexicographicallyPrecedes(rhs.bytes) }
}

/// One sealed record: a COSE_Encrypt (tag 96) to the centre's sealing key holding the kiosk's
/// COSE_Sign1 over the ``RecordContent``.
package struct SealedRecord: Sendable, Equatable {
    package let bytes: [UInt8]
    package let hash: RecordHash
    package let kiosk: KioskID
    package let sequence: UInt64

    package init(bytes: [UInt8], kiosk: KioskID, sequence: UInt64) {
        self.bytes = bytes
        self.hash = RecordHash(of: bytes)
        self.kiosk = kiosk
        self.sequence = sequence
    }
}

/// The centre's sealing key as a kiosk knows it: the public key of the centre's sealing
/// certificate and the key id that names it in each record.
package struct SealingRecipient: Sendable {
    package let publicKey: PublicKey
    package let keyID: [UInt8]

    package init(publicKey: PublicKey) {
        self.publicKey = publicKey
        self.keyID = Self.keyID(for: publicKey)
    }

    package init(certificate: Certificate) { self.init(publicKey: certificate.publicKey) }

    /// A recipient named by a key id of the caller's choosing.
    package init(publicKey: PublicKey, keyID: [UInt8]) {
        self.publicKey = publicKey
        self.keyID = keyID
    }

    /// The key id of a sealing key: SHA-256 of its SubjectPublicKeyInfo (RFC 5280 §4.1.2.7),
    /// so the kiosk (from the certificate) and the centre (from the private key) agree on it.
    package static func keyID(for key: PublicKey) -> [UInt8] {
        HashFunction.sha256.hash(key.subjectPublicKeyInfoDER)
    }
}
