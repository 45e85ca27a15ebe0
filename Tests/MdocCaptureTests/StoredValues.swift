import MdocStore

extension ReportStore {
    /// Every element value the store kept (`--keep-values`), as (identifier, JSON), by identifier.
    func keptValues() throws -> [(identifier: String, json: String)] {
        var kept: [(identifier: String, json: String)] = []
        for row in try query(sql: "SELECT verification_id FROM disclosure") {
            guard let id = row[0].int64 else { continue }
            for element in try elements(verificationID: id).values.joined() {
                if let json = element.valueJSON { kept.append((element.identifier, json)) }
            }
        }
        return kept.sorted { $0.identifier < $1.identifier }
    }
}
