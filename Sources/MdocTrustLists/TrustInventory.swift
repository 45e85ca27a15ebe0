package import Foundation
package import MdocCrypto

/// What is trusted at one instant, and from where: the certificates of a trust folder (for any
/// docType) and the entries of each VICAL or RICAL whose signature, signer chain and signer
/// profile hold at that instant (each for the docTypes its entry lists). A list that does not
/// hold is refused as a whole, with its failures; an entry that cannot be read is refused alone.
package struct TrustInventory: Sendable {
    /// Where a trusted certificate comes from.
    package enum Source: Sendable, Hashable {
        /// A trust folder (`--trust`).
        case folder(path: String)
        /// A signed list: its file, kind, provider, issue number and date.
        case list(path: String, kind: CertificateListKind, provider: String, issueID: UInt64?, date: Date)
    }

    /// A trusted certificate.
    package struct Anchor: Sendable {
        package let certificate: Certificate
        package let source: Source
        /// The docTypes it is trusted for; `nil` for any (a folder's certificates).
        package let docTypes: [String]?
        /// What the list says of it (an entry's issuingCountry and stateOrProvinceName).
        package let issuingCountry: String?
        package let stateOrProvinceName: String?
    }

    /// A list, or an entry of a list, that is not trusted, with why.
    package struct Refusal: Sendable {
        /// The list's file.
        package let path: String
        package let kind: CertificateListKind
        /// The list's source, when it could be read.
        package let source: Source?
        /// The entry refused; `nil` when the whole list is.
        package let entry: Int?
        package let failures: [TrustListError]
    }

    /// The instant judged.
    package let time: Date
    package private(set) var anchors: [Anchor] = []
    package private(set) var refusals: [Refusal] = []

    package init(time: Date) { self.time = time }

    /// Adds a trust folder's certificates, trusted for any docType.
    package mutating func addFolder(path: String, certificates: [Certificate]) {
        for certificate in certificates {
            anchors.append(Anchor(certificate: certificate, source: .folder(path: path), docTypes: nil, issuingCountry: nil, stateOrProvinceName: nil))
        }
    }

    /// Decodes and verifies the list in `bytes` against `listAnchors` (the provider's roots) at
    /// ``time``; adds its entries when it holds, a refusal otherwise.
    package mutating func addList(
        path: String, bytes: ArraySlice<UInt8>, kind: CertificateListKind, listAnchors: [Certificate],
        limits: TrustListLimits = .default
    ) {
        let list: CertificateList
        do {
            list = try CertificateList(decoding: bytes, kind: kind, limits: limits)
        } catch {
            refusals.append(Refusal(path: path, kind: kind, source: nil, entry: nil, failures: [error]))
            return
        }
        let source = Source.list(path: path, kind: kind, provider: list.provider, issueID: list.issueID, date: list.date)
        let verification = list.verify(anchors: listAnchors, at: time)
        guard verification.isTrusted else {
            refusals.append(Refusal(path: path, kind: kind, source: source, entry: nil, failures: verification.failures))
            return
        }
        for entry in list.entries {
            anchors.append(
                Anchor(
                    certificate: entry.certificate, source: source, docTypes: kind == .vical ? entry.docTypes : nil,
                    issuingCountry: entry.issuingCountry, stateOrProvinceName: entry.stateOrProvinceName))
        }
        for rejected in list.rejectedEntries {
            refusals.append(Refusal(path: path, kind: kind, source: source, entry: rejected.index, failures: [rejected.error]))
        }
    }
}
