import Foundation
import MdocChecks
import XCTest

/// Check ids, statuses and the catalogue.
final class CheckVocabularyTests: XCTestCase {
    func testIdFamilyAndCoding() throws {
        XCTAssertEqual(CheckID("mso.digest").family, "mso")
        XCTAssertEqual(CheckID("issuer.chain.path").family, "issuer")
        XCTAssertEqual(CheckID("plain").family, "plain")
        let id: CheckID = "device.mac"
        XCTAssertEqual(id, .deviceMac)
        XCTAssertEqual(id.description, "device.mac")
        XCTAssertLessThan(CheckID("a.b"), CheckID("a.c"))
        let encoded = try JSONEncoder().encode([CheckID.deviceMac])
        XCTAssertEqual(String(decoding: encoded, as: UTF8.self), #"["device.mac"]"#)
        XCTAssertEqual(try JSONDecoder().decode([CheckID].self, from: Data(#"["some.future.id"]"#.utf8)), ["some.future.id"])
    }

    /// Reports list failures first: fail, unchecked, warn, pass, skipped.
    func testStatusSeverityOrder() {
        XCTAssertEqual(CheckStatus.allCases.sorted(), [.fail, .unchecked, .warn, .pass, .skipped])
        XCTAssertEqual(CheckStatus(rawValue: "unchecked"), .unchecked)
        XCTAssertNil(CheckStatus(rawValue: "error"))
    }

    func testCatalogueIsSortedUniqueAndDescribed() {
        let ids = CheckCatalogue.all.map(\.id)
        XCTAssertFalse(ids.isEmpty)
        XCTAssertEqual(ids, ids.sorted())
        XCTAssertEqual(Set(ids).count, ids.count, "an id is defined twice")
        for definition in CheckCatalogue.all {
            XCTAssertFalse(definition.clause.isEmpty, definition.id.rawValue)
            XCTAssertFalse(definition.summary.isEmpty, definition.id.rawValue)
            XCTAssertEqual(definition.id.rawValue.split(separator: ".").count >= 2, true, definition.id.rawValue)
            XCTAssertEqual(CheckCatalogue.definition(for: definition.id), definition)
        }
    }

    func testLookups() throws {
        let validity = try XCTUnwrap(CheckCatalogue.definition(for: .readerValidity))
        XCTAssertTrue(validity.timeDependent)
        XCTAssertFalse(validity.requiredForVerdict)
        let signature = try XCTUnwrap(CheckCatalogue.definition(for: .deviceSignature))
        XCTAssertFalse(signature.timeDependent)
        XCTAssertTrue(signature.requiredForVerdict)
        XCTAssertNil(CheckCatalogue.definition(for: "device"))
        XCTAssertNil(CheckCatalogue.definition(for: "DEVICE.SIGNATURE"), "ids are case-sensitive")
    }

    func testResultsRoundTripThroughJSON() throws {
        let result = CheckResult(
            .readerValidity, .warn, "valid until 2021-10-01T13:30:02Z", subject: "cert[1]", instant: .capture,
            evidence: [Evidence("sha256", "00ff")])
        let decoded = try JSONDecoder().decode(CheckResult.self, from: try JSONEncoder().encode(result))
        XCTAssertEqual(decoded, result)
    }
}
