public import MdocCBOR
public import MdocChecks
import Foundation
import MdocCOSE
import MdocCrypto
import MdocModel
import MdocTrust

/// Verifies DeviceResponses (ISO 18013-5 §9.3.1 "Inspection procedure for issuer data
/// authentication" and §9.1.3 "mdoc authentication") and returns every check result.
///
/// Checks are results, never exceptions: a failure of one check does not stop the others, and a
/// check whose prerequisites are missing is reported `unchecked` with the reason. Every document
/// of the response is verified, not only the first. Nothing here reads the clock.
public struct DeviceResponseVerifier: Sendable {
    public let options: VerificationOptions

    public init(options: VerificationOptions) {
        self.options = options
    }

    /// Verifies a DeviceResponse from its bytes as received.
    public func verify(_ bytes: [UInt8]) -> ResponseVerification {
        let sha256 = HashFunction.sha256.hash(bytes)
        var results: [CheckResult] = []
        results.reserveCapacity(Self.expectedResultCount)
        let item: CBOR
        do {
            item = try CBOR(decoding: bytes, options: options.decoding)
        } catch {
            results.append(Self.cborFailure(error, what: "DeviceResponse"))
            return ResponseVerification(checks: results, documents: [], responseSHA256: sha256)
        }
        results.append(Self.wellFormed(bytes.count))
        let documents = verify(item: item, into: &results)
        return ResponseVerification(checks: results, documents: documents, responseSHA256: sha256)
    }

    /// The `cbor.wellformed` pass of a response of `count` bytes.
    static func wellFormed(_ count: Int) -> CheckResult {
        CheckResult(.cborWellformed, .pass, "\(count) bytes of well-formed CBOR")
    }

    /// Room reserved for the results of a one-document response (about 50), so that the list
    /// is not copied as it grows.
    static let expectedResultCount = 64

    /// Verifies an already-decoded DeviceResponse (its slices must be the received bytes).
    public func verify(item: CBOR, into results: inout [CheckResult]) -> [DocumentFindings] {
        let response: DeviceResponse
        do {
            response = try DeviceResponse(item)
        } catch {
            results.append(CheckResult(.responseStructure, .fail, "\(error)"))
            return []
        }
        responseChecks(
            version: response.version, status: response.status, documentCount: response.documents.count,
            documentErrors: response.documentErrors, into: &results)

        var findings: [DocumentFindings] = []
        findings.reserveCapacity(response.documents.count)
        for (index, document) in response.documents.enumerated() {
            findings.append(verifyDocument(document, index: index, into: &results))
        }
        return findings
    }

    /// The response-level checks of a DeviceResponse that has the CDDL types.
    func responseChecks(
        version: String, status: UInt64, documentCount: Int, documentErrors: [(docType: String, code: Int64)],
        into results: inout [CheckResult]
    ) {
        results.append(CheckResult(.responseStructure, .pass, "version, status and documents have the CDDL types"))

        if version == "1.0" {
            results.append(CheckResult(.responseVersion, .pass, "version 1.0"))
        } else if version.hasPrefix("1.") {
            results.append(CheckResult(.responseVersion, .warn, "version \(version): a later 1.x; checked as 1.0"))
        } else {
            results.append(CheckResult(.responseVersion, .fail, "version \"\(version)\" is not supported (1.x expected)"))
        }

        if status == 0 {
            results.append(CheckResult(.responseStatus, .pass, "status 0 (OK)"))
        } else {
            let meaning = DeviceResponse.statusMeaning(status)
            results.append(CheckResult(
                .responseStatus, .fail, "status \(status) (\(meaning)): the mdoc reported an error",
                evidence: [Evidence("status", String(status))]))
        }

        if documentCount == 0 {
            results.append(CheckResult(.responseDocuments, .fail, "the response carries no document"))
        } else {
            results.append(CheckResult(.responseDocuments, .pass, "\(documentCount) document(s)"))
        }

        if documentErrors.isEmpty {
            results.append(CheckResult(.responseDocumentErrors, .pass, "no document errors"))
        } else {
            let list = documentErrors.map { "\($0.docType): \($0.code)" }.joined(separator: ", ")
            results.append(CheckResult(.responseDocumentErrors, .warn, "documents not returned: \(list)"))
        }
    }

    /// Maps a CBOR decoding error to its `cbor.*` check.
    public static func cborFailure(_ error: CBORError, what: String, subject: String = "") -> CheckResult {
        let id: CheckID
        switch error.code {
        case .depthLimitExceeded, .itemCountLimitExceeded, .lengthLimitExceeded: id = .cborLimits
        case .duplicateMapKey: id = .cborDuplicateKeys
        default: id = .cborWellformed
        }
        return CheckResult(
            id, .fail, "\(what): \(error.reason) (\(error.code))", subject: subject,
            evidence: [Evidence("code", error.code.description)])
    }

    // MARK: - One document

    /// "doc[0]" ... "doc[7]", not interpolated for every document.
    static let documentSubjects = (0..<8).map { "doc[\($0)]" }
    /// "documents[0]" ... "documents[7]", the paths of decoding errors, likewise.
    static let documentPaths = (0..<8).map { "documents[\($0)]" }

    /// "doc[index]".
    static func documentSubject(_ index: Int) -> String {
        index >= 0 && index < documentSubjects.count ? documentSubjects[index] : "doc[\(index)]"
    }

    func verifyDocument(_ item: CBOR, index: Int, into results: inout [CheckResult]) -> DocumentFindings {
        let subject = Self.documentSubject(index)
        let document: Document
        do {
            document = try Document(item, path: index < Self.documentPaths.count ? Self.documentPaths[index] : "documents[\(index)]")
        } catch let error as ModelError {
            let id: CheckID = error.path.contains("issuerSigned") ? .issuerStructure : .responseStructure
            results.append(CheckResult(id, .fail, "\(error)", subject: subject))
            return DocumentFindings(index: index)
        } catch {
            results.append(CheckResult(.responseStructure, .fail, "\(error)", subject: subject))
            return DocumentFindings(index: index)
        }
        return verifyDocument(document, index: index, subject: subject, into: &results)
    }

    func verifyDocument(_ document: Document, index: Int, subject: String, into results: inout [CheckResult]) -> DocumentFindings {
        var findings = DocumentFindings(index: index)
        findings.docType = document.docType

        // issuerAuth: COSE_Sign1 over MobileSecurityObjectBytes (§9.1.2.4).
        let issuerAuth: COSESign1
        do {
            issuerAuth = try COSESign1(document.issuerSigned.issuerAuthItem)
        } catch {
            results.append(CheckResult(.issuerStructure, .fail, "issuerAuth: \(error)", subject: subject))
            return findings
        }
        results.append(CheckResult(.issuerStructure, .pass, "issuerAuth is a COSE_Sign1", subject: subject))

        let chain = verifyIssuerCertificates(issuerAuth, subject: subject, findings: &findings, into: &results)
        verifyIssuerSignature(issuerAuth, ds: chain.first, subject: subject, into: &results)
        let (mso, deviceKey) = verifyMSO(issuerAuth, document: document, ds: chain.first, subject: subject, findings: &findings, into: &results)
        verifyDigests(document: document, mso: mso, subject: subject, findings: &findings, into: &results)
        verifyDeviceSigned(document: document, mso: mso, deviceKey: deviceKey, subject: subject, findings: &findings, into: &results)
        return findings
    }

    // MARK: Issuer certificates (§9.3.3, Annex B)

    /// Checks x5chain, the chain to an IACA, the Annex B profiles, validity at each instant and
    /// revocation. Returns the received chain (DS first) when the DS certificate parsed.
    func verifyIssuerCertificates(
        _ issuerAuth: COSESign1, subject: String, findings: inout DocumentFindings, into results: inout [CheckResult]
    ) -> [Certificate] {
        let trust = options.trust
        let x5chain: (certificates: [ArraySlice<UInt8>], bucket: COSEHeaders.Bucket)?
        do {
            x5chain = try issuerAuth.headers.x5chain()
        } catch {
            results.append(CheckResult(.issuerX5chain, .fail, "\(error)", subject: subject))
            uncheckedIssuerChecks(reason: "no usable x5chain", subject: subject, into: &results)
            return []
        }
        guard let x5chain else {
            results.append(CheckResult(
                .issuerX5chain, .fail, "issuerAuth has no x5chain (label 33): the DS certificate is missing", subject: subject))
            uncheckedIssuerChecks(reason: "no x5chain", subject: subject, into: &results)
            return []
        }
        var certificates: [Certificate] = []
        for (position, der) in x5chain.certificates.enumerated() {
            do {
                certificates.append(try trust.certificate(der: der))
            } catch {
                results.append(CheckResult(
                    .issuerX5chain, .fail, "x5chain certificate \(position) does not parse: \(error)", subject: subject))
                uncheckedIssuerChecks(reason: "x5chain does not parse", subject: subject, into: &results)
                return []
            }
        }
        guard let ds = certificates.first else { return [] }
        findings.dsCertificate = ds

        // Everything below depends only on the certificates (and the header they came in), the
        // trust store, the subject and each instant: computed once per chain for a batch
        // (TrustStore.issuerChecks).
        let bucket = x5chain.bucket.rawValue
        let fixed = trust.issuerChecks(chain: certificates, subject: subject, context: bucket) {
            var computed = Self.timeIndependentIssuerChecks(certificates, trust: trust, subject: subject)
            computed.results.insert(CheckResult(
                .issuerX5chain, .pass, "\(certificates.count) certificate(s) in the \(bucket) header",
                subject: subject, evidence: [Evidence("ds.sha256", ds.fingerprintHex), Evidence("ds.subject", ds.subject.rfc2253)]),
                at: 0)
            return computed
        }
        let validated = fixed.validated
        findings.chain = validated
        results.append(contentsOf: fixed.results)
        for instant in options.instants {
            let atInstant = trust.issuerChecks(chain: certificates, subject: subject, instant: instant.instant, time: instant.time) {
                Self.issuerChecks(certificates, validated: validated, trust: trust, at: instant, subject: subject)
            }
            results.append(contentsOf: atInstant.results)
        }
        return certificates
    }

    /// `issuer.chain`, the Annex B profiles and `issuer.criticalExtensions` of a received chain
    /// (DS first), with the chain as validated (empty when it does not validate).
    static func timeIndependentIssuerChecks(
        _ certificates: [Certificate], trust: TrustStore, subject: String
    ) -> TrustStore.IssuerChecks {
        var results: [CheckResult] = []
        results.reserveCapacity(10)
        guard let ds = certificates.first else { return TrustStore.IssuerChecks(results: [], validated: []) }
        var validated: [Certificate] = []
        switch trust.validate(chain: certificates) {
        case .valid(let chain):
            validated = chain
            let anchor = chain.last ?? ds
            results.append(CheckResult(
                .issuerChain, .pass, "chains to trusted IACA \(anchor.subject.rfc2253)", subject: subject,
                evidence: [Evidence("iaca.sha256", anchor.fingerprintHex), Evidence("length", String(chain.count))]))
        case .invalid(let failure):
            results.append(CheckResult(
                .issuerChain, .fail,
                "the DS certificate does not chain to a trusted IACA: \(failure.reason) (at depth \(failure.depth))",
                subject: subject,
                evidence: [Evidence("ds.sha256", ds.fingerprintHex), Evidence("ds.issuer", ds.issuer.rfc2253),
                           Evidence("openssl", String(failure.code))]))
        }

        let iaca = validated.count > 1 ? validated.last : nil
        results.append(contentsOf: IssuerProfile.documentSignerChecks(ds, iaca: iaca, subject: subject))
        if let iaca {
            results.append(contentsOf: IssuerProfile.iacaChecks(iaca, subject: subject))
        } else {
            results.append(CheckResult(.issuerIacaBasicConstraints, .unchecked, "no IACA: the chain did not validate", subject: subject))
            results.append(CheckResult(.issuerIacaKeyUsage, .unchecked, "no IACA: the chain did not validate", subject: subject))
        }
        results.append(IssuerProfile.criticalExtensionChecks(validated.isEmpty ? certificates : validated, subject: subject))
        return TrustStore.IssuerChecks(results: results, validated: validated)
    }

    /// `issuer.ds.validity`, `issuer.iaca.validity` and `issuer.revocation` at one instant.
    static func issuerChecks(
        _ certificates: [Certificate], validated: [Certificate], trust: TrustStore, at instant: CheckInstantValue, subject: String
    ) -> TrustStore.IssuerChecks {
        guard let ds = certificates.first else { return TrustStore.IssuerChecks(results: [], validated: validated) }
        let iaca = validated.count > 1 ? validated.last : nil
        var results: [CheckResult] = []
        results.reserveCapacity(3)
        results.append(IssuerProfile.validityCheck(
            ds, id: .issuerDsValidity, role: "DS", at: instant.instant, time: instant.time, subject: subject))
        if let iaca {
            results.append(IssuerProfile.validityCheck(
                iaca, id: .issuerIacaValidity, role: "IACA", at: instant.instant, time: instant.time, subject: subject))
            results.append(IssuerProfile.revocationCheck(
                chain: validated, trust: trust, at: instant.instant, time: instant.time, subject: subject))
        } else {
            results.append(CheckResult(
                .issuerIacaValidity, .unchecked, "no IACA: the chain did not validate", subject: subject, instant: instant.instant))
            results.append(CheckResult(
                .issuerRevocation, .unchecked, "no validated chain", subject: subject, instant: instant.instant))
        }
        return TrustStore.IssuerChecks(results: results, validated: validated)
    }

    func uncheckedIssuerChecks(reason: String, subject: String, into results: inout [CheckResult]) {
        for id in [CheckID.issuerChain, .issuerDsKeyUsage, .issuerDsExtendedKeyUsage, .issuerDsBasicConstraints,
                   .issuerDsCountry, .issuerDsValidityPeriod, .issuerIacaBasicConstraints, .issuerIacaKeyUsage,
                   .issuerCriticalExtensions] {
            results.append(CheckResult(id, .unchecked, reason, subject: subject))
        }
        for instant in options.instants {
            for id in [CheckID.issuerDsValidity, .issuerIacaValidity, .issuerRevocation] {
                results.append(CheckResult(id, .unchecked, reason, subject: subject, instant: instant.instant))
            }
        }
    }

    // MARK: Issuer signature (§9.1.2.4, RFC 9052 §4.4)

    func verifyIssuerSignature(_ issuerAuth: COSESign1, ds: Certificate?, subject: String, into results: inout [CheckResult]) {
        guard let algorithm = issuerAuth.headers.algorithm else {
            results.append(CheckResult(.issuerAlgorithm, .fail, "the protected header has no alg (label 1)", subject: subject))
            results.append(CheckResult(.issuerSignature, .unchecked, "no algorithm", subject: subject))
            return
        }
        let algEvidence = Evidence("alg", algorithm.description)
        guard algorithm.isSupportedSignature else {
            results.append(CheckResult(
                .issuerAlgorithm, .fail, "algorithm \(algorithm) is not allowed for issuerAuth", subject: subject, evidence: [algEvidence]))
            results.append(CheckResult(.issuerSignature, .unchecked, "unsupported algorithm", subject: subject))
            return
        }
        guard let ds else {
            results.append(CheckResult(.issuerAlgorithm, .unchecked, "no DS certificate to match the algorithm with", subject: subject))
            results.append(CheckResult(.issuerSignature, .unchecked, "no DS certificate", subject: subject))
            return
        }
        let key = ds.publicKey
        guard algorithm.allows(key.curve) else {
            results.append(CheckResult(
                .issuerAlgorithm, .fail, "\(algorithm) does not fit the DS key's curve \(key.curve)", subject: subject,
                evidence: [algEvidence, Evidence("curve", key.curve.description)]))
            results.append(CheckResult(.issuerSignature, .unchecked, "algorithm and key do not match", subject: subject))
            return
        }
        let curve = key.curve.description
        results.append(CheckResult(
            .issuerAlgorithm, .pass, "\(algEvidence.value) with \(curve)", subject: subject,
            evidence: [algEvidence, Evidence("curve", curve)]))
        do {
            if try issuerAuth.verify(with: key) {
                results.append(CheckResult(
                    .issuerSignature, .pass, "signature verifies with the DS key", subject: subject,
                    evidence: [algEvidence]))
            } else {
                results.append(CheckResult(
                    .issuerSignature, .fail, "the issuerAuth signature does not verify with the DS key", subject: subject,
                    evidence: [algEvidence, Evidence("ds.sha256", ds.fingerprintHex)]))
            }
        } catch {
            results.append(CheckResult(.issuerSignature, .fail, "the signature cannot be verified: \(error)", subject: subject, evidence: [algEvidence]))
        }
    }

    // MARK: MSO (§9.1.2.4)

    func verifyMSO(
        _ issuerAuth: COSESign1, document: Document, ds: Certificate?, subject: String,
        findings: inout DocumentFindings, into results: inout [CheckResult]
    ) -> (MobileSecurityObject?, PublicKey?) {
        guard let payload = issuerAuth.payload else {
            results.append(CheckResult(.msoStructure, .fail, "issuerAuth has a detached payload: the MSO is missing", subject: subject))
            return (nil, nil)
        }
        let mso: MobileSecurityObject
        do {
            mso = try MobileSecurityObject(payload: payload)
        } catch {
            results.append(CheckResult(.msoStructure, .fail, "\(error)", subject: subject))
            return (nil, nil)
        }
        results.append(CheckResult(.msoStructure, .pass, "MobileSecurityObjectBytes holds a well-formed MSO", subject: subject))
        findings.digestAlgorithm = mso.digestAlgorithm
        findings.msoSigned = mso.signed
        findings.msoValidFrom = mso.validFrom
        findings.msoValidUntil = mso.validUntil
        findings.msoExpectedUpdate = mso.expectedUpdate

        if mso.version == "1.0" {
            results.append(CheckResult(.msoVersion, .pass, "version 1.0", subject: subject))
        } else {
            results.append(CheckResult(.msoVersion, .fail, "MSO version \"\(mso.version)\" is not 1.0", subject: subject))
        }

        if mso.docType == document.docType {
            results.append(CheckResult(.msoDocType, .pass, mso.docType, subject: subject))
        } else {
            results.append(CheckResult(
                .msoDocType, .fail, "MSO docType \(mso.docType) differs from the Document docType \(document.docType)",
                subject: subject, evidence: [Evidence("mso", mso.docType), Evidence("document", document.docType)]))
        }

        if HashFunction(rawValue: mso.digestAlgorithm) != nil {
            results.append(CheckResult(.msoDigestAlgorithm, .pass, mso.digestAlgorithm, subject: subject))
        } else {
            results.append(CheckResult(
                .msoDigestAlgorithm, .fail, "digest algorithm \"\(mso.digestAlgorithm)\" is not SHA-256, SHA-384 or SHA-512",
                subject: subject))
        }

        // Each date formatted once, for the evidence and the details.
        let validFrom = IssuerProfile.format(mso.validFrom)
        let validUntil = IssuerProfile.format(mso.validUntil)
        let window = [Evidence("validFrom", validFrom), Evidence("validUntil", validUntil)]
        if mso.validFrom < mso.signed || mso.validUntil <= mso.validFrom {
            results.append(CheckResult(
                .msoValidity, .fail, "inconsistent validityInfo: validFrom must be at or after signed, validUntil after validFrom",
                subject: subject, evidence: window + [Evidence("signed", IssuerProfile.format(mso.signed))]))
        }
        // Texts the instants share, built once (a pass reads the same at both instants).
        var validText: String?
        let expectedText = mso.expectedUpdate.map { IssuerProfile.format($0) }
        let expectedEvidence = expectedText.map { [Evidence("expectedUpdate", $0)] }
        var expectedPassText: String?
        for instant in options.instants {
            if instant.time < mso.validFrom {
                let at = IssuerProfile.format(instant.time)
                results.append(CheckResult(
                    .msoValidity, .fail, "MSO not yet valid at \(at) (valid from \(validFrom))",
                    subject: subject, instant: instant.instant, evidence: window))
            } else if instant.time > mso.validUntil {
                let at = IssuerProfile.format(instant.time)
                results.append(CheckResult(
                    .msoValidity, .fail, "MSO expired \(validUntil), judged at \(at)",
                    subject: subject, instant: instant.instant, evidence: window))
            } else {
                let detail = validText ?? "valid \(validFrom) to \(validUntil)"
                validText = detail
                results.append(CheckResult(
                    .msoValidity, .pass, detail, subject: subject, instant: instant.instant, evidence: window))
            }
            if let expected = mso.expectedUpdate, let expectedText, let expectedEvidence {
                let status: CheckStatus = instant.time > expected ? .warn : .pass
                let detail: String
                if status == .warn {
                    detail = "an update was expected by \(expectedText): the data may be stale"
                } else {
                    detail = expectedPassText ?? "update expected by \(expectedText)"
                    expectedPassText = detail
                }
                results.append(CheckResult(
                    .msoExpectedUpdate, status, detail, subject: subject, instant: instant.instant,
                    evidence: expectedEvidence))
            } else {
                results.append(CheckResult(.msoExpectedUpdate, .skipped, "no expectedUpdate", subject: subject, instant: instant.instant))
            }
        }

        if let ds {
            if mso.signed >= ds.notBefore && mso.signed <= ds.notAfter {
                results.append(CheckResult(.msoSignedWithinDS, .pass, "signed \(IssuerProfile.format(mso.signed)) within the DS validity", subject: subject))
            } else {
                results.append(CheckResult(
                    .msoSignedWithinDS, .fail,
                    "signed \(IssuerProfile.format(mso.signed)) lies outside the DS validity \(IssuerProfile.format(ds.notBefore)) to \(IssuerProfile.format(ds.notAfter))",
                    subject: subject))
            }
        } else {
            results.append(CheckResult(.msoSignedWithinDS, .unchecked, "no DS certificate", subject: subject))
        }

        do {
            let key = try COSEKey(mso.deviceKeyItem).publicKey()
            results.append(CheckResult(.msoDeviceKey, .pass, "\(key.curve) device key", subject: subject))
            return (mso, key)
        } catch {
            results.append(CheckResult(.msoDeviceKey, .fail, "deviceKey is not a valid COSE_Key: \(error)", subject: subject))
            return (mso, nil)
        }
    }

    // MARK: Value digests (§9.1.2.5, §9.3.1)

    func verifyDigests(
        document: Document, mso: MobileSecurityObject?, subject: String, findings: inout DocumentFindings,
        into results: inout [CheckResult]
    ) {
        let hash = mso.flatMap { HashFunction(rawValue: $0.digestAlgorithm) }
        // The digests are checked only with an MSO and a known algorithm (decided once, not per
        // element: binding the MSO in the loop copied it for every element).
        let checking = mso != nil ? hash : nil
        var tally = DigestTally()
        let nameSpaces = document.issuerSigned.nameSpaces
        findings.elements.reserveCapacity(findings.elements.count + nameSpaces.reduce(0) { $0 + $1.items.count })
        for (namespace, items) in nameSpaces {
            let expectedDigests = mso?.valueDigests[namespace]
            for (position, item) in items.enumerated() {
                verifyElement(
                    item, position: position, namespace: namespace, expectedDigests: expectedDigests, checking: checking,
                    subject: subject, tally: &tally, findings: &findings, into: &results)
            }
        }
        let total = tally.total
        let checked = tally.checked
        let matched = tally.matched
        let missingIDs = tally.missingIDs
        guard mso != nil, let hash else {
            let reason = mso == nil ? "no MSO" : "unsupported digest algorithm"
            results.append(CheckResult(.msoDigest, .unchecked, reason, subject: subject))
            results.append(CheckResult(.msoDigestId, .unchecked, reason, subject: subject))
            return
        }
        if total == 0 {
            results.append(CheckResult(.msoDigest, .skipped, "no issuer-signed element disclosed", subject: subject))
            results.append(CheckResult(.msoDigestId, .skipped, "no issuer-signed element disclosed", subject: subject))
            return
        }
        if missingIDs == 0 {
            results.append(CheckResult(.msoDigestId, .pass, "all \(total) digest ids present", subject: subject))
        }
        if matched == checked && checked == total {
            results.append(CheckResult(
                .msoDigest, .pass, "\(total) of \(total) \(hash.rawValue) digests match", subject: subject,
                evidence: [Evidence("algorithm", hash.rawValue), Evidence("count", String(total))]))
        }
    }

    /// The counts ``verifyDigests(document:mso:subject:findings:into:)`` keeps over the elements.
    struct DigestTally {
        var checked = 0
        var matched = 0
        var missingIDs = 0
        var total = 0
    }

    /// Reads and checks one IssuerSignedItemBytes.
    func verifyElement(
        _ item: CBOR, position: Int, namespace: String, expectedDigests: DigestIDs?, checking: HashFunction?,
        subject: String, tally: inout DigestTally, findings: inout DocumentFindings, into results: inout [CheckResult]
    ) {
        tally.total += 1
        let element: IssuerSignedItem
        do {
            element = try IssuerSignedItem(item, path: namespace, decodingValue: options.keepValues)
        } catch {
            results.append(CheckResult(
                .msoDigest, .fail, "IssuerSignedItemBytes \(position) of \(namespace) malformed: \(error)",
                subject: "\(subject)/\(namespace)[\(position)]"))
            return
        }
        guard let hash = checking else {
            findings.elements.append(DisclosedElement(
                namespace: namespace, identifier: element.elementIdentifier, digestID: element.digestID, digest: nil,
                verified: false, deviceSigned: false, value: element.elementValue))
            return
        }
        // Over the IssuerSignedItemBytes exactly as received (the tag-24 item).
        let digest = hash.digest(item.encoded)
        var verified = false
        if let expected = expectedDigests?[element.digestID] {
            tally.checked += 1
            if digest.withUnsafeBytes({ $0.elementsEqual(expected) }) {
                tally.matched += 1
                verified = true
            } else {
                results.append(CheckResult(
                    .msoDigest, .fail,
                    "digest \(element.digestID) of \(namespace)/\(element.elementIdentifier) does not match the MSO",
                    subject: Self.elementSubject(subject, namespace, element.elementIdentifier),
                    evidence: [Evidence("digestID", String(element.digestID)), Evidence("computed", digest.hex),
                               Evidence("expected", hexString(expected))]))
            }
        } else {
            tally.missingIDs += 1
            results.append(CheckResult(
                .msoDigestId, .fail,
                "digestID \(element.digestID) of \(namespace)/\(element.elementIdentifier) is not in the MSO valueDigests",
                subject: Self.elementSubject(subject, namespace, element.elementIdentifier),
                evidence: [Evidence("digestID", String(element.digestID))]))
        }
        findings.elements.append(DisclosedElement(
            namespace: namespace, identifier: element.elementIdentifier, digestID: element.digestID, digest: digest,
            verified: verified, deviceSigned: false, value: element.elementValue))
    }

    /// The subject of an element's result, built only when a result needs it (a function, not
    /// a local computed property: that captured a copy of the item for every element).
    static func elementSubject(_ subject: String, _ namespace: String, _ identifier: String) -> String {
        "\(subject)/\(namespace)/\(identifier)"
    }

    // MARK: Device authentication (§9.1.3)

    func verifyDeviceSigned(
        document: Document, mso: MobileSecurityObject?, deviceKey: PublicKey?, subject: String, findings: inout DocumentFindings,
        into results: inout [CheckResult]
    ) {
        guard let deviceSignedItem = document.deviceSignedItem else {
            results.append(CheckResult(.deviceStructure, .fail, "the document has no deviceSigned", subject: subject))
            results.append(CheckResult(.deviceSignature, .unchecked, "no deviceSigned", subject: subject))
            results.append(CheckResult(.deviceMac, .unchecked, "no deviceSigned", subject: subject))
            results.append(CheckResult(.deviceKeyAuthorizations, .unchecked, "no deviceSigned", subject: subject))
            return
        }
        let deviceSigned: DeviceSigned
        do {
            deviceSigned = try DeviceSigned(deviceSignedItem, path: "deviceSigned")
        } catch {
            results.append(CheckResult(.deviceStructure, .fail, "\(error)", subject: subject))
            results.append(CheckResult(.deviceSignature, .unchecked, "deviceSigned is malformed", subject: subject))
            results.append(CheckResult(.deviceMac, .unchecked, "deviceSigned is malformed", subject: subject))
            results.append(CheckResult(.deviceKeyAuthorizations, .unchecked, "deviceSigned is malformed", subject: subject))
            return
        }
        results.append(CheckResult(.deviceStructure, .pass, "DeviceNameSpacesBytes and deviceAuth present", subject: subject))

        // keyAuthorizations (§9.1.2.4).
        let deviceElements = deviceSigned.elements.flatMap { ns in ns.identifiers.map { (ns.namespace, $0) } }
        for (namespace, identifier) in deviceElements {
            findings.elements.append(DisclosedElement(
                namespace: namespace, identifier: identifier, digestID: nil, digest: nil, verified: false,
                deviceSigned: true, value: nil))
        }
        if deviceElements.isEmpty {
            results.append(CheckResult(.deviceKeyAuthorizations, .skipped, "no device-signed element", subject: subject))
        } else if let mso {
            let unauthorized = deviceElements.filter { !mso.authorizes(namespace: $0.0, identifier: $0.1) }
            if unauthorized.isEmpty {
                results.append(CheckResult(
                    .deviceKeyAuthorizations, .pass, "\(deviceElements.count) device-signed element(s) authorized", subject: subject))
            } else {
                let list = unauthorized.map { "\($0.0)/\($0.1)" }.joined(separator: ", ")
                results.append(CheckResult(
                    .deviceKeyAuthorizations, .fail, "device-signed element(s) not authorized by keyAuthorizations: \(list)",
                    subject: subject))
            }
        } else {
            results.append(CheckResult(.deviceKeyAuthorizations, .unchecked, "no MSO", subject: subject))
        }

        switch deviceSigned.authentication {
        case .signature(let signature):
            findings.deviceAuthentication = "deviceSignature"
            results.append(CheckResult(.deviceMac, .skipped, "the document uses deviceSignature", subject: subject))
            guard let transcript = options.sessionTranscript else {
                results.append(CheckResult(
                    .deviceSignature, .unchecked,
                    "no SessionTranscript: give the transcript (--transcript or the session messages) to check device authentication",
                    subject: subject))
                return
            }
            guard let deviceKey else {
                results.append(CheckResult(.deviceSignature, .unchecked, "no valid device key in the MSO", subject: subject))
                return
            }
            guard signature.payload == nil else {
                results.append(CheckResult(
                    .deviceSignature, .fail, "deviceSignature carries a payload; §9.1.3.6 requires it detached", subject: subject))
                return
            }
            let payload = deviceAuthenticationBytes(
                transcript: transcript, docType: document.docTypeItem, deviceNameSpacesBytes: deviceSigned.nameSpacesBytes)
            let algorithm = signature.headers.algorithm
            let alg = algorithm?.description ?? "none"
            do {
                if try signature.verify(with: deviceKey, detachedPayload: payload[...]) {
                    results.append(CheckResult(
                        .deviceSignature, .pass, "deviceSignature verifies over DeviceAuthenticationBytes", subject: subject,
                        evidence: [Evidence("alg", alg)]))
                } else {
                    results.append(CheckResult(
                        .deviceSignature, .fail,
                        "deviceSignature does not verify over DeviceAuthenticationBytes with the MSO device key", subject: subject,
                        evidence: [Evidence("alg", alg)]))
                }
            } catch {
                results.append(CheckResult(.deviceSignature, .fail, "deviceSignature cannot be verified: \(error)", subject: subject))
            }

        case .mac(let mac):
            findings.deviceAuthentication = "deviceMac"
            results.append(CheckResult(.deviceSignature, .skipped, "the document uses deviceMac", subject: subject))
            guard let transcript = options.sessionTranscript else {
                results.append(CheckResult(
                    .deviceMac, .unchecked,
                    "no SessionTranscript: give the transcript and the reader's ephemeral key to check deviceMac",
                    subject: subject))
                return
            }
            guard let readerKey = options.readerEphemeralKey else {
                results.append(CheckResult(
                    .deviceMac, .unchecked,
                    "deviceMac needs the reader's ephemeral private key (--reader-key or reader-key.pem)", subject: subject))
                return
            }
            guard let deviceKey else {
                results.append(CheckResult(.deviceMac, .unchecked, "no valid device key in the MSO", subject: subject))
                return
            }
            guard mac.headers.algorithm == .hmac256 else {
                let alg = mac.headers.algorithm?.description ?? "none"
                results.append(CheckResult(
                    .deviceMac, .fail, "deviceMac algorithm \(alg) is not HMAC 256/256 (§9.1.3.5)", subject: subject))
                return
            }
            guard mac.payload == nil else {
                results.append(CheckResult(.deviceMac, .fail, "deviceMac carries a payload; §9.1.3.5 requires it detached", subject: subject))
                return
            }
            do {
                // EMacKey = HKDF-SHA256(ECDH(EReaderKey.Priv, SDeviceKey.Pub), SHA-256(SessionTranscriptBytes), "EMacKey") (§9.1.3.5).
                let shared = try readerKey.sharedSecret(with: deviceKey)
                let eMacKey = try HKDF.deriveKey(
                    hash: .sha256, inputKeyMaterial: shared, salt: transcript.hkdfSalt, info: Array("EMacKey".utf8),
                    outputByteCount: 32)
                let payload = deviceAuthenticationBytes(
                    transcript: transcript, docType: document.docTypeItem, deviceNameSpacesBytes: deviceSigned.nameSpacesBytes)
                if try mac.verify(key: eMacKey, detachedPayload: payload[...]) {
                    results.append(CheckResult(
                        .deviceMac, .pass, "deviceMac verifies over DeviceAuthenticationBytes", subject: subject,
                        evidence: [Evidence("alg", "HMAC 256/256")]))
                } else {
                    results.append(CheckResult(
                        .deviceMac, .fail,
                        "deviceMac does not verify: wrong transcript or reader key, or a tampered document", subject: subject))
                }
            } catch {
                results.append(CheckResult(.deviceMac, .fail, "deviceMac cannot be verified: \(error)", subject: subject))
            }
        }
    }
}
