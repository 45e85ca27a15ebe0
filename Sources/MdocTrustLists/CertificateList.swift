package import Foundation
package import MdocCBOR
package import MdocCrypto

/// Which signed certificate list: a VICAL, the issuers' roots (18013-5 Annex C), or a RICAL, the
/// readers' roots (18013-5 second edition Annex F). The two share the envelope and the entries;
/// they differ in where x5chain goes, a few field names, and what an entry is trusted for.
package struct CertificateListKind: Sendable, Hashable, CustomStringConvertible {
    /// "VICAL" or "RICAL", for messages and reports.
    package let name: String
    /// The key of the provider's name, of the issue number and of the list's own address.
    let providerKey: String
    let issueIDKey: String
    let urlKey: String
    /// Where the list's x5chain may be.
    let placement: SignedEnvelope.Placement
    /// Whether every entry must list the docTypes it may sign for (`docType: [+ DocType]`).
    let entriesNeedDocTypes: Bool
    /// The extended key usage the list signer must carry; `nil` where none is settled.
    package let signerExtendedKeyUsage: String?

    package var description: String { name }

    /// Verified Issuer Certificate Authority List (18013-5 Annex C): x5chain in either header,
    /// signer with id-mdl-kp-VICAL (1.0.18013.5.1.8, Annex C.1.7.2).
    package static let vical = CertificateListKind(
        name: "VICAL", providerKey: "vicalProvider", issueIDKey: "vicalIssueID", urlKey: "vicalURL", placement: .anyBucket,
        entriesNeedDocTypes: true, signerExtendedKeyUsage: "1.0.18013.5.1.8")
    /// Reader Issuer Certificate Authority List (18013-5 second edition Annex F): x5chain in the
    /// protected header; entries name a `type` instead of docTypes.
    package static let rical = CertificateListKind(
        name: "RICAL", providerKey: "provider", issueIDKey: "id", urlKey: "latestRicalUrl", placement: .protectedOnly,
        entriesNeedDocTypes: false, signerExtendedKeyUsage: nil)

    package static func == (lhs: Self, rhs: Self) -> Bool { lhs.name == rhs.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A VICAL or RICAL as received, decoded but not yet trusted: ``verify(anchors:at:)`` says
/// whether its signature, signer chain and signer profile hold at an instant.
///
/// ```
/// VICAL = { "version": tstr, "vicalProvider": tstr, "date": tdate, ? "vicalIssueID": uint,
///           ? "nextUpdate": tdate, "certificateInfos": [* CertificateInfo], ? "vicalURL": tstr,
///           ? "extensions": Extensions, * tstr => any }
/// ```
/// Unknown keys are kept (``otherFields``), never fatal. An entry that cannot be read is set
/// aside in ``rejectedEntries`` with its reason; the others stand.
package struct CertificateList: Sendable {
    package let kind: CertificateListKind
    /// The COSE_Sign1 with the signer's chain.
    package let envelope: SignedEnvelope
    package let version: String
    package let provider: String
    /// When the list was issued.
    package let date: Date
    package let issueID: UInt64?
    package let nextUpdate: Date?
    /// A RICAL's own end of validity.
    package let notAfter: Date?
    /// A RICAL's type (what its readers are trusted for).
    package let type: String?
    /// Where the newest list is published.
    package let url: String?
    package let extensions: CBORMap?
    package let otherFields: [ListField]
    package let entries: [CertificateListEntry]
    package let rejectedEntries: [RejectedEntry]

    /// An entry set aside, with the reason.
    package struct RejectedEntry: Sendable {
        /// Its position in certificateInfos.
        package let index: Int
        package let error: TrustListError
    }

    /// Decodes a list from its file's bytes. Throws when the file is over the size limit, is not
    /// a COSE_Sign1 with x5chain where `kind` requires it, or its payload lacks a required field.
    package init(decoding bytes: ArraySlice<UInt8>, kind: CertificateListKind, limits: TrustListLimits = .default)
        throws(TrustListError)
    {
        let item = try SignedEnvelope.decodeItem(
            bytes, maximumBytes: limits.maximumListBytes, limits: limits, tooLarge: .listTooLarge, malformed: .listMalformed,
            what: "the \(kind)")
        let envelope = try SignedEnvelope(
            item, placement: kind.placement, cwt: false, limits: limits, malformed: .listMalformed, what: "the \(kind)")
        let map = try envelope.payloadMap(
            maximumBytes: limits.maximumListBytes, limits: limits, malformed: .listMalformed, what: "the \(kind)'s payload")
        let reader = FieldReader(map: map, what: "the \(kind)", missing: .listMissingField, invalid: .listInvalidField)
        self.kind = kind
        self.envelope = envelope
        version = try reader.text("version")
        provider = try reader.text(kind.providerKey)
        date = try reader.date("date")
        issueID = try reader.optionalUnsigned(kind.issueIDKey)
        nextUpdate = try reader.optionalDate("nextUpdate")
        notAfter = kind == .rical ? try reader.optionalDate("notAfter") : nil
        type = kind == .rical ? try reader.optionalText("type") : nil
        url = try reader.optionalText(kind.urlKey)
        extensions = try reader.optionalMap("extensions")
        var known: Set<String> = ["version", kind.providerKey, "date", kind.issueIDKey, "nextUpdate", "certificateInfos", kind.urlKey, "extensions"]
        if kind == .rical { known.formUnion(["notAfter", "type"]) }
        otherFields = try reader.otherFields(known: known)

        let infos = try reader.array("certificateInfos")
        guard infos.count <= limits.maximumEntries else {
            throw TrustListError(
                .listLimitExceeded, "the \(kind) holds \(infos.count) certificateInfos, over the limit of \(limits.maximumEntries)")
        }
        var entries: [CertificateListEntry] = []
        var rejected: [RejectedEntry] = []
        for (index, info) in infos.enumerated() {
            do {
                entries.append(try CertificateListEntry(info, index: index, kind: kind, limits: limits))
            } catch {
                rejected.append(RejectedEntry(index: index, error: error))
            }
        }
        self.entries = entries
        self.rejectedEntries = rejected
    }

    /// The list's signature, its signer's chain to one of `anchors` and the signer's validity at
    /// `time`, and the signer's profile (its extended key usage, where ``kind`` requires one).
    package func verify(anchors: [Certificate], at time: Date) -> CertificateListVerification {
        CertificateListVerification(
            time: time, signature: envelope.verifySignature(), signer: SignerChain.validate(envelope.chain, roots: anchors, at: time),
            signerProfile: signerProfile(), isStale: nextUpdate.map { time > $0 } ?? false, isDatedAfterTime: date > time)
    }

    /// The signer's extended key usage, where ``kind`` requires one (Annex C.1.7.2).
    func signerProfile() -> Fact {
        guard let required = kind.signerExtendedKeyUsage else { return .holds }
        return SignerChain.extendedKeyUsage(of: envelope.signer, requires: required, role: "\(kind) signer")
    }
}

/// What ``CertificateList/verify(anchors:at:)`` established: each fact on its own, so that each
/// can become its own check.
package struct CertificateListVerification: Sendable {
    /// The instant judged.
    package let time: Date
    /// The signature over the payload as received.
    package let signature: Fact
    /// The signer's chain to the anchors and its validity at ``time``.
    package let signer: SignerValidation
    /// The signer's extended key usage.
    package let signerProfile: Fact
    /// The instant is past the list's nextUpdate: a newer list should exist. Not a failure.
    package let isStale: Bool
    /// The list was issued after the instant: it is not the list of that time. Not a failure.
    package let isDatedAfterTime: Bool

    /// Every failure: signature, chain, validity, profile.
    package var failures: [TrustListError] {
        [signature.failure].compactMap { $0 } + signer.failures + [signerProfile.failure].compactMap { $0 }
    }

    /// Whether the list can be trusted at ``time``: every fact holds.
    package var isTrusted: Bool { failures.isEmpty }
}
