package import Foundation
package import MdocCBOR
package import MdocCrypto
import MdocCOSE

/// Opens proofs and run manifests: a tagged or untagged COSE_Sign1 (RFC 9052 §4.2) whose
/// signature is verified over the bytes as received with the key of the certificate it carries
/// (x5chain, RFC 9360 §2), and whose signer is then judged by a ``SignerPolicy``.
package enum ProofVerifier {
    /// What a signed file turned out to be.
    package struct Opened: Sendable {
        package let contentType: String?
        package let payload: CBOR
        /// The first x5chain certificate: the one the signature was checked with. Who it names
        /// is not known unless ``signer`` is ``SignerStatus/trusted(subject:sha256:)``.
        package let embeddedCertificate: Certificate
        /// The rest of x5chain, as untrusted candidates for a chain.
        package let intermediates: [Certificate]
        package let signatureValid: Bool
        package let signer: SignerStatus

        package var isProof: Bool { contentType == ProofFormat.contentType }
        package var isManifest: Bool { contentType == ProofFormat.manifestContentType }
        /// A proof's reference code, as its payload states it.
        package var referenceCode: String? { payload.map?["referenceCode"]?.text }
        /// A proof's transaction id (the SHA-256 of the bundle), named `transactionID` as in JSON
        /// Lines and the report; proofs signed before the names were one say `transactionId`.
        package var transactionID: String? {
            payload.map?[ProofEvidence.transactionIDKey]?.text ?? payload.map?["transactionId"]?.text
        }
        /// The run of a proof or a run manifest (`runId` in those signed before the names were one).
        package var runID: String? { (payload.map?["runID"] ?? payload.map?["runId"])?.text }
    }

    package struct Failure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Opens the COSE_Sign1 in `bytes`.
    package static func open(_ bytes: [UInt8], policy: SignerPolicy = .notChecked) throws(Failure) -> Opened {
        let item: CBOR
        do {
            item = try CBOR(decoding: bytes)
        } catch {
            throw Failure(description: "not a COSE_Sign1: \(error)")
        }
        return try open(item: item, policy: policy)
    }

    /// Opens a COSE_Sign1 already decoded (a run file's record).
    package static func open(item: CBOR, policy: SignerPolicy = .notChecked) throws(Failure) -> Opened {
        let sign1: COSESign1
        do {
            sign1 = try COSESign1(item)
        } catch {
            throw Failure(description: "not a COSE_Sign1: \(error)")
        }
        guard let chain = try? sign1.headers.x5chain(), let first = chain.certificates.first,
            let certificate = try? Certificate(der: first)
        else { throw Failure(description: "no readable signer certificate in x5chain") }
        let valid = (try? sign1.verify(with: certificate.publicKey)) ?? false
        guard let payloadBytes = sign1.payload, let payload = try? CBOR(decoding: payloadBytes) else {
            throw Failure(description: "the payload is not CBOR")
        }
        let intermediates = chain.certificates.dropFirst().compactMap { try? Certificate(der: $0) }
        return Opened(
            contentType: sign1.headers.protected?[key: 3]?.text, payload: payload, embeddedCertificate: certificate,
            intermediates: intermediates, signatureValid: valid, signer: policy.status(of: certificate, intermediates: intermediates))
    }
}
