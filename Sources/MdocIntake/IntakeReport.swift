package import Foundation
package import MdocReports
internal import MdocStore
internal import MdocTime
internal import GRDB

extension IntakeStore {
    /// The report on the kiosks (``KioskReport``): per kiosk, added up (``KioskTally``) over the
    /// records stored, read in kiosk and sequence order without their sealed bytes.
    package func kioskReport(generator: String, now: Date = Date()) throws -> KioskReport {
        try database.read { db in
            var tally = KioskTally()
            let rows = try Row.fetchCursor(db, sql: """
                SELECT hash, kiosk, sequence, sealedAt, receivedAt, via, kioskVerdict, kioskTrustSnapshot, kioskProblems,
                       centreVerdict, centreTrustSnapshot, centreProblems
                FROM record ORDER BY kiosk, sequence
                """)
            while let row = try rows.next() {
                let hash: Data = row[0]
                tally.add(KioskRecordRow(
                    record: hash.map { String(format: "%02x", $0) }.joined(), kiosk: row[1], sequence: UInt64(max(row[2] as Int64, 0)),
                    sealedAt: row[3], receivedAt: row[4], via: row[5], kioskVerdict: row[6], kioskTrustSnapshot: row[7],
                    kioskProblems: KioskIntakeRecord.problems(row[8]), centreVerdict: row[9], centreTrustSnapshot: row[10],
                    centreProblems: KioskIntakeRecord.problems(row[11])))
            }
            return KioskReport(generatedAt: RFC3339.format(now), generator: generator, kiosks: tally.finish())
        }
    }
}
