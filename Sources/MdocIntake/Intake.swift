package import Foundation
package import MdocChecks
package import MdocCrypto
package import MdocSeal
package import MdocStore
import MdocFiles

/// The centre's verdict on a record it opened, from verifying the transaction again with its
/// own trust material.
package struct CentralVerification: Sendable {
    package var atVerification: Verdict
    package var atCapture: Verdict?
    package var verifiedAt: Date
    package var trustSnapshot: String
    package var checks: [CheckResult]
    /// What a report store keeps of the transaction as verified at the centre.
    package var outcome: TransactionOutcome?

    package init(
        atVerification: Verdict, atCapture: Verdict?, verifiedAt: Date, trustSnapshot: String, checks: [CheckResult],
        outcome: TransactionOutcome? = nil
    ) {
        self.atVerification = atVerification
        self.atCapture = atCapture
        self.verifiedAt = verifiedAt
        self.trustSnapshot = trustSnapshot
        self.checks = checks
        self.outcome = outcome
    }
}

/// Verifies an opened record's transaction again at the centre. The pipeline supplies it.
package typealias Reverification = @Sendable (OpenedRecord) async -> CentralVerification

/// What intake decided for one record before storing.
enum ProcessedRecord: Sendable {
    case known(RecordHash)
    case rejected(RecordHash, SealError.Code)
    case accepted(IntakeRow, CentralVerification)
}

/// The named limits of the centre's intake.
package struct IntakeLimits: Sendable {
    /// Default ``minimumFreeBytes``: 64 MiB left free on the store's disk after a request.
    package static let defaultMinimumFreeBytes: Int64 = 64 << 20

    package var sync: SyncLimits
    package var seal: SealLimits
    /// A request that would leave less free space than this on the store's disk is refused
    /// (`intake.storageFull`) before anything is written; `nil`: no such check, only a write
    /// that fails for want of space refuses the request.
    package var minimumFreeBytes: Int64?
    /// Records opened and verified at once.
    package var concurrency: Int

    package init(
        sync: SyncLimits = .default, seal: SealLimits = .default, minimumFreeBytes: Int64? = IntakeLimits.defaultMinimumFreeBytes,
        concurrency: Int = ProcessInfo.processInfo.activeProcessorCount
    ) {
        self.sync = sync
        self.seal = seal
        self.minimumFreeBytes = minimumFreeBytes
        self.concurrency = max(1, concurrency)
    }
}

/// The central intake: takes records in (signed HTTP requests, or carried files), stores each
/// accepted record once after opening it, checking the kiosk's signature and verifying it
/// again, and answers with a receipt signed by the centre's processor key.
package final class Intake: Sendable {
    package let opener: RecordOpener
    package let kiosks: KioskFolder
    package let store: IntakeStore
    package let signingKey: PrivateKey
    package let signingCertificate: Certificate
    package let limits: IntakeLimits
    /// Where the centre's verifications are recorded for reports, when given.
    package let recorder: CentralRecorder?
    let reverify: Reverification

    package init(
        sealingKey: PrivateKey, kiosks: KioskFolder, store: IntakeStore, signingKey: PrivateKey, signingCertificate: Certificate,
        limits: IntakeLimits = IntakeLimits(), recorder: CentralRecorder? = nil, reverify: @escaping Reverification
    ) {
        self.recorder = recorder
        self.opener = RecordOpener(sealingKey: sealingKey, limits: limits.seal)
        self.kiosks = kiosks
        self.store = store
        self.signingKey = signingKey
        self.signingCertificate = signingCertificate
        self.limits = limits
        self.reverify = reverify
    }

    /// One HTTP request body: refused whole (nothing stored) for an unknown or revoked kiosk, a
    /// bad signature, an old or replayed counter, records not those signed, or a full disk;
    /// otherwise each record is stored, found a duplicate, or rejected with its code. The same
    /// request sent again gets the same receipt.
    package func accept(body: [UInt8], now: Date = Date()) async throws(SyncRefusal) -> [UInt8] {
        let request = try SyncRequest(decoding: body, limits: limits.sync)
        let roster = try currentRoster()
        let header = try request.verify(roster: roster)
        let window = limits.sync.counterWindow
        switch try store.priorRequest(kiosk: header.kiosk, counter: header.counter, headerHash: request.headerHash, window: window) {
        case .fresh: break
        case .answered(let receipt): return receipt
        case .stale(let last):
            throw SyncRefusal(
                .staleCounter,
                "counter \(header.counter) of kiosk \(header.kiosk) was used before or is \(window) or more below \(last), the highest accepted")
        }
        try checkFreeSpace(needed: body.count)
        let known = try store.known(header.records)
        let processed = await process(request.records, hashes: header.records, from: header.kiosk, known: known, roster: roster, via: "http", now: now)
        // Recorded for reports before the receipt is committed: a request cut in between is
        // sent again, and the report store keeps each record once.
        try recorder?.record(processed, via: .http)
        let key = IntakeStore.RequestKey(kiosk: header.kiosk, counter: header.counter, headerHash: request.headerHash, window: window)
        return try store.commit(processed, request: key, now: now, sign: sign)
    }

    /// Carried files held in memory: the same processing as a request, with no request to
    /// authenticate; each record's kiosk signature is still checked. Returns the signed receipt.
    /// `mdocverify intake` takes a folder in parts (``accept(carried:read:now:progress:)``).
    package func accept(files records: [[UInt8]], now: Date = Date()) async throws(SyncRefusal) -> [UInt8] {
        let outcomes = try await takeIn(records, now: now)
        return try signReceipt(outcomes, now: now)
    }

    /// Opens, verifies, records for reports and stores one part of carried records; their outcomes.
    func takeIn(_ records: [[UInt8]], now: Date) async throws(SyncRefusal) -> [Receipt.Entry] {
        let roster = try currentRoster()
        let hashes = records.map { RecordHash(of: $0) }
        try checkFreeSpace(needed: records.reduce(0) { $0 + $1.count })
        let known = try store.known(hashes)
        let processed = await process(records, hashes: hashes, from: nil, known: known, roster: roster, via: "file", now: now)
        try recorder?.record(processed, via: .file)
        return try store.commitCarried(processed)
    }

    /// The receipt for carried files (no kiosk, no counter), signed by the processor key.
    func signReceipt(_ outcomes: [Receipt.Entry], now: Date) throws(SyncRefusal) -> [UInt8] {
        do {
            return try sign(Receipt(issuedAt: now, kiosk: nil, counter: nil, entries: outcomes))
        } catch {
            throw SyncRefusal(.unavailable, "the receipt could not be signed: \(error)")
        }
    }

    private func sign(_ receipt: Receipt) throws -> [UInt8] {
        try receipt.signed(key: signingKey, certificate: signingCertificate)
    }

    private func currentRoster() throws(SyncRefusal) -> KioskRoster {
        do {
            return try kiosks.roster()
        } catch {
            throw SyncRefusal(.unavailable, "the kiosks folder cannot be read")
        }
    }

    /// Refuses when storing `needed` more bytes would leave less than the minimum free.
    private func checkFreeSpace(needed: Int) throws(SyncRefusal) {
        guard let minimum = limits.minimumFreeBytes else { return }
        var info = statvfs()
        let folder = FilePaths.parent(of: store.path)
        guard statvfs(folder.isEmpty ? "." : folder, &info) == 0 else { return }
        let free = Int64(info.f_bavail) &* Int64(info.f_frsize)
        guard free - Int64(needed) * 2 >= minimum else {
            throw SyncRefusal(.storageFull, "the intake store's disk has \(free) bytes free, under the \(minimum) kept free")
        }
    }

    /// Opens and verifies the records not already stored, `limits.concurrency` at a time, in order.
    private func process(
        _ records: [[UInt8]], hashes: [RecordHash], from kiosk: KioskID?, known: Set<RecordHash>, roster: KioskRoster, via: String,
        now: Date
    ) async -> [ProcessedRecord] {
        var results = [ProcessedRecord?](repeating: nil, count: records.count)
        var pending: [Int] = []
        for index in records.indices {
            if known.contains(hashes[index]) { results[index] = .known(hashes[index]) } else { pending.append(index) }
        }
        await withTaskGroup(of: (Int, ProcessedRecord).self) { group in
            var next = 0
            func start() {
                let index = pending[next]
                next += 1
                let record = records[index], hash = hashes[index]
                group.addTask { (index, await self.processOne(record, hash: hash, from: kiosk, roster: roster, via: via, now: now)) }
            }
            while next < pending.count && next < limits.concurrency { start() }
            for await (index, result) in group {
                results[index] = result
                if next < pending.count { start() }
            }
        }
        return results.enumerated().map { $0.element ?? .rejected(hashes[$0.offset], .malformed) }
    }

    private func processOne(
        _ record: [UInt8], hash: RecordHash, from kiosk: KioskID?, roster: KioskRoster, via: String, now: Date
    ) async -> ProcessedRecord {
        let opened: OpenedRecord
        do {
            opened = try opener.open(record, roster: roster)
        } catch let error as SealError {
            return .rejected(hash, error.code)
        } catch {
            return .rejected(hash, .malformed)
        }
        if let kiosk, opened.content.kiosk != kiosk { return .rejected(hash, .kioskMismatch) }
        let central = await reverify(opened)
        let content = opened.content
        return .accepted(
            IntakeRow(
            hash: Data(hash.bytes), kiosk: content.kiosk.rawValue, sequence: Int64(clamping: content.sequence), sealed: Data(record),
            sealedAt: content.sealedAt, receivedAt: now, via: via, kioskVerdict: content.verdict.atVerification.rawValue,
            kioskVerdictAtCapture: content.verdict.atCapture?.rawValue, kioskVerifiedAt: content.verdict.verifiedAt,
            kioskTrustSnapshot: content.verdict.trustSnapshot, kioskProblems: Self.problems(content.checks),
            centreVerdict: central.atVerification.rawValue, centreVerdictAtCapture: central.atCapture?.rawValue,
            centreVerifiedAt: central.verifiedAt, centreTrustSnapshot: central.trustSnapshot, centreProblems: Self.problems(central.checks)),
            central)
    }

    /// The ids of the checks that did not pass, sorted and comma-separated.
    static func problems(_ checks: [CheckResult]) -> String {
        KioskRecord.problems(of: checks).joined(separator: ",")
    }
}
