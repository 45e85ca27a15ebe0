public import Foundation
internal import MdocCBOR
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
    ///
    /// Written straight into bytes, one proof per transaction: map keys are emitted in their
    /// deterministic order (shorter encoded keys first, then bytewise), fixed here because every
    /// key is fixed; only the upload summaries, whose keys vary, go through ``CBORNode``. The
    /// bytes are those of the same map built as ``CBORNode`` values (a test compares them).
    public func cbor() -> [UInt8] {
        var out = ProofCBORWriter()
        out.reserve(4096 + checks.count * 160)
        out.mapHead(18)
        out.text("name"); out.text(name)
        out.text("runId"); out.text(runID)
        out.text("checks")
        out.arrayHead(checks.count)
        for check in checks {
            var count = 3
            if !check.subject.isEmpty { count += 1 }
            if check.instant != nil { count += 1 }
            if !check.evidence.isEmpty { count += 1 }
            out.mapHead(count)
            out.text("id"); out.text(check.id.rawValue)
            out.text("detail"); out.text(check.detail)
            out.text("status"); out.text(check.status.rawValue)
            if let instant = check.instant { out.text("instant"); out.text(instant.rawValue) }
            if !check.subject.isEmpty { out.text("subject"); out.text(check.subject) }
            if !check.evidence.isEmpty {
                out.text("evidence")
                out.arrayHead(check.evidence.count)
                for item in check.evidence {
                    out.arrayHead(2)
                    out.text(item.key)
                    out.text(item.value)
                }
            }
        }
        out.text("format"); out.text(ProofFormat.contentType)
        out.text("inputs")
        out.arrayHead(inputs.count)
        for input in inputs {
            out.mapHead(2)
            out.text("path"); out.text(input.path)
            out.text("sha256"); out.bytes(input.sha256)
        }
        out.text("source"); out.text(source)
        out.text("uploads")
        if uploads.isEmpty {
            out.arrayHead(0)
        } else {
            CBORNode.array(uploads.map(\.node)).encode(into: &out.buffer)
        }
        out.text("verdict"); out.text(verdict.rawValue)
        out.text("processor")
        out.mapHead(2)
        out.text("name"); out.text("mdocverify")
        out.text("version"); out.text(processorVersion)
        out.text("capturedAt"); out.date(capturedAt)
        out.text("verifiedAt"); out.date(verifiedAt)
        out.text("certificates")
        out.arrayHead(certificates.count)
        for certificate in certificates {
            out.mapHead(3)
            out.text("role"); out.text(certificate.role)
            out.text("sha256"); out.text(certificate.sha256)
            out.text("subject"); out.text(certificate.subject)
        }
        out.text("referenceCode"); out.text(referenceCode)
        out.text("transactionId"); out.text(transactionID)
        out.text("trustSnapshot"); out.text(trustSnapshot)
        out.text("consentReference"); out.optionalText(consentReference)
        out.text("verdictAtCapture"); out.optionalText(verdictAtCapture?.rawValue)
        out.text("verificationTime"); out.date(verificationTime)
        return out.buffer
    }
}

extension ProofEvidence.Upload {
    /// The upload's evidence map (keys sorted when encoded).
    var node: CBORNode {
        func pairs(_ list: [(String, String)]) -> CBORNode { .map(list.map { .init(.text($0.0), .text($0.1)) }) }
        return .map([
            .init(.text("id"), .text(uploadID)), .init(.text("type"), .text(documentType)),
            .init(.text("side"), .text(side)), .init(.text("outcome"), .text(outcome)),
            .init(.text("reason"), reason.map(CBORNode.text) ?? .null), .init(.text("original"), pairs(original)),
            .init(.text("output"), pairs(output)), .init(.text("passes"), .unsigned(UInt64(max(0, passes)))),
        ])
    }
}

/// Appends deterministic CBOR items (shortest heads, definite lengths) to a byte buffer.
struct ProofCBORWriter {
    var buffer: [UInt8] = []

    mutating func reserve(_ capacity: Int) { buffer.reserveCapacity(capacity) }

    mutating func head(_ major: UInt8, _ argument: UInt64) {
        CBORNode.appendHead(major: major, argument, to: &buffer)
    }

    mutating func arrayHead(_ count: Int) { head(4, UInt64(count)) }
    mutating func mapHead(_ count: Int) { head(5, UInt64(count)) }

    mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            head(3, UInt64(utf8.count))
            buffer.append(contentsOf: utf8)
        }
    }

    mutating func optionalText(_ value: String?) {
        if let value { text(value) } else { buffer.append(0xf6) }
    }

    mutating func bytes(_ value: [UInt8]) {
        head(2, UInt64(value.count))
        buffer.append(contentsOf: value)
    }

    /// `#6.0(tstr)` (RFC 3339), or null.
    mutating func date(_ value: Date?) {
        guard let value else { return buffer.append(0xf6) }
        buffer.append(0xc0)
        text(ProofFormat.rfc3339(value))
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
