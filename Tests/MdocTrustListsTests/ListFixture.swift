import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocSamples
import MdocTrustLists
import XCTest

/// A generated list provider and two issuing authorities, made once for the test process.
enum ListFixture {
    /// The instant the tests judge at: inside every validity period below.
    static let time = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z
    static let start = time.addingTimeInterval(-30 * 86_400)

    static let provider = make { try ListSigner(name: "Utopia Trust", notBefore: start) }
    static let alpha = make { try IssuingAuthority(curve: .p256, profile: .init(notBefore: start), name: "Alpha") }
    static let beta = make { try IssuingAuthority(curve: .p256, profile: .init(notBefore: start), name: "Beta") }
    /// Alpha's status signer, issued by Alpha's IACA.
    static let statusSigner = make {
        try ListSigner(issuedBy: alpha.iaca, issuerKey: alpha.iacaKey, name: "Alpha Status", notBefore: start, validityDays: 365)
    }
    static let statusURI = "https://status.example.invalid/alpha/1"

    static func make<T>(_ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            fatalError("the test PKI could not be made: \(error)")
        }
    }

    /// A list of `kind` naming Alpha's and Beta's IACAs.
    static func list(_ kind: CertificateListKind) -> SampleCertificateList {
        var alphaEntry = SampleCertificateList.Entry(certificate: alpha.iaca)
        alphaEntry.stateOrProvinceName = "UT-N"
        var betaEntry = SampleCertificateList.Entry(certificate: beta.iaca)
        betaEntry.docTypes = ["org.iso.18013.5.1.mDL", "org.iso.23220.photoid.1"]
        var list = SampleCertificateList(kind: kind, date: time.addingTimeInterval(-86_400), entries: [alphaEntry, betaEntry])
        list.nextUpdate = time.addingTimeInterval(6 * 86_400)
        list.url = "https://trust.example.invalid/list.cbor"
        return list
    }

    /// `list` signed by the fixture's provider (or `signer`).
    static func signed(_ list: SampleCertificateList, by signer: ListSigner = provider) throws -> [UInt8] {
        try list.signed(by: signer)
    }

    /// The COSE_Sign1 of a list with `payload` in place of a sample list's, signed by the provider.
    static func signed(payload: CBORNode, x5chainInProtected: Bool = false) throws -> [UInt8] {
        let x5chain = CBORNode.Entry(.int(33), .bytes(provider.certificate.der))
        return try COSESign1.sign(
            payload: payload.encoded(), key: provider.key, protected: x5chainInProtected ? [x5chain] : [],
            unprotected: x5chainInProtected ? [] : [x5chain], tagged: false)
    }

    /// A status list token of Alpha's signer: issued at `time` minus an hour, valid a day,
    /// entries 0 valid, 1 revoked, 2 suspended, 3 application-specific, then valid.
    static func statusToken(uri: String = statusURI, issuedAt: Date = time.addingTimeInterval(-3_600)) -> SampleStatusToken {
        SampleStatusToken(uri: uri, issuedAt: issuedAt, validFor: 86_400, content: .statusList(bits: 2, values: [0, 1, 2, 3] + Array(repeating: 0, count: 96)))
    }

    /// A CWT with these claims and protected typ (none when `nil`), signed by Alpha's status
    /// signer with x5chain in the protected header (or none).
    static func token(claims: CBORNode, typ: String?, x5chain: Bool = true) throws -> [UInt8] {
        var protected: [CBORNode.Entry] = typ.map { [.init(16, .text($0))] } ?? []
        if x5chain { protected.append(.init(33, .bytes(statusSigner.certificate.der))) }
        return try COSESign1.sign(payload: claims.encoded(), key: statusSigner.key, protected: protected, tagged: true)
    }

    /// The error code `body` throws, or `nil`.
    static func code(_ body: () throws -> Void) -> TrustListError.Code? {
        do {
            try body()
            return nil
        } catch let error as TrustListError {
            return error.code
        } catch {
            XCTFail("not a TrustListError: \(error)")
            return nil
        }
    }
}
