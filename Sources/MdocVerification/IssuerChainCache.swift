package import Foundation
package import MdocChecks
package import MdocCOSE
package import MdocCrypto
import Synchronization
import NIOConcurrencyHelpers

/// The issuer chain results of each received chain, computed once per run: a batch repeats a
/// handful of DS certificates, and validating a chain (the DS→IACA signature, the CRL lookups)
/// costs more than the rest of a response's checks. Other results that depend only on the chain
/// and a few values (``Family``) are kept the same way, so that their texts are built once.
/// Safe to share between tasks.
///
/// The results depend only on the chain's certificates, the trust store (whose anchors and CRLs
/// never change), the subject they are reported for, the header the chain came in and, for the
/// time-dependent ones, the instant judged and its time. The chain, subject and header select a
/// ``Record`` (looked up once per document); the family and the instant select an entry in it.
/// A family's texts are not hashed but kept beside its entry: a record holds one entry per
/// family case, numbers and instant, replaced when asked for with other texts.
package final class IssuerChainCache: Sendable {
    /// What is cached for a chain: its results and the chain as validated (leaf first, anchor
    /// last; empty when it did not validate). Shared by every document that asks, never copied.
    final class Entry: Sendable {
        let results: [CheckResult]
        let validated: [Certificate]

        init(results: [CheckResult], validated: [Certificate]) {
            self.results = results
            self.validated = validated
        }
    }

    /// Which results an entry holds: the chain's own (``IssuerChainCheck``), or those of another
    /// check that depend only on the received chain, the subject, the header bucket and the
    /// values the case carries.
    enum Family: Equatable, Sendable {
        case chain
        /// ``X5ChainCheck``'s pass.
        case x5chain
        /// ``IssuingCountryCheck``: the disclosed `issuing_country` and `issuing_jurisdiction`,
        /// and the IACA the chain validated to (a trust-store anchor, kept for the run).
        case issuingCountry(country: String??, jurisdiction: String??, iaca: ObjectIdentifier?)
        /// ``IACADocTypeCheck``: the document's docType and the IACA the chain validated to.
        case iacaDocType(docType: String, iaca: ObjectIdentifier)
        /// ``IssuerSignatureCheck``'s passes for issuerAuth's algorithm (the chain's DS key).
        case issuerSignature(COSEAlgorithm)
        /// ``ValueDigestCheck``'s passes for a count of elements and a digest function (no chain).
        case valueDigests(count: Int, hash: HashFunction)

        /// The family's case and numbers, without its texts: what a record's entries are found by.
        fileprivate var slot: Slot {
            switch self {
            case .chain: Slot(kind: 0)
            case .x5chain: Slot(kind: 1)
            case .issuingCountry(_, _, let iaca): Slot(kind: 2, iaca: iaca)
            case .iacaDocType(_, let iaca): Slot(kind: 3, iaca: iaca)
            case .issuerSignature(let algorithm): Slot(kind: 4, number: algorithm.rawValue)
            case .valueDigests(let count, let hash):
                Slot(kind: 5, number: Int64(count), hash: hash.slot)
            }
        }

        /// Whether the family carries texts, which are then kept beside its entry and compared.
        fileprivate var hasTexts: Bool {
            switch self {
            case .issuingCountry, .iacaDocType: true
            case .chain, .x5chain, .issuerSignature, .valueDigests: false
            }
        }
    }

    /// A family without its texts: plain numbers, so finding an entry compares no text.
    fileprivate struct Slot: Equatable, Sendable {
        var kind: Int8
        var number: Int64 = 0
        var hash: Int8 = 0
        var iaca: ObjectIdentifier? = nil
    }

    /// A cached entry, with the family it was computed for when that carries texts: a look-up
    /// whose texts differ is a miss, and its entry replaces this one.
    fileprivate struct Stored: Sendable {
        let detail: Detail
        let texts: Family?
        let entry: Entry
    }

    /// The entries of one received chain, subject and header bucket, by family and instant: a
    /// document looks its chain up once (``record(chain:subject:bucket:)``) and asks it for each
    /// family (``entry(_:family:instant:time:compute:)``).
    final class Record: Sendable {
        /// The certificates by identity: the record holds them, so an identity is never reused
        /// while cached (``MdocTrust/TrustStore/certificate(der:)`` returns one object per DER).
        let chain: [Certificate]
        fileprivate let entries = NIOLockedValueBox<[Stored]>([])

        fileprivate init(chain: [Certificate]) { self.chain = chain }
    }

    /// What selects a record: the chain by identity, the subject and the header bucket.
    private struct Key: Hashable, Sendable {
        let chain: [Certificate]
        let subject: String
        let bucket: String

        static func == (lhs: Self, rhs: Self) -> Bool {
            guard lhs.chain.count == rhs.chain.count, lhs.subject == rhs.subject, lhs.bucket == rhs.bucket else { return false }
            for (a, b) in zip(lhs.chain, rhs.chain) where a !== b { return false }
            return true
        }

        // The subject and header are compared but not hashed: a chain comes with a handful of
        // each, and hashing two texts per look-up cost more than the few extra comparisons.
        func hash(into hasher: inout Hasher) {
            for certificate in chain { hasher.combine(ObjectIdentifier(certificate)) }
        }
    }

    /// What selects an entry of a record: the family's slot, and the instant with its time.
    fileprivate struct Detail: Equatable, Sendable {
        let slot: Slot
        let instant: CheckInstant?
        let time: Double
    }

    /// How the cache was used over its life.
    package struct Statistics: Sendable, Hashable {
        /// Entries computed (misses).
        package var computed: Int
        /// Answers served from the cache.
        package var reused: Int
    }

    /// Bound on cached entries, so a hostile batch of unique certificates (or of unique capture
    /// times) cannot grow memory without limit: records times entries per record.
    package static let limit = recordLimit * entryLimit
    /// Bound on records (received chains, subjects and buckets).
    package static let recordLimit = 500
    /// Bound on the entries of one record.
    package static let entryLimit = 20

    private let records = NIOLockedValueBox<[Key: Record]>([:])
    private let computed = Atomic<Int>(0)
    private let reused = Atomic<Int>(0)

    init() {}

    /// The record of `chain` received in header `bucket`, for results reported for `subject`.
    func record(chain: [Certificate], subject: String, bucket: String) -> Record {
        let key = Key(chain: chain, subject: subject, bucket: bucket)
        return records.withLockedValue { records in
            if let record = records[key] { return record }
            if records.count >= Self.recordLimit { records.removeAll(keepingCapacity: true) }
            let record = Record(chain: chain)
            records[key] = record
            return record
        }
    }

    /// The entry of `family` in `record` (and `instant` at `time` for the time-dependent
    /// results), computed by `compute` when not cached. `compute` must depend on nothing else
    /// than the record's chain, subject and bucket and the family's values (besides the trust
    /// store).
    func entry(
        _ record: Record, family: Family = .chain, instant: CheckInstant? = nil, time: Date? = nil, compute: () -> Entry
    ) -> Entry {
        let detail = Detail(slot: family.slot, instant: instant, time: time?.timeIntervalSinceReferenceDate ?? 0)
        // A record holds a handful of entries: a scan comparing numbers costs less than hashing.
        let cached = record.entries.withLockedValue { entries -> Entry? in
            guard let stored = entries.first(where: { $0.detail == detail }) else { return nil }
            if let texts = stored.texts, texts != family { return nil }
            return stored.entry
        }
        if let cached {
            reused.add(1, ordering: .relaxed)
            return cached
        }
        computed.add(1, ordering: .relaxed)
        let entry = compute()
        let stored = Stored(detail: detail, texts: family.hasTexts ? family : nil, entry: entry)
        record.entries.withLockedValue { entries in
            if let index = entries.firstIndex(where: { $0.detail == detail }) {
                entries[index] = stored
                return
            }
            if entries.count >= Self.entryLimit {
                // The results at each instant go first: those of the chain itself are worth the most.
                entries.removeAll { $0.detail.instant != nil }
                if entries.count >= Self.entryLimit { entries.removeAll(keepingCapacity: true) }
            }
            entries.append(stored)
        }
        return entry
    }

    package var statistics: Statistics {
        Statistics(computed: computed.load(ordering: .relaxed), reused: reused.load(ordering: .relaxed))
    }
}

extension DocumentFacts {
    /// The cache record of the received chain, or, without one, that of `fallback` with no
    /// header bucket.
    func issuerRecord(in cache: IssuerChainCache, orChain fallback: @autoclosure () -> [Certificate]) -> IssuerChainCache.Record {
        receivedChain?.record ?? cache.record(chain: fallback(), subject: subject, bucket: "")
    }
}

extension HashFunction {
    /// The function as a number, for ``IssuerChainCache``'s keys.
    fileprivate var slot: Int8 {
        switch self {
        case .sha256: 0
        case .sha384: 1
        case .sha512: 2
        }
    }
}
