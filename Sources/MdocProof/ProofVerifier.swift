import Foundation
package import MdocCBOR
public import MdocCrypto
import MdocCOSE

/// Checks proofs and run manifests.
public enum ProofVerifier {
    /// What a signed file turned out to be.
    public struct Opened: Sendable {
        public let contentType: String?
        package let payload: CBOR
        public let signer: Certificate
        public let signatureValid: Bool
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Decodes a COSE_Sign1 proof or manifest and verifies its signature with the certificate in
    /// its x5chain; with `expectedSigner`, the certificate must be that one.
    public static func open(_ bytes: [UInt8], expectedSigner: Certificate? = nil) throws -> Opened {
        let sign1: COSESign1
        do {
            sign1 = try COSESign1(decoding: bytes)
        } catch {
            throw Failure(description: "not a COSE_Sign1: \(error)")
        }
        guard let chain = try? sign1.headers.x5chain(), let der = chain.certificates.first,
            let signer = try? Certificate(der: der)
        else { throw Failure(description: "no signer certificate in x5chain") }
        if let expectedSigner, expectedSigner != signer {
            throw Failure(description: "signed by \(signer.subject.rfc2253) (\(signer.fingerprintHex.prefix(16))…), not by the expected certificate")
        }
        let valid = (try? sign1.verify(with: signer.publicKey)) ?? false
        guard let payloadBytes = sign1.payload, let payload = try? CBOR(decoding: payloadBytes) else {
            throw Failure(description: "the payload is not CBOR")
        }
        let contentType = sign1.headers.protected?[key: 3]?.text
        return Opened(contentType: contentType, payload: payload, signer: signer, signatureValid: valid)
    }

    /// The outcome of verifying a run manifest and the proofs it lists.
    public struct ManifestReport: Sendable {
        public var runID: String
        public var signatureValid: Bool
        public var listed: Int
        public var merkleRootValid: Bool
        public var missing: [String] = []
        public var altered: [String] = []
        public var badSignatures: [String] = []
        public var ok: Bool { signatureValid && merkleRootValid && missing.isEmpty && altered.isEmpty && badSignatures.isEmpty }
    }

    /// Verifies a manifest and every proof it lists, read from `proofsRoot/<run>/<ref>.cose`
    /// (`proofsRoot` is `<out>/proofs`). Outputs of versions that kept every run's proofs in
    /// one folder (`proofsRoot/<ref>.cose`) are read from there when the run has no folder.
    public static func verifyManifest(_ bytes: [UInt8], proofsRoot: String, expectedSigner: Certificate? = nil) throws -> ManifestReport {
        let opened = try open(bytes, expectedSigner: expectedSigner)
        guard opened.contentType == ProofFormat.manifestContentType, let map = opened.payload.map,
            let runID = map["runId"]?.text, let entries = map["proofs"]?.array, let root = map["merkleRoot"]?.bytes,
            let count = map["proofCount"]?.uint
        else { throw Failure(description: "not an mdocverify run manifest") }
        var listed: [(String, [UInt8])] = []
        for entry in entries {
            guard let pair = entry.array, pair.count == 2, let code = pair[0].text, let hash = pair[1].bytes else {
                throw Failure(description: "malformed proof entry in the manifest")
            }
            listed.append((code, Array(hash)))
        }
        guard isSafeFolderName(runID) else { throw Failure(description: "the manifest's run id is not a folder name: \(runID)") }
        var isFolder: ObjCBool = false
        let runFolder = (proofsRoot as NSString).appendingPathComponent(runID)
        let proofsDirectory = FileManager.default.fileExists(atPath: runFolder, isDirectory: &isFolder) && isFolder.boolValue
            ? runFolder : proofsRoot
        let recomputed = MerkleTree.root(leaves: listed.map(\.1))
        var report = ManifestReport(
            runID: runID, signatureValid: opened.signatureValid, listed: listed.count,
            merkleRootValid: recomputed.elementsEqual(root) && UInt64(listed.count) == count)
        for (code, hash) in listed {
            guard ReferenceCode.isWellFormed(code) else {
                report.altered.append(code)
                continue
            }
            let path = (proofsDirectory as NSString).appendingPathComponent("\(code).cose")
            guard let data = FileManager.default.contents(atPath: path) else {
                report.missing.append(code)
                continue
            }
            let proofBytes = Array(data)
            if !HashFunction.sha256.hash(proofBytes).elementsEqual(hash) {
                report.altered.append(code)
                continue
            }
            if let proof = try? open(proofBytes, expectedSigner: expectedSigner ?? opened.signer), proof.signatureValid {
                continue
            }
            report.badSignatures.append(code)
        }
        return report
    }

    /// A run id usable as one path component: letters, digits, `-`, `_`, `.`, not `.` or `..`.
    static func isSafeFolderName(_ name: String) -> Bool {
        guard !name.isEmpty, name.utf8.count <= 200, name != ".", name != ".." else { return false }
        return name.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                || byte == 0x2d || byte == 0x5f || byte == 0x2e
        }
    }
}
