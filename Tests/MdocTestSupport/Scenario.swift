import Foundation
package import MdocCBOR
import MdocCOSE
package import MdocCrypto
package import MdocModel
import MdocSamples
import MdocTime
package import MdocTrust
package import MdocVerification

/// A generated transaction for tests: a fresh PKI on `curve`, one mDL, and everything needed to
/// verify it, with an optional planted defect.
package struct Scenario {
    package static let verificationTime = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28T20:26:40Z

    package let response: [UInt8]
    package let trust: TrustStore
    package let transcript: SessionTranscript
    package let readerKey: PrivateKey
    package let authority: IssuingAuthority

    /// `authorityProfile` and `document` adjust the certificates and the mDL (an MSO status, other
    /// elements) before they are made.
    package init(
        curve: Curve = .p256, defect: SampleDefect? = nil, deviceAuthMac: Bool = false,
        authorityProfile: (inout IssuingAuthority.Profile) -> Void = { _ in }, document: (inout DocumentSpec) -> Void = { _ in }
    ) throws {
        let t = Self.verificationTime
        var profile = IssuingAuthority.Profile(notBefore: t.addingTimeInterval(-100 * 86_400))
        authorityProfile(&profile)
        if let defect, defect.needsOwnAuthority { defect.apply(to: &profile, verificationTime: t) }
        let authority = try IssuingAuthority(curve: curve, profile: profile)
        self.authority = authority

        // The trust folder: the authority's IACA, or a stranger's when the DS must not chain.
        var anchors = [authority.iaca]
        var crls: [CRL] = []
        if defect == .dsNotChained {
            anchors = [try IssuingAuthority(curve: curve, profile: IssuingAuthority.Profile(notBefore: profile.iacaNotBefore)).iaca]
        }
        if defect == .revokedDS {
            crls = [try authority.crl(
                revoking: [(authority.ds.serialNumberHex, t.addingTimeInterval(-5 * 86_400))],
                thisUpdate: t.addingTimeInterval(-4 * 86_400), nextUpdate: t.addingTimeInterval(30 * 86_400))]
        } else {
            crls = [try authority.crl(revoking: [], thisUpdate: t.addingTimeInterval(-4 * 86_400), nextUpdate: t.addingTimeInterval(30 * 86_400))]
        }
        self.trust = TrustStore(anchors: anchors, crls: crls)

        // Session: engagement with an ephemeral device key, reader ephemeral key, QR handover (null).
        let deviceCurve: Curve = (curve == .ed25519 || curve == .ed448) ? .p256 : curve
        let eDeviceKey = try PrivateKey.generate(curve: deviceCurve)
        let readerKey = try PrivateKey.generate(curve: deviceCurve)
        let engagement = CBORNode.map([
            .init(.int(0), .text("1.0")),
            .init(.int(1), .array([.int(1), .embedded(try COSEKey.node(for: eDeviceKey.publicKey))])),
        ]).encoded()
        let engagementBytes = CBORNode.embedded(raw: engagement[...]).encoded()
        let readerKeyBytes = CBORNode.embedded(try COSEKey.node(for: readerKey.publicKey)).encoded()
        self.transcript = try SessionTranscript(deviceEngagementBytes: engagementBytes[...], eReaderKeyBytes: readerKeyBytes[...])
        self.readerKey = readerKey

        // The mDL.
        let deviceKey = try PrivateKey.generate(curve: deviceCurve)
        var spec = DocumentSpec(disclosed: Self.elements, signed: t.addingTimeInterval(-10 * 86_400), deviceKey: deviceKey)
        spec.undisclosed = [SampleElement("org.iso.18013.5.1", "resident_address", .text("1 Main St"))]
        spec.expectedUpdate = t.addingTimeInterval(200 * 86_400)
        spec.authorizedNameSpaces = ["org.iso.18013.5.1.aamva"]
        if deviceAuthMac { spec.deviceAuth = .mac(readerEphemeralPublicKey: readerKey.publicKey) }
        if let defect { defect.apply(to: &spec, verificationTime: t, authority: authority) }
        document(&spec)
        let issued = try MdocIssuer.document(spec, authority: authority, transcript: transcript)
        self.response = MdocIssuer.deviceResponse(documents: [issued], status: defect == .errorStatus ? 10 : 0)
    }

    package static let elements: [SampleElement] = [
        SampleElement("org.iso.18013.5.1", "family_name", .text("Doe")),
        SampleElement("org.iso.18013.5.1", "given_name", .text("Jane")),
        SampleElement("org.iso.18013.5.1", "birth_date", MdocIssuer.fullDate(Date(timeIntervalSince1970: 0))),
        SampleElement("org.iso.18013.5.1", "document_number", .text("D1234567")),
        SampleElement("org.iso.18013.5.1", "age_over_18", .bool(true)),
        SampleElement("org.iso.18013.5.1", "portrait", .bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10])),
    ]

    package func verify(at time: Date = Scenario.verificationTime, captureTime: Date? = nil, withTranscript: Bool = true) -> ResponseVerification {
        Verifier(trust: trust, verificationTime: time).verifyResponse(
            response, captureTime: captureTime, transcript: withTranscript ? transcript : nil, readerKey: readerKey)
    }
}

extension Scenario {
    /// The files of a transaction bundle for this scenario: the response, the transcript, the
    /// reader key and a transaction.json.
    package func bundleFiles(id: String, capturedAt: Date? = nil, source: String = "kiosk-01") throws -> [String: [UInt8]] {
        try Self.bundleFiles(
            id: id, source: source, capturedAt: capturedAt, response: response, transcript: transcript, readerKey: readerKey)
    }

    /// The files of a transaction bundle: `response`, `transcript`, the reader key and a
    /// transaction.json whose text fields are JSON-encoded (any source name, hostile ones too).
    package static func bundleFiles(
        id: String, source: String, capturedAt: Date?, response: [UInt8], transcript: SessionTranscript, readerKey: PrivateKey
    ) throws -> [String: [UInt8]] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        func text(_ value: String) throws -> String { String(decoding: try encoder.encode(value), as: UTF8.self) }
        var json = "{\"id\": \(try text(id)), \"source\": \(try text(source))"
        if let capturedAt { json += ", \"capturedAt\": \"\(RFC3339.format(capturedAt))\"" }
        json += "}"
        return [
            "transaction.json": Array(json.utf8),
            "device-response.cbor": response,
            "session-transcript.cbor": transcript.bytes,
            "reader-key.pem": Array(try readerKey.pkcs8PEM().utf8),
        ]
    }

    /// Writes the trust folder (IACA PEM + CRLs) to `directory`.
    package func writeTrust(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (i, anchor) in trust.anchors.enumerated() {
            try Data(anchor.pem.utf8).write(to: URL(fileURLWithPath: "\(directory)/iaca-\(i).pem"))
        }
        for (i, crl) in trust.crls.enumerated() {
            try Data(crl.pem.utf8).write(to: URL(fileURLWithPath: "\(directory)/iaca-\(i).crl"))
        }
    }
}

/// Writes bundle files under `directory/name/`.
package func writeBundle(_ files: [String: [UInt8]], to directory: String) throws {
    for (path, bytes) in files {
        let url = URL(fileURLWithPath: directory).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }
}
