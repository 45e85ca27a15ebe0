package import Foundation
package import MdocCrypto
import Synchronization
import NIOConcurrencyHelpers

/// An error loading trust material. Equality looks only at ``code``.
package struct TrustError: Error, Hashable, CustomStringConvertible, Sendable {
    package struct Code: Hashable, Sendable, CustomStringConvertible {
        package let rawValue: String
        private init(_ rawValue: String) { self.rawValue = rawValue }
        package var description: String { rawValue }

        package static let notFound = Code("trust.notFound")
        package static let unreadable = Code("trust.unreadable")
        package static let empty = Code("trust.empty")
        package static let invalidFile = Code("trust.invalidFile")
    }

    package let code: Code
    package let reason: String

    package init(_ code: Code, _ reason: String) {
        self.code = code
        self.reason = reason
    }

    package var description: String { reason }
    package static func == (lhs: TrustError, rhs: TrustError) -> Bool { lhs.code == rhs.code }
    package func hash(into hasher: inout Hasher) { hasher.combine(code) }
}

/// Where a trust anchor comes from, and what it is trusted for.
package struct AnchorOrigin: Sendable, Hashable {
    /// Where it comes from, for people: the trust folder's path, or a list's description.
    package let source: String
    /// The docTypes it may sign for; `nil` for any (a trust folder's certificates). An IACA from a
    /// VICAL is trusted only for the docTypes its entry lists (18013-5 Annex C).
    package let docTypes: [String]?
    /// The SHA-256 of the signed list (VICAL, RICAL) it comes from; `nil` for a trust folder.
    package let list: [UInt8]?

    package init(source: String, docTypes: [String]?, list: [UInt8]? = nil) {
        self.source = source
        self.docTypes = docTypes
        self.list = list
    }
}

/// The trust material of a run: trust-anchor certificates (IACA roots, or reader roots for reader
/// authentication) and CRLs, loaded from a folder (`--trust DIR`), and the anchors of signed
/// lists (VICAL, RICAL), each with its ``AnchorOrigin``.
///
/// Files ending in `.pem`, `.crt`, `.cer`, `.der` hold certificates (PEM may hold several, and
/// may hold CRLs too); `.crl` files hold CRLs (PEM or DER). Other files are ignored and listed in
/// ``ignoredFiles``. A file with one of those endings that does not parse is an error: trust
/// material is never skipped silently.
///
/// The store caches chain validation per x5chain (the DS→IACA signature is verified once per
/// DS certificate for a whole batch); it is safe to share between tasks.
package final class TrustStore: Sendable {
    package let anchors: [Certificate]
    package let crls: [CRL]
    /// Files of the folder that were not read as trust material.
    package let ignoredFiles: [String]
    /// What the loader noticed and the checks cannot: CRLs that no anchor of the folder issued
    /// and signed (they are never consulted), one line each with the file name.
    package let warnings: [String]
    /// SHA-256 (hex) over the sorted fingerprints of every anchor and CRL: identifies the trust
    /// snapshot a verification ran against (stored with every result and proof).
    package let snapshotHash: String
    /// What ``snapshotHash`` is the SHA-256 of: one sorted line per anchor, CRL, anchor origin
    /// and further material.
    package let snapshot: [UInt8]
    /// Where the material came from (folder path), for reports.
    package let origin: String
    /// Where each anchor comes from, by SHA-256 fingerprint; an anchor without an entry comes
    /// from ``origin`` and is trusted for any docType.
    package let anchorOrigins: [[UInt8]: [AnchorOrigin]]
    /// The further material lines the snapshot covers.
    let material: [String]

    private let chainCache = NIOLockedValueBox<[String: ChainOutcome]>([:])
    private let chainValidations = Atomic<Int>(0)
    private let chainCacheHits = Atomic<Int>(0)
    private let crlCache = NIOLockedValueBox<[String: [CRL]]>([:])
    private let certificateCache = NIOLockedValueBox<[[UInt8]: Certificate]>([:])
    /// The certificate ``certificate(der:)`` returned last.
    private let lastCertificate = NIOLockedValueBox<Certificate?>(nil)
    /// Bound on cached certificates/chains, so a hostile batch of unique certificates cannot grow memory without limit.
    package static let cacheLimit = 10_000

    /// `material` names further trust material the snapshot covers, one line each (a list or a
    /// status token: `kind:sha256`), so that a stored result is reused only under the same.
    package init(
        anchors: [Certificate], crls: [CRL] = [], ignoredFiles: [String] = [], warnings: [String] = [], origin: String = "memory",
        anchorOrigins: [[UInt8]: [AnchorOrigin]] = [:], material: [String] = []
    ) {
        self.anchors = anchors
        self.crls = crls
        self.ignoredFiles = ignoredFiles
        self.warnings = warnings
        self.origin = origin
        self.anchorOrigins = anchorOrigins
        self.material = material
        var digests = anchors.map { "cert:" + $0.fingerprintHex } + crls.map { "crl:" + hexString(HashFunction.sha256.hash($0.der)) }
        for (fingerprint, origins) in anchorOrigins {
            for origin in origins {
                let docTypes = origin.docTypes?.joined(separator: ",") ?? "*"
                digests.append("origin:\(hexString(fingerprint)) \(origin.source) \(docTypes)")
            }
        }
        digests += material
        digests.sort()
        self.snapshot = Array(digests.joined(separator: "\n").utf8)
        self.snapshotHash = hexString(HashFunction.sha256.hash(snapshot))
    }

    /// This store with `listed` anchors added (each with where it comes from and what it is
    /// trusted for), and `material` lines added to the snapshot. An anchor already in the store
    /// keeps its origins and gains the new one.
    package func adding(listed: [(certificate: Certificate, origin: AnchorOrigin)], material: [String]) -> TrustStore {
        var anchors = self.anchors
        var origins = anchorOrigins
        var known = Set(anchors.map(\.sha256Fingerprint))
        for anchor in anchors where origins[anchor.sha256Fingerprint] == nil {
            origins[anchor.sha256Fingerprint] = [AnchorOrigin(source: origin, docTypes: nil)]
        }
        for (certificate, origin) in listed {
            if known.insert(certificate.sha256Fingerprint).inserted { anchors.append(certificate) }
            if origins[certificate.sha256Fingerprint]?.contains(origin) != true {
                origins[certificate.sha256Fingerprint, default: []].append(origin)
            }
        }
        // A folder's CRL of a listed IACA is consulted after all: its warning goes.
        let listedSubjects = Set(listed.map(\.certificate.subject.rfc2253))
        let warnings = self.warnings.filter { warning in
            !listedSubjects.contains { warning.contains(": the CRL of \($0) names no certificate of the trust folder") }
        }
        return TrustStore(
            anchors: anchors, crls: crls, ignoredFiles: ignoredFiles, warnings: warnings, origin: origin,
            anchorOrigins: listed.isEmpty ? anchorOrigins : origins, material: self.material + material)
    }

    /// Where `anchor` comes from: its origins, or the store's own ``origin`` (any docType).
    package func origins(of anchor: Certificate) -> [AnchorOrigin] {
        anchorOrigins[anchor.sha256Fingerprint] ?? [AnchorOrigin(source: origin, docTypes: nil)]
    }

    /// The docTypes `anchor` is trusted for: the union over its origins; `nil` for any.
    package func docTypes(trustedFor anchor: Certificate) -> Set<String>? {
        var docTypes = Set<String>()
        for origin in origins(of: anchor) {
            guard let listed = origin.docTypes else { return nil }
            docTypes.formUnion(listed)
        }
        return docTypes
    }

    /// Loads every certificate and CRL of `directory` (not recursive). Throws when the folder is
    /// missing or unreadable, a trust file does not parse, or there is no certificate at all
    /// unless `allowingNoCertificate` (the IACAs then come from a VICAL).
    package convenience init(directory: String, allowingNoCertificate: Bool = false) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw TrustError(.notFound, "trust folder \(directory) does not exist: pass --trust with the folder holding the IACA certificates")
        }
        guard isDirectory.boolValue else {
            throw TrustError(.unreadable, "\(directory) is a file, not a folder: pass --trust with the folder holding the IACA certificates")
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
        } catch {
            throw TrustError(.unreadable, "cannot list trust folder \(directory): \(error.localizedDescription)")
        }
        var anchors: [Certificate] = []
        var crls: [CRL] = []
        var crlFiles: [String] = []
        var ignored: [String] = []
        for name in names {
            let ext = (name as NSString).pathExtension.lowercased()
            let fileURL = url.appendingPathComponent(name)
            guard ["pem", "crt", "cer", "der", "crl"].contains(ext) else {
                ignored.append(name)
                continue
            }
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: fileURL))
            } catch {
                throw TrustError(.unreadable, "cannot read trust file \(fileURL.path): \(error.localizedDescription)")
            }
            let text = String(decoding: bytes.prefix(64 * 1024), as: UTF8.self)
            let isPEM = text.contains("-----BEGIN")
            if ext == "crl" {
                do {
                    let parsed = try CRL.parseAll(pemOrDER: bytes)
                    crls.append(contentsOf: parsed)
                    crlFiles.append(contentsOf: Array(repeating: name, count: parsed.count))
                } catch {
                    throw TrustError(.invalidFile, "trust file \(fileURL.path) is not a CRL (PEM or DER): \(error)")
                }
                continue
            }
            if isPEM {
                let hasCertificate = text.contains("BEGIN CERTIFICATE")
                let hasCRL = text.contains("BEGIN X509 CRL")
                do {
                    if hasCertificate { anchors.append(contentsOf: try Certificate.parseAll(pemOrDER: bytes)) }
                    if hasCRL {
                        let parsed = try CRL.parseAll(pemOrDER: bytes)
                        crls.append(contentsOf: parsed)
                        crlFiles.append(contentsOf: Array(repeating: name, count: parsed.count))
                    }
                } catch {
                    throw TrustError(.invalidFile, "trust file \(fileURL.path) does not parse: \(error)")
                }
                if !hasCertificate && !hasCRL {
                    throw TrustError(.invalidFile, "trust file \(fileURL.path) holds no CERTIFICATE or X509 CRL block")
                }
            } else {
                do {
                    anchors.append(try Certificate(der: bytes))
                } catch {
                    do {
                        crls.append(try CRL(der: bytes))
                        crlFiles.append(name)
                    } catch {
                        throw TrustError(.invalidFile, "trust file \(fileURL.path) is neither a DER certificate nor a DER CRL")
                    }
                }
            }
        }
        guard !anchors.isEmpty || allowingNoCertificate else {
            throw TrustError(.empty, "trust folder \(directory) holds no certificate: put the IACA certificates (PEM or DER) there")
        }
        var warnings: [String] = []
        for (crl, file) in zip(crls, crlFiles) {
            let named = anchors.filter { $0.subject == crl.issuer }
            if named.isEmpty {
                warnings.append("\(file): the CRL of \(crl.issuer.rfc2253) names no certificate of the trust folder; it is never consulted")
            } else if !named.contains(where: { crl.isSigned(by: $0) }) {
                warnings.append("\(file): the CRL of \(crl.issuer.rfc2253) is not signed by that IACA's key; it is ignored")
            }
        }
        self.init(anchors: anchors, crls: crls, ignoredFiles: ignored, warnings: warnings, origin: directory)
    }

    /// CRLs of the store that name `issuer` but whose signature does not verify with its key:
    /// never consulted, but worth reporting (revocation is otherwise silently unchecked).
    package func rejectedCRLs(naming issuer: Certificate) -> [CRL] {
        crls.filter { $0.issuer == issuer.subject && !$0.isSigned(by: issuer) }
    }

    /// Parses a received certificate, reusing an earlier parse of the same bytes.
    package func certificate(der: ArraySlice<UInt8>) throws -> Certificate {
        // A batch mostly repeats one DS certificate: compare with the last one before copying
        // and hashing the bytes for the dictionary.
        if let last = lastCertificate.withLockedValue({ $0 }), Self.sameBytes(last.der, der) { return last }
        let certificate = try cachedCertificate(der: der)
        lastCertificate.withLockedValue { $0 = certificate }
        return certificate
    }

    /// ``certificate(der:)`` through the dictionary cache.
    private func cachedCertificate(der: ArraySlice<UInt8>) throws -> Certificate {
        // Keyed by a copy: a slice would keep the whole received buffer alive in the cache.
        let key = Array(der)
        if let cached = certificateCache.withLockedValue({ $0[key] }) { return cached }
        let certificate = try Certificate(der: key)
        certificateCache.withLockedValue { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = certificate
        }
        return certificate
    }

    /// Whether `a` and `b` hold the same bytes (`memcmp`).
    static func sameBytes(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return true }  // both empty
                return memcmp(p, q, x.count) == 0
            }
        }
    }

    /// The outcome of building a path from a received chain to an anchor.
    package enum ChainOutcome: Sendable {
        /// Leaf first, anchor last.
        case valid([Certificate])
        case invalid(PathValidationFailure)
    }

    /// Validates `chain` (leaf first, as in x5chain; the rest are intermediates or the anchor
    /// itself) against the anchors, without judging time (time is judged per instant by the
    /// callers). Cached per chain.
    package func validate(chain: [Certificate]) -> ChainOutcome {
        guard let leaf = chain.first else {
            return .invalid(PathValidationFailure(code: -1, reason: "empty chain", depth: 0))
        }
        let key = chain.map(\.fingerprintHex).joined(separator: ",")
        if let cached = chainCache.withLockedValue({ $0[key] }) {
            chainCacheHits.add(1, ordering: .relaxed)
            return cached
        }
        chainValidations.add(1, ordering: .relaxed)
        let outcome: ChainOutcome
        switch PathValidator.validate(leaf: leaf, intermediates: Array(chain.dropFirst()), roots: anchors, at: nil) {
        case .success(let validated): outcome = .valid(validated)
        case .failure(let failure): outcome = .invalid(failure)
        }
        chainCache.withLockedValue { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = outcome
        }
        return outcome
    }

    /// How ``validate(chain:)`` was answered over the life of the store.
    package struct CacheStatistics: Sendable, Hashable {
        /// Path validations performed (cache misses).
        package var chainValidations: Int
        /// Answers served from the per-chain cache of ``validate(chain:)``.
        package var chainCacheHits: Int

        package init(chainValidations: Int, chainCacheHits: Int) {
            self.chainValidations = chainValidations
            self.chainCacheHits = chainCacheHits
        }
    }

    package var cacheStatistics: CacheStatistics {
        CacheStatistics(
            chainValidations: chainValidations.load(ordering: .relaxed), chainCacheHits: chainCacheHits.load(ordering: .relaxed))
    }

    /// The CRLs issued (and signed) by `issuer`. Each CRL signature is verified once per issuer
    /// for the life of the store, not on every lookup (a batch asks for every document, twice).
    package func crls(issuedBy issuer: Certificate) -> [CRL] {
        let key = issuer.fingerprintHex
        if let cached = crlCache.withLockedValue({ $0[key] }) { return cached }
        let found = crls.filter { $0.issuer == issuer.subject && $0.isSigned(by: issuer) }
        crlCache.withLockedValue { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = found
        }
        return found
    }
}
