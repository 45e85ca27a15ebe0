package import Foundation
package import MdocCBOR
package import MdocChecks
package import MdocCrypto
import MdocCOSE
import MdocTime

/// The evidence a proof carries: enough for an auditor to see what was verified, by which
/// checks, against which trust material, without trusting the processor. No element values.
package struct ProofEvidence: Sendable {
    /// The payload key of the transaction id: the name JSON Lines and the report JSON use.
    package static let transactionIDKey = "transactionID"
    package struct Input: Sendable {
        package var path: String
        package var sha256: [UInt8]
        package init(path: String, sha256: [UInt8]) {
            self.path = path
            self.sha256 = sha256
        }
    }

    package struct CertificateRef: Sendable {
        package var role: String
        package var sha256: String
        package var subject: String
        package init(role: String, sha256: String, subject: String) {
            self.role = role
            self.sha256 = sha256
            self.subject = subject
        }
    }

    /// A signed list the verification trusted anchors from (a VICAL, a RICAL): who published
    /// it, when, which issue, and the SHA-256 of its file.
    package struct TrustList: Sendable {
        package var kind: String
        package var provider: String
        package var date: Date
        package var issueID: UInt64?
        package var sha256: String
        package init(kind: String, provider: String, date: Date, issueID: UInt64?, sha256: String) {
            self.kind = kind
            self.provider = provider
            self.date = date
            self.issueID = issueID
            self.sha256 = sha256
        }
    }

    /// One document-scan upload's evidence: the original and what was kept under the size limit.
    package struct Upload: Sendable {
        package var uploadID: String
        package var documentType: String
        package var side: String
        package var outcome: String
        package var reason: String?
        package var original: [(String, String)]
        package var output: [(String, String)]
        package var passes: Int
        package init(
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

    package var referenceCode: String
    package var transactionID: String
    package var name: String
    package var source: String
    package var capturedAt: Date?
    package var verificationTime: Date
    package var verifiedAt: Date
    package var verdict: Verdict
    package var verdictAtCapture: Verdict?
    package var inputs: [Input]
    /// Every check result, one deterministic CBOR array in the form the store keeps them
    /// (docs/schema.md, `check_results.results`): `[* [id, status, instant / null, subject,
    /// detail, [* [key, value]]]]`. Signed as given: one encoding serves the store and the proof.
    package var checks: Data
    package var certificates: [CertificateRef]
    package var trustSnapshot: String
    package var consentReference: String?
    package var processorVersion: String
    package var runID: String
    package var uploads: [Upload] = []
    /// The signed lists of the trust snapshot; the key is left out when there is none.
    package var trustLists: [TrustList] = []

    package init(
        referenceCode: String, transactionID: String, name: String, source: String, capturedAt: Date?,
        verificationTime: Date, verifiedAt: Date, verdict: Verdict, verdictAtCapture: Verdict?, inputs: [Input],
        checks: Data, certificates: [CertificateRef], trustSnapshot: String, consentReference: String?,
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
    /// key is fixed; the checks are copied as encoded, and only the upload summaries, whose keys
    /// vary, go through ``CBORNode``. The bytes are those of the same map built as ``CBORNode``
    /// values (a test compares them).
    package func cbor() -> [UInt8] {
        var out = ProofCBORWriter()
        out.reserve(2048 + checks.count)
        out.mapHead(trustLists.isEmpty ? 18 : 19)
        out.fixed("name"); out.text(name)
        out.fixed("runID"); out.text(runID)
        out.fixed("checks")
        out.buffer.append(contentsOf: checks)
        out.fixed("format"); out.text(ProofFormat.contentType)
        out.fixed("inputs")
        out.arrayHead(inputs.count)
        for input in inputs {
            out.mapHead(2)
            out.fixed("path"); out.text(input.path)
            out.fixed("sha256"); out.bytes(input.sha256)
        }
        out.fixed("source"); out.text(source)
        out.fixed("uploads")
        if uploads.isEmpty {
            out.arrayHead(0)
        } else {
            CBORNode.array(uploads.map(\.node)).encode(into: &out.buffer)
        }
        out.fixed("verdict"); out.text(verdict.rawValue)
        out.fixed("processor")
        out.mapHead(2)
        out.fixed("name"); out.fixed("mdocverify")
        out.fixed("version"); out.text(processorVersion)
        out.fixed("capturedAt"); out.date(capturedAt)
        if !trustLists.isEmpty {
            out.fixed("trustLists")
            out.arrayHead(trustLists.count)
            for list in trustLists {
                out.mapHead(list.issueID == nil ? 4 : 5)
                out.fixed("date"); out.date(list.date)
                out.fixed("kind"); out.text(list.kind)
                out.fixed("sha256"); out.text(list.sha256)
                if let issue = list.issueID {
                    out.fixed("issueID"); out.head(0, issue)
                }
                out.fixed("provider"); out.text(list.provider)
            }
        }
        out.fixed("verifiedAt"); out.date(verifiedAt)
        out.fixed("certificates")
        out.arrayHead(certificates.count)
        for certificate in certificates {
            out.mapHead(3)
            out.fixed("role"); out.text(certificate.role)
            out.fixed("sha256"); out.text(certificate.sha256)
            out.fixed("subject"); out.text(certificate.subject)
        }
        out.fixed("referenceCode"); out.text(referenceCode)
        out.text(Self.transactionIDKey); out.text(transactionID)
        out.fixed("trustSnapshot"); out.text(trustSnapshot)
        out.fixed("consentReference"); out.optionalText(consentReference)
        out.fixed("verdictAtCapture"); out.optionalText(verdictAtCapture?.rawValue)
        out.fixed("verificationTime"); out.date(verificationTime)
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

    mutating func text(_ value: String) { CBORNode.appendText(value, to: &buffer) }

    /// A text string written in the program (a map key, a fixed value): its head and bytes
    /// appended directly, without reading a `String`.
    mutating func fixed(_ value: StaticString) {
        head(3, UInt64(value.utf8CodeUnitCount))
        value.withUTF8Buffer { buffer.append(contentsOf: $0) }
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
package enum ProofFormat {
    /// Content type (COSE header 3) of a transaction proof.
    package static let contentType = "application/vnd.mdocverify.proof+cbor"
    /// Content type of a signed run manifest.
    package static let manifestContentType = "application/vnd.mdocverify.run-manifest+cbor"

    static func rfc3339(_ date: Date) -> String { RFC3339.format(date) }
}
