import Foundation
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocPipeline
import MdocSamples
import MdocStore
import MdocTestSupport
import XCTest

/// A report store filled by the real pipeline (Orchestrator) from generated transactions with
/// known outcomes, and a second run under a CRL that revokes one Document Signer.
///
/// Three issuing authorities: `Alpha` (revoked in the second run), `Beta`, and `Gamma` whose DS
/// certificate expires 25 days after the verification time. Eight transactions:
///
/// | name | authority | defect | source | captured | verdict at capture / now (run 1) |
/// |---|---|---|---|---|---|
/// | a1 | Alpha | — | kiosk-01 | t−3 d | valid / valid |
/// | a2 | Alpha | — | kiosk-01 | t−2 d | valid / valid |
/// | a3 | Alpha | — | kiosk-02 | t−2 d | valid / valid |
/// | a4 | Alpha | tamperedElement (`mso.digest`) | kiosk-02 | t−1 d | invalid / invalid |
/// | b1 | Beta | — | kiosk-01 | t−3 d | valid / valid |
/// | b2 | Beta | expiredMSO (`mso.validity`, now only) | kiosk-02 | t−3 d | valid / invalid |
/// | b3 | Beta | — | `<script>` (hostile) | none | — / valid |
/// | c1 | Gamma | — (two scans: one kept, one re-encoded) | kiosk-03 | t−1 d | valid / valid |
///
/// Run 2 revokes Alpha's DS (5 days before t): a1, a2, a3 go from valid to invalid
/// (`issuer.revocation`); a4 stays invalid.
struct ReportFixture {
    static let t = Scenario.verificationTime  // 2026-05-28T20:26:40Z
    static let hostileSource = "<script>alert(\"x\")</script>, \"kiosk\""

    let root: String
    let inputs: String
    let trust: String
    let revokedTrust: String
    let out: String
    var database: String { "\(out)/mdocverify.sqlite" }
    let authorities: [String: IssuingAuthority]

    /// Writes the bundles and both trust folders under a new temporary folder.
    init() throws {
        root = NSTemporaryDirectory() + "mdocverify-reports-\(UUID().uuidString)"
        inputs = "\(root)/in"
        trust = "\(root)/trust"
        revokedTrust = "\(root)/trust-revoked"
        out = "\(root)/out"
        let t = Self.t
        let start = t.addingTimeInterval(-100 * 86_400)
        var gammaProfile = IssuingAuthority.Profile(notBefore: start)
        gammaProfile.dsNotBefore = t.addingTimeInterval(-340 * 86_400)
        gammaProfile.iacaNotBefore = t.addingTimeInterval(-340 * 86_400)
        let alpha = try IssuingAuthority(curve: .p256, profile: .init(notBefore: start), name: "Alpha")
        let beta = try IssuingAuthority(curve: .p256, profile: .init(notBefore: start), name: "Beta")
        let gamma = try IssuingAuthority(curve: .p256, profile: gammaProfile, name: "Gamma")
        authorities = ["a": alpha, "b": beta, "c": gamma]

        let day = 86_400.0
        let plan: [(String, IssuingAuthority, SampleDefect?, String, Date?)] = [
            ("a1", alpha, nil, "kiosk-01", t - 3 * day),
            ("a2", alpha, nil, "kiosk-01", t - 2 * day),
            ("a3", alpha, nil, "kiosk-02", t - 2 * day),
            ("a4", alpha, .tamperedElement, "kiosk-02", t - 1 * day),
            ("b1", beta, nil, "kiosk-01", t - 3 * day),
            ("b2", beta, .expiredMSO, "kiosk-02", t - 3 * day),
            ("b3", beta, nil, Self.hostileSource, nil),
            ("c1", gamma, nil, "kiosk-03", t - 1 * day),
        ]
        for (name, authority, defect, source, captured) in plan {
            var files = try Self.bundle(id: name, authority: authority, defect: defect, source: source, capturedAt: captured)
            if name == "c1" {
                files["documents/front.jpg"] = try SyntheticScan.jpeg(.textDocument, megapixels: 1.5, quality: 95, seed: 7)
                files["documents/back.jpg"] = try SyntheticScan.jpeg(.photo, megapixels: 0.05, quality: 80, seed: 8)
                files["documents/manifest.json"] = Array("""
                    [{"id": "f", "file": "front.jpg", "type": "driversLicense", "side": "front"},
                     {"id": "b", "file": "back.jpg", "type": "driversLicense", "side": "back"}]
                    """.utf8)
            }
            try writeBundle(files, to: "\(inputs)/\(name)")
        }

        // Trust folders: every IACA with an empty CRL; the second one revokes Alpha's DS.
        for (folder, revoke) in [(trust, false), (revokedTrust, true)] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for (key, authority) in authorities.sorted(by: { $0.key < $1.key }) {
                try Data(authority.iaca.pem.utf8).write(to: URL(fileURLWithPath: "\(folder)/iaca-\(key).pem"))
                let revoked = revoke && key == "a" ? [(authority.ds.serialNumberHex, t - 5 * day)] : []
                let crl = try authority.crl(revoking: revoked, thisUpdate: t - 4 * day, nextUpdate: t + 30 * day)
                try Data(crl.pem.utf8).write(to: URL(fileURLWithPath: "\(folder)/iaca-\(key).crl"))
            }
        }
    }

    /// Removes the temporary folder.
    func remove() {
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Runs the pipeline over every bundle (the first or the revoking trust folder); returns the run id.
    @discardableResult
    func run(revoked: Bool = false, keepValues: Bool = false) async throws -> String {
        var configuration = RunConfiguration(inputs: [inputs], trustDirectory: revoked ? revokedTrust : trust, outDirectory: out)
        configuration.verificationTime = Self.t
        configuration.jobs = 2
        configuration.keepValues = keepValues
        configuration.imageLimit = 150_000
        let orchestrator = try Orchestrator(configuration: configuration)
        let result = try await orchestrator.run { _ in }
        return result.runID
    }

    /// A transaction bundle: an mDL signed by `authority` with `defect` planted, its
    /// SessionTranscript and reader key, and a transaction.json.
    static func bundle(
        id: String, authority: IssuingAuthority, defect: SampleDefect?, source: String, capturedAt: Date?
    ) throws -> [String: [UInt8]] {
        let t = Self.t
        let eDeviceKey = try PrivateKey.generate(curve: .p256)
        let readerKey = try PrivateKey.generate(curve: .p256)
        let engagement = CBORNode.map([
            .init(.int(0), .text("1.0")),
            .init(.int(1), .array([.int(1), .embedded(try COSEKey.node(for: eDeviceKey.publicKey))])),
        ]).encoded()
        let transcript = try SessionTranscript(
            deviceEngagementBytes: CBORNode.embedded(raw: engagement[...]).encoded()[...],
            eReaderKeyBytes: CBORNode.embedded(try COSEKey.node(for: readerKey.publicKey)).encoded()[...])
        var spec = DocumentSpec(
            disclosed: Scenario.elements, signed: t.addingTimeInterval(-10 * 86_400),
            deviceKey: try PrivateKey.generate(curve: .p256))
        spec.expectedUpdate = t.addingTimeInterval(200 * 86_400)
        if let defect { defect.apply(to: &spec, verificationTime: t, authority: authority) }
        let document = try MdocIssuer.document(spec, authority: authority, transcript: transcript)
        let response = MdocIssuer.deviceResponse(documents: [document])
        return try Scenario.bundleFiles(
            id: id, source: source, capturedAt: capturedAt, response: response, transcript: transcript, readerKey: readerKey)
    }
}
