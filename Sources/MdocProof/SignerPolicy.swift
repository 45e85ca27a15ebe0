package import Foundation
package import MdocCrypto
import NIOConcurrencyHelpers

/// Whose signature a check accepts. A COSE_Sign1 carries its signer's certificate (x5chain);
/// a valid signature proves only that the bytes match that certificate's key, so the
/// certificate itself must be one the auditor trusts before anyone is named as the signer.
package enum SignerPolicy: Sendable {
    /// Signatures are checked, their signer is not.
    case notChecked
    /// The signer must be exactly this certificate.
    case certificate(Certificate)
    /// The signer must be one of these certificates, or chain to one (RFC 5280 path validation).
    case trusted(ProcessorTrust)

    /// The signer status of `signer`, with `intermediates` (the rest of x5chain) as untrusted
    /// candidates for a chain.
    package func status(of signer: Certificate, intermediates: [Certificate] = []) -> SignerStatus {
        switch self {
        case .notChecked:
            return .notChecked
        case .certificate(let expected):
            return expected == signer ? .trusted(subject: signer.subject.rfc2253, sha256: signer.fingerprintHex)
                : .untrusted(reason: "its certificate is not the trusted one")
        case .trusted(let trust):
            return trust.status(of: signer, intermediates: intermediates)
        }
    }
}

/// Who signed, as far as it was checked.
package enum SignerStatus: Sendable, Hashable {
    /// Nobody checked the certificate the signature was made with.
    case notChecked
    /// The signer's certificate is trusted: its subject and SHA-256 fingerprint.
    case trusted(subject: String, sha256: String)
    /// The signer's certificate is not trusted, and why.
    case untrusted(reason: String)
}

/// A folder of trusted processor certificates (PEM or DER, several per file allowed).
///
/// A signer is trusted when its certificate is one of them or chains to one through the other
/// x5chain certificates. Validity dates are not checked: a proof stays verifiable after its
/// processor certificate expires, and the time a proof states it was signed is the signer's own claim.
package final class ProcessorTrust: Sendable {
    package let directory: String
    package let certificates: [Certificate]
    private let known = NIOLockedValueBox<[Certificate: SignerStatus]>([:])

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    package init(directory: String) throws(Failure) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw Failure(description: "\(directory) is not a readable folder of processor certificates")
        }
        var certificates: [Certificate] = []
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            guard let data = FileManager.default.contents(atPath: path), let parsed = try? Certificate.parseAll(pemOrDER: Array(data)),
                !parsed.isEmpty
            else { throw Failure(description: "\(path) is not a certificate (PEM or DER)") }
            certificates += parsed
        }
        guard !certificates.isEmpty else { throw Failure(description: "\(directory) holds no certificate") }
        self.directory = directory
        self.certificates = certificates
    }

    /// Whether `signer` is one of the folder's certificates or chains to one; remembered per certificate.
    func status(of signer: Certificate, intermediates: [Certificate]) -> SignerStatus {
        if let status = known.withLockedValue({ $0[signer] }) { return status }
        let status: SignerStatus
        switch PathValidator.validate(leaf: signer, intermediates: intermediates, roots: certificates, at: nil) {
        case .success:
            status = .trusted(subject: signer.subject.rfc2253, sha256: signer.fingerprintHex)
        case .failure(let failure):
            status = .untrusted(reason: "its certificate does not chain to a trusted processor certificate (\(failure.reason))")
        }
        known.withLockedValue { $0[signer] = status }
        return status
    }
}
