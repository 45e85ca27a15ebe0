package import MdocCrypto
package import Foundation
package import MdocCBOR
import MdocCOSE
import MdocFiles

/// One signed proof: a tagged COSE_Sign1 exactly as signed (or as read from a run file), its
/// reference code and the SHA-256 of its bytes (the leaf the run manifest commits to).
package struct SignedProof: Sendable, Hashable {
    package let referenceCode: String
    package let bytes: [UInt8]
    package let sha256: [UInt8]

    /// A proof whose reference code the caller knows (signed here, or listed by a manifest).
    package init(referenceCode: String, bytes: [UInt8]) {
        self.referenceCode = referenceCode
        self.bytes = bytes
        self.sha256 = HashFunction.sha256.hash(bytes)
    }
}

/// Signs proofs and run manifests as tagged COSE_Sign1 (RFC 9052 §4.2) with the processor key,
/// its certificate in x5chain (label 33, RFC 9360 §2, unprotected), alg and content type in the
/// protected header, so that any COSE library can check them.
package struct ProofSigner: Sendable {
    package let identity: ProcessorIdentity
    /// A proof's headers, the same in every proof this signer signs: encoded once, or the
    /// error of a key without a COSE algorithm, which every signature then throws.
    private let proofHeaders: Result<COSESign1.SigningHeaders, any Error>

    package init(identity: ProcessorIdentity) {
        self.identity = identity
        proofHeaders = Result { try Self.headers(identity: identity, contentType: ProofFormat.contentType) }
    }

    /// A transaction's proof: deterministic CBOR of its evidence, signed.
    package func sign(evidence: ProofEvidence) throws -> SignedProof {
        let bytes = try COSESign1.sign(
            payload: evidence.cbor(), key: identity.key, headers: proofHeaders.get(), detached: false, tagged: true)
        return SignedProof(referenceCode: evidence.referenceCode, bytes: bytes)
    }

    /// A run's manifest, signed.
    package func sign(manifest: RunManifest) throws -> [UInt8] {
        try sign(payload: manifest.payload(), contentType: ProofFormat.manifestContentType)
    }

    func sign(payload: [UInt8], contentType: String) throws -> [UInt8] {
        try COSESign1.sign(
            payload: payload, key: identity.key, headers: Self.headers(identity: identity, contentType: contentType),
            detached: false, tagged: true)
    }

    /// Content type (3) protected, the processor certificate in x5chain (33) unprotected.
    private static func headers(identity: ProcessorIdentity, contentType: String) throws -> COSESign1.SigningHeaders {
        try COSESign1.SigningHeaders(
            key: identity.key, protected: [.init(.int(3), .text(contentType))],
            unprotected: [.init(.int(33), .bytes(identity.certificate.der))])
    }
}

extension SignedProof {
    package struct WriteFailure: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// Writes the proof alone, as a standalone `.cose` file, at `path`, which must not exist:
    /// complete and flushed under a temporary name beside it, then linked into place, so the
    /// file is never seen half written and never replaces another.
    package func write(toNewFile path: String) throws(WriteFailure) {
        let folder = FilePaths.parent(of: path)
        let temporary = (folder.isEmpty ? "." : folder) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        unlink(temporary)
        do {
            try FileIO.writeNewFile(bytes, to: temporary, mode: 0o644, sync: true)
        } catch {
            throw WriteFailure(description: error.description)
        }
        defer { unlink(temporary) }
        guard link(temporary, path) == 0 else {
            throw WriteFailure(description: errno == EEXIST ? "\(path) exists: give another file name" : "cannot write \(path): \(FileIO.lastError)")
        }
        FileIO.syncDirectory(folder.isEmpty ? "." : folder)
    }
}
