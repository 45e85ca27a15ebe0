import MdocChecks
import MdocImaging
import XCTest

final class EngagementImageTests: XCTestCase {
    func testEachFixtureDecodesToTheAnnexDURI() throws {
        let uri = try Fixtures.annexDURI()
        XCTAssertTrue(uri.hasPrefix("mdoc:"))
        for name in Fixtures.engagementImages {
            let result = EngagementImageReader.read(try Fixtures.bytes(name))
            XCTAssertNil(result.error, name)
            XCTAssertEqual(result.uri, uri, name)
            XCTAssertEqual(result.checkResults.map(\.id), [.engagementQrDecoded], name)
            XCTAssertEqual(result.checkResults.first?.status, .pass, name)
            print(name, result.attempts, result.scaleDenominator as Any)
        }
    }
}
