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
/// time-dependent ones, the instant judged and its time: that is the key.
package final class IssuerChainCache: Sendable {
    /// What is cached for a chain: its results and the chain as validated (leaf first, anchor
    /// last; empty when it did not validate).
    struct Entry: Sendable {
        var results: [CheckResult]
        var validated: [Certificate]
    }

    /// Which results an entry holds: the chain's own (``IssuerChainCheck``), or those of another
    /// check that depend only on the received chain, the subject, the header bucket and the
    /// values the case carries.
    enum Family: Hashable, Sendable {
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

        // Only the case is hashed; the values it carries are compared (`==`, derived): a chain
        // comes with a handful of each, and hashing their texts cost more than comparing them.
        func hash(into hasher: inout Hasher) {
            switch self {
            case .chain: hasher.combine(0)
            case .x5chain: hasher.combine(1)
            case .issuingCountry: hasher.combine(2)
            case .iacaDocType: hasher.combine(3)
            case .issuerSignature: hasher.combine(4)
            case .valueDigests(let count, _):
                hasher.combine(5)
                hasher.combine(count)
            }
        }
    }

    /// The certificates of a chain by identity (the key holds them, so an identity is never
    /// reused while cached; ``MdocTrust/TrustStore/certificate(der:)`` returns one object per
    /// DER), the subject, the header bucket, the family, and the instant with its time.
    struct Key: Hashable, Sendable {
        let chain: [Certificate]
        let subject: String
        let bucket: String
        let family: Family
        let instant: CheckInstant?
        let time: Double

        static func == (lhs: Self, rhs: Self) -> Bool {
            guard lhs.chain.count == rhs.chain.count, lhs.instant == rhs.instant, lhs.time == rhs.time,
                lhs.subject == rhs.subject, lhs.bucket == rhs.bucket, lhs.family == rhs.family
            else { return false }
            for (a, b) in zip(lhs.chain, rhs.chain) where a !== b { return false }
            return true
        }

        // The subject and header are compared but not hashed: a chain comes with a handful of
        // each, and hashing two texts per look-up cost more than the few extra comparisons.
        func hash(into hasher: inout Hasher) {
            for certificate in chain { hasher.combine(ObjectIdentifier(certificate)) }
            hasher.combine(family)
            hasher.combine(instant)
            hasher.combine(time)
        }
    }

    /// How the cache was used over its life.
    package struct Statistics: Sendable, Hashable {
        /// Entries computed (misses).
        package var computed: Int
        /// Answers served from the cache.
        package var reused: Int
    }

    /// Bound on cached entries, so a hostile batch of unique certificates cannot grow memory
    /// without limit.
    package static let limit = 10_000

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])
    private let computed = Atomic<Int>(0)
    private let reused = Atomic<Int>(0)

    init() {}

    /// The entry of `family` for `chain`, `subject` and `bucket` (and `instant` at `time` for
    /// the time-dependent results), computed by `compute` when not cached. `compute` must depend
    /// on nothing else (besides the trust store).
    func entry(
        chain: [Certificate], subject: String, bucket: String, family: Family = .chain, instant: CheckInstant? = nil,
        time: Date? = nil, compute: () -> Entry
    ) -> Entry {
        let key = Key(
            chain: chain, subject: subject, bucket: bucket, family: family, instant: instant,
            time: time?.timeIntervalSinceReferenceDate ?? 0)
        if let cached = entries.withLockedValue({ $0[key] }) {
            reused.add(1, ordering: .relaxed)
            return cached
        }
        computed.add(1, ordering: .relaxed)
        let entry = compute()
        entries.withLockedValue { cache in
            if cache.count >= Self.limit { cache.removeAll(keepingCapacity: true) }
            cache[key] = entry
        }
        return entry
    }

    package var statistics: Statistics {
        Statistics(computed: computed.load(ordering: .relaxed), reused: reused.load(ordering: .relaxed))
    }
}
