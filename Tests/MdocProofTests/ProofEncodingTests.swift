import Foundation
import MdocCBOR
import MdocChecks
@testable import MdocProof
import MdocTime
import XCTest

/// `ProofEvidence.cbor()` writes bytes directly; they must equal the deterministic encoding of
/// the same evidence built as `CBORNode` values (the reference below, the former implementation).
final class ProofEncodingTests: XCTestCase {
    func testDirectEncodingEqualsTheCBORNodeEncoding() throws {
        let t = Date(timeIntervalSince1970: 1_790_000_000.123)
        var evidence = ProofEvidence(
            referenceCode: "ABCD-EFGH-JKMN-PQRS", transactionID: String(repeating: "ab", count: 32), name: "tx-ü-名前",
            source: "batch.tar.gz!/batch/tx-000001", capturedAt: t.addingTimeInterval(-86_400), verificationTime: t,
            verifiedAt: t.addingTimeInterval(1), verdict: .valid, verdictAtCapture: .invalid,
            inputs: [
                .init(path: "device-response.cbor", sha256: Array(repeating: 7, count: 32)),
                .init(path: "transaction.json", sha256: Array(repeating: 9, count: 32)),
            ],
            checks: ProofFixture.encoded([
                CheckResult(.inputMetadata, .pass, "transaction.json read"),
                CheckResult(
                    .issuerSignature, .fail, String(repeating: "long detail ", count: 40), subject: "doc[0]",
                    evidence: [Evidence("alg", "ES256"), Evidence("alg", "again"), Evidence("", "")]),
                CheckResult(.consentWindow, .warn, "", instant: .capture),
                CheckResult(.responseReplayed, .unchecked, "x", subject: "s", instant: .verification, evidence: [Evidence("earlier", "e")]),
            ]),
            certificates: [
                .init(role: "ds", sha256: String(repeating: "0f", count: 32), subject: "CN=Utopia DS,O=Utopia,C=UT"),
                .init(role: "iaca", sha256: String(repeating: "1e", count: 32), subject: "CN=Utopia IACA"),
            ],
            trustSnapshot: String(repeating: "cd", count: 32), consentReference: "consent-7", processorVersion: "0.1.0",
            runID: "20261124T172000Z-abcdef")
        XCTAssertEqual(evidence.cbor(), Self.reference(evidence))

        evidence.capturedAt = nil
        evidence.verdictAtCapture = nil
        evidence.consentReference = nil
        evidence.inputs = []
        evidence.certificates = []
        evidence.checks = ProofFixture.encoded((0..<300).map { CheckResult(.inputMetadata, .pass, String(repeating: "d", count: $0)) })
        evidence.uploads = [
            .init(
                uploadID: "scan-1", documentType: "passport", side: "front", outcome: "reencoded", reason: nil,
                original: [("sha256", "aa"), ("bytes", "3500000"), ("format", "jpeg"), ("dimensions", "4000x3000")],
                output: [("sha256", "bb"), ("quality", "67")], passes: 2),
            .init(
                uploadID: "scan-2", documentType: "id", side: "", outcome: "rejected", reason: "too big", original: [],
                output: [], passes: 0),
        ]
        XCTAssertEqual(evidence.cbor(), Self.reference(evidence))
        // The signed lists of the trust snapshot, with and without an issue number.
        evidence.trustLists = [
            .init(kind: "VICAL", provider: "AAMVA", date: t, issueID: 227_602, sha256: String(repeating: "5a", count: 32)),
            .init(kind: "RICAL", provider: "Utopia", date: t.addingTimeInterval(-3_600), issueID: nil, sha256: String(repeating: "a5", count: 32)),
        ]
        XCTAssertEqual(evidence.cbor(), Self.reference(evidence))
        // Decodes as CBOR, under the documented content type.
        let decoded = try CBOR(decoding: evidence.cbor())
        XCTAssertNotNil(decoded)
    }

    /// The evidence as `CBORNode` values (map entries sorted when encoded).
    /// A proof names its transaction `transactionID` and its run `runID`, as JSON Lines and the
    /// report do; a proof signed before the names were one (`transactionId`, `runId`) is still read.
    func testTheTransactionIDKeepsOneNameAndOldProofsAreStillRead() throws {
        let fixture = try ProofFixture()
        let evidence = ProofFixture.evidence(1)
        let opened = try ProofVerifier.open(try fixture.signer.sign(evidence: evidence).bytes)
        XCTAssertEqual(opened.payload.map?["transactionID"]?.text, evidence.transactionID)
        XCTAssertNil(opened.payload.map?["transactionId"])
        XCTAssertEqual(opened.transactionID, evidence.transactionID)
        XCTAssertEqual(opened.payload.map?["runID"]?.text, evidence.runID)
        XCTAssertNil(opened.payload.map?["runId"])
        XCTAssertEqual(opened.runID, evidence.runID)

        var legacy: [UInt8] = []
        CBORNode.map([
            .init(.text("referenceCode"), .text(evidence.referenceCode)), .init(.text("transactionId"), .text("ab12")),
            .init(.text("runId"), .text("run-0")),
        ]).encode(into: &legacy)
        let old = try ProofVerifier.open(try fixture.signer.sign(payload: legacy, contentType: ProofFormat.contentType))
        XCTAssertTrue(old.signatureValid)
        XCTAssertEqual(old.transactionID, "ab12")
        XCTAssertEqual(old.runID, "run-0")
    }

    static func reference(_ e: ProofEvidence) -> [UInt8] {
        func text(_ s: String?) -> CBORNode { s.map(CBORNode.text) ?? .null }
        func date(_ d: Date?) -> CBORNode { d.map { .tagged(0, .text(RFC3339.format($0))) } ?? .null }
        var map: [CBORNode.Entry] = [
            .init(.text("format"), .text(ProofFormat.contentType)),
            .init(.text("referenceCode"), .text(e.referenceCode)),
            .init(.text("transactionID"), .text(e.transactionID)),
            .init(.text("name"), .text(e.name)),
            .init(.text("source"), .text(e.source)),
            .init(.text("capturedAt"), date(e.capturedAt)),
            .init(.text("verificationTime"), date(e.verificationTime)),
            .init(.text("verifiedAt"), date(e.verifiedAt)),
            .init(.text("verdict"), .text(e.verdict.rawValue)),
            .init(.text("verdictAtCapture"), text(e.verdictAtCapture?.rawValue)),
            .init(.text("inputs"), .array(e.inputs.map { .map([.init(.text("path"), .text($0.path)), .init(.text("sha256"), .bytes($0.sha256))]) })),
            .init(.text("checks"), .raw(ArraySlice(e.checks))),
            .init(.text("certificates"), .array(e.certificates.map {
                .map([.init(.text("role"), .text($0.role)), .init(.text("sha256"), .text($0.sha256)), .init(.text("subject"), .text($0.subject))])
            })),
            .init(.text("trustSnapshot"), .text(e.trustSnapshot)),
            .init(.text("consentReference"), text(e.consentReference)),
            .init(.text("processor"), .map([.init(.text("name"), .text("mdocverify")), .init(.text("version"), .text(e.processorVersion))])),
            .init(.text("runID"), .text(e.runID)),
            .init(.text("uploads"), .array(e.uploads.map { upload in
                func pairs(_ list: [(String, String)]) -> CBORNode { .map(list.map { .init(.text($0.0), .text($0.1)) }) }
                return .map([
                    .init(.text("id"), .text(upload.uploadID)), .init(.text("type"), .text(upload.documentType)),
                    .init(.text("side"), .text(upload.side)), .init(.text("outcome"), .text(upload.outcome)),
                    .init(.text("reason"), text(upload.reason)), .init(.text("original"), pairs(upload.original)),
                    .init(.text("output"), pairs(upload.output)), .init(.text("passes"), .unsigned(UInt64(max(0, upload.passes)))),
                ])
            })),
        ]
        if !e.trustLists.isEmpty {
            map.append(.init(.text("trustLists"), .array(e.trustLists.map { list in
                var entries: [CBORNode.Entry] = [
                    .init(.text("kind"), .text(list.kind)), .init(.text("provider"), .text(list.provider)), .init(.text("date"), date(list.date)),
                    .init(.text("sha256"), .text(list.sha256)),
                ]
                if let issue = list.issueID { entries.append(.init(.text("issueID"), .unsigned(issue))) }
                return .map(entries)
            })))
        }
        return CBORNode.map(map).encoded()
    }
}
