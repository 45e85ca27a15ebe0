import Foundation

/// The centre's report on its kiosks, from the intake store: for each kiosk the records
/// received, the sync lag (sealed at the kiosk → received by the centre, whose receipt answers
/// at once), and the records whose verdict differs between the kiosk and the centre, with the
/// checks that failed on one side only. No personal data: ids, verdicts, check ids and hashes.
package struct KioskReport: Codable, Sendable, Equatable {
    /// The value of ``format``.
    package static let formatName = "mdocverify.kiosk-report"
    /// The value of ``version``: bumped when a field changes meaning or disappears.
    package static let currentVersion = 1
    /// Most differing records listed per kiosk, in every format (their number is always given).
    package static let differenceRows = 1_000

    package var format = KioskReport.formatName
    package var version = KioskReport.currentVersion
    /// When the report was built (RFC 3339, UTC).
    package var generatedAt: String
    /// The program that built it, e.g. `mdocverify 0.1.0`.
    package var generator: String
    /// One section per kiosk that sent records, by kiosk id.
    package var kiosks: [Kiosk]

    package init(generatedAt: String, generator: String, kiosks: [Kiosk]) {
        self.generatedAt = generatedAt
        self.generator = generator
        self.kiosks = kiosks
    }

    package struct Kiosk: Codable, Sendable, Equatable {
        package var id: String
        package var recordsReceived: Int
        /// Records received over HTTP (`sync`) and as carried files (`intake`).
        package var receivedBySync: Int
        package var receivedAsFiles: Int
        package var firstReceivedAt: String
        package var lastReceivedAt: String
        /// The highest sequence number received, and how many below it are missing.
        package var lastSequence: UInt64
        package var missingSequences: Int
        package var syncLag: Lag
        /// Records by (kiosk verdict, centre verdict).
        package var verdicts: [VerdictPair]
        /// Records whose verdict now differs between the kiosk and the centre.
        package var differing: Int
        /// The first ``KioskReport/differenceRows`` of them, by sequence.
        package var differences: [Difference]
        /// Trust snapshots the kiosk and the centre judged this kiosk's records against.
        package var kioskTrustSnapshots: [String]
        package var centreTrustSnapshots: [String]

        package init(
            id: String, recordsReceived: Int, receivedBySync: Int, receivedAsFiles: Int, firstReceivedAt: String,
            lastReceivedAt: String, lastSequence: UInt64, missingSequences: Int, syncLag: Lag, verdicts: [VerdictPair],
            differing: Int, differences: [Difference], kioskTrustSnapshots: [String], centreTrustSnapshots: [String]
        ) {
            self.id = id
            self.recordsReceived = recordsReceived
            self.receivedBySync = receivedBySync
            self.receivedAsFiles = receivedAsFiles
            self.firstReceivedAt = firstReceivedAt
            self.lastReceivedAt = lastReceivedAt
            self.lastSequence = lastSequence
            self.missingSequences = missingSequences
            self.syncLag = syncLag
            self.verdicts = verdicts
            self.differing = differing
            self.differences = differences
            self.kioskTrustSnapshots = kioskTrustSnapshots
            self.centreTrustSnapshots = centreTrustSnapshots
        }
    }

    /// Seconds from sealing at the kiosk to receipt at the centre.
    package struct Lag: Codable, Sendable, Equatable {
        package var minimumSeconds: Double
        package var averageSeconds: Double
        package var maximumSeconds: Double

        package init(minimumSeconds: Double, averageSeconds: Double, maximumSeconds: Double) {
            self.minimumSeconds = minimumSeconds
            self.averageSeconds = averageSeconds
            self.maximumSeconds = maximumSeconds
        }
    }

    package struct VerdictPair: Codable, Sendable, Equatable {
        package var kiosk: String
        package var centre: String
        package var count: Int

        package init(kiosk: String, centre: String, count: Int) {
            self.kiosk = kiosk
            self.centre = centre
            self.count = count
        }
    }

    /// A record judged differently, and why: the checks that failed (or could not be checked)
    /// at one side only.
    package struct Difference: Codable, Sendable, Equatable {
        package var sequence: UInt64
        /// SHA-256 of the sealed record, hex.
        package var record: String
        package var sealedAt: String
        package var receivedAt: String
        package var kioskVerdict: String
        package var centreVerdict: String
        package var failingAtCentreOnly: [String]
        package var failingAtKioskOnly: [String]
        package var kioskTrustSnapshot: String?
        package var centreTrustSnapshot: String

        package init(
            sequence: UInt64, record: String, sealedAt: String, receivedAt: String, kioskVerdict: String, centreVerdict: String,
            failingAtCentreOnly: [String], failingAtKioskOnly: [String], kioskTrustSnapshot: String?, centreTrustSnapshot: String
        ) {
            self.sequence = sequence
            self.record = record
            self.sealedAt = sealedAt
            self.receivedAt = receivedAt
            self.kioskVerdict = kioskVerdict
            self.centreVerdict = centreVerdict
            self.failingAtCentreOnly = failingAtCentreOnly
            self.failingAtKioskOnly = failingAtKioskOnly
            self.kioskTrustSnapshot = kioskTrustSnapshot
            self.centreTrustSnapshot = centreTrustSnapshot
        }
    }
}
