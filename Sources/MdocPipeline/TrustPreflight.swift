package import Foundation
package import MdocCrypto
internal import MdocProof
package import MdocStore
package import MdocTrust
package import MdocTrustLists
package import MdocVerification

/// The trust of a run, read once at pre-flight: the trust folder (IACAs and CRLs), the VICALs
/// (`--vical`, and `*.vical` of the trust folder) whose IACAs join the anchors for the docTypes
/// their entries list, the reader roots (`--reader-trust`, and the RICALs of `--rical`), and the
/// status tokens (`--status`, else the trust folder's `status/` when there is one), each token
/// decoded, inflated and its signature verified once for the whole run. Also what the store
/// records of it (``items``) and the proofs name (``lists``).
package struct RunTrustMaterial: Sendable {
    /// The IACAs (folder and lists) and CRLs; its snapshot hash covers the lists and tokens.
    package let trust: TrustStore
    /// The reader roots (folder and RICALs); `nil` when neither was given.
    package let readerTrust: TrustStore?
    package let lists: RunTrustLists
    /// The trust snapshot, item by item.
    package let items: [TrustItem]

    /// The name of the status folder inside a trust folder.
    package static let statusFolderName = "status"

    /// Reads everything `configuration` names. A missing or unreadable file or folder, a file that
    /// is not what its option says, or a list without its provider's root is a setup error; a list
    /// that does not verify is not: its facts are judged per document (the `vical.*` checks).
    package static func load(_ configuration: RunConfiguration) throws -> RunTrustMaterial {
        // A folder without certificates is fine when a VICAL gives the IACAs: judged once the
        // lists are read.
        let folder: TrustStore
        var items: [TrustItem] = []
        var folderLists: [String] = []
        if let directory = configuration.trustDirectory {
            do {
                folder = try TrustStore(directory: directory, allowingNoCertificate: true)
            } catch {
                throw PipelineSetupError("\(error)")
            }
            items = folder.anchors.map { anchorItem(.anchor, $0, source: "folder", file: directory) }
            items += folder.crls.map { crl in
                TrustItem(
                    kind: .crl, sha256: hexString(HashFunction.sha256.hash(crl.der)), name: crl.issuer.rfc2253, source: "folder",
                    file: directory, issuedAt: crl.thisUpdate, expiresAt: crl.nextUpdate)
            }
            folderLists = folder.ignoredFiles.filter { $0.lowercased().hasSuffix(".vical") }.sorted()
                .map { (directory as NSString).appendingPathComponent($0) }
        } else {
            folder = TrustStore(anchors: [], origin: "VICAL")
        }
        let vicals = try loadLists(
            configuration.vicalPaths + folderLists, kind: .vical, anchorPaths: configuration.vicalAnchorPaths, option: "--vical")
        let ricals = try loadLists(configuration.ricalPaths, kind: .rical, anchorPaths: configuration.ricalAnchorPaths, option: "--rical")
        if folder.anchors.isEmpty && !vicals.contains(where: { !$0.list.entries.isEmpty }) {
            throw PipelineSetupError(missingIACAs(configuration.trustDirectory, vicals: vicals))
        }

        let status = try loadStatus(configuration)
        let tokenLines = status?.entries.map { "status:" + hexString($0.sha256) } ?? []
        let (trust, vicalItems) = adding(vicals, to: folder, anchorKind: .anchor, material: tokenLines)
        items += vicalItems
        var readerTrust: TrustStore?
        if let directory = configuration.readerTrustDirectory {
            do {
                readerTrust = try TrustStore(directory: directory)
            } catch {
                throw PipelineSetupError("--reader-trust: \(error)")
            }
        }
        if let roots = readerTrust {
            items += roots.anchors.map { anchorItem(.readerAnchor, $0, source: "folder", file: configuration.readerTrustDirectory) }
        }
        if !ricals.isEmpty {
            let (merged, ricalItems) = adding(ricals, to: readerTrust ?? TrustStore(anchors: [], origin: "RICAL"), anchorKind: .readerAnchor, material: [])
            readerTrust = merged
            items += ricalItems
        }
        items += status?.entries.map { entry in
            TrustItem(
                kind: entry.claims.kind == .statusList ? .statusList : .identifierList, sha256: hexString(entry.sha256),
                name: entry.claims.subject, source: "status", file: entry.file, issuedAt: entry.claims.issuedAt,
                expiresAt: entry.claims.expiresAt)
        } ?? []
        return RunTrustMaterial(
            trust: trust, readerTrust: readerTrust, lists: RunTrustLists(vicals: vicals, ricals: ricals, status: status), items: items)
    }

    /// What to fix when neither the trust folder nor a VICAL gives an IACA.
    static func missingIACAs(_ directory: String?, vicals: [LoadedCertificateList]) -> String {
        let folder = directory.map { "trust folder \($0) holds no certificate" } ?? "no trust folder given"
        let lists = vicals.isEmpty ? "no VICAL" : vicals.map { "\($0.path) lists no IACA" }.joined(separator: ", ")
        return "no IACA to trust: \(folder) and \(lists); put the IACA certificates (PEM or DER) in --trust DIR, "
            + "or give --vical FILE with --vical-anchor CERT (its provider's root)"
    }

    /// The signed lists, as each proof names them.
    var proofLists: [ProofEvidence.TrustList] {
        (lists.vicals + lists.ricals).map { loaded in
            ProofEvidence.TrustList(
                kind: loaded.list.kind.name, provider: loaded.list.provider, date: loaded.list.date, issueID: loaded.list.issueID,
                sha256: hexString(loaded.sha256))
        }
    }

    static func anchorItem(_ kind: TrustItem.Kind, _ certificate: Certificate, source: String, file: String?, docTypes: [String]? = nil)
        -> TrustItem
    {
        TrustItem(
            kind: kind, sha256: certificate.fingerprintHex, name: certificate.subject.rfc2253, source: source, file: file,
            docTypes: docTypes, issuedAt: certificate.notBefore, expiresAt: certificate.notAfter)
    }

    /// The lists of `paths`, each read against the roots of `anchorPaths`.
    static func loadLists(
        _ paths: [String], kind: CertificateListKind, anchorPaths: [String], option: String
    ) throws -> [LoadedCertificateList] {
        guard !paths.isEmpty else { return [] }
        guard !anchorPaths.isEmpty else {
            throw PipelineSetupError(
                "\(paths[0]) is a \(kind): give \(option)-anchor with the root of its provider (a PEM or DER certificate)")
        }
        var anchors: [Certificate] = []
        for path in anchorPaths {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PipelineSetupError("\(option)-anchor \(path) cannot be read")
            }
            do {
                anchors += try Certificate.parseAll(pemOrDER: Array(data))
            } catch {
                throw PipelineSetupError("\(option)-anchor \(path) is not a certificate (PEM or DER): \(error)")
            }
        }
        return try paths.map { path in
            guard let data = FileManager.default.contents(atPath: path) else {
                throw PipelineSetupError("\(option) \(path) cannot be read")
            }
            do {
                return try LoadedCertificateList(path: path, bytes: Array(data)[...], kind: kind, anchors: anchors)
            } catch {
                throw PipelineSetupError("\(option) \(path) is not a \(kind): \(error)")
            }
        }
    }

    /// `store` with the entries of `lists` added as anchors, and the snapshot items of the lists
    /// and their anchors.
    static func adding(
        _ lists: [LoadedCertificateList], to store: TrustStore, anchorKind: TrustItem.Kind, material: [String]
    ) -> (TrustStore, [TrustItem]) {
        var listed: [(certificate: Certificate, origin: AnchorOrigin)] = []
        var items: [TrustItem] = []
        var lines = material
        for loaded in lists {
            let list = loaded.list
            let kind: TrustItem.Kind = list.kind == .vical ? .vical : .rical
            lines.append("\(kind.rawValue):" + hexString(loaded.sha256))
            items.append(TrustItem(
                kind: kind, sha256: hexString(loaded.sha256), name: list.provider, source: list.kind.name, file: loaded.path,
                issueID: list.issueID, issuedAt: list.date, expiresAt: list.nextUpdate))
            for entry in list.entries {
                let docTypes = list.kind == .vical ? entry.docTypes : nil
                listed.append((entry.certificate, AnchorOrigin(source: loaded.label, docTypes: docTypes, list: loaded.sha256)))
                items.append(anchorItem(anchorKind, entry.certificate, source: "\(list.kind) \(list.provider)", file: loaded.path, docTypes: docTypes))
            }
        }
        return (store.adding(listed: listed, material: lines), items)
    }

    /// The status folder: `--status`, else the trust folder's `status/` when it exists; the
    /// trust folder's fetch log says where its files came from.
    static func loadStatus(_ configuration: RunConfiguration) throws -> StatusFolder? {
        let inTrust = configuration.trustDirectory.map { ($0 as NSString).appendingPathComponent(statusFolderName) }
        var isDirectory: ObjCBool = false
        let directory: String
        if let given = configuration.statusDirectory {
            directory = given
        } else if let inTrust, FileManager.default.fileExists(atPath: inTrust, isDirectory: &isDirectory), isDirectory.boolValue {
            directory = inTrust
        } else {
            return nil
        }
        var origins: [String: String] = [:]
        let statusFolder = URL(fileURLWithPath: directory).standardizedFileURL.path
        if let trustDirectory = configuration.trustDirectory,
            case let trustFolder = URL(fileURLWithPath: trustDirectory).standardizedFileURL.path,
            statusFolder.hasPrefix(trustFolder + "/")
        {
            origins = TrustFetchLog(directory: trustDirectory)
                .origins(inFolder: String(statusFolder.dropFirst(trustFolder.count + 1)))
        }
        do {
            return try StatusFolder(directory: directory, origins: origins)
        } catch {
            throw PipelineSetupError("--status \(directory): \(error.reason)")
        }
    }
}
