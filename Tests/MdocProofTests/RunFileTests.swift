import Foundation
import MdocCBOR
import MdocCrypto
import MdocProof
import MdocTestSupport
import XCTest

/// The run file: batches appended and read back exactly, torn tails found and cut, limits at their edges.
final class RunFileTests: XCTestCase {
    func testBatchesAreReadBackByteForByteWithTheirLocations() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<7)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path)
        var locations = try writer.append(Array(proofs[0..<3]))
        try writer.flush()
        locations += try writer.append([])
        locations += try writer.append(Array(proofs[3...]))
        try writer.flush()
        XCTAssertEqual(locations.map(\.referenceCode), proofs.map(\.referenceCode))
        XCTAssertEqual(locations.map(\.sha256), proofs.map(\.sha256))
        XCTAssertEqual(locations.map(\.length), proofs.map(\.bytes.count))
        XCTAssertEqual(locations.first?.offset, 0)
        for (previous, next) in zip(locations, locations.dropFirst()) { XCTAssertEqual(next.offset, previous.offset + previous.length) }
        XCTAssertEqual(writer.length, proofs.reduce(0) { $0 + $1.bytes.count })
        XCTAssertEqual(try ProofFixture.read(path), proofs.flatMap(\.bytes), "a CBOR sequence: the proofs, nothing between them")

        let reader = try RunFileReader(path: path)
        var read: [RunFile.Record] = []
        while let record = try reader.next() { read.append(record) }
        XCTAssertNil(reader.tail)
        XCTAssertEqual(read.map(\.offset), locations.map(\.offset))
        XCTAssertEqual(read.map { Array($0.bytes) }, proofs.map(\.bytes))
        XCTAssertEqual(read.map(\.sha256), proofs.map(\.sha256))
        let fourth = try XCTUnwrap(try reader.record(at: locations[4].offset))
        XCTAssertEqual(Array(fourth.bytes), proofs[4].bytes)
        XCTAssertTrue(try ProofVerifier.open(item: fourth.item).signatureValid)

        try writer.close()
        XCTAssertThrowsError(try writer.append(proofs)) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .io) }
        XCTAssertThrowsError(try RunFileWriter(creating: path), "an existing run file is never reused")
    }

    func testATornTailIsFoundAtTheCutRecordAndCutBack() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<4)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path)
        let locations = try writer.append(proofs)
        try writer.close()
        let whole = try ProofFixture.read(path)
        // Every cut inside the last record (a write cut short) is a torn tail at its offset.
        let last = try XCTUnwrap(locations.last)
        for cut in [last.offset + 1, last.offset + 2, last.offset + last.length / 2, last.offset + last.length - 1] {
            try ProofFixture.write(Array(whole[..<cut]), path)
            let reader = try RunFileReader(path: path)
            var count = 0
            while try reader.next() != nil { count += 1 }
            XCTAssertEqual(count, 3)
            XCTAssertEqual(reader.tail, RunFile.Tail(kind: .cutShort, offset: last.offset, length: cut - last.offset))
        }
        let cut = try RunFile.cut(path: path, to: last.offset)
        XCTAssertEqual(cut.previousLength, last.offset + last.length - 1)
        XCTAssertEqual(cut.length, last.offset)
        XCTAssertEqual(cut.removedBytes, last.length - 1)
        XCTAssertEqual(cut.removedSHA256, HashFunction.sha256.hash(Array(whole[last.offset..<(last.offset + last.length - 1)])))
        XCTAssertEqual(try ProofFixture.read(path), Array(whole[..<last.offset]), "only the tail is removed")
        let again = try RunFileReader(path: path)
        while try again.next() != nil {}
        XCTAssertNil(again.tail)
        XCTAssertThrowsError(try RunFile.cut(path: path, to: last.offset + 1)) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .badLength) }
        XCTAssertThrowsError(try RunFile.cut(path: path, to: -1))
    }

    func testBytesPastTheCommittedLengthAreATornTail() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path)
        _ = try writer.append(Array(proofs[0..<2]))
        let committed = writer.length
        _ = try writer.append([proofs[2]])  // appended, never committed
        try writer.close()
        let reader = try RunFileReader(path: path, committedLength: committed)
        var count = 0
        while try reader.next() != nil { count += 1 }
        XCTAssertEqual(count, 2)
        XCTAssertEqual(reader.tail, RunFile.Tail(kind: .pastCommittedLength, offset: committed, length: proofs[2].bytes.count))
        XCTAssertEqual(try RunFile.cut(path: path, to: committed).removedSHA256, proofs[2].sha256)
        // A committed length past the end reads what there is (a manifest check reports the file short).
        let longer = try RunFileReader(path: path, committedLength: committed + 10)
        XCTAssertEqual(longer.readableLength, committed)
        while try longer.next() != nil {}
        XCTAssertNil(longer.tail)
    }

    func testAMalformedRecordIsReportedWhereItIsAndReadingGoesOnWhereTold() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3)
        let path = fixture.folder.url("run.cbor-seq")
        let second = proofs[0].bytes.count
        let third = second + proofs[1].bytes.count
        var bytes = proofs.flatMap(\.bytes)
        bytes[second] = 0xff  // a break where an item starts
        try ProofFixture.write(bytes, path)
        let reader = try RunFileReader(path: path)
        XCTAssertNotNil(try reader.next())
        XCTAssertThrowsError(try reader.next()) { error in
            XCTAssertEqual((error as? RunFile.Failure)?.code, .malformedRecord)
            XCTAssertEqual((error as? RunFile.Failure)?.offset, second)
        }
        reader.seek(to: third)
        XCTAssertEqual(try reader.next().map { Array($0.bytes) }, proofs[2].bytes)
        XCTAssertNil(try reader.next())
        XCTAssertNil(reader.tail)
    }

    /// A file cut shorter after it was opened ends in a torn tail where the bytes stop, without
    /// waiting for bytes that will not come.
    func testAFileThatShrinksWhileItIsReadEndsInATornTail() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3)
        let path = fixture.folder.url("run.cbor-seq")
        try ProofFixture.write(proofs.flatMap(\.bytes), path)
        let reader = try RunFileReader(path: path)
        XCTAssertEqual(truncate(path, off_t(proofs[0].bytes.count + 10)), 0)
        XCTAssertEqual(try reader.next().map { Array($0.bytes) }, proofs[0].bytes)
        XCTAssertNil(try reader.next())
        XCTAssertEqual(reader.tail?.kind, .cutShort)
        XCTAssertEqual(reader.tail?.offset, proofs[0].bytes.count)
    }

    /// Records above a window's worth of bytes are read whole.
    func testARecordLargerThanTheReadWindowIsReadWhole() throws {
        let fixture = try ProofFixture()
        let big = try fixture.signer.sign(evidence: ProofFixture.evidence(1, detail: String(repeating: "x", count: 700_000)))
        let small = try fixture.proofs(2..<4)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path)
        _ = try writer.append(small + [big] + small)
        try writer.close()
        let reader = try RunFileReader(path: path)
        var read: [[UInt8]] = []
        while let record = try reader.next() { read.append(Array(record.bytes)) }
        XCTAssertEqual(read, (small + [big] + small).map(\.bytes))
        XCTAssertNil(reader.tail)
    }

    func testTheRecordSizeLimitAtItsEdge() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<2)
        let size = proofs[0].bytes.count
        let exact = RunFile.Limits(maxRecordBytes: size)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path, limits: exact)
        _ = try writer.append([proofs[0]])
        let over = try fixture.signer.sign(evidence: ProofFixture.evidence(0, detail: "longer"))
        XCTAssertGreaterThan(over.bytes.count, size)
        XCTAssertThrowsError(try writer.append([proofs[1], over])) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .recordTooLarge) }
        XCTAssertEqual(writer.length, size, "nothing of a refused batch is written")
        try writer.close()
        XCTAssertEqual(try ProofFixture.read(path), proofs[0].bytes)

        let reader = try RunFileReader(path: path, limits: exact)
        XCTAssertNotNil(try reader.next(), "a record of exactly the limit is read")
        try ProofFixture.write(over.bytes + proofs[0].bytes, path)
        let overReader = try RunFileReader(path: path, limits: exact)
        XCTAssertThrowsError(try overReader.next()) { error in
            XCTAssertEqual((error as? RunFile.Failure)?.code, .recordTooLarge)
            XCTAssertEqual((error as? RunFile.Failure)?.offset, 0)
        }
        // A head declaring more than the limit is refused before anything is read.
        try ProofFixture.write([0x5a, 0x7f, 0xff, 0xff, 0xff, 0x00], path)
        XCTAssertThrowsError(try RunFileReader(path: path).next()) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .recordTooLarge) }
    }

    func testTheRecordCountLimitAtItsEdge() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<4)
        let limits = RunFile.Limits(maxRecords: 3)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path, limits: limits)
        _ = try writer.append(Array(proofs[0..<2]))
        XCTAssertThrowsError(try writer.append(Array(proofs[2..<4]))) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .tooManyRecords) }
        _ = try writer.append([proofs[2]])
        XCTAssertThrowsError(try writer.append([proofs[3]]))
        try writer.close()
        let reader = try RunFileReader(path: path, limits: limits)
        for _ in 0..<3 { XCTAssertNotNil(try reader.next()) }
        XCTAssertNil(try reader.next())
        try ProofFixture.write(proofs.flatMap(\.bytes), path)
        let overReader = try RunFileReader(path: path, limits: limits)
        for _ in 0..<3 { XCTAssertNotNil(try overReader.next()) }
        XCTAssertThrowsError(try overReader.next()) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .tooManyRecords) }
    }

    /// A batch the file system refuses (here past the file size limit) leaves the file as it was.
    func testABatchThatCannotBeWrittenIsCutBackOff() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<4)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path)
        _ = try writer.append([proofs[0]])
        let before = writer.length
        var saved = rlimit()
        XCTAssertEqual(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
        let previousHandler = signal(SIGXFSZ, SIG_IGN)
        var small = saved
        small.rlim_cur = rlim_t(before + proofs[1].bytes.count + 10)
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &small), 0)
        XCTAssertThrowsError(try writer.append(Array(proofs[1...]))) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .io) }
        XCTAssertEqual(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved), 0)
        signal(SIGXFSZ, previousHandler)
        XCTAssertEqual(writer.length, before)
        XCTAssertEqual(try ProofFixture.read(path), proofs[0].bytes, "the partial batch is cut back off")
        _ = try writer.append([proofs[1]])
        try writer.close()
        XCTAssertEqual(try ProofFixture.read(path), proofs[0].bytes + proofs[1].bytes)
    }

    func testAReferenceCodeFromATransactionID() {
        let id = String(repeating: "ab", count: 32)
        XCTAssertEqual(ReferenceCode.make(transactionID: id), ReferenceCode.make(contentHash: Array(repeating: 0xab, count: 32)))
        XCTAssertEqual(ReferenceCode.make(transactionID: id.uppercased()), ReferenceCode.make(transactionID: id))
        XCTAssertNil(ReferenceCode.make(transactionID: String(id.dropLast())))
        XCTAssertNil(ReferenceCode.make(transactionID: String(id.dropLast()) + "g"))
        XCTAssertNil(ReferenceCode.make(transactionID: id + "ab"))
    }
}

/// What the pipeline does with a run file across runs: reuse a proof recorded earlier, and cut
/// what a killed run appended past its last commit.
final class RunFileAcrossRunsTests: XCTestCase {
    func testAProofRecordedEarlierIsReadExactlyAndAppendedAgain() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3)
        let first = try fixture.writeRun("run-1", batches: [proofs])
        let recorded = try RunFileWriter(creating: fixture.folder.url("scratch.cbor-seq")).append(proofs)
        let reader = try RunFileReader(path: first.runFile)
        let reused = try reader.proof(at: recorded[1])
        XCTAssertEqual(reused, proofs[1])
        try fixture.writeRun("run-2", batches: [[reused], try fixture.proofs(3..<4, runID: "run-2")])
        let second = try fixture.verify("\(fixture.out)/runs/run-2.cose")
        XCTAssertTrue(second.isIntact, "\(second.problems)")
        XCTAssertEqual(Array(try ProofFixture.read("\(fixture.out)/proofs/run-2.cbor-seq").prefix(reused.bytes.count)), proofs[1].bytes)

        let moved = RunFile.Location(referenceCode: proofs[1].referenceCode, offset: recorded[1].offset + 1, length: recorded[1].length, sha256: recorded[1].sha256)
        XCTAssertThrowsError(try reader.proof(at: moved)) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .malformedRecord) }
        let outside = RunFile.Location(referenceCode: proofs[2].referenceCode, offset: recorded[2].offset, length: recorded[2].length + 1, sha256: recorded[2].sha256)
        XCTAssertThrowsError(try reader.proof(at: outside)) { XCTAssertEqual(($0 as? RunFile.Failure)?.code, .badLength) }
    }

    func testTheUncommittedTailOfAKilledRunIsFoundAndCut() throws {
        let fixture = try ProofFixture()
        let proofs = try fixture.proofs(0..<3)
        let path = fixture.folder.url("run.cbor-seq")
        let writer = try RunFileWriter(creating: path)
        _ = try writer.append(Array(proofs[0..<2]))
        try writer.flush()
        let committed = writer.length
        XCTAssertNil(try RunFile.uncommittedTail(path: path, committedLength: committed))
        _ = try writer.append([proofs[2]])  // the process dies before its batch is committed
        try ProofFixture.write(Array(try ProofFixture.read(path).dropLast(5)), path)
        let tail = try XCTUnwrap(try RunFile.uncommittedTail(path: path, committedLength: committed))
        XCTAssertEqual(tail, RunFile.Tail(kind: .pastCommittedLength, offset: committed, length: proofs[2].bytes.count - 5))
        let cut = try RunFile.cut(path: path, to: tail.offset)
        XCTAssertEqual(cut.removedSHA256, HashFunction.sha256.hash(Array(proofs[2].bytes.dropLast(5))))
        XCTAssertNil(try RunFile.uncommittedTail(path: path, committedLength: committed))
        XCTAssertThrowsError(try RunFile.uncommittedTail(path: path, committedLength: committed + 1)) {
            XCTAssertEqual(($0 as? RunFile.Failure)?.code, .badLength)
        }
    }
}
