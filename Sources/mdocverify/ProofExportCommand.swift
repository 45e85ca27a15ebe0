import ArgumentParser
import Foundation
import MdocPostgres
import MdocProof

/// `mdocverify proof export`: one proof out of the run files, as a standalone `.cose`.
struct ProofExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write one proof, found by reference code or transaction id, as a standalone .cose file.",
        discussion: """
            The proof comes from the latest run that holds it (or --run), byte for byte: it verifies on \
            its own with `mdocverify proof verify FILE --cert CERT` or scripts/verify-proof.py.

            Exit codes: 0 written; 1 no such proof in the folder; 2 usage error (the file exists, no \
            such folder, not a reference code or transaction id); 130 interrupted (Ctrl-C).
            """)

    @Argument(help: "A reference code (XXXX-XXXX-XXXX-XXXX) or a transaction id (64 hex digits).")
    var reference: String

    @Option(name: .long, help: "The file to write; it must not exist.")
    var out: String

    @Option(name: .long, help: "The output folder of the runs.")
    var from: String = "reports"

    @Option(name: .customLong("run"), help: "Take the proof from this run instead of the latest that holds it.")
    var runID: String?

    @Option(name: .long, help: "A postgresql:// URI: take the proof from the runs the database keeps, not from a folder.")
    var db: String?

    func validate() throws {
        if let db, !PostgresURI.hasPostgresScheme(db) { throw ValidationError("--db takes a postgresql:// URI") }
    }

    func run() throws {
        let code: String
        var transactionID: String?
        if let derived = ReferenceCode.make(transactionID: reference) {
            code = derived
            transactionID = reference
        } else if ReferenceCode.isWellFormed(reference.uppercased()) {
            code = reference.uppercased()
        } else {
            throw SetupError("\(reference) is neither a reference code (XXXX-XXXX-XXXX-XXXX) nor a transaction id (64 hex digits)")
        }
        guard !FileManager.default.fileExists(atPath: out) else {
            throw SetupError("\(out) exists: give another file with --out (an export never replaces a file)")
        }
        let found: OutputFolder.Found?
        let source: String
        if let db {
            source = ServerDatabase.shown(db)
            found = try ServerDatabase.withTemporaryFolder { folder in
                _ = try ServerDatabase.materializeProofs(from: db, runID: runID, into: folder)
                return try find(code, transactionID: transactionID, in: folder)
            }
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: from, isDirectory: &isDirectory), isDirectory.boolValue else {
                throw SetupError("\(from) is not an output folder: give the folder of the runs with --from")
            }
            source = from
            found = try find(code, transactionID: transactionID, in: from)
        }
        guard let found else {
            let what = transactionID.map { "transaction \($0)" } ?? "reference code \(code)"
            FileHandle.standardError.write(Data("mdocverify: no proof for \(what) in \(source)\(runID.map { " (run \($0))" } ?? "")\n".utf8))
            throw ExitCode(1)
        }
        do {
            try found.proof.write(toNewFile: out)
        } catch {
            throw SetupError(error.description)
        }
        let file = db == nil ? found.source : "proofs/" + RunFile.fileName(runID: found.runID) + " in " + source
        let place = found.offset.map { "\(file) at offset \($0)" } ?? file
        print("wrote \(out): proof \(code) of run \(TerminalText.escaped(found.runID)) (from \(TerminalText.escaped(place)), \(found.proof.bytes.count) bytes)")
    }

    func find(_ code: String, transactionID: String?, in folder: String) throws -> OutputFolder.Found? {
        do {
            return try OutputFolder(path: folder).findProof(referenceCode: code, transactionID: transactionID, runID: runID)
        } catch {
            throw SetupError("\(error.reason)")
        }
    }
}
