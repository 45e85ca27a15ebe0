public import Foundation
public import MdocChecks
public import MdocModel
public import MdocTrust
import MdocCOSE
import MdocCrypto

/// mdoc reader authentication (§9.1.4) and request coverage.
public enum ReaderAuthVerifier {
    /// id-mdl-kp-mdlReaderAuth (18013-5 Annex B.1.7).
    public static let readerAuthEKU = "1.0.18013.5.1.6"

    /// Checks readerAuth of every DocRequest that carries one: the signature over
    /// ReaderAuthenticationBytes, the reader certificate's EKU and chain to `readerTrust`
    /// (`unchecked` without a reader trust folder), and its validity at each instant.
    public static func verify(
        request: DeviceRequest, transcript: SessionTranscript?, readerTrust: TrustStore?,
        instants: [(CheckInstant, Date)]
    ) -> [CheckResult] {
        var results: [CheckResult] = []
        for (index, docRequest) in request.docRequests.enumerated() {
            let subject = "request[\(index)]"
            guard let readerAuth = docRequest.readerAuth else {
                results.append(CheckResult(.readerSignature, .skipped, "no readerAuth in this DocRequest", subject: subject))
                continue
            }
            let certificates: [Certificate]
            do {
                guard let chain = try readerAuth.headers.x5chain() else {
                    results.append(CheckResult(.readerCertificate, .fail, "readerAuth has no x5chain", subject: subject))
                    results.append(CheckResult(.readerSignature, .unchecked, "no reader certificate", subject: subject))
                    continue
                }
                certificates = try chain.certificates.map { try Certificate(der: $0) }
            } catch {
                results.append(CheckResult(.readerCertificate, .fail, "reader x5chain: \(error)", subject: subject))
                results.append(CheckResult(.readerSignature, .unchecked, "no usable reader certificate", subject: subject))
                continue
            }
            guard let readerCertificate = certificates.first else { continue }
            let evidence = [Evidence("reader.sha256", readerCertificate.fingerprintHex), Evidence("subject", readerCertificate.subject.rfc2253)]

            if let transcript {
                let payload = readerAuthenticationBytes(transcript: transcript, itemsRequestBytes: docRequest.itemsRequestBytes)
                do {
                    if try readerAuth.verify(with: readerCertificate.publicKey, detachedPayload: payload[...]) {
                        results.append(CheckResult(.readerSignature, .pass, "readerAuth verifies over ReaderAuthenticationBytes", subject: subject, evidence: evidence))
                    } else {
                        results.append(CheckResult(.readerSignature, .fail, "readerAuth does not verify over ReaderAuthenticationBytes", subject: subject, evidence: evidence))
                    }
                } catch {
                    results.append(CheckResult(.readerSignature, .fail, "readerAuth cannot be verified: \(error)", subject: subject, evidence: evidence))
                }
            } else {
                results.append(CheckResult(.readerSignature, .unchecked, "no SessionTranscript", subject: subject, evidence: evidence))
            }

            let hasEKU = readerCertificate.extendedKeyUsage?.contains(readerAuthEKU) ?? false
            if let readerTrust {
                switch readerTrust.validate(chain: certificates) {
                case .valid(let chain):
                    if hasEKU {
                        results.append(CheckResult(
                            .readerCertificate, .pass, "EKU \(readerAuthEKU); chains to \(chain.last?.subject.rfc2253 ?? "?")",
                            subject: subject, evidence: evidence))
                    } else {
                        results.append(CheckResult(.readerCertificate, .fail, "the reader certificate lacks EKU \(readerAuthEKU)", subject: subject, evidence: evidence))
                    }
                case .invalid(let failure):
                    results.append(CheckResult(
                        .readerCertificate, .fail, "the reader certificate does not chain to the reader trust folder: \(failure.reason)",
                        subject: subject, evidence: evidence))
                }
            } else {
                results.append(CheckResult(
                    .readerCertificate, .unchecked,
                    "no reader trust folder (--reader-trust)\(hasEKU ? "" : "; note: EKU \(readerAuthEKU) is missing")",
                    subject: subject, evidence: evidence))
            }
            for (instant, time) in instants {
                results.append(IssuerProfile.validityCheck(
                    readerCertificate, id: .readerValidity, role: "reader", at: instant, time: time, subject: subject))
            }
        }
        return results
    }

    /// `response.coverage`: which requested elements were returned, which were not, and which
    /// were returned without being requested (a warning).
    public static func coverage(request: DeviceRequest, documents: [DocumentFindings]) -> [CheckResult] {
        var results: [CheckResult] = []
        for document in documents {
            guard let docType = document.docType else { continue }
            let subject = "doc[\(document.index)]"
            let requests = request.docRequests.filter { $0.docType == docType }
            guard !requests.isEmpty else {
                results.append(CheckResult(.responseCoverage, .warn, "\(docType) was returned but not requested", subject: subject))
                continue
            }
            var requested = Set<String>()
            for docRequest in requests {
                for (namespace, elements) in docRequest.requested {
                    for element in elements { requested.insert("\(namespace)/\(element.identifier)") }
                }
            }
            let returned = Set(document.elements.map { "\($0.namespace)/\($0.identifier)" })
            let unrequested = returned.subtracting(requested).sorted()
            let missing = requested.subtracting(returned).sorted()
            let evidence = [Evidence("requested", String(requested.count)), Evidence("returned", String(returned.count)),
                            Evidence("notReturned", missing.joined(separator: ","))]
            if !unrequested.isEmpty {
                results.append(CheckResult(
                    .responseCoverage, .warn, "returned without being requested: \(unrequested.joined(separator: ", "))",
                    subject: subject, evidence: evidence))
            } else {
                let detail = missing.isEmpty
                    ? "all \(requested.count) requested elements returned"
                    : "\(returned.count) of \(requested.count) requested elements returned; not returned: \(missing.joined(separator: ", "))"
                results.append(CheckResult(.responseCoverage, .pass, detail, subject: subject, evidence: evidence))
            }
        }
        return results
    }
}
