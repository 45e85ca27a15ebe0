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
                SELECT hash, kiosk, sequence, sealedAt, receivedAt, via, kioskVerdict, kioskVerdictAtCapture, kioskTrustSnapshot,
                       kioskProblems, centreVerdict, centreTrustSnapshot, centreProblems
                FROM record ORDER BY kiosk, sequence
                """)
            while let row = try rows.next() {
                let hash: Data = row[0]
                tally.add(KioskRecord(
                    KioskSide(
                        record: hash.map { String(format: "%02x", $0) }.joined(), kiosk: row[1], sequence: UInt64(max(row[2] as Int64, 0)),
                        sealedAt: row[3], receivedAt: row[4], via: KioskRecord.Via(rawValue: row[5]) ?? .file,
                        verdict: KioskRecord.verdict(row[6]) ?? .indeterminate, verdictAtCapture: KioskRecord.verdict(row[7]),
                        trustSnapshot: row[8], problems: KioskRecord.problems(row[9])),
                    centreVerdict: KioskRecord.verdict(row[10]) ?? .indeterminate, centreTrustSnapshot: row[11],
                    centreProblems: KioskRecord.problems(row[12])))
            }
            return KioskReport(generatedAt: RFC3339.format(now), generator: generator, kiosks: try tally.finish())
        }
    }
}
