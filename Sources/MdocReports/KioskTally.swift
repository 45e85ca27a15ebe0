import Foundation
import MdocStore
import MdocTime

/// Adds up the records a centre took in from its kiosks into the sections of a
/// ``KioskReport``, one pass over the records in kiosk and sequence order, whichever store
/// holds them (the intake store, or a report store's `kiosk_record`). Memory: per kiosk, its
/// counts and at most ``KioskReport/differenceRows`` differing records.
package struct KioskTally {
    private var sections: [Section] = []
    private var current: Section?

    package init() {}

    /// Adds one record; records come grouped by kiosk, in sequence order.
    package mutating func add(_ row: KioskRecord) {
        if current?.id != row.kioskSide.kiosk {
            if let section = current { sections.append(section) }
            current = Section(id: row.kioskSide.kiosk)
        }
        current?.add(row)
    }

    /// The sections, by kiosk id. `centreProblems` gives the centre's failing checks of each
    /// differing record listed (a report store reads them from the verification's results).
    package mutating func finish(
        centreProblems: (KioskRecord) throws -> [String] = { $0.centreProblems }
    ) throws -> [KioskReport.Kiosk] {
        if let section = current { sections.append(section) }
        current = nil
        return try sections.map { try $0.kiosk(centreProblems: centreProblems) }.sorted { $0.id < $1.id }
    }

    /// One kiosk's running totals.
    private struct Section {
        let id: String
        var records = 0
        var bySync = 0
        var asFiles = 0
        var firstReceived: Date?
        var lastReceived: Date?
        var lastSequence: UInt64 = 0
        var lag = (minimum: Double.infinity, total: 0.0, maximum: -Double.infinity)
        var pairs: [String: [String: Int]] = [:]
        var differing = 0
        /// The first differing records, listed when the section is finished.
        var differences: [KioskRecord] = []
        var kioskSnapshots = Set<String>()
        var centreSnapshots = Set<String>()

        init(id: String) { self.id = id }

        mutating func add(_ row: KioskRecord) {
            let kiosk = row.kioskSide
            records += 1
            if kiosk.via == .file { asFiles += 1 } else { bySync += 1 }
            firstReceived = min(firstReceived ?? kiosk.receivedAt, kiosk.receivedAt)
            lastReceived = max(lastReceived ?? kiosk.receivedAt, kiosk.receivedAt)
            lastSequence = max(lastSequence, kiosk.sequence)
            let seconds = kiosk.receivedAt.timeIntervalSince(kiosk.sealedAt)
            lag = (min(lag.minimum, seconds), lag.total + seconds, max(lag.maximum, seconds))
            pairs[kiosk.verdict.rawValue, default: [:]][row.centreVerdict.rawValue, default: 0] += 1
            if let snapshot = kiosk.trustSnapshot { kioskSnapshots.insert(snapshot) }
            centreSnapshots.insert(row.centreTrustSnapshot)
            guard kiosk.verdict != row.centreVerdict else { return }
            differing += 1
            guard differences.count < KioskReport.differenceRows else { return }
            differences.append(row)
        }

        /// A listed differing record, with the centre's failing checks `centreProblems`.
        static func difference(_ row: KioskRecord, centreProblems: [String]) -> KioskReport.Difference {
            let kiosk = row.kioskSide
            let atKiosk = Set(kiosk.problems), atCentre = Set(centreProblems)
            return KioskReport.Difference(
                sequence: kiosk.sequence, record: kiosk.record, sealedAt: RFC3339.format(kiosk.sealedAt),
                receivedAt: RFC3339.format(kiosk.receivedAt), kioskVerdict: kiosk.verdict.rawValue, centreVerdict: row.centreVerdict.rawValue,
                failingAtCentreOnly: atCentre.subtracting(atKiosk).sorted(), failingAtKioskOnly: atKiosk.subtracting(atCentre).sorted(),
                kioskTrustSnapshot: kiosk.trustSnapshot, centreTrustSnapshot: row.centreTrustSnapshot)
        }

        func kiosk(centreProblems: (KioskRecord) throws -> [String]) throws -> KioskReport.Kiosk {
            // Most frequent pair first, then by the verdicts' names.
            let verdicts = pairs.flatMap { kioskVerdict, centre in
                centre.map { KioskReport.VerdictPair(kiosk: kioskVerdict, centre: $0.key, count: $0.value) }
            }.sorted { ($1.count, $0.kiosk, $0.centre) < ($0.count, $1.kiosk, $1.centre) }
            return KioskReport.Kiosk(
                id: id, recordsReceived: records, receivedBySync: bySync, receivedAsFiles: asFiles,
                firstReceivedAt: firstReceived.map(RFC3339.format) ?? "", lastReceivedAt: lastReceived.map(RFC3339.format) ?? "",
                lastSequence: lastSequence, missingSequences: max(0, Int(clamping: lastSequence) - records),
                syncLag: KioskReport.Lag(
                    minimumSeconds: records == 0 ? 0 : lag.minimum, averageSeconds: records == 0 ? 0 : lag.total / Double(records),
                    maximumSeconds: records == 0 ? 0 : lag.maximum),
                verdicts: verdicts, differing: differing,
                differences: try differences.map { Self.difference($0, centreProblems: try centreProblems($0)) },
                kioskTrustSnapshots: kioskSnapshots.sorted(), centreTrustSnapshots: centreSnapshots.sorted())
        }
    }
}
