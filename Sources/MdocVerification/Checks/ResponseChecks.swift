package import MdocCBOR
package import MdocChecks
package import MdocCOSE
package import MdocCrypto
package import MdocModel

/// `cbor.wellformed`: the DeviceResponse bytes are one well-formed CBOR item within the
/// decoding limits (RFC 8949), or the `cbor.*` failure that says why not.
struct ResponseDecodingCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.cborWellformed]
    var scope: CheckScope { .response }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.deviceResponseBytes)]

    func run(_ context: inout CheckContext) {
        guard let bytes = context.transaction.deviceResponseBytes else { return }
        // A lone response's digest is made on request (`ResponseVerification.responseSHA256`).
        if context.digestsResponse { Self.recordDigest(bytes, &context) }
        do {
            context.transaction.deviceResponseCBOR = try CBOR(decoding: bytes, options: context.settings.decoding)
            context.report(CheckResult(.cborWellformed, .pass, "\(bytes.count) bytes of well-formed CBOR"))
        } catch {
            context.report(CBORFailure.result(error, what: "DeviceResponse"))
        }
    }

    /// Records the SHA-256 of the transaction's response `bytes`, for the replay lookup and the
    /// proof: the reader's digest when it hashed the same bytes as it read them, else hashed here.
    static func recordDigest(_ bytes: [UInt8], _ context: inout CheckContext) {
        // The inputs are read field by field: bound whole, they would be copied (retaining every
        // file they hold) once per transaction.
        if let digest = context.transaction.inputs.deviceResponseSHA256, digest.count == HashFunction.sha256.outputByteCount,
            let plain = context.transaction.inputs.deviceResponse, plain == bytes
        {
            context.transaction.responseSHA256 = digest  // the same bytes, hashed as read
        } else {
            context.transaction.responseSHA256 = HashFunction.sha256.hash(bytes)
        }
    }
}

/// `response.*` (§8.3.2.1.2.2): the DeviceResponse has the CDDL types, version 1.x, status 0,
/// at least one document, no document errors.
struct ResponseStructureCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.responseStructure, .responseVersion, .responseStatus, .responseDocuments, .responseDocumentErrors]
    var scope: CheckScope { .response }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.deviceResponseCBOR)]

    func run(_ context: inout CheckContext) {
        guard let item = context.transaction.deviceResponseCBOR else { return }
        let response: DeviceResponse
        do {
            response = try DeviceResponse(item)
        } catch {
            context.report(CheckResult(.responseStructure, .fail, "\(error)"))
            return
        }
        context.transaction.deviceResponse = response
        context.report(CheckResult(.responseStructure, .pass, "version, status and documents have the CDDL types"))

        let version = response.version
        if version == "1.0" {
            context.report(CheckResult(.responseVersion, .pass, "version 1.0"))
        } else if version.hasPrefix("1.") {
            context.report(CheckResult(.responseVersion, .warn, "version \(version): a later 1.x; checked as 1.0"))
        } else {
            context.report(CheckResult(.responseVersion, .fail, "version \"\(version)\" is not supported (1.x expected)"))
        }

        let status = response.status
        if status == 0 {
            context.report(CheckResult(.responseStatus, .pass, "status 0 (OK)"))
        } else {
            let meaning = DeviceResponse.statusMeaning(status)
            context.report(CheckResult(
                .responseStatus, .fail, "status \(status) (\(meaning)): the mdoc reported an error",
                evidence: [Evidence("status", String(status))]))
        }

        if response.documents.isEmpty {
            context.report(CheckResult(.responseDocuments, .fail, "the response carries no document"))
        } else {
            let count = response.documents.count
            // The usual single document's text as a constant, not interpolated each time.
            context.report(CheckResult(.responseDocuments, .pass, count == 1 ? "1 document(s)" : "\(count) document(s)"))
        }

        if response.documentErrors.isEmpty {
            context.report(CheckResult(.responseDocumentErrors, .pass, "no document errors"))
        } else {
            let list = response.documentErrors.map { "\($0.docType): \($0.code)" }.joined(separator: ", ")
            context.report(CheckResult(.responseDocumentErrors, .warn, "documents not returned: \(list)"))
        }
    }
}

/// The structure of one Document and its issuerAuth (§8.3.2.1.2.2, §9.1.2.4): a document that
/// does not decode is reported (`response.structure`, or `issuer.structure` when the problem is
/// in IssuerSigned) and has no further results; otherwise `issuer.structure` passes and the
/// document checks after it examine the document.
struct DocumentStructureCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.issuerStructure]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { [] }

    func run(_ context: inout CheckContext) {
        guard let item = context.document.item else { return }
        let subject = context.document.subject
        let document: Document
        do {
            document = try Document(item, path: "documents[\(context.document.index)]")
        } catch let error as ModelError {
            let id: CheckID = error.path.contains("issuerSigned") ? .issuerStructure : .responseStructure
            context.report(CheckResult(id, .fail, "\(error)", subject: subject))
            return
        } catch {
            context.report(CheckResult(.responseStructure, .fail, "\(error)", subject: subject))
            return
        }
        context.document.findings.docType = document.docType
        do {
            context.document.issuerAuth = try COSESign1(document.issuerSigned.issuerAuthItem)
        } catch {
            context.report(CheckResult(.issuerStructure, .fail, "issuerAuth: \(error)", subject: subject))
            return
        }
        context.document.document = document
        context.report(CheckResult(.issuerStructure, .pass, "issuerAuth is a COSE_Sign1", subject: subject))
    }
}

/// Maps a CBOR decoding error to its `cbor.*` result.
enum CBORFailure {
    static func result(_ error: CBORError, what: String, subject: String = "") -> CheckResult {
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

    /// Decodes received CBOR, reporting a failure as its `cbor.*` result.
    static func decode(
        _ bytes: [UInt8], options: CBORDecodingOptions, what: String, subject: String, into context: inout CheckContext
    ) -> CBOR? {
        do {
            return try CBOR(decoding: bytes, options: options)
        } catch {
            context.report(result(error, what: what, subject: subject))
            return nil
        }
    }
}
