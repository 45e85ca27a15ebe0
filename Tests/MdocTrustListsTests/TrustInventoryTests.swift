import Foundation
import MdocCBOR
import MdocCrypto
import MdocSamples
import MdocTrustLists
import XCTest

/// What is trusted, from where, for which docTypes: folders, VICALs, RICALs (the readers'
/// roots), and what is refused.
final class TrustInventoryTests: XCTestCase {
    let time = ListFixture.time

    func testFoldersAndListsEachWithTheirScope() throws {
        var inventory = TrustInventory(time: time)
        inventory.addFolder(path: "trust", certificates: [ListFixture.alpha.iaca])
        inventory.addList(
            path: "utopia.vical", bytes: try ListFixture.signed(ListFixture.list(.vical))[...], kind: .vical,
            listAnchors: [ListFixture.provider.root])
        var readers = ListFixture.list(.rical)
        readers.entries = [.init(certificate: ListFixture.beta.iaca)]
        inventory.addList(path: "readers.rical", bytes: try ListFixture.signed(readers)[...], kind: .rical, listAnchors: [ListFixture.provider.root])
        XCTAssertTrue(inventory.refusals.isEmpty)
        XCTAssertEqual(inventory.anchors.map(\.certificate), [ListFixture.alpha.iaca, ListFixture.alpha.iaca, ListFixture.beta.iaca, ListFixture.beta.iaca])
        XCTAssertEqual(inventory.anchors.map(\.docTypes), [nil, ["org.iso.18013.5.1.mDL"], ["org.iso.18013.5.1.mDL", "org.iso.23220.photoid.1"], nil])
        XCTAssertEqual(inventory.anchors[0].source, .folder(path: "trust"))
        XCTAssertEqual(
            inventory.anchors[1].source,
            .list(path: "utopia.vical", kind: .vical, provider: "Utopia Trust Services", issueID: 1, date: time.addingTimeInterval(-86_400)))
        XCTAssertEqual(inventory.anchors[1].stateOrProvinceName, "UT-N")
        XCTAssertEqual(inventory.anchors[3].source, .list(path: "readers.rical", kind: .rical, provider: "Utopia Trust Services", issueID: 1, date: time.addingTimeInterval(-86_400)))
    }

    func testAListThatDoesNotHoldIsRefusedWhole() throws {
        var inventory = TrustInventory(time: time)
        let bytes = try ListFixture.signed(ListFixture.list(.vical))
        inventory.addList(path: "a", bytes: bytes[...], kind: .vical, listAnchors: [ListFixture.beta.iaca])
        inventory.addList(path: "b", bytes: [0x80][...], kind: .vical, listAnchors: [ListFixture.provider.root])
        XCTAssertTrue(inventory.anchors.isEmpty)
        XCTAssertEqual(inventory.refusals.map(\.path), ["a", "b"])
        XCTAssertEqual(inventory.refusals.map { $0.failures.map(\.code) }, [[.chainUntrusted], [.listMalformed]])
        XCTAssertNotNil(inventory.refusals[0].source, "a list that decodes is named by its provider")
        XCTAssertNil(inventory.refusals[1].source)
        XCTAssertEqual(inventory.refusals.map(\.entry), [nil, nil])
    }

    func testAnEntryThatCannotBeReadIsRefusedAlone() throws {
        guard case .map(var fields) = ListFixture.list(.vical).payload,
            let index = fields.firstIndex(where: { $0.key == "certificateInfos" }), case .array(var infos) = fields[index].value
        else { return XCTFail("the sample payload changed shape") }
        infos.append(.map([.init("certificate", .bytes([0x30])), .init("serialNumber", 1), .init("ski", .bytes([1])), .init("docType", ["d"])]))
        fields[index].value = .array(infos)
        var inventory = TrustInventory(time: time)
        inventory.addList(
            path: "v", bytes: try ListFixture.signed(payload: .map(fields))[...], kind: .vical, listAnchors: [ListFixture.provider.root])
        XCTAssertEqual(inventory.anchors.count, 2)
        XCTAssertEqual(inventory.refusals.map(\.entry), [2])
        XCTAssertEqual(inventory.refusals.first?.failures.map(\.code), [.listEntryCertificate])
    }
}
