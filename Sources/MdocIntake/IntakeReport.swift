package import Foundation
package import MdocReports
internal import MdocTime
internal import GRDB

extension IntakeStore {
    /// The report on the kiosks (``KioskReport``): per kiosk, aggregated by SQL over the records
    /// stored, with at most ``KioskReport/differenceRows`` differing records listed each.
    package func kioskReport(generator: String, now: Date = Date()) throws -> KioskReport {
        try database.read { db in
            // Seconds from sealing to receipt (GRDB stores dates as UTC text julianday() reads).
            let lag = "(julianday(receivedAt) - julianday(sealedAt)) * 86400.0"
            let summaries = try Row.fetchAll(db, sql: """
                SELECT kiosk, count(*) AS records, sum(via = 'http') AS bySync, sum(via = 'file') AS asFiles,
                       min(receivedAt) AS firstReceived, max(receivedAt) AS lastReceived, max(sequence) AS lastSequence,
                       min(\(lag)) AS lagMin, avg(\(lag)) AS lagAvg, max(\(lag)) AS lagMax,
                       sum(kioskVerdict != centreVerdict) AS differing
                FROM record GROUP BY kiosk ORDER BY kiosk
                """)
            var kiosks: [KioskReport.Kiosk] = []
            for summary in summaries {
                let id: String = summary["kiosk"]
                let records: Int = summary["records"]
                let lastSequence = UInt64(max(summary["lastSequence"] as Int64, 0))
                let verdicts = try Row.fetchAll(db, sql: """
                    SELECT kioskVerdict, centreVerdict, count(*) AS n FROM record WHERE kiosk = ?
                    GROUP BY kioskVerdict, centreVerdict ORDER BY n DESC, kioskVerdict, centreVerdict
                    """, arguments: [id]).map { KioskReport.VerdictPair(kiosk: $0["kioskVerdict"], centre: $0["centreVerdict"], count: $0["n"]) }
                let differences = try IntakeRow.fetchAll(db, sql: """
                    SELECT * FROM record WHERE kiosk = ? AND kioskVerdict != centreVerdict ORDER BY sequence LIMIT ?
                    """, arguments: [id, KioskReport.differenceRows]).map(Self.difference)
                let kioskSnapshots = try String.fetchAll(
                    db, sql: "SELECT DISTINCT kioskTrustSnapshot FROM record WHERE kiosk = ? AND kioskTrustSnapshot IS NOT NULL ORDER BY 1",
                    arguments: [id])
                let centreSnapshots = try String.fetchAll(
                    db, sql: "SELECT DISTINCT centreTrustSnapshot FROM record WHERE kiosk = ? ORDER BY 1", arguments: [id])
                kiosks.append(KioskReport.Kiosk(
                    id: id, recordsReceived: records, receivedBySync: summary["bySync"], receivedAsFiles: summary["asFiles"],
                    firstReceivedAt: Self.instant(summary["firstReceived"]), lastReceivedAt: Self.instant(summary["lastReceived"]),
                    lastSequence: lastSequence, missingSequences: max(0, Int(clamping: lastSequence) - records),
                    syncLag: KioskReport.Lag(
                        minimumSeconds: (summary["lagMin"] as Double?) ?? 0, averageSeconds: (summary["lagAvg"] as Double?) ?? 0,
                        maximumSeconds: (summary["lagMax"] as Double?) ?? 0),
                    verdicts: verdicts, differing: summary["differing"], differences: differences, kioskTrustSnapshots: kioskSnapshots,
                    centreTrustSnapshots: centreSnapshots))
            }
            return KioskReport(generatedAt: RFC3339.format(now), generator: generator, kiosks: kiosks)
        }
    }

    /// A stored date (GRDB's text) as RFC 3339.
    static func instant(_ date: Date?) -> String { date.map(RFC3339.format) ?? "" }

    static func difference(_ row: IntakeRow) -> KioskReport.Difference {
        let atKiosk = Set(row.kioskProblems.split(separator: ",").map(String.init))
        let atCentre = Set(row.centreProblems.split(separator: ",").map(String.init))
        return KioskReport.Difference(
            sequence: UInt64(max(row.sequence, 0)), record: row.hash.map { String(format: "%02x", $0) }.joined(),
            sealedAt: RFC3339.format(row.sealedAt), receivedAt: RFC3339.format(row.receivedAt), kioskVerdict: row.kioskVerdict,
            centreVerdict: row.centreVerdict, failingAtCentreOnly: atCentre.subtracting(atKiosk).sorted(),
            failingAtKioskOnly: atKiosk.subtracting(atCentre).sorted(), kioskTrustSnapshot: row.kioskTrustSnapshot,
            centreTrustSnapshot: row.centreTrustSnapshot)
    }
}
