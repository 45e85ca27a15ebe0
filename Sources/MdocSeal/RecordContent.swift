package import Foundation
package import MdocChecks
internal import MdocCBOR
internal import MdocTime

/// What a kiosk seals for one transaction: the bundle's files exactly as captured (the reader's
/// ephemeral key among them), the consent record, the kiosk's verdict and check results, the
/// kiosk id and its sequence number. Deterministic CBOR (RFC 8949 §4.2.1), as `docs/kiosk.md`
/// gives in CDDL.
package struct RecordContent: Sendable, Equatable {
    /// The value of the `format` field: the version of this layout.
    package static let format = "mdocverify-kiosk-record-v1"

    package var kiosk: KioskID
    /// The kiosk's sequence number, from 1, one per record sealed.
    package var sequence: UInt64
    /// When the record was sealed (second precision).
    package var sealedAt: Date
    /// Bundle-relative path → the file's bytes as captured.
    package var files: [String: [UInt8]]
    package var consent: SealedConsent?
    package var verdict: KioskVerdict
    package var checks: [CheckResult]

    package init(
        kiosk: KioskID, sequence: UInt64, sealedAt: Date, files: [String: [UInt8]], consent: SealedConsent?,
        verdict: KioskVerdict, checks: [CheckResult]
    ) {
        self.kiosk = kiosk
        self.sequence = sequence
        self.sealedAt = sealedAt
        self.files = files
        self.consent = consent
        self.verdict = verdict
        self.checks = checks
    }

    /// The deterministic CBOR of the content, the payload the kiosk signs.
    package func cbor() -> [UInt8] {
        var fileEntries: [CBORNode.Entry] = []
        fileEntries.reserveCapacity(files.count)
        for (path, bytes) in files { fileEntries.append(.init(.text(path), .bytes(bytes))) }
        return CBORNode.map([
            "format": .text(Self.format),
            "kiosk": .text(kiosk.rawValue),
            "sequence": .unsigned(sequence),
            "sealedAt": Self.time(sealedAt),
            "files": .map(fileEntries),
            "consent": consent.map(\.node) ?? .null,
            "verdict": verdict.node,
            "checks": .array(checks.map(Self.node(for:))),
        ]).encoded()
    }

    /// An instant as `tdate` (RFC 8949 §3.4.1: tag 0 over RFC 3339 text), second precision.
    static func time(_ date: Date) -> CBORNode { .tagged(0, .text(RFC3339.format(date))) }

    static func optionalTime(_ date: Date?) -> CBORNode { date.map(time) ?? .null }

    static func node(for check: CheckResult) -> CBORNode {
        var entries: [CBORNode.Entry] = [
            .init(.text("id"), .text(check.id.rawValue)), .init(.text("status"), .text(check.status.rawValue)),
            .init(.text("detail"), .text(check.detail)),
        ]
        if !check.subject.isEmpty { entries.append(.init(.text("subject"), .text(check.subject))) }
        if let instant = check.instant { entries.append(.init(.text("instant"), .text(instant.rawValue))) }
        if !check.evidence.isEmpty {
            entries.append(.init(.text("evidence"), .array(check.evidence.map { .array([.text($0.key), .text($0.value)]) })))
        }
        return .map(entries)
    }
}

/// The consent record of a transaction (`transaction.json`'s `consent`): its reference, the
/// scopes granted, when it was granted and when it expires.
package struct SealedConsent: Sendable, Equatable {
    package var reference: String?
    package var scopes: [String]
    package var grantedAt: Date?
    package var expiresAt: Date?

    package init(reference: String?, scopes: [String], grantedAt: Date?, expiresAt: Date?) {
        self.reference = reference
        self.scopes = scopes
        self.grantedAt = grantedAt
        self.expiresAt = expiresAt
    }

    var node: CBORNode {
        .map([
            "reference": reference.map(CBORNode.text) ?? .null,
            "scopes": .array(scopes.map(CBORNode.text)),
            "grantedAt": RecordContent.optionalTime(grantedAt),
            "expiresAt": RecordContent.optionalTime(expiresAt),
        ])
    }
}

/// The kiosk's own verdict on the transaction, at the verification and capture instants, with
/// the hash of the trust material it judged against.
package struct KioskVerdict: Sendable, Equatable {
    package var atVerification: Verdict
    package var atCapture: Verdict?
    package var verifiedAt: Date
    package var trustSnapshot: String?

    package init(atVerification: Verdict, atCapture: Verdict?, verifiedAt: Date, trustSnapshot: String?) {
        self.atVerification = atVerification
        self.atCapture = atCapture
        self.verifiedAt = verifiedAt
        self.trustSnapshot = trustSnapshot
    }

    var node: CBORNode {
        .map([
            "verification": .text(atVerification.rawValue),
            "capture": atCapture.map { .text($0.rawValue) } ?? .null,
            "verifiedAt": RecordContent.time(verifiedAt),
            "trustSnapshot": trustSnapshot.map(CBORNode.text) ?? .null,
        ])
    }
}
