package import Foundation
package import MdocChecks
package import MdocVerification

/// A judged transaction as a kiosk seals it, before its session ends: the bundle's files as
/// captured (the reader's ephemeral key, lent by the session, among them), its consent record,
/// verdict and check results, and the trust snapshot it was judged against.
package struct SealableTransaction: Sendable {
    /// SHA-256 of the bundle's content (the transaction id of the store and the proofs).
    package var transactionID: [UInt8]
    package var name: String
    /// Where the bundle came from: its folder or file (inside an archive, the archive's path and more).
    package var source: String
    package var files: [String: [UInt8]]
    package var consent: TransactionMetadata.Consent?
    package var verdict: Verdict
    package var verdictAtCapture: Verdict?
    package var checks: [CheckResult]
    package var verificationTime: Date
    package var trustSnapshot: String
}

/// Seals one transaction (a kiosk's outbox): called in input order, before the batch is recorded.
/// An error stops the run with the batch unrecorded, as a proof that cannot be signed does.
package typealias TransactionSealing = @Sendable (SealableTransaction) throws -> Void

extension Judged {
    /// What the sealing sees of this transaction: the bundle's files, with the reader key the
    /// session holds (copied out of the lent bytes, which are zeroed) and, for a bundle that
    /// carries none, the run's `--transcript` and `--reader-key`, so the centre can verify again.
    func sealable(context: TransactionContext, verificationTime: Date, trustSnapshot: String) -> SealableTransaction {
        var files = transaction.bundle.files
        transaction.session.withReaderKey { key in
            if let key { files[TransactionVerifier.readerKeyFile] = key.withUnsafeBufferPointer { Array($0) } }
        }
        if files[TransactionVerifier.readerKeyFile] == nil, let key = context.fallbackReaderKeyPEM {
            files[TransactionVerifier.readerKeyFile] = key
        }
        if files[TransactionVerifier.transcriptFile] == nil, let transcript = context.fallbackTranscript {
            files[TransactionVerifier.transcriptFile] = transcript
        }
        return SealableTransaction(
            transactionID: transaction.bundle.contentHash, name: verified?.name ?? transaction.bundle.name, source: transaction.bundle.source, files: files,
            consent: verified?.metadata.consent, verdict: verdict,
            verdictAtCapture: verified?.verdictAtCapture ?? reuse?.prior.verdictAtCapture,
            checks: verified?.checks ?? reuse?.checks ?? [],
            verificationTime: reuse?.prior.verificationTime ?? verificationTime, trustSnapshot: trustSnapshot)
    }
}
