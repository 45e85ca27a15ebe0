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
