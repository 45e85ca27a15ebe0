internal import Foundation
internal import MdocProof
internal import MdocStore

/// The proof files of runs whose process died (`kill -9`, power loss) between appending a
/// batch's proofs and recording that batch: the bytes past the length the store committed
/// are a torn tail, cut at the next run's pre-flight and recorded in the audit log.
package enum TornTails {
    /// What was cut from one run's proof file.
    package struct Cut: Sendable, Equatable {
        package let runID: String
        package let file: String
        package let previousLength: Int
        package let length: Int
    }

    /// A run's proof file shorter than its committed length: committed proofs were lost (the
    /// file was truncated or replaced); left as it is for `proof verify` to report.
    package struct Shortfall: Sendable, Equatable {
        package let runID: String
        package let file: String
        package let reason: String
    }

    package struct Outcome: Sendable, Equatable {
        package var cuts: [Cut] = []
        package var shortfalls: [Shortfall] = []
    }

    /// Cuts the torn tail of every interrupted run's proof file under `outDirectory` back to its
    /// committed length, each cut audited as `proof.tornTailCut`; the file of a run that
    /// committed no batch is removed once empty. Runs still running (in another process) or
    /// finished are left alone.
    static func cut(store: any PipelineStore, outDirectory: String) throws -> Outcome {
        var outcome = Outcome()
        let files: [RunProofFile]
        do {
            files = try store.runProofFiles()
        } catch {
            throw PipelineSetupError("cannot read the runs of the report database: \(error)")
        }
        for run in files where run.status == .interrupted {
            let path = (outDirectory as NSString).appendingPathComponent(run.file)
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let committed = Int(run.committedLength ?? 0)
            do {
                if try RunFile.uncommittedTail(path: path, committedLength: committed) != nil {
                    let cut = try RunFile.cut(path: path, to: committed)
                    try store.recordTornTailCut(
                        runID: run.runID, file: run.file, previousLength: cut.previousLength, length: cut.length,
                        removedSHA256: cut.removedSHA256)
                    outcome.cuts.append(Cut(runID: run.runID, file: run.file, previousLength: cut.previousLength, length: cut.length))
                }
                // A run that committed no batch leaves an empty file, which proves nothing: gone.
                if committed == 0 { try FileManager.default.removeItem(atPath: path) }
            } catch let failure as RunFile.Failure where failure.code == .badLength {
                outcome.shortfalls.append(Shortfall(runID: run.runID, file: run.file, reason: failure.reason))
            } catch {
                throw PipelineSetupError("cannot cut the torn tail of \(path): \(error)")
            }
        }
        return outcome
    }
}
