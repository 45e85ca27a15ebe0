import Foundation
import MdocKiosk
import MdocPipeline
import MdocSeal
import NIOConcurrencyHelpers

/// `--kiosk DIR` of `verify` and `capture`: each judged transaction sealed into the outbox of the
/// kiosk made by `kiosk init`, for `mdocverify sync` or `kiosk export`.
final class KioskSealing: Sendable {
    /// What `--help` says the kiosk keeps.
    static let verifyHelp = """
        Kiosk folder (kiosk init): seal each transaction (its files as read, the reader's key among \
        them, the verdict and check results) into the kiosk's outbox for mdocverify sync. Your input \
        files are left as they are; remove them yourself. --keep-values is refused: the report \
        database keeps no element values.
        """
    static let captureHelp = """
        Kiosk folder (kiosk init): seal each attempt (its bundle with the reader's ephemeral key, the \
        verdict and check results) into the kiosk's outbox for mdocverify sync, then overwrite and \
        remove its bundle under <out>/captures/: the kiosk keeps only sealed records and a report \
        database without element values (--keep-values is refused).
        """

    let outbox: Outbox
    let sealed = NIOLockedValueBox(0)
    /// Transactions an earlier run on the same inputs had sealed already.
    let alreadySealed = NIOLockedValueBox(0)
    /// Bundles sealed from inside this folder are erased (a capture's); others are the user's.
    let erasingUnder: String?

    /// Opens the kiosk's outbox; `erasingUnder`: the folder of captures whose bundles are erased once sealed.
    init(directory: String, erasingUnder: String?) throws {
        do {
            outbox = try Outbox(directory: directory)
        } catch {
            throw SetupError("--kiosk \(directory): \(error)")
        }
        self.erasingUnder = erasingUnder.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }

    var count: Int { sealed.withLockedValue { $0 } }
    var alreadySealedCount: Int { alreadySealed.withLockedValue { $0 } }

    /// The pipeline's hook: seals one transaction, erasing its bundle when it is a capture's.
    var sealing: TransactionSealing {
        { [self] transaction in
            let consent = transaction.consent.map {
                SealedConsent(reference: $0.reference, scopes: $0.scopes, grantedAt: $0.grantedAt, expiresAt: $0.expiresAt)
            }
            let capture = KioskCapture(
                files: transaction.files, consent: consent,
                verdict: KioskVerdict(
                    atVerification: transaction.verdict, atCapture: transaction.verdictAtCapture,
                    verifiedAt: transaction.verificationTime, trustSnapshot: transaction.trustSnapshot),
                checks: transaction.checks)
            if try outbox.seal(capture, transactionID: transaction.transactionID, erasingFolder: erasable(transaction.source)) != nil {
                sealed.withLockedValue { $0 += 1 }
            } else {
                alreadySealed.withLockedValue { $0 += 1 }
            }
        }
    }

    /// `source` when it is a folder directly inside ``erasingUnder``, else nil.
    func erasable(_ source: String) -> String? {
        guard let erasingUnder else { return nil }
        let path = URL(fileURLWithPath: source).standardizedFileURL
        guard path.deletingLastPathComponent().path == erasingUnder else { return nil }
        return path.path
    }
}
