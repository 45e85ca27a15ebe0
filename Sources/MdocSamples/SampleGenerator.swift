import Foundation
import MdocCrypto
import MdocIngest
import MdocFiles

/// Writes sample transaction bundles (the layout is in the README) that verify out of the box:
/// a folder (or a `.tar.gz`) of `tx-00001/`, `tx-00002/`, …, the trust folder holding the sample
/// IACA certificates and their CRLs, and `expected.json` saying what the verifier must conclude
/// about each transaction.
///
/// What one transaction holds:
/// - `transaction.json`: id, capturedAt (spread over the 180 days before ``verificationTime``),
///   source (`kiosk-01` … `kiosk-05`, `central`), consent {reference, grantedAt, scopes, expiresAt};
/// - an mDL (`org.iso.18013.5.1.mDL`) with 12 disclosed elements and 4 undisclosed ones, names
///   in several scripts, a small JPEG portrait, driving privileges; issued by the sample
///   authority of its curve (IACA → DS, ISO 18013-5 Annex B) and authenticated by the device with
///   deviceSignature (or deviceMac for a share of them, §9.1.3);
/// - ``withSession``: the exchange as captured: `engagement.txt` (the `mdoc:` URI of a QR
///   DeviceEngagement, §8.2.2.3, with a BLE retrieval method), `session-establishment.cbor`
///   (EReaderKey and the encrypted DeviceRequest, §9.1.1.4), `session-data.cbor` (the encrypted
///   DeviceResponse, SKDevice, counter 1) and `reader-key.pem` (EReaderKey.Priv, PKCS#8). The
///   transcript is `[DeviceEngagementBytes, EReaderKeyBytes, null]` (§9.1.5.1, QR handover), built
///   as `SessionVerifier` rebuilds it. Without: `device-response.cbor`,
///   `session-transcript.cbor` and `reader-key.pem` (and `engagement.txt`);
/// - ``withQR``: `engagement.png`, the URI as a QR code, *instead of* `engagement.txt` (a bundle
///   with both is verified from the text, and the image would never be read);
/// - ``withScans``: `documents/manifest.json` and one or two document scans, some above the
///   1 MB upload limit.
///
/// Planted defects: ``invalidShare`` of the transactions get exactly one ``SampleDefect``
/// (round-robin over ``SampleDefect/allCases`` from a seed-dependent start), planned against
/// ``verificationTime``. ``expiredConsentShare`` of the others get a consent that was valid at
/// capture but has expired since (`consent.window` fails). `expected.json` lists, per
/// transaction, the defect, the check ids that must fail (and no other) and the verdict.
///
/// Determinism: for a given seed and verification time, the element values, names, dates,
/// defects, consent records, every private key (``SampleKeys``) and the salts and digest ids of
/// the IssuerSignedItems (so every IssuerSignedItemBytes and value digest) are the same on every
/// run, so `transaction.json` and `expected.json` are byte-identical. What is not: ECDSA
/// signatures (certificates, CRLs, MSOs, deviceSignature; OpenSSL 3.0 has no deterministic-nonce
/// option), hence the ciphertexts and the encoded responses; EdDSA signatures are deterministic.
///
/// A `.tar.gz` output is written through ``ArchiveWriter`` one transaction at a time (memory
/// does not grow with the count); the trust folder goes next to it as `<name>-trust/` and the
/// expectations as `<name>-expected.json`.
package struct SampleGenerator: Sendable {
    /// Most transactions in one run.
    package static let maxCount = 1_000_000
    /// The curves an issuing authority can use (signature curves of ISO 18013-5 §9.1.5.2).
    package static let supportedCurves: [Curve] = [
        .p256, .p384, .p521, .brainpoolP256r1, .brainpoolP320r1, .brainpoolP384r1, .brainpoolP512r1, .ed25519, .ed448,
    ]

    /// Where to write: a folder (created; must be new or empty) or a `.tar.gz`/`.tgz` file (must not exist).
    package var out: String
    /// Transactions to write (1 ... ``maxCount``).
    package var count = 20
    package var seed: UInt64 = 1
    /// Share of transactions with one planted ``SampleDefect`` (0 ... 1).
    package var invalidShare = 0.25
    /// Share of transactions (among those without a defect) whose consent has expired (0 ... 1).
    package var expiredConsentShare = 0.05
    /// Share of defect-free transactions authenticated with deviceMac instead of deviceSignature.
    package var deviceMacShare = 0.2
    /// Issuing-authority curves, used round-robin over the transactions.
    package var curves: [Curve] = [.p256]
    package var withQR = false
    package var withSession = false
    package var withScans = false
    /// When set, each MSO names entry `index − 1` of the status list at this uri (18013-5 second
    /// edition §12.3.6): ``SampleFactory/statusToken(values:issuedAt:validFor:)`` signs the list.
    package var statusListURI: String?
    /// The transactions' ids: this prefix and the index (`tx-00001`).
    package var idPrefix = "tx-"
    /// The instant the defects are planned against (and capture times precede). Truncated to
    /// whole seconds (certificates and MSO dates carry seconds).
    package var verificationTime: Date

    package init(out: String, verificationTime: Date = Date()) {
        self.out = out
        self.verificationTime = verificationTime
    }

    /// Where the output goes.
    package struct Layout: Sendable, Equatable {
        /// The folder, or the archive file.
        package var output: String
        package var isArchive: Bool
        /// The trust folder (IACA certificates and CRLs, PEM).
        package var trust: String
        /// The expectations file.
        package var expected: String
    }

    /// The output paths for ``out``.
    package var layout: Layout {
        let lower = out.lowercased()
        let isArchive = lower.hasSuffix(".tar.gz") || lower.hasSuffix(".tgz")
        guard isArchive else {
            let base = out as NSString
            return Layout(
                output: out, isArchive: false, trust: base.appendingPathComponent("trust"),
                expected: base.appendingPathComponent("expected.json"))
        }
        let path = out as NSString
        let file = path.lastPathComponent
        let stem = String(file.dropLast(file.lowercased().hasSuffix(".tgz") ? 4 : 7))
        let folder = FilePaths.parent(of: out) as NSString
        return Layout(
            output: out, isArchive: true, trust: folder.appendingPathComponent("\(stem)-trust"),
            expected: folder.appendingPathComponent("\(stem)-expected.json"))
    }

    /// Checks the options (not the output path; ``generate(progress:)`` checks that).
    /// - Throws: ``SampleError/Code/invalidOption`` naming the option.
    package func validateOptions() throws(SampleError) {
        guard (1...Self.maxCount).contains(count) else {
            throw SampleError(.invalidOption, "count \(count) is outside 1...\(Self.maxCount)")
        }
        for (name, value) in [("invalid share", invalidShare), ("expired-consent share", expiredConsentShare),
                              ("deviceMac share", deviceMacShare)] {
            guard value.isFinite, (0...1).contains(value) else {
                throw SampleError(.invalidOption, "\(name) \(value) is outside 0...1")
            }
        }
        guard !curves.isEmpty else { throw SampleError(.invalidOption, "no curve given") }
        for curve in curves where !Self.supportedCurves.contains(curve) {
            throw SampleError(
                .invalidOption,
                "\(curve) cannot sign; use one of \(Self.supportedCurves.map(\.name).joined(separator: ", "))")
        }
        guard verificationTime.timeIntervalSince1970 > 400 * 86_400 * 2 else {
            throw SampleError(.invalidOption, "the verification time must be after 1972-03-10 (certificates start 400 days before it)")
        }
    }

    /// The curve named `name`, leniently: `p256`, `P-256`, `p-256`, `secp256r1`, `ed25519`,
    /// `brainpoolP256r1` … (case and dashes ignored); nil for unknown names and non-signature curves.
    package static func curve(named name: String) -> Curve? {
        func key(_ s: String) -> String { s.lowercased().replacingOccurrences(of: "-", with: "").replacingOccurrences(of: "_", with: "") }
        let wanted = key(name)
        let aliases = ["secp256r1": "p256", "prime256v1": "p256", "secp384r1": "p384", "secp521r1": "p521"]
        let resolved = aliases[wanted] ?? wanted
        return supportedCurves.first { key($0.name) == resolved }
    }

    /// What a run wrote.
    package struct Summary: Sendable {
        package var layout: Layout
        package var transactions: Int
        /// Transactions with a planted defect.
        package var defective: Int
        /// Transactions (without a defect) whose consent has expired.
        package var expiredConsent: Int
        /// Bytes of transaction files written (before compression).
        package var bytes: Int
        /// The verification time the expectations hold at.
        package var verificationTime: Date
    }

    /// Generates and writes everything. `progress` is called after each transaction with the
    /// number written so far.
    /// - Throws: ``SampleError``: `invalidOption` (also for an output folder that is not empty,
    ///   or an archive or trust folder that already exists), `writeFailed`, `cryptoFailed`,
    ///   `imageFailed`, `qrEncodingFailed`.
    package func generate(progress: ((Int) -> Void)? = nil) throws(SampleError) -> Summary {
        try validateOptions()
        let layout = self.layout
        try Self.prepare(layout)
        let factory = try SampleFactory(self)

        let sink: any TransactionSink = layout.isArchive ? try ArchiveSink(path: layout.output) : FolderSink(root: layout.output)
        let expectations = try ExpectationWriter(path: layout.expected)
        var bytes = 0
        var defective = 0
        var expired = 0
        for index in 1...count {
            let transaction = try factory.transaction(at: index)
            for file in transaction.files {
                try sink.write(path: "\(transaction.id)/\(file.path)", bytes: file.bytes)
                bytes += file.bytes.count
            }
            try expectations.append(transaction.expectation)
            if transaction.expectation.defect != nil { defective += 1 }
            if transaction.expectation.consentExpired { expired += 1 }
            progress?(index)
        }
        try sink.finish()
        try expectations.finish()

        let trust = try factory.trustMaterial()
        do {
            try FileManager.default.createDirectory(atPath: layout.trust, withIntermediateDirectories: true)
            for file in trust.files {
                try Data(file.bytes).write(to: URL(fileURLWithPath: layout.trust).appendingPathComponent(file.name))
            }
        } catch {
            throw SampleError(.writeFailed, "cannot write the trust folder \(layout.trust): \(error.localizedDescription)")
        }
        return Summary(
            layout: layout, transactions: count, defective: defective, expiredConsent: expired, bytes: bytes,
            verificationTime: factory.verificationTime)
    }

    /// Refuses to mix with earlier output: the folder must be new or empty, the archive and the
    /// trust folder must not exist. Creates the folders needed.
    static func prepare(_ layout: Layout) throws(SampleError) {
        let files = FileManager.default
        var isDirectory: ObjCBool = false
        if layout.isArchive {
            if files.fileExists(atPath: layout.output) {
                throw SampleError(.invalidOption, "\(layout.output) already exists; remove it or choose another --out")
            }
            if files.fileExists(atPath: layout.trust) {
                throw SampleError(.invalidOption, "\(layout.trust) already exists; remove it or choose another --out")
            }
            let parent = URL(fileURLWithPath: layout.output).deletingLastPathComponent().path
            do {
                try files.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw SampleError(.writeFailed, "cannot create \(parent): \(error.localizedDescription)")
            }
        } else {
            if files.fileExists(atPath: layout.output, isDirectory: &isDirectory) {
                guard isDirectory.boolValue else {
                    throw SampleError(.invalidOption, "\(layout.output) is a file; --out takes a folder or a .tar.gz path")
                }
                let entries = (try? files.contentsOfDirectory(atPath: layout.output)) ?? ["?"]
                guard entries.isEmpty else {
                    throw SampleError(
                        .invalidOption, "\(layout.output) is not empty; samples go to a new or empty folder (remove it or choose another --out)")
                }
            }
            do {
                try files.createDirectory(atPath: layout.output, withIntermediateDirectories: true)
            } catch {
                throw SampleError(.writeFailed, "cannot create \(layout.output): \(error.localizedDescription)")
            }
        }
    }
}

// MARK: - Output

/// Where transaction files go.
protocol TransactionSink {
    func write(path: String, bytes: [UInt8]) throws(SampleError)
    func finish() throws(SampleError)
}

struct FolderSink: TransactionSink {
    let root: String

    func write(path: String, bytes: [UInt8]) throws(SampleError) {
        let url = URL(fileURLWithPath: root).appendingPathComponent(path)
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
        } catch {
            throw SampleError(.writeFailed, "cannot write \(url.path): \(error.localizedDescription)")
        }
    }

    func finish() throws(SampleError) {}
}

final class ArchiveSink: TransactionSink {
    let writer: ArchiveWriter

    init(path: String) throws(SampleError) {
        do {
            writer = try ArchiveWriter(path: path, format: .tarGzip)
        } catch {
            throw SampleError(.writeFailed, "cannot create \(path): \(error)")
        }
    }

    func write(path: String, bytes: [UInt8]) throws(SampleError) {
        do {
            try writer.addFile(path: path, bytes: bytes)
        } catch {
            throw SampleError(.writeFailed, "cannot add \(path) to the archive: \(error)")
        }
    }

    func finish() throws(SampleError) {
        do {
            try writer.close()
        } catch {
            throw SampleError(.writeFailed, "cannot finish the archive: \(error)")
        }
    }
}

/// Streams `expected.json`: a JSON array, one compact object per line.
final class ExpectationWriter {
    let handle: FileHandle
    let path: String
    var first = true
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(path: String) throws(SampleError) {
        self.path = path
        guard FileManager.default.createFile(atPath: path, contents: Data("[".utf8)),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw SampleError(.writeFailed, "cannot create \(path)") }
        self.handle = handle
        handle.seekToEndOfFile()
    }

    func append(_ expectation: SampleExpectation) throws(SampleError) {
        do {
            let json = try encoder.encode(expectation)
            try handle.write(contentsOf: Data((first ? "\n  " : ",\n  ").utf8) + json)
            first = false
        } catch {
            throw SampleError(.writeFailed, "cannot write \(path): \(error.localizedDescription)")
        }
    }

    func finish() throws(SampleError) {
        do {
            try handle.write(contentsOf: Data("\n]\n".utf8))
            try handle.close()
        } catch {
            throw SampleError(.writeFailed, "cannot finish \(path): \(error.localizedDescription)")
        }
    }
}
