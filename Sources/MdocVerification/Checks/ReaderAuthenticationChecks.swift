package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocModel

/// mdoc reader authentication (§9.1.4): for every DocRequest that carries readerAuth,
/// `reader.signature` (the detached signature over ReaderAuthenticationBytes with the reader
/// certificate's key), `reader.certificate` (EKU id-mdl-kp-mdlReaderAuth and a chain to the
/// reader trust folder; `unchecked` without one) and `reader.validity` at each instant.
struct ReaderAuthenticationCheck: Check {
    /// id-mdl-kp-mdlReaderAuth (18013-5 Annex B.1.7).
    static let readerAuthEKU = "1.0.18013.5.1.6"

    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.readerSignature, .readerCertificate, .readerValidity]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.deviceRequest)]

    func run(_ context: inout CheckContext) {
        guard let request = context.transaction.deviceRequest else { return }
        let transcript = context.transaction.sessionTranscript
        let readerTrust = context.settings.readerTrust
        let instants = context.instants
        for (index, docRequest) in request.docRequests.enumerated() {
            let subject = "request[\(index)]"
            guard let readerAuth = docRequest.readerAuth else {
                context.report(CheckResult(.readerSignature, .skipped, "no readerAuth in this DocRequest", subject: subject))
                continue
            }
            let certificates: [Certificate]
            do {
                guard let chain = try readerAuth.headers.x5chain() else {
                    context.report(CheckResult(.readerCertificate, .fail, "readerAuth has no x5chain", subject: subject))
                    context.report(CheckResult(.readerSignature, .unchecked, "no reader certificate", subject: subject))
                    continue
                }
                certificates = try chain.certificates.map { try Certificate(der: $0) }
            } catch {
                context.report(CheckResult(.readerCertificate, .fail, "reader x5chain: \(error)", subject: subject))
                context.report(CheckResult(.readerSignature, .unchecked, "no usable reader certificate", subject: subject))
                continue
            }
            guard let readerCertificate = certificates.first else { continue }
            let evidence = [
                Evidence("reader.sha256", readerCertificate.fingerprintHex), Evidence("subject", readerCertificate.subject.rfc2253),
            ]

            if let transcript {
                let payload = readerAuthenticationBytes(transcript: transcript, itemsRequestBytes: docRequest.itemsRequestBytes)
                do {
                    if try readerAuth.verify(with: readerCertificate.publicKey, detachedPayload: payload[...]) {
                        context.report(CheckResult(
                            .readerSignature, .pass, "readerAuth verifies over ReaderAuthenticationBytes", subject: subject,
                            evidence: evidence))
                    } else {
                        context.report(CheckResult(
                            .readerSignature, .fail, "readerAuth does not verify over ReaderAuthenticationBytes", subject: subject,
                            evidence: evidence))
                    }
                } catch {
                    context.report(CheckResult(
                        .readerSignature, .fail, "readerAuth cannot be verified: \(error)", subject: subject, evidence: evidence))
                }
            } else {
                context.report(CheckResult(.readerSignature, .unchecked, "no SessionTranscript", subject: subject, evidence: evidence))
            }

            let eku = Self.readerAuthEKU
            let hasEKU = readerCertificate.extendedKeyUsage?.contains(eku) ?? false
            if let readerTrust {
                switch readerTrust.validate(chain: certificates) {
                case .valid(let chain):
                    if hasEKU {
                        context.report(CheckResult(
                            .readerCertificate, .pass, "EKU \(eku); chains to \(chain.last?.subject.rfc2253 ?? "?")",
                            subject: subject, evidence: evidence))
                    } else {
                        context.report(CheckResult(
                            .readerCertificate, .fail, "the reader certificate lacks EKU \(eku)", subject: subject, evidence: evidence))
                    }
                case .invalid(let failure):
                    context.report(CheckResult(
                        .readerCertificate, .fail, "the reader certificate does not chain to the reader trust folder: \(failure.reason)",
                        subject: subject, evidence: evidence))
                }
            } else {
                context.report(CheckResult(
                    .readerCertificate, .unchecked,
                    "no reader trust folder (--reader-trust)\(hasEKU ? "" : "; note: EKU \(eku) is missing")",
                    subject: subject, evidence: evidence))
            }
            for instant in instants {
                context.report(AnnexBProfile.validityCheck(
                    readerCertificate, id: .readerValidity, role: .reader, at: instant.instant, time: instant.time, subject: subject))
            }
        }
    }
}

/// `response.coverage` (§8.3.2.1.2.2): which requested elements were returned, which were not,
/// and which were returned without being requested (a warning).
struct CoverageCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.responseCoverage]
    var scope: CheckScope { .transaction }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.deviceRequest)]

    func run(_ context: inout CheckContext) {
        guard let request = context.transaction.deviceRequest else { return }
        for document in context.transaction.documents {
            guard let docType = document.docType else { continue }
            let subject = "doc[\(document.index)]"
            let requests = request.docRequests.filter { $0.docType == docType }
            guard !requests.isEmpty else {
                context.report(CheckResult(.responseCoverage, .warn, "\(docType) was returned but not requested", subject: subject))
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
            let evidence = [
                Evidence("requested", String(requested.count)), Evidence("returned", String(returned.count)),
                Evidence("notReturned", missing.joined(separator: ",")),
            ]
            if !unrequested.isEmpty {
                context.report(CheckResult(
                    .responseCoverage, .warn, "returned without being requested: \(unrequested.joined(separator: ", "))",
                    subject: subject, evidence: evidence))
            } else {
                let detail = missing.isEmpty
                    ? "all \(requested.count) requested elements returned"
                    : "\(returned.count) of \(requested.count) requested elements returned; not returned: \(missing.joined(separator: ", "))"
                context.report(CheckResult(.responseCoverage, .pass, detail, subject: subject, evidence: evidence))
            }
        }
    }
}
