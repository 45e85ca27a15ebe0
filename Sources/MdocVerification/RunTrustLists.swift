package import MdocCrypto
package import MdocTrustLists

/// The signed lists and status tokens of a run, as the checks read them: the VICALs whose IACAs
/// the trust store holds, the RICALs whose roots the reader trust store holds (each found by the
/// anchor's fingerprint), and the status folder. Read once by the pipeline's pre-flight; the
/// checks never touch the file system.
package struct RunTrustLists: Sendable {
    /// The VICALs given (`--vical`, `*.vical` of the trust folder), in that order.
    package let vicals: [LoadedCertificateList]
    /// The RICALs given (`--rical`).
    package let ricals: [LoadedCertificateList]
    /// The status and identifier list tokens (`--status`); `nil` when none were given.
    package let status: StatusFolder?
    private let vicalsByAnchor: [[UInt8]: [Int]]
    private let ricalsByAnchor: [[UInt8]: [Int]]

    package init(vicals: [LoadedCertificateList] = [], ricals: [LoadedCertificateList] = [], status: StatusFolder? = nil) {
        self.vicals = vicals
        self.ricals = ricals
        self.status = status
        vicalsByAnchor = Self.index(vicals)
        ricalsByAnchor = Self.index(ricals)
    }

    /// No list, no status folder.
    package static let none = RunTrustLists()

    static func index(_ lists: [LoadedCertificateList]) -> [[UInt8]: [Int]] {
        var index: [[UInt8]: [Int]] = [:]
        for (position, loaded) in lists.enumerated() {
            for entry in loaded.list.entries where index[entry.certificate.sha256Fingerprint]?.last != position {
                index[entry.certificate.sha256Fingerprint, default: []].append(position)
            }
        }
        return index
    }

    /// The VICALs that list `anchor`, in the order given.
    package func vicals(listing anchor: Certificate) -> [LoadedCertificateList] {
        (vicalsByAnchor[anchor.sha256Fingerprint] ?? []).map { vicals[$0] }
    }

    /// The RICALs that list `anchor`, in the order given.
    package func ricals(listing anchor: Certificate) -> [LoadedCertificateList] {
        (ricalsByAnchor[anchor.sha256Fingerprint] ?? []).map { ricals[$0] }
    }
}
