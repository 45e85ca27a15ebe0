package import Foundation
package import MdocCrypto
package import MdocIngest
package import MdocPipeline
package import MdocSeal
internal import MdocStore
import NIOConcurrencyHelpers

/// The records a central intake received, as a run's inputs: a store (`<out>/intake.sqlite` of
/// `serve` or `intake`) stands for one item per record, `<store>!/<record hash>`, each opened
/// with the centre's sealing key, its kiosk's signature checked against the enrolled kiosks,
/// and its transaction verified as a bundle (`queue add` shares them among workers).
package final class IntakeRecordInputs: RecordInputs {
    /// Between a store's path and a record's hash in an item, as between an archive and its entry.
    static let separator = "!/"
    let opener: RecordOpener
    let kiosks: KioskFolder
    private let stores = NIOLockedValueBox<[String: IntakeStore]>([:])

    /// - Throws: ``PipelineSetupError`` naming the option to fix.
    package init(sealingKeyPath: String, kiosksDirectory: String) throws {
        let key: PrivateKey
        do {
            guard let bytes = FileManager.default.contents(atPath: sealingKeyPath) else {
                throw PipelineSetupError("--sealing-key \(sealingKeyPath) cannot be read")
            }
            key = try PrivateKey(pem: Array(bytes))
        } catch let error as PipelineSetupError {
            throw error
        } catch {
            throw PipelineSetupError("--sealing-key \(sealingKeyPath) is not a PKCS#8 PEM private key: \(error)")
        }
        guard key.curve == .p256 else { throw PipelineSetupError("--sealing-key must be a P-256 key") }
        do {
            kiosks = try KioskFolder(path: kiosksDirectory)
        } catch {
            throw PipelineSetupError("--kiosks \(kiosksDirectory) cannot be read: give the folder of enrolled kiosk certificates")
        }
        opener = RecordOpener(sealingKey: key)
    }

    /// Whether `path` names a SQLite file, the form an intake store takes.
    package static func isStorePath(_ path: String) -> Bool { path.hasSuffix(".sqlite") }

    package func handles(_ input: String) -> Bool { Self.isStorePath(input) || split(input) != nil }

    package func check(_ input: String) throws {
        guard split(input) == nil else { return }
        do {
            _ = try store(input)
        } catch {
            throw PipelineSetupError("the input \(input): \(error)")
        }
    }

    package func expand(_ input: String) throws -> [String]? {
        guard split(input) == nil else { return nil }
        let hashes: [RecordHash]
        do {
            hashes = try store(input).recordHashes()
        } catch {
            throw PipelineSetupError("the input \(input): \(error)")
        }
        return hashes.map { input + Self.separator + $0.description }
    }

    package func read(_ input: String) -> RecordInput {
        guard let (path, hash) = split(input) else {
            return .failure(code: IntakeInputCode.unknownRecord, reason: "not a record of an intake store: \(input)")
        }
        let sealed: [UInt8]
        let receivedAt: Date
        let via: KioskRecord.Via
        do {
            guard let stored = try store(path).stored(hash) else {
                return .failure(code: IntakeInputCode.unknownRecord, reason: "the intake store \(path) holds no record \(hash)")
            }
            sealed = stored.sealed
            receivedAt = stored.receivedAt
            // The store's CHECK constraint allows the two ways only.
            via = KioskRecord.Via(rawValue: stored.via) ?? .file
        } catch {
            return .failure(code: IntakeInputCode.unavailable, reason: "the intake store \(path) cannot be read: \(error)")
        }
        guard RecordHash(of: sealed) == hash else {
            return .failure(code: IntakeInputCode.changedRecord, reason: "the record stored under \(hash) in \(path) has other bytes now")
        }
        do {
            let opened = try opener.open(sealed, roster: try kiosks.roster())
            return .transaction(opened.bundle(source: input), kiosk: opened.kioskSide(receivedAt: receivedAt, via: via))
        } catch let error as SealError {
            return .failure(code: error.code.rawValue, reason: error.reason)
        } catch {
            return .failure(code: SealError.Code.unknownKiosk.rawValue, reason: "\(error)")
        }
    }

    /// A store and a record hash, from `<path ending .sqlite>!/<64 hex digits>`.
    private func split(_ input: String) -> (String, RecordHash)? {
        guard let range = input.range(of: Self.separator, options: .backwards) else { return nil }
        let path = String(input[..<range.lowerBound])
        guard Self.isStorePath(path), let hash = RecordHash(hex: input[range.upperBound...]) else { return nil }
        return (path, hash)
    }

    /// The store at `path`, opened once for reading.
    private func store(_ path: String) throws -> IntakeStore {
        if let open = stores.withLockedValue({ $0[path] }) { return open }
        let opened = try IntakeStore(readingAt: path)
        return stores.withLockedValue { stores in
            if let open = stores[path] { return open }
            stores[path] = opened
            return opened
        }
    }
}

/// The stable codes of an intake record that gives no transaction (besides the `record.*` codes
/// of ``SealError`` for one that does not open).
package enum IntakeInputCode {
    /// The store holds no record of that hash.
    package static let unknownRecord = "intake.unknownRecord"
    /// The store cannot be opened or read.
    package static let unavailable = "intake.unavailable"
    /// The bytes stored under the hash are not the bytes that hash was taken of.
    package static let changedRecord = "intake.changedRecord"
}

extension OpenedRecord {
    /// The kiosk's side of the record as it sealed it, received by the centre at `receivedAt`.
    func kioskSide(receivedAt: Date, via: KioskRecord.Via) -> KioskSide {
        KioskSide(
            record: hash.hex, kiosk: content.kiosk.rawValue, sequence: content.sequence, sealedAt: content.sealedAt,
            receivedAt: receivedAt, via: via, verdict: content.verdict.atVerification, verdictAtCapture: content.verdict.atCapture,
            trustSnapshot: content.verdict.trustSnapshot, problems: KioskRecord.problems(of: content.checks))
    }

    /// The record's transaction as a bundle, named after its kiosk and sequence number.
    func bundle(source: String) -> TransactionBundle {
        TransactionBundle(name: "\(content.kiosk)-\(content.sequence)", source: source, files: content.files)
    }
}
