package import Foundation
package import MdocCrypto
package import MdocIngest
import MdocPipeline
import MdocTime
import MdocTrust
import MdocTrustLists
import MdocVerification

/// One download of `mdocverify trust fetch`: what, from where, into which file of the trust
/// folder, and what named it.
package struct TrustFetchTarget: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable {
        /// The CRL at a trusted IACA's CRL distribution point (RFC 5280 §4.2.1.13).
        case crl
        /// The newest VICAL at a VICAL's vicalURL (18013-5 Annex C).
        case vical
        /// A status list or identifier list token at an MSO's uri (18013-5 second edition §12.3.6).
        case statusList
        case identifierList
    }

    package let kind: Kind
    package let url: String
    /// The file written, relative to the trust folder. A CRL or VICAL replaces its file; each
    /// status token is a file of its own (the capture time is judged with the token of its time),
    /// named when fetched.
    package let file: String
    /// What named the address, for people: the IACA, the VICAL's file, the input.
    package let origin: String
}

/// What `trust fetch` downloads: the CRLs of the trusted IACAs, the VICALs of the trust folder
/// at their own address, and the status and identifier lists the inputs' MSOs name.
package struct TrustFetchPlan: Sendable {
    package var targets: [TrustFetchTarget] = []
    /// Inputs that could not be read, and lists that name no address: said, not fatal.
    package var notes: [String] = []

    /// The folder status tokens go to, inside the trust folder.
    package static let statusFolder = RunTrustMaterial.statusFolderName

    /// The plan for `trustDirectory` and `inputs`. Throws a ``PipelineSetupError`` when the trust
    /// folder cannot be read.
    package init(trustDirectory: String, inputs: [String], limits: IngestLimits = .default, now: Date = Date()) throws {
        let store: TrustStore
        do {
            store = try TrustStore(directory: trustDirectory)
        } catch {
            throw PipelineSetupError("\(error)")
        }
        var seen = Set<String>()
        func add(_ target: TrustFetchTarget) {
            if seen.insert(target.url).inserted { targets.append(target) }
        }
        for anchor in store.anchors {
            let addresses = anchor.crlDistributionPointURIs.filter(Self.isHTTP)
            if addresses.isEmpty { notes.append("\(anchor.subject.rfc2253) names no http(s) CRL distribution point") }
            for url in addresses {
                add(TrustFetchTarget(kind: .crl, url: url, file: "crl-\(Self.name(url)).crl", origin: anchor.subject.rfc2253))
            }
        }
        for name in store.ignoredFiles.sorted() where name.lowercased().hasSuffix(".vical") {
            let path = (trustDirectory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path),
                let list = try? CertificateList(decoding: Array(data)[...], kind: .vical)
            else {
                notes.append("\(name) is not a readable VICAL; its address is unknown")
                continue
            }
            guard let url = list.url, Self.isHTTP(url) else {
                notes.append("\(name) names no http(s) vicalURL")
                continue
            }
            add(TrustFetchTarget(kind: .vical, url: url, file: name, origin: name))
        }
        guard !inputs.isEmpty else { return }
        // The inputs' MSOs, read by the verifier itself (sessions decrypted, documents decoded).
        let context = TransactionContext(trust: store, readerTrust: nil, verificationTime: now)
        for item in InputReader(inputs: inputs, limits: limits) {
            switch item {
            case .failure(let failure):
                notes.append("\(failure.source): \(failure.error)")
            case .transaction(let bundle):
                for document in TransactionVerifier.verify(bundle, context: context).pending.facts.documents {
                    if let reference = document.status?.statusList {
                        add(Self.token(.statusList, reference.uri, origin: bundle.source, now: now))
                    }
                    if let reference = document.status?.identifierList {
                        add(Self.token(.identifierList, reference.uri, origin: bundle.source, now: now))
                    }
                }
            }
        }
    }

    static func token(_ kind: TrustFetchTarget.Kind, _ url: String, origin: String, now: Date) -> TrustFetchTarget {
        let stamp = RFC3339.format(now).replacingOccurrences(of: ":", with: "").replacingOccurrences(of: "-", with: "")
        return TrustFetchTarget(kind: kind, url: url, file: "\(statusFolder)/\(name(url))-\(stamp).cwt", origin: origin)
    }

    /// A file name for an address: the first 16 hex digits of its SHA-256.
    static func name(_ url: String) -> String { String(hexString(HashFunction.sha256.hash(Array(url.utf8))).prefix(16)) }

    static func isHTTP(_ url: String) -> Bool {
        guard let scheme = URL(string: url)?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }
}
