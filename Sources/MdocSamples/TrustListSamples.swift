import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocTrustLists

/// The signer of a sample list or token and the root it chains to: a list provider (root and a
/// VICAL or RICAL signer with its extended key usage), or a status signer issued by an IACA.
package struct ListSigner: Sendable {
    /// The root: the list provider's anchor, or the IACA that issued a status signer.
    package let root: Certificate
    package let key: PrivateKey
    package let certificate: Certificate

    /// A new list provider: a root CA and a signer it issues, valid from `notBefore` for
    /// `validityDays`, with `extendedKeyUsage` (18013-5 Annex C.1.7.2 gives 1.0.18013.5.1.8 for a
    /// VICAL signer; pass another to make a signer with the wrong one, none for none).
    package init(
        name: String, notBefore: Date, validityDays: Int = 730, extendedKeyUsage: [String] = ["1.0.18013.5.1.8"],
        curve: Curve = .p256
    ) throws {
        let rootKey = try PrivateKey.generate(curve: curve)
        var rootBuilder = CertificateBuilder(
            subject: [("C", "UT"), ("O", name), ("CN", "\(name) Root")], serialNumber: IssuingAuthority.serial(),
            notBefore: notBefore, notAfter: notBefore.addingTimeInterval(Double(validityDays) * 2 * 86_400),
            publicKey: rootKey.publicKey)
        rootBuilder.basicConstraints = (isCA: true, pathLength: 0, critical: true)
        rootBuilder.keyUsage = ([.keyCertSign, .cRLSign], critical: true)
        let root = try rootBuilder.sign(issuer: nil, issuerKey: rootKey, hash: IssuingAuthority.certificateHash(for: curve))
        try self.init(
            issuedBy: root, issuerKey: rootKey, name: "\(name) Signer", notBefore: notBefore, validityDays: validityDays,
            extendedKeyUsage: extendedKeyUsage)
    }

    /// A signer issued by `issuer` (a status list signer under a document's IACA: 18013-5 second
    /// edition §12.3.6 asks no extended key usage of it).
    package init(
        issuedBy issuer: Certificate, issuerKey: PrivateKey, name: String, notBefore: Date, validityDays: Int,
        extendedKeyUsage: [String] = []
    ) throws {
        let key = try PrivateKey.generate(curve: issuerKey.curve)
        var builder = CertificateBuilder(
            subject: [("C", issuer.subject.countryName ?? "UT"), ("CN", name)], serialNumber: IssuingAuthority.serial(),
            notBefore: notBefore, notAfter: notBefore.addingTimeInterval(Double(validityDays) * 86_400), publicKey: key.publicKey)
        builder.keyUsage = (.digitalSignature, critical: true)
        if !extendedKeyUsage.isEmpty { builder.extendedKeyUsage = (extendedKeyUsage, critical: true) }
        builder.authorityKeyIdentifier = true
        let certificate = try builder.sign(issuer: issuer, issuerKey: issuerKey, hash: IssuingAuthority.certificateHash(for: key.curve))
        self.init(root: issuer, key: key, certificate: certificate)
    }

    package init(root: Certificate, key: PrivateKey, certificate: Certificate) {
        self.root = root
        self.key = key
        self.certificate = certificate
    }

    /// x5chain (label 33) naming this signer: its certificate as one byte string (RFC 9360).
    var x5chain: CBORNode { .bytes(certificate.der) }

    /// A COSE_Sign1 over `payload` by this signer, x5chain in the protected header or not, with
    /// `protected` entries added to the protected header.
    func sign(payload: [UInt8], protected: [CBORNode.Entry], x5chainInProtected: Bool, tagged: Bool) throws -> [UInt8] {
        let x5chain = CBORNode.Entry(.int(COSEHeaders.Label.x5chain), self.x5chain)
        return try COSESign1.sign(
            payload: payload, key: key, protected: protected + (x5chainInProtected ? [x5chain] : []),
            unprotected: x5chainInProtected ? [] : [x5chain], tagged: tagged)
    }
}

/// A sample VICAL or RICAL (18013-5 Annex C; second edition Annex F), for the tests and samples.
package struct SampleCertificateList: Sendable {
    /// One certificateInfo.
    package struct Entry: Sendable {
        package var certificate: Certificate
        package var docTypes: [String] = ["org.iso.18013.5.1.mDL"]
        package var issuingCountry: String? = "UT"
        package var stateOrProvinceName: String?
        /// Further fields, written as given (unknown keys a verifier must keep).
        package var extraFields: [CBORNode.Entry] = []

        package init(certificate: Certificate) { self.certificate = certificate }
    }

    package var kind: CertificateListKind
    package var provider = "Utopia Trust Services"
    package var date: Date
    package var issueID: UInt64? = 1
    package var nextUpdate: Date?
    package var url: String?
    package var entries: [Entry]
    /// Further top-level fields, written as given.
    package var extraFields: [CBORNode.Entry] = []
    /// Where x5chain goes; by default the kind's own place (unprotected for a VICAL, as
    /// Annex C does; protected for a RICAL).
    package var x5chainInProtected: Bool?
    package var tagged = false

    package init(kind: CertificateListKind, date: Date, entries: [Entry]) {
        self.kind = kind
        self.date = date
        self.entries = entries
    }

    /// The payload map.
    package var payload: CBORNode {
        let rical = kind == .rical
        var fields: [CBORNode.Entry] = [
            .init("version", "1.0"), .init(.text(rical ? "provider" : "vicalProvider"), .text(provider)),
            .init("date", MdocIssuer.tdate(date)),
            .init("certificateInfos", .array(entries.map { entry(for: $0, rical: rical) })),
        ]
        if let issueID { fields.append(.init(.text(rical ? "id" : "vicalIssueID"), .unsigned(issueID))) }
        if let nextUpdate { fields.append(.init("nextUpdate", MdocIssuer.tdate(nextUpdate))) }
        if let url { fields.append(.init(.text(rical ? "latestRicalUrl" : "vicalURL"), .text(url))) }
        return .map(fields + extraFields)
    }

    func entry(for entry: Entry, rical: Bool) -> CBORNode {
        let certificate = entry.certificate
        var fields: [CBORNode.Entry] = [
            .init("certificate", .bytes(certificate.der)),
            .init("serialNumber", .tagged(2, .bytes(bytesFromHex(certificate.serialNumberHex) ?? []))),
            .init("ski", .bytes(certificate.subjectKeyIdentifier ?? [])),
            .init("notBefore", MdocIssuer.tdate(certificate.notBefore)), .init("notAfter", MdocIssuer.tdate(certificate.notAfter)),
        ]
        if !rical { fields.append(.init("docType", .array(entry.docTypes.map { .text($0) }))) }
        if let country = entry.issuingCountry { fields.append(.init("issuingCountry", .text(country))) }
        if let state = entry.stateOrProvinceName { fields.append(.init("stateOrProvinceName", .text(state))) }
        return .map(fields + entry.extraFields)
    }

    /// The list signed by `signer`.
    package func signed(by signer: ListSigner) throws -> [UInt8] {
        try signer.sign(
            payload: payload.encoded(), protected: [], x5chainInProtected: x5chainInProtected ?? (kind == .rical), tagged: tagged)
    }
}
