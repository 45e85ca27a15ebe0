import Foundation
import MdocCBOR
import MdocChecks
import MdocCrypto
import MdocSamples
import MdocTestSupport
import MdocTrust
import MdocTrustLists
import MdocVerification
import XCTest

/// Signed lists and status tokens for the check tests: a VICAL provider (and a stranger, and one
/// whose signer lacks the VICAL EKU), and a scenario's IACA trusted from a VICAL only.
enum TrustListFixture {
    static let time = Scenario.verificationTime
    static let start = time.addingTimeInterval(-100 * 86_400)
    static let mDL = "org.iso.18013.5.1.mDL"
    static let statusURI = "https://status.example.invalid/utopia/1"
    static let identifierURI = "https://status.example.invalid/utopia/ids"

    static let provider = make { try ListSigner(name: "Utopia Trust", notBefore: start) }
    static let stranger = make { try ListSigner(name: "Stranger Trust", notBefore: start) }
    static let wrongEKU = make { try ListSigner(name: "DS-EKU Trust", notBefore: start, extendedKeyUsage: ["1.0.18013.5.1.2"]) }
    /// A provider whose signer ended four days before ``time`` (valid five days before it).
    static let expiring = make { try ListSigner(name: "Short Trust", notBefore: time.addingTimeInterval(-50 * 86_400), validityDays: 46) }

    static func make<T>(_ body: () throws -> T) -> T {
        do {
            return try body()
        } catch {
            fatalError("the test PKI could not be made: \(error)")
        }
    }

    /// A VICAL naming `iaca` for `docTypes`, signed by `signer` (the last byte of its signature
    /// changed when `tampered`), loaded against `anchors` (the signer's own root by default).
    static func vical(
        listing iaca: Certificate, docTypes: [String] = [mDL], signer: ListSigner = provider, anchors: [Certificate]? = nil,
        tampered: Bool = false
    ) throws -> LoadedCertificateList {
        var entry = SampleCertificateList.Entry(certificate: iaca)
        entry.docTypes = docTypes
        var list = SampleCertificateList(kind: .vical, date: start, entries: [entry])
        list.provider = "Utopia Trust Services"
        var bytes = try list.signed(by: signer)
        if tampered, let last = bytes.indices.last { bytes[last] ^= 0x01 }
        return try LoadedCertificateList(path: "utopia.vical", bytes: bytes[...], kind: .vical, anchors: anchors ?? [signer.root])
    }

    /// `scenario`'s trust with its IACA trusted from `vical` alone (and from the folder too when
    /// `alsoInFolder`).
    static func trust(_ scenario: Scenario, from vical: LoadedCertificateList, alsoInFolder: Bool = false) -> TrustStore {
        let folder = TrustStore(anchors: alsoInFolder ? scenario.trust.anchors : [], crls: scenario.trust.crls, origin: "trust/")
        let listed = vical.list.entries.map {
            (certificate: $0.certificate, origin: AnchorOrigin(source: vical.label, docTypes: $0.docTypes, list: vical.sha256))
        }
        return folder.adding(listed: listed, material: ["vical:" + hexString(vical.sha256)])
    }

    /// `scenario` verified with `trust` and `lists`, at ``time`` (and `captureTime`).
    static func verify(
        _ scenario: Scenario, trust: TrustStore? = nil, lists: RunTrustLists = .none, at time: Date = time,
        captureTime: Date? = nil
    ) -> ResponseVerification {
        Verifier(trust: trust ?? scenario.trust, lists: lists, verificationTime: time)
            .verifyResponse(scenario.response, captureTime: captureTime, transcript: scenario.transcript, readerKey: scenario.readerKey)
    }

    /// A status signer issued by `authority`'s IACA.
    static func statusSigner(_ authority: IssuingAuthority) throws -> ListSigner {
        try ListSigner(issuedBy: authority.iaca, issuerKey: authority.iacaKey, name: "Utopia Status", notBefore: start, validityDays: 365)
    }

    /// A status list token for ``statusURI`` issued at `issuedAt`, valid a day, with `values`.
    static func statusToken(values: [UInt8], issuedAt: Date = time.addingTimeInterval(-3_600), uri: String = statusURI) -> SampleStatusToken {
        SampleStatusToken(uri: uri, issuedAt: issuedAt, validFor: 86_400, content: .statusList(bits: 2, values: values))
    }

    /// A status folder of `files` (name and bytes), with the fetch origins given.
    static func folder(_ files: [String: [UInt8]], origins: [String: String] = [:], in temporary: TemporaryFolder) throws -> StatusFolder {
        for (name, bytes) in files { try temporary.write(name, bytes) }
        return try StatusFolder(directory: temporary.path, origins: origins)
    }
}

extension Array where Element == CheckResult {
    /// The ids of the failed results.
    var failingIDs: Set<CheckID> { Set(filter { $0.status == .fail }.map(\.id)) }
}
