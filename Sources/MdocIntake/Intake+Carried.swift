package import Foundation
package import MdocSeal

/// Why `mdocverify intake` stopped before it wrote a receipts file.
package struct CarriedIntakeError: Error, CustomStringConvertible {
    package let description: String
}

extension Intake {
    /// Records one `mdocverify intake` takes in: their outcomes make one receipts file, which a
    /// kiosk reads whole (a receipt of this many outcomes stays under the CBOR decoder's limits).
    package static let maximumCarriedRecordCount = 100_000

    /// Carried records (`mdocverify intake FOLDER`), read with `read` and taken in parts of at
    /// most the sync limits of one request (records and bytes), each part processed, recorded
    /// and stored as a request's records are, so memory stays that of one part however many
    /// records a kiosk exported; then one receipt over every part's outcomes, signed.
    /// `progress` is told the records done after each part. A part stored stays stored when a
    /// later one fails: the same folder taken in again answers `duplicate` for it.
    package func accept(
        carried paths: [String], read: (String) throws -> [UInt8], now: Date = Date(), progress: (Int) -> Void = { _ in }
    ) async throws -> [UInt8] {
        guard paths.count <= Self.maximumCarriedRecordCount else {
            throw CarriedIntakeError(
                description: "\(paths.count) records are over the limit of \(Self.maximumCarriedRecordCount) for one intake: "
                    + "take the folder in as several smaller folders")
        }
        var outcomes: [Receipt.Entry] = []
        outcomes.reserveCapacity(paths.count)
        var part: [[UInt8]] = []
        var partBytes = 0
        func stopped(by error: any Error) -> CarriedIntakeError {
            guard !outcomes.isEmpty else { return CarriedIntakeError(description: "\(error)") }
            return CarriedIntakeError(
                description: "\(error) (\(outcomes.count) of \(paths.count) records were taken in before it; "
                    + "taking the same records in again answers those as duplicates)")
        }
        func flush() async throws {
            guard !part.isEmpty else { return }
            do {
                outcomes += try await takeIn(part, now: now)
            } catch {
                throw stopped(by: error)
            }
            part.removeAll(keepingCapacity: true)
            partBytes = 0
            progress(outcomes.count)
        }
        for path in paths {
            let record: [UInt8]
            do {
                record = try read(path)
            } catch {
                throw stopped(by: error)
            }
            if !part.isEmpty, partBytes + record.count > limits.sync.maximumRequestByteCount { try await flush() }
            part.append(record)
            partBytes += record.count
            if part.count >= limits.sync.maximumRecordCount { try await flush() }
        }
        try await flush()
        return try signReceipt(outcomes, now: now)
    }
}
