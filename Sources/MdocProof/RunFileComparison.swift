package import Foundation
package import MdocCrypto

/// A run file read front to back and compared with the proofs its manifest lists.
enum RunFileComparison {
    /// What is kept of a record: no bytes, so a large file is not held in memory.
    struct Inspected {
        let offset: Int
        let length: Int
        let sha256: [UInt8]
        /// The payload's reference code, when the record is an mdocverify proof.
        let referenceCode: String?
        let signatureValid: Bool
        /// Whether it was signed with the reference certificate (the manifest's, or the first record's).
        let signedByReference: Bool
    }

    struct Read {
        var records: [Inspected] = []
        var problems: [RunCheck.Problem] = []
        var fileLength = 0
        /// The reference certificate and the rest of its x5chain (the first record's when none was given).
        var reference: Certificate?
        var intermediates: [Certificate] = []
    }

    /// Reads every record; after a record that cannot be read, goes on at the next of
    /// `resyncOffsets` (sorted) past it, if any.
    static func read(path: String, committedLength: Int?, resyncOffsets: [Int], reference: Certificate? = nil, limits: RunFile.Limits) -> Read {
        var read = Read(reference: reference)
        let reader: RunFileReader
        do {
            reader = try RunFileReader(path: path, committedLength: committedLength, limits: limits)
        } catch {
            read.problems.append(.unreadable(offset: 0, reason: error.reason))
            return read
        }
        read.fileLength = reader.fileLength
        while true {
            do {
                guard let record = try reader.next() else { break }
                let opened = try? ProofVerifier.open(item: record.item)
                if read.reference == nil, let opened {
                    read.reference = opened.embeddedCertificate
                    read.intermediates = opened.intermediates
                }
                read.records.append(Inspected(
                    offset: record.offset, length: record.length, sha256: record.sha256,
                    referenceCode: opened?.isProof == true ? opened?.referenceCode : nil,
                    signatureValid: opened?.signatureValid ?? false,
                    signedByReference: opened.map { $0.embeddedCertificate == read.reference } ?? false))
            } catch {
                let offset = error.offset ?? 0
                read.problems.append(.unreadable(offset: offset, reason: error.reason))
                let recoverable = error.code == .malformedRecord || error.code == .recordTooLarge
                guard recoverable, let next = resyncOffsets.first(where: { $0 > offset }) else { break }
                reader.seek(to: next)
            }
        }
        if let tail = reader.tail { read.problems.append(.tornTail(tail)) }
        return read
    }

    /// Everything in the run file at `path` that differs from `entries` (the manifest's list)
    /// and `committedLength`, each proof signed with `signer`.
    static func check(
        path: String, committedLength: Int, entries: [RunManifest.Entry], signer: Certificate, limits: RunFile.Limits
    ) -> [RunCheck.Problem] {
        guard FileManager.default.fileExists(atPath: path) else { return [.runFileMissing(path: path)] }
        let listed = entries.compactMap { entry in entry.offset.map { (entry: entry, offset: $0) } }.sorted { $0.offset < $1.offset }
        let read = read(path: path, committedLength: committedLength, resyncOffsets: listed.map(\.offset), reference: signer, limits: limits)
        var problems: [RunCheck.Problem] = []
        if read.fileLength < committedLength {
            problems.append(.runFileShorter(length: read.fileLength, committed: committedLength))
        }
        problems += read.problems

        var bySHA: [[UInt8]: Int] = [:]
        for (index, item) in listed.enumerated() where bySHA[item.entry.sha256] == nil { bySHA[item.entry.sha256] = index }
        var used = [Bool](repeating: false, count: listed.count)
        var matched: [(record: Int, listed: Int)] = []
        var unmatched: [Int] = []
        for (position, record) in read.records.enumerated() {
            guard let index = bySHA[record.sha256] else {
                unmatched.append(position)
                continue
            }
            if used[index] {
                problems.append(.duplicated(referenceCode: listed[index].entry.referenceCode, offset: record.offset))
            } else {
                used[index] = true
                matched.append((position, index))
            }
        }
        // A record that is not what was listed, where a listed proof should be (same offset) or
        // under a listed proof's reference code, is that proof altered.
        var byOffset: [Int: Int] = [:]
        var byCode: [String: Int] = [:]
        for index in listed.indices where !used[index] {
            byOffset[listed[index].offset] = index
            byCode[listed[index].entry.referenceCode] = index
        }
        for position in unmatched {
            let record = read.records[position]
            let candidate = byOffset[record.offset].flatMap { used[$0] ? nil : $0 }
                ?? record.referenceCode.flatMap { byCode[$0] }.flatMap { used[$0] ? nil : $0 }
            if let index = candidate {
                used[index] = true
                problems.append(.altered(referenceCode: listed[index].entry.referenceCode, offset: record.offset))
            } else {
                problems.append(.unlisted(referenceCode: record.referenceCode, offset: record.offset))
            }
        }
        for index in listed.indices where !used[index] {
            problems.append(.missing(referenceCode: listed[index].entry.referenceCode, listedOffset: listed[index].offset))
        }
        let inOrder = longestIncreasing(matched.map(\.listed))
        for (position, match) in matched.enumerated() {
            let record = read.records[match.record]
            let code = listed[match.listed].entry.referenceCode
            if !inOrder.contains(position) {
                problems.append(.reordered(referenceCode: code, offset: record.offset, listedOffset: listed[match.listed].offset))
            }
            if !record.signatureValid {
                problems.append(.badSignature(referenceCode: code, offset: record.offset))
            } else if !record.signedByReference {
                problems.append(.otherSigner(referenceCode: code, offset: record.offset, reason: "signed with another certificate than the manifest"))
            }
        }
        if problems.isEmpty {
            for match in matched {
                let record = read.records[match.record]
                let item = listed[match.listed]
                if record.offset != item.offset || record.length != item.entry.length {
                    problems.append(.misplaced(referenceCode: item.entry.referenceCode, offset: record.offset, listedOffset: item.offset))
                }
            }
        }
        return problems
    }

    /// Positions of one longest strictly increasing subsequence of `values` (patience sorting):
    /// the records that keep the listed order; the others were moved.
    static func longestIncreasing(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var kept = Set<Int>()
        var position = tails.last ?? -1
        while position >= 0 {
            kept.insert(position)
            position = previous[position]
        }
        return kept
    }
}
