import GRDB

// Each positional record's values in coding-key order (``PositionalInsert``): a value out of
// place fails PositionalInsertTests.

extension TransactionRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(id)
        parameters.add(sha256)
        parameters.add(referenceCode)
        parameters.add(displayName)
        parameters.add(source)
        parameters.add(capturedAt)
        parameters.add(responseSHA256)
        parameters.add(consentReference)
        parameters.add(consentExpiresAt)
        parameters.add(firstRunID)
        parameters.add(firstSeenAt)
        parameters.add(inputs)
    }
}

extension VerificationRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(id)
        parameters.add(transactionID)
        parameters.add(runID)
        parameters.add(verifiedAt)
        parameters.add(verificationTime)
        parameters.add(trustSnapshot)
        parameters.add(verdictCapture)
        parameters.add(verdictNow)
        parameters.add(consentState)
        parameters.add(dataKept)
        parameters.add(proofFile)
        parameters.add(proofOffset)
        parameters.add(proofLength)
        parameters.add(proofSHA256)
        parameters.add(supersededBy)
    }
}

extension CheckResultsRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(verificationID)
        parameters.add(results)
    }
}

extension CheckFailureRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(verificationID)
        parameters.add(seq)
        parameters.add(checkID)
        parameters.add(instant)
        parameters.add(subject)
        parameters.add(detail)
    }
}

extension DocumentRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(verificationID)
        parameters.add(idx)
        parameters.add(docType)
        parameters.add(dsFingerprint)
        parameters.add(iacaFingerprint)
        parameters.add(msoSigned)
        parameters.add(msoValidFrom)
        parameters.add(msoValidUntil)
        parameters.add(msoExpectedUpdate)
        parameters.add(digestAlgorithm)
    }
}

extension DisclosureRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(verificationID)
        parameters.add(elements)
    }
}

extension AuditLogRecord {
    func bind(_ parameters: inout SQLiteParameters) {
        parameters.add(seq)
        parameters.add(at)
        parameters.add(runID)
        parameters.add(event)
        parameters.add(transactionID)
        parameters.add(detailsJSON)
        parameters.add(prevHash)
        parameters.add(hash)
    }
}
