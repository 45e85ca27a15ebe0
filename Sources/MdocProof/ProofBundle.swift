public import Foundation
import MdocCBOR
public import MdocChecks
import MdocCrypto
import MdocCOSE

/// The evidence a proof bundle carries (DESIGN.md, "What a run leaves behind"): enough for an
/// auditor to see what was verified, by which checks, against which trust material, without
/// trusting us. No element values.
public struct ProofEvidence: Sendable {
    public struct Input: Sendable {
        public var path: String
        public var sha256: [UInt8]
        public init(path: String, sha256: [UInt8]) {
            self.path = path
            self.sha256 = sha256
        }
    }

    public struct CertificateRef: Sendable {
        public var role: String
        public var sha256: String
        public var subject: String
        public init(role: String, sha256: String, subject: String) {
            self.role = role
            self.sha256 = sha256
            self.subject = subject
        }
    }

    /// One document-scan upload's evidence (issue: the 1 MB limit, with the evidence kept).
    public struct Upload: Sendable {
        public var uploadID: String
        public var documentType: String
        public var side: String
        public var outcome: String
        public var reason: String?
        public var original: [(String, String)]
        public var output: [(String, String)]
        public var passes: Int
        public init(
            uploadID: String, documentType: String, side: String, outcome: String, reason: String?,
            original: [(String, String)], output: [(String, String)], passes: Int
        ) {
            self.uploadID = uploadID
            self.documentType = documentType
            self.side = side
            self.outcome = outcome
            self.reason = reason
            self.original = original
            self.output = output
            self.passes = passes
        }
    }

    public var referenceCode: String
    public var transactionID: String
    public var name: String
    public var source: String
    public var capturedAt: Date?
    public var verificationTime: Date
    public var verifiedAt: Date
    public var verdict: Verdict
    public var verdictAtCapture: Verdict?
    public var inputs: [Input]
    public var checks: [CheckResult]
    public var certificates: [CertificateRef]
    public var trustSnapshot: String
    public var consentReference: String?
    public var processorVersion: String
    public var runID: String
    public var uploads: [Upload] = []

    public init(
        referenceCode: String, transactionID: String, name: String, source: String, capturedAt: Date?,
        verificationTime: Date, verifiedAt: Date, verdict: Verdict, verdictAtCapture: Verdict?, inputs: [Input],
        checks: [CheckResult], certificates: [CertificateRef], trustSnapshot: String, consentReference: String?,
        processorVersion: String, runID: String
    ) {
        self.referenceCode = referenceCode
        self.transactionID = transactionID
        self.name = name
        self.source = source
        self.capturedAt = capturedAt
        self.verificationTime = verificationTime
        self.verifiedAt = verifiedAt
        self.verdict = verdict
        self.verdictAtCapture = verdictAtCapture
        self.inputs = inputs
        self.checks = checks
        self.certificates = certificates
        self.trustSnapshot = trustSnapshot
        self.consentReference = consentReference
        self.processorVersion = processorVersion
        self.runID = runID
    }

    /// Deterministic CBOR (RFC 8949 §4.2.1) of the evidence.
    public func cbor() -> [UInt8] {
        func text(_ s: String?) -> CBORNode { s.map(CBORNode.text) ?? .null }
        func date(_ d: Date?) -> CBORNode { d.map { .tagged(0, .text(ProofFormat.rfc3339($0))) } ?? .null }
        let checkNodes: [CBORNode] = checks.map { check in
            var entries: [CBORNode.Entry] = [
                .init(.text("id"), .text(check.id.rawValue)), .init(.text("status"), .text(check.status.rawValue)),
                .init(.text("detail"), .text(check.detail)),
            ]
            if !check.subject.isEmpty { entries.append(.init(.text("subject"), .text(check.subject))) }
            if let instant = check.instant { entries.append(.init(.text("instant"), .text(instant.rawValue))) }
            if !check.evidence.isEmpty {
                entries.append(.init(.text("evidence"), .array(check.evidence.map {
                    .array([.text($0.key), .text($0.value)])
                })))
            }
            return .map(entries)
        }
        let map: [CBORNode.Entry] = [
            .init(.text("format"), .text(ProofFormat.contentType)),
            .init(.text("referenceCode"), .text(referenceCode)),
            .init(.text("transactionId"), .text(transactionID)),
            .init(.text("name"), .text(name)),
            .init(.text("source"), .text(source)),
            .init(.text("capturedAt"), date(capturedAt)),
            .init(.text("verificationTime"), date(verificationTime)),
            .init(.text("verifiedAt"), date(verifiedAt)),
            .init(.text("verdict"), .text(verdict.rawValue)),
            .init(.text("verdictAtCapture"), text(verdictAtCapture?.rawValue)),
            .init(.text("inputs"), .array(inputs.map { .map([.init(.text("path"), .text($0.path)), .init(.text("sha256"), .bytes($0.sha256))]) })),
            .init(.text("checks"), .array(checkNodes)),
            .init(.text("certificates"), .array(certificates.map {
                .map([.init(.text("role"), .text($0.role)), .init(.text("sha256"), .text($0.sha256)), .init(.text("subject"), .text($0.subject))])
            })),
            .init(.text("trustSnapshot"), .text(trustSnapshot)),
            .init(.text("consentReference"), text(consentReference)),
            .init(.text("processor"), .map([.init(.text("name"), .text("mdocverify")), .init(.text("version"), .text(processorVersion))])),
            .init(.text("runId"), .text(runID)),
            .init(.text("uploads"), .array(uploads.map { upload in
                func pairs(_ list: [(String, String)]) -> CBORNode { .map(list.map { .init(.text($0.0), .text($0.1)) }) }
                return .map([
                    .init(.text("id"), .text(upload.uploadID)), .init(.text("type"), .text(upload.documentType)),
                    .init(.text("side"), .text(upload.side)), .init(.text("outcome"), .text(upload.outcome)),
                    .init(.text("reason"), text(upload.reason)), .init(.text("original"), pairs(upload.original)),
                    .init(.text("output"), pairs(upload.output)), .init(.text("passes"), .unsigned(UInt64(max(0, upload.passes)))),
                ])
            })),
        ]
        return CBORNode.map(map).encoded()
    }
}

/// Constants of the proof format.
public enum ProofFormat {
    /// Content type (COSE header 3) of a transaction proof.
    public static let contentType = "application/vnd.mdocverify.proof+cbor"
    /// Content type of a signed run manifest.
    public static let manifestContentType = "application/vnd.mdocverify.run-manifest+cbor"

    static func rfc3339(_ date: Date) -> String { RFC3339.format(date) }
}

/// Signs proofs and run manifests as tagged COSE_Sign1 (RFC 9052) with the processor key, its
/// certificate in x5chain (label 33, unprotected), alg and content type in the protected header,
/// so that any COSE library can check them.
public struct ProofSigner: Sendable {
    public let identity: ProcessorIdentity

    public init(identity: ProcessorIdentity) {
        self.identity = identity
    }

    public func sign(evidence: ProofEvidence) throws -> [UInt8] {
        try sign(payload: evidence.cbor(), contentType: ProofFormat.contentType)
    }

    public func sign(payload: [UInt8], contentType: String) throws -> [UInt8] {
        try COSESign1.sign(
            payload: payload, key: identity.key,
            protected: [.init(.int(3), .text(contentType))],
            unprotected: [.init(.int(33), .bytes(identity.certificate.der))], detached: false, tagged: true)
    }

    /// A run manifest: the run id, the proofs (reference code and SHA-256 of each file, sorted
    /// by reference code), their count and Merkle root.
    public func signManifest(runID: String, createdAt: Date, proofs: [(referenceCode: String, sha256: [UInt8])]) throws -> [UInt8] {
        let sorted = proofs.sorted { $0.referenceCode < $1.referenceCode }
        let root = MerkleTree.root(leaves: sorted.map(\.sha256))
        let payload = CBORNode.map([
            .init(.text("format"), .text(ProofFormat.manifestContentType)),
            .init(.text("runId"), .text(runID)),
            .init(.text("createdAt"), .tagged(0, .text(ProofFormat.rfc3339(createdAt)))),
            .init(.text("proofCount"), .unsigned(UInt64(sorted.count))),
            .init(.text("merkleRoot"), .bytes(root)),
            .init(.text("proofs"), .array(sorted.map { .array([.text($0.referenceCode), .bytes($0.sha256)]) })),
        ]).encoded()
        return try sign(payload: payload, contentType: ProofFormat.manifestContentType)
    }
}
