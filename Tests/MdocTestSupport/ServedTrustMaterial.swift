import Foundation
import MdocSamples

/// What `trust fetch` downloads for a scenario whose IACA names `base + "/iaca.crl"` and whose
/// MSO names the status list `base + "/status/1"`: the IACA's CRL, a status list token for that
/// uri (entry 3 revoked), and issues of a VICAL listing the IACA at `base + "/utopia.vical"`.
package struct ServedTrustMaterial {
    package let crl: [UInt8]
    package let statusToken: [UInt8]
    let scenario: Scenario
    let base: String
    let time: Date
    let listSigner: ListSigner

    package init(scenario: Scenario, base: String, time: Date = Scenario.verificationTime) throws {
        self.scenario = scenario
        self.base = base
        self.time = time
        crl = try scenario.authority.crl(revoking: [], thisUpdate: time, nextUpdate: time.addingTimeInterval(86_400)).der
        let statusSigner = try ListSigner(
            issuedBy: scenario.authority.iaca, issuerKey: scenario.authority.iacaKey, name: "Utopia Status",
            notBefore: time.addingTimeInterval(-86_400), validityDays: 30)
        statusToken = try SampleStatusToken(
            uri: base + "/status/1", issuedAt: time, validFor: 86_400, content: .statusList(bits: 2, values: [0, 0, 0, 1])
        ).signed(by: statusSigner)
        listSigner = try ListSigner(name: "Utopia Trust", notBefore: time.addingTimeInterval(-100 * 86_400))
    }

    /// Issue `issue` of the VICAL, dated the day before, listing the scenario's IACA.
    package func vical(issue: UInt64) throws -> [UInt8] {
        var list = SampleCertificateList(kind: .vical, date: time.addingTimeInterval(-86_400), entries: [.init(certificate: scenario.authority.iaca)])
        list.issueID = issue
        list.url = base + "/utopia.vical"
        return try list.signed(by: listSigner)
    }
}
