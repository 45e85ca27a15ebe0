import Foundation
import MdocChecks
import MdocTestSupport
import MdocTrust
import MdocVerification
import XCTest

/// `input.metadata` and `input.readable` (InputChecks.swift).
final class InputChecksTests: XCTestCase {
    func testMetadataIsReadOrRefusedWithTheField() throws {
        let scenario = try Scenario()
        var inputs = try scenario.inputs()
        inputs.metadataJSON = Array(#"{"id": "t1", "capturedAt": "2026-05-28T10:00:00Z"}"#.utf8)
        let read = verifyTransaction(inputs, trust: scenario.trust)
        XCTAssertEqual(read.checks.of(.inputMetadata).map(\.status), [.pass])
        XCTAssertEqual(read.facts.metadata.id, "t1")
        XCTAssertNotNil(read.verdictAtCapture, "the capture time is judged too")
        inputs.metadataJSON = Array(#"{"capturedAt": "yesterday"}"#.utf8)
        let refused = verifyTransaction(inputs, trust: scenario.trust)
        XCTAssertEqual(refused.checks.of(.inputMetadata).map(\.status), [.fail])
        XCTAssertTrue(refused.checks.of(.inputMetadata)[0].detail.contains("capturedAt"))
        XCTAssertEqual(refused.verdict, .invalid)
        inputs.metadataJSON = nil
        XCTAssertEqual(verifyTransaction(inputs, trust: scenario.trust).checks.of(.inputMetadata), [])
    }

    /// Each limit of transaction.json is inclusive: at the limit it is read, one over it is
    /// refused with a message naming the limit.
    func testMetadataLimitsAreInclusive() throws {
        func json(_ body: String, paddedTo size: Int? = nil) -> [UInt8] {
            var text = "{\(body)}"
            if let size { text = String(repeating: " ", count: size - text.utf8.count) + text }
            return Array(text.utf8)
        }
        func refusal(_ bytes: [UInt8]) -> String? {
            do { _ = try TransactionMetadata(json: bytes); return nil } catch { return "\(error)" }
        }
        let max = TransactionMetadata.maxBytes
        XCTAssertNil(refusal(json("\"id\": \"a\"", paddedTo: max)))
        XCTAssertEqual(refusal(json("\"id\": \"a\"", paddedTo: max + 1)), "transaction.json has 65537 bytes, over the limit of 65536")

        let text = TransactionMetadata.maxTextBytes
        for key in ["id", "source"] {
            XCTAssertNil(refusal(json("\"\(key)\": \"\(String(repeating: "é", count: text / 2))\"")))
            XCTAssertEqual(
                refusal(json("\"\(key)\": \"\(String(repeating: "x", count: text + 1))\"")),
                "transaction.json: \(key) has 1025 bytes, over the limit of 1024")
        }
        let reference = "\"consent\": {\"reference\": \"\(String(repeating: "r", count: text + 1))\"}"
        XCTAssertEqual(refusal(json(reference)), "transaction.json: reference has 1025 bytes, over the limit of 1024")
        func scopes(_ count: Int, length: Int = 3) -> [UInt8] {
            let list = Array(repeating: "\"\(String(repeating: "s", count: length))\"", count: count).joined(separator: ",")
            return json("\"consent\": {\"scopes\": [\(list)]}")
        }
        XCTAssertEqual(try TransactionMetadata(json: scopes(TransactionMetadata.maxScopes)).consent?.scopes.count, 64)
        XCTAssertEqual(refusal(scopes(TransactionMetadata.maxScopes + 1)), "transaction.json: consent.scopes has 65 entries, over the limit of 64")
        XCTAssertEqual(refusal(scopes(1, length: text + 1)), "transaction.json: a consent scope has 1025 bytes, over the limit of 1024")

        // The object itself is one level; brackets inside strings do not count.
        func nested(_ depth: Int) -> [UInt8] {
            json("\"id\": \"[[{\", \"x\": \(String(repeating: "[", count: depth - 1))1\(String(repeating: "]", count: depth - 1))")
        }
        XCTAssertNil(refusal(nested(TransactionMetadata.maxDepth)))
        XCTAssertEqual(refusal(nested(TransactionMetadata.maxDepth + 1)), "transaction.json nests arrays and objects 33 deep, over the limit of 32")
        XCTAssertEqual(refusal(Array(#"{"id": "a\"[[["}"#.utf8)), nil, "an escaped quote does not end the string")
    }

    /// The nesting is counted in one pass before anything is parsed: stray closers do not lower
    /// the count, and a file of the maximum size nested all the way is counted and refused.
    /// What the parser of transaction.json does with JSON that other parsers read differently:
    /// a repeated key keeps its last value, a lone surrogate or a number out of range makes the
    /// whole file invalid (even in a field that is not read), a non-object is refused, wrong
    /// types name their field, non-text scopes are dropped, null fields are absent.
    func testMetadataParserEdges() throws {
        func read(_ text: String) throws -> TransactionMetadata { try TransactionMetadata(json: Array(text.utf8)) }
        func failure(_ text: String) -> String? {
            do { _ = try read(text); return nil } catch { return "\(error)" }
        }
        XCTAssertEqual(try read(#"{"id": "first", "id": "last"}"#).id, "last")
        XCTAssertEqual(try read(#"{"consent": {"reference": "a"}, "consent": {"reference": "b"}}"#).consent?.reference, "b")
        XCTAssertEqual(try read(#"{"id": null, "source": "k", "consent": {"scopes": ["a", 1, null, "b"]}}"#).id, nil)
        XCTAssertEqual(try read(#"{"consent": {"scopes": ["a", 1, null, "b"]}}"#).consent?.scopes, ["a", "b"])
        let nulls = try read(#"{"capturedAt": null, "source": null, "consent": {"grantedAt": null, "reference": null}}"#)
        XCTAssertNil(nulls.capturedAt)
        XCTAssertNil(nulls.source)
        XCTAssertNil(nulls.consent?.grantedAt)
        XCTAssertNil(nulls.consent?.reference)
        for (text, message) in [
            (#"{"id": "\ud800"}"#, "transaction.json is not valid JSON"),
            (#"{"unread": 1e999}"#, "transaction.json is not valid JSON"),
            (#"{"id": "x"} x"#, "transaction.json is not valid JSON"),
            (#""id""#, "transaction.json is not valid JSON"),
            (#"["id"]"#, "transaction.json is not a JSON object"),
            (#"{"id": 1}"#, "transaction.json: id is not a string"),
            (#"{"source": true}"#, "transaction.json: source is not a string"),
            (#"{"id": {}}"#, "transaction.json: id is not a string"),
            (#"{"capturedAt": ["2026-05-28T10:00:00Z"]}"#, "transaction.json: capturedAt is not a string"),
            (#"{"consent": {"reference": 0}}"#, "transaction.json: reference is not a string"),
            (#"{"consent": []}"#, "transaction.json: consent is not an object"),
            (#"{"consent": {"scopes": null}}"#, "transaction.json: consent.scopes is not an array"),
            (#"{"capture": 1}"#, "transaction.json: capture is not a capture record"),
        ] {
            XCTAssertEqual(failure(text), message, text)
        }
    }

    func testMetadataNestingIsCountedBeforeParsing() {
        func refusal(_ text: [UInt8]) -> String? {
            do { _ = try TransactionMetadata(json: text); return nil } catch { return "\(error)" }
        }
        let limit = TransactionMetadata.maxDepth
        let stray = String(repeating: "]", count: 40) + String(repeating: "[", count: limit + 1)
        XCTAssertEqual(refusal(Array(stray.utf8)), "transaction.json nests arrays and objects 33 deep, over the limit of 32")
        let max = TransactionMetadata.maxBytes
        XCTAssertEqual(
            refusal([UInt8](repeating: UInt8(ascii: "["), count: max)),
            "transaction.json nests arrays and objects \(max) deep, over the limit of 32")
        XCTAssertNil(refusal(Array(#"{"id": "]]]]", "x": [[{"y": 1}]]}"#.utf8)))
    }

    func testABundleWithoutAResponseIsNotReadable() {
        let empty = verifyTransaction(TransactionInputs(), trust: TrustStore(anchors: []))
        XCTAssertEqual(empty.checks.map(\.id), [.inputReadable])
        XCTAssertEqual(empty.verdict, .invalid)
    }
}
