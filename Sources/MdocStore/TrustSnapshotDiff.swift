import Foundation
import MdocTime

/// One difference between two trust snapshots: an item added, removed, or changed in place (an
/// anchor's docTypes, a list's new issue, a CRL replaced).
package struct TrustChange: Sendable, Hashable {
    package enum Change: String, Sendable, Hashable {
        case added, removed, changed
    }

    package var kind: TrustItem.Kind
    package var change: Change
    /// The item in the earlier snapshot (`nil` when added).
    package var before: TrustItem?
    /// The item in the later snapshot (`nil` when removed).
    package var after: TrustItem?

    /// Either side: what the change is about.
    package var item: TrustItem? { after ?? before }

    /// The change for people: "IACA CN=… removed from VICAL Utopia Trust Services", "CRL of CN=…:
    /// thisUpdate 2026-01-01T00:00:00Z → 2026-02-01T00:00:00Z".
    package var description: String {
        guard let item else { return "" }
        switch kind {
        case .anchor, .readerAnchor:
            let what = kind == .anchor ? "IACA" : "reader root"
            let place = item.source == "folder" ? "the trust folder" : item.source
            let name = "\(what) \(item.name) (sha256 \(item.sha256.prefix(16)))"
            switch change {
            case .added: return "\(name) added to \(place)"
            case .removed: return "\(name) removed from \(place)"
            case .changed:
                return "\(name) in \(place): docTypes \(Self.docTypes(before)) → \(Self.docTypes(after))"
            }
        case .vical, .rical:
            let name = "\(kind == .vical ? "VICAL" : "RICAL") of \(item.name)"
            switch change {
            case .added: return "\(name) \(Self.issue(after)) added"
            case .removed: return "\(name) \(Self.issue(before)) removed"
            case .changed: return "\(name): \(Self.issue(before)) → \(Self.issue(after))"
            }
        case .crl:
            let name = "CRL of \(item.name)"
            switch change {
            case .added: return "\(name) (thisUpdate \(Self.time(after?.issuedAt))) added"
            case .removed: return "\(name) (thisUpdate \(Self.time(before?.issuedAt))) removed"
            case .changed: return "\(name) replaced: thisUpdate \(Self.time(before?.issuedAt)) → \(Self.time(after?.issuedAt))"
            }
        case .statusList, .identifierList:
            let name = "\(kind == .statusList ? "status list" : "identifier list") token for \(item.name)"
            return "\(name) (iat \(Self.time(item.issuedAt)), exp \(Self.time(item.expiresAt))) \(change.rawValue)"
        }
    }

    static func docTypes(_ item: TrustItem?) -> String {
        guard let docTypes = item?.docTypes else { return "any" }
        return docTypes.isEmpty ? "none" : docTypes.joined(separator: ", ")
    }

    static func issue(_ item: TrustItem?) -> String {
        let number = item?.issueID.map { "issue \($0) " } ?? ""
        return "\(number)of \(time(item?.issuedAt))"
    }

    static func time(_ date: Date?) -> String { date.map { RFC3339.format($0) } ?? "-" }
}

/// What changed between two trust snapshots (`mdocverify trust diff`, and the report's
/// verdicts changed). Items are matched by what they are, not by file: an anchor by its
/// fingerprint and source, a list by its kind and provider, a CRL by its issuer, a token by its
/// SHA-256 (a folder holds several tokens per uri over time).
package enum TrustSnapshotDiff {
    package static func changes(from old: [TrustItem], to new: [TrustItem]) -> [TrustChange] {
        var changes: [TrustChange] = []
        for kind in TrustItem.Kind.allCases {
            let before = old.filter { $0.kind == kind }
            let after = new.filter { $0.kind == kind }
            changes += compare(kind, before, after)
        }
        return changes
    }

    /// The key an item is matched by, and whether two matched items differ.
    static func key(_ item: TrustItem) -> String {
        switch item.kind {
        case .anchor, .readerAnchor: "\(item.sha256) \(item.source)"
        case .vical, .rical, .crl: item.name
        case .statusList, .identifierList: item.sha256
        }
    }

    static func differ(_ a: TrustItem, _ b: TrustItem) -> Bool {
        switch a.kind {
        case .anchor, .readerAnchor: a.docTypes != b.docTypes
        default: a.sha256 != b.sha256
        }
    }

    static func compare(_ kind: TrustItem.Kind, _ before: [TrustItem], _ after: [TrustItem]) -> [TrustChange] {
        let old = Dictionary(grouping: before, by: key)
        let new = Dictionary(grouping: after, by: key)
        var changes: [TrustChange] = []
        for key in Set(old.keys).union(new.keys).sorted() {
            let a = old[key] ?? []
            let b = new[key] ?? []
            if a.count == 1, b.count == 1, let x = a.first, let y = b.first {
                if differ(x, y) { changes.append(TrustChange(kind: kind, change: .changed, before: x, after: y)) }
                continue
            }
            // Several of one key (CRLs of one issuer): by content.
            let kept = Set(a.map(\.sha256)).intersection(b.map(\.sha256))
            changes += a.filter { !kept.contains($0.sha256) }.map { TrustChange(kind: kind, change: .removed, before: $0, after: nil) }
            changes += b.filter { !kept.contains($0.sha256) }.map { TrustChange(kind: kind, change: .added, before: nil, after: $0) }
        }
        return changes
    }

    /// The changes that concern a transaction: of its IACAs (by fingerprint) and their lists,
    /// of the CRLs their subjects issue, of the status tokens of its uris.
    package static func concerning(
        _ changes: [TrustChange], anchors: Set<String>, issuers: Set<String>, uris: Set<String>
    ) -> [TrustChange] {
        let anchorChanges = changes.filter { $0.kind == .anchor && anchors.contains($0.item?.sha256 ?? "") }
        let sources = Set(anchorChanges.compactMap(\.item?.source))
        return changes.filter { change in
            guard let item = change.item else { return false }
            switch change.kind {
            case .anchor: return anchors.contains(item.sha256)
            case .vical: return sources.contains("VICAL \(item.name)")
            case .crl: return issuers.contains(item.name)
            case .statusList, .identifierList: return uris.contains(item.name)
            case .readerAnchor, .rical: return false
            }
        }
    }
}
