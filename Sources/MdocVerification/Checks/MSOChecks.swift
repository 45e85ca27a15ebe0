package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocModel

/// The MobileSecurityObject (§9.1.2.4): `mso.structure`, `mso.version`, `mso.docType`,
/// `mso.digestAlgorithm`, `mso.validity` and `mso.expectedUpdate` at each instant, and
/// `mso.deviceKey`. Publishes the MSO, its digest function and the device key; without an MSO
/// (a detached or malformed payload) only `mso.structure` is reported.
struct MSOCheck: Check {
    var ids: [CheckID] {
        [.msoStructure, .msoVersion, .msoDocType, .msoDigestAlgorithm, .msoValidity, .msoExpectedUpdate, .msoDeviceKey]
    }
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document)]

    func run(_ context: inout CheckContext) {
        guard context.document.issuerAuth != nil, let docType = context.document.document?.docType else { return }
        let subject = context.document.subject
        guard let payload = context.document.issuerAuth?.payload else {
            context.report(CheckResult(.msoStructure, .fail, "issuerAuth has a detached payload: the MSO is missing", subject: subject))
            Self.setNoMSO(&context)
            return
        }
        let mso: MobileSecurityObject
        do {
            mso = try MobileSecurityObject(payload: payload)
        } catch {
            context.report(CheckResult(.msoStructure, .fail, "\(error)", subject: subject))
            Self.setNoMSO(&context)
            return
        }
        context.report(CheckResult(.msoStructure, .pass, "MobileSecurityObjectBytes holds a well-formed MSO", subject: subject))
        context.document.findings.digestAlgorithm = mso.digestAlgorithm
        context.document.findings.msoSigned = mso.signed
        context.document.findings.msoValidFrom = mso.validFrom
        context.document.findings.msoValidUntil = mso.validUntil
        context.document.findings.msoExpectedUpdate = mso.expectedUpdate

        if mso.version == "1.0" {
            context.report(CheckResult(.msoVersion, .pass, "version 1.0", subject: subject))
        } else {
            context.report(CheckResult(.msoVersion, .fail, "MSO version \"\(mso.version)\" is not 1.0", subject: subject))
        }

        if mso.docType == docType {
            context.report(CheckResult(.msoDocType, .pass, mso.docType, subject: subject))
        } else {
            context.report(CheckResult(
                .msoDocType, .fail, "MSO docType \(mso.docType) differs from the Document docType \(docType)",
                subject: subject, evidence: [Evidence("mso", mso.docType), Evidence("document", docType)]))
        }

        if let hash = mso.digestAlgorithm.hashFunction {
            context.document.digestFunction = hash
            context.report(CheckResult(.msoDigestAlgorithm, .pass, mso.digestAlgorithm.rawValue, subject: subject))
        } else {
            context.setAbsent(.digestFunction, .unavailable("unsupported digest algorithm"))
            context.report(CheckResult(
                .msoDigestAlgorithm, .fail, "digest algorithm \"\(mso.digestAlgorithm)\" is not SHA-256, SHA-384 or SHA-512",
                subject: subject))
        }

        Self.reportValidity(mso, &context)

        do {
            let key = try COSEKey(mso.deviceKeyItem).publicKey()
            context.document.deviceKey = key
            context.report(CheckResult(.msoDeviceKey, .pass, "\(key.curve) device key", subject: subject))
        } catch {
            context.setAbsent(.deviceKey, .unavailable("no valid device key in the MSO"))
            context.report(CheckResult(.msoDeviceKey, .fail, "deviceKey is not a valid COSE_Key: \(error)", subject: subject))
        }
        context.document.mso = consume mso
    }

    /// What the checks that need the MSO are told when there is none.
    static func setNoMSO(_ context: inout CheckContext) {
        context.setAbsent(.mso, .unavailable("no MSO"))
        context.setAbsent(.digestFunction, .unavailable("no MSO"))
        context.setAbsent(.deviceKey, .unavailable("no valid device key in the MSO"))
    }

    /// `mso.validity` (a consistent validityInfo, and the instant within validFrom...validUntil)
    /// and `mso.expectedUpdate`, at each instant.
    static func reportValidity(_ mso: MobileSecurityObject, _ context: inout CheckContext) {
        let subject = context.document.subject
        let validFrom = AnnexBProfile.format(mso.validFrom)
        let validUntil = AnnexBProfile.format(mso.validUntil)
        let window = [Evidence("validFrom", validFrom), Evidence("validUntil", validUntil)]
        if mso.validFrom < mso.signed || mso.validUntil <= mso.validFrom {
            context.report(CheckResult(
                .msoValidity, .fail, "inconsistent validityInfo: validFrom must be at or after signed, validUntil after validFrom",
                subject: subject, evidence: window + [Evidence("signed", AnnexBProfile.format(mso.signed))]))
        }
        let expectedText = mso.expectedUpdate.map { AnnexBProfile.format($0) }
        // The passing texts and evidence are the same at both instants: built once.
        let validText = "valid \(validFrom) to \(validUntil)"
        let expectedEvidence = expectedText.map { [Evidence("expectedUpdate", $0)] } ?? []
        let expectedPassText = expectedText.map { "update expected by \($0)" } ?? ""
        for instant in context.instants {
            if instant.time < mso.validFrom {
                context.report(CheckResult(
                    .msoValidity, .fail, "MSO not yet valid at \(AnnexBProfile.format(instant.time)) (valid from \(validFrom))",
                    subject: subject, instant: instant.instant, evidence: window))
            } else if instant.time > mso.validUntil {
                context.report(CheckResult(
                    .msoValidity, .fail, "MSO expired \(validUntil), judged at \(AnnexBProfile.format(instant.time))",
                    subject: subject, instant: instant.instant, evidence: window))
            } else {
                context.report(CheckResult(.msoValidity, .pass, validText, subject: subject, instant: instant.instant, evidence: window))
            }
            if let expected = mso.expectedUpdate, let expectedText {
                let stale = instant.time > expected
                context.report(CheckResult(
                    .msoExpectedUpdate, stale ? .warn : .pass,
                    stale ? "an update was expected by \(expectedText): the data may be stale" : expectedPassText,
                    subject: subject, instant: instant.instant, evidence: expectedEvidence))
            } else {
                context.report(CheckResult(.msoExpectedUpdate, .skipped, "no expectedUpdate", subject: subject, instant: instant.instant))
            }
        }
    }
}
