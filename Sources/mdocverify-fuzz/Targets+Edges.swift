import Foundation
import MdocChecks
import MdocIngest
import MdocSamples
import MdocSeal

extension FuzzTarget {
    /// What arrives at the edges: archives, sealed kiosk records and the intake's request bodies.
    static let edgeTargets: [FuzzTarget] = [archive, sealedRecord, intakeRequest]

    /// An archive given to `verify` (libarchive through MdocIngest), under small ingest limits.
    static let archive = FuzzTarget(
        name: "archive", summary: "archive entries: tar, tar.gz, tar.xz and zip through InputReader",
        prepare: { fixtures in
            let folder = try fixtures.scratch("archive")
            let limits = IngestLimits(
                maxEntriesPerArchive: 256, maxEntryBytes: 1 << 20, maxTotalBytesPerArchive: 8 << 20, maxFilesPerTransaction: 64,
                maxTransactionBytes: 4 << 20)
            return { bytes in
                // The name routes it as an archive; libarchive reads the format from the bytes.
                let file = folder.appendingPathComponent(bytes.starts(with: [0x50, 0x4b]) ? "input.zip" : "input.tar.gz")
                guard (try? Data(bytes).write(to: file)) != nil else { return }
                for case .transaction(let bundle) in InputReader(inputs: [file.path], limits: limits) {
                    _ = bundle.files.count
                }
            }
        },
        seeds: { fixtures in
            var seeds: [FuzzSeed] = []
            let folders = try fixtures.sampleTransactions()
            let scratch = try fixtures.scratch("archive-seeds")
            defer { try? FileManager.default.removeItem(at: scratch) }
            for (format, name) in [(ArchiveWriter.Format.tarGzip, "two.tar.gz"), (.zip, "two.zip"), (.tarXz, "two.tar.xz"), (.tar, "two.tar")] {
                let path = scratch.appendingPathComponent(name).path
                let writer = try ArchiveWriter(path: path, format: format)
                for folder in folders.prefix(2) {
                    for file in try fixtures.files(in: folder) where !file.name.hasSuffix(".png") {
                        try writer.addFile(path: "\((folder as NSString).lastPathComponent)/\(file.name)", bytes: file.bytes)
                    }
                }
                try writer.close()
                seeds.append(FuzzSeed(name, Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
            }
            return seeds
        })

    /// The first byte picks: even a whole sealed record (COSE_Encrypt to the sealing key), odd
    /// the record content a kiosk signs (what an enrolled but hostile kiosk controls).
    static let sealedRecord = FuzzTarget(
        name: "sealed-record", summary: "sealed kiosk records (RecordOpener.open, RecordContent(decoding:))",
        prepare: { fixtures in
            let kiosk = try fixtures.kiosk()
            let opener = RecordOpener(sealingKey: kiosk.sealingKey)
            let roster = kiosk.roster
            return { bytes in
                guard let selector = bytes.first else { return }
                if selector % 2 == 0 {
                    _ = try? opener.open(Array(bytes.dropFirst()), roster: roster)
                } else {
                    _ = try? RecordContent(decoding: bytes.dropFirst())
                }
            }
        },
        seeds: { fixtures in
            let kiosk = try fixtures.kiosk()
            let content = try fixtures.sampleRecordContent(kiosk: kiosk)
            let sealer = RecordSealer(signer: kiosk.signer, recipient: SealingRecipient(publicKey: kiosk.sealingKey.publicKey))
            return [FuzzSeed("sealed", [0] + (try sealer.seal(content).bytes)), FuzzSeed("content", [1] + content.cbor())]
        })

    /// A `POST` body of the intake (docs/openapi.yaml): decoded and checked against the roster.
    static let intakeRequest = FuzzTarget(
        name: "intake-request", summary: "the intake's HTTP request bodies (SyncRequest(decoding:), verify(roster:))",
        prepare: { fixtures in
            let roster = try fixtures.kiosk().roster
            return { bytes in
                guard let request = try? SyncRequest(decoding: bytes) else { return }
                _ = try? request.verify(roster: roster)
            }
        },
        seeds: { fixtures in
            let kiosk = try fixtures.kiosk()
            let sealer = RecordSealer(signer: kiosk.signer, recipient: SealingRecipient(publicKey: kiosk.sealingKey.publicKey))
            let record = try sealer.seal(try fixtures.sampleRecordContent(kiosk: kiosk))
            return [
                FuzzSeed("one-record", try SyncRequest(signer: kiosk.signer, counter: 1, records: [record], sentAt: FuzzFixtures.verificationTime).encoded()),
                FuzzSeed("empty", try SyncRequest(signer: kiosk.signer, counter: 2, records: [], sentAt: FuzzFixtures.verificationTime).encoded()),
            ]
        })
}

extension FuzzFixtures {
    /// The record a kiosk would seal for the first sample transaction.
    func sampleRecordContent(kiosk: Kiosk) throws -> RecordContent {
        guard let folder = try sampleTransactions().first else { throw FuzzSetupError("no sample transaction") }
        let files = Dictionary(uniqueKeysWithValues: try self.files(in: folder).map { ($0.name, $0.bytes) })
        let time = Self.verificationTime
        return RecordContent(
            kiosk: kiosk.signer.id, sequence: 1, sealedAt: time, files: files,
            consent: SealedConsent(reference: "CNS-1", scopes: ["mdl.age"], grantedAt: time, expiresAt: time.addingTimeInterval(86_400)),
            verdict: KioskVerdict(atVerification: .valid, atCapture: nil, verifiedAt: time, trustSnapshot: "00"),
            checks: [])
    }
}
