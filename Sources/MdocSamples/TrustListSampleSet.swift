import Foundation
import MdocCrypto
import MdocFiles

/// The signed-lists example (`mdocverify sample --trust-lists`): three transactions, a VICAL in
/// two issues (the second drops the IACA of the third), and the status list tokens of the first
/// two documents' MSOs (one document revoked since its capture).
///
/// - `status-00001`, `status-00002`: P-256, each MSO naming its entry of the status list at
///   ``statusURI``. The older token (covering the capture times) has both valid; the newer one
///   (covering the verification time) has the second revoked.
/// - `vical-00001`: P-384, its IACA listed in `vical/issue-1.vical` and not in `issue-2.vical`.
/// - `trust/`: the P-256 IACA with its CRL, and the P-384 IACA's CRL (that IACA is trusted from
///   the VICAL only);
///   `vical/provider-root.pem`: the VICAL provider's root; `status/`: the two tokens.
package struct TrustListSampleSet: Sendable {
    package static let statusURI = "https://status.example.invalid/utopia/p256"
    package static let vicalURL = "https://vical.example.invalid/utopia.vical"
    package static let provider = "Utopia Trust Services"
    static let day: TimeInterval = 86_400

    /// A folder, new or empty.
    package var out: String
    package var seed: UInt64 = 1
    package var verificationTime: Date

    package init(out: String, verificationTime: Date = Date()) {
        self.out = out
        self.verificationTime = verificationTime
    }

    /// Writes the example; returns the files written, relative to ``out``.
    @discardableResult
    package func generate() throws(SampleError) -> [String] {
        var layout = SampleGenerator(out: out).layout
        layout.isArchive = false
        try SampleGenerator.prepare(layout)

        var status = SampleGenerator(out: out, verificationTime: verificationTime)
        status.count = 2
        status.seed = seed
        status.curves = [.p256]
        status.invalidShare = 0
        status.expiredConsentShare = 0
        status.deviceMacShare = 0
        status.statusListURI = Self.statusURI
        status.idPrefix = "status-"
        var dropped = status
        dropped.count = 1
        dropped.seed = seed &+ 1
        dropped.curves = [.p384]
        dropped.statusListURI = nil
        dropped.idPrefix = "vical-"
        let statusFactory = try SampleFactory(status)
        let droppedFactory = try SampleFactory(dropped)
        let v = statusFactory.verificationTime

        var files: [(path: String, bytes: [UInt8])] = []
        for (factory, count) in [(statusFactory, 2), (droppedFactory, 1)] {
            for index in 1...count {
                let transaction = try factory.transaction(at: index)
                files += transaction.files.map { ("transactions/\(transaction.id)/\($0.path)", $0.bytes) }
            }
        }
        let kept = try statusFactory.trustMaterial()
        let removed = try droppedFactory.trustMaterial()
        files += (kept.files + removed.files.filter { $0.name.hasSuffix(".crl") }).map { ("trust/\($0.name)", $0.bytes) }

        // The VICAL: issue 1 lists both IACAs for the mDL, issue 2 (a day before v) drops the P-384 one.
        do {
            let signer = try ListSigner(name: "Utopia Trust", notBefore: v.addingTimeInterval(-400 * Self.day))
            files.append(("vical/provider-root.pem", Array(signer.root.pem.utf8)))
            for (issue, anchors, date) in [(1, kept.anchors + removed.anchors, -30 * Self.day), (2, kept.anchors, -Self.day)] {
                var list = SampleCertificateList(
                    kind: .vical, date: v.addingTimeInterval(date), entries: anchors.map { SampleCertificateList.Entry(certificate: $0) })
                list.provider = Self.provider
                list.issueID = UInt64(issue)
                list.url = Self.vicalURL
                list.nextUpdate = v.addingTimeInterval(date + 60 * Self.day)
                files.append(("vical/issue-\(issue).vical", try list.signed(by: signer)))
            }
        } catch let error as SampleError {
            throw error
        } catch {
            throw SampleError(.cryptoFailed, "cannot sign the sample VICAL: \(error)")
        }

        // The status list: until half an hour before v both entries valid (the captures fall in
        // that time); from twenty minutes before v, the second revoked.
        let window = Double(SampleFactory.captureWindowDays + 1) * Self.day
        files.append((
            "status/utopia-p256-1.cwt",
            try statusFactory.statusToken(values: [0, 0], issuedAt: v.addingTimeInterval(-window), validFor: window - 1_800)))
        files.append((
            "status/utopia-p256-2.cwt", try statusFactory.statusToken(values: [0, 1], issuedAt: v.addingTimeInterval(-1_200), validFor: Self.day)))

        for file in files {
            let path = (out as NSString).appendingPathComponent(file.path)
            do {
                try FileManager.default.createDirectory(
                    atPath: FilePaths.parent(of: path), withIntermediateDirectories: true)
                try Data(file.bytes).write(to: URL(fileURLWithPath: path))
            } catch {
                throw SampleError(.writeFailed, "cannot write \(path): \(error.localizedDescription)")
            }
        }
        return files.map(\.path)
    }
}
