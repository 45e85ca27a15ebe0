import Foundation
import MdocChecks
import MdocCrypto
@testable import MdocVerification
import XCTest

/// The issuer-checks cache is bounded (a hostile batch of unique chains, subjects or capture
/// times cannot grow it without limit), and a record is looked up once and then shared.
final class IssuerChainCacheBoundsTests: XCTestCase {
    func entry(_ detail: String) -> IssuerChainCache.Entry {
        IssuerChainCache.Entry(results: [CheckResult(.issuerChain, .pass, detail)], validated: [])
    }

    func testARecordIsSharedByItsChainSubjectAndBucket() {
        let cache = IssuerChainCache()
        let record = cache.record(chain: [], subject: "doc[0]", bucket: "protected")
        XCTAssertTrue(record === cache.record(chain: [], subject: "doc[0]", bucket: "protected"))
        XCTAssertFalse(record === cache.record(chain: [], subject: "doc[1]", bucket: "protected"))
        XCTAssertFalse(record === cache.record(chain: [], subject: "doc[0]", bucket: "unprotected"))
        var computed = 0
        let first = cache.entry(record, family: .x5chain) { computed += 1; return self.entry("x5chain") }
        let again = cache.entry(record, family: .x5chain) { computed += 1; return self.entry("other") }
        XCTAssertTrue(first === again)
        XCTAssertEqual(computed, 1)
        XCTAssertEqual(cache.statistics, IssuerChainCache.Statistics(computed: 1, reused: 1))
    }

    func testRecordsAreBounded() {
        let cache = IssuerChainCache()
        let first = cache.record(chain: [], subject: "doc[0]", bucket: "")
        for index in 1..<IssuerChainCache.recordLimit {
            _ = cache.record(chain: [], subject: "doc[\(index)]", bucket: "")
        }
        // At the limit the first is still kept; one more record starts afresh.
        XCTAssertTrue(first === cache.record(chain: [], subject: "doc[0]", bucket: ""))
        _ = cache.record(chain: [], subject: "doc[\(IssuerChainCache.recordLimit)]", bucket: "")
        XCTAssertFalse(first === cache.record(chain: [], subject: "doc[0]", bucket: ""))
    }

    func testAFullRecordDropsItsEntriesAtEachInstantFirst() {
        let cache = IssuerChainCache()
        let record = cache.record(chain: [], subject: "doc[0]", bucket: "")
        let fixed = cache.entry(record) { self.entry("fixed") }
        let times = (0..<IssuerChainCache.entryLimit).map { Date(timeIntervalSinceReferenceDate: Double($0)) }
        // One fixed entry and limit - 1 timed ones fill the record.
        for time in times.dropLast() { _ = cache.entry(record, instant: .capture, time: time) { self.entry("\(time)") } }
        var recomputed = false
        _ = cache.entry(record, instant: .capture, time: times[0]) { recomputed = true; return self.entry("again") }
        XCTAssertFalse(recomputed, "within the limit every entry is kept")
        // One more drops the timed entries, not the fixed one.
        _ = cache.entry(record, instant: .capture, time: times[times.count - 1]) { self.entry("last") }
        XCTAssertTrue(fixed === cache.entry(record) { self.entry("recomputed") })
        _ = cache.entry(record, instant: .capture, time: times[0]) { recomputed = true; return self.entry("again") }
        XCTAssertTrue(recomputed, "the timed entries were dropped")
    }

    func testARecordFullOfFixedEntriesStartsAfresh() {
        let cache = IssuerChainCache()
        let record = cache.record(chain: [], subject: "doc[0]", bucket: "")
        for count in 0..<IssuerChainCache.entryLimit {
            _ = cache.entry(record, family: .valueDigests(count: count, hash: .sha256)) { self.entry("\(count)") }
        }
        var recomputed = false
        _ = cache.entry(record, family: .valueDigests(count: 0, hash: .sha256)) { recomputed = true; return self.entry("again") }
        XCTAssertFalse(recomputed)
        _ = cache.entry(record, family: .valueDigests(count: IssuerChainCache.entryLimit, hash: .sha256)) { self.entry("more") }
        _ = cache.entry(record, family: .valueDigests(count: 0, hash: .sha256)) { recomputed = true; return self.entry("again") }
        XCTAssertTrue(recomputed)
    }

    func testAFamilyAskedWithOtherTextsIsRecomputed() {
        let cache = IssuerChainCache()
        let record = cache.record(chain: [], subject: "doc[0]", bucket: "")
        let iaca = ObjectIdentifier(record)
        let mdl = cache.entry(record, family: .iacaDocType(docType: "org.iso.18013.5.1.mDL", iaca: iaca)) { self.entry("mDL") }
        let other = cache.entry(record, family: .iacaDocType(docType: "org.example.other", iaca: iaca)) { self.entry("other") }
        XCTAssertEqual(other.results.first?.detail, "other")
        let again = cache.entry(record, family: .iacaDocType(docType: "org.iso.18013.5.1.mDL", iaca: iaca)) { self.entry("mDL again") }
        XCTAssertFalse(mdl === again)
        XCTAssertEqual(again.results.first?.detail, "mDL again")
        var recomputed = false
        let same = cache.entry(record, family: .iacaDocType(docType: "org.iso.18013.5.1.mDL", iaca: iaca)) { recomputed = true; return self.entry("x") }
        XCTAssertFalse(recomputed)
        XCTAssertTrue(same === again)
        // The texts of one family never answer for another family's look-up.
        let country = cache.entry(record, family: .issuingCountry(country: "US", jurisdiction: nil, iaca: iaca)) { self.entry("US") }
        let none = cache.entry(record, family: .issuingCountry(country: .some(nil), jurisdiction: nil, iaca: iaca)) { self.entry("none") }
        XCTAssertFalse(country === none)
        XCTAssertEqual(cache.statistics, IssuerChainCache.Statistics(computed: 5, reused: 1))
    }
}
