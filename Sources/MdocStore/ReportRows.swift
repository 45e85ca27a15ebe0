import MdocChecks

// The rows a report reads from the store, as the report's JSON (docs/report-json.md) shows
// them: MdocReports embeds these types in its model. Instants are store text, hashes lower-case hex.

/// A run of the report's scope.
package struct ReportRun: Codable, Sendable, Equatable {
    package var id: String
    package var startedAt: String
    package var finishedAt: String?
    /// `running`, `finished` or `interrupted`.
    package var status: String
    package var verificationTime: String
    package var verificationTimeIsNow: Bool
    package var trustSnapshot: String
    package var processorVersion: String
    /// The inputs named on the command line.
    package var inputs: [String]
    package var manifestPath: String?
    package var merkleRoot: String?
    package var proofCount: Int?
    /// How many verifications of the scope this run produced.
    package var transactionsInScope: Int

    package init(
        id: String, startedAt: String, finishedAt: String?, status: String, verificationTime: String,
        verificationTimeIsNow: Bool, trustSnapshot: String, processorVersion: String, inputs: [String],
        manifestPath: String?, merkleRoot: String?, proofCount: Int?, transactionsInScope: Int
    ) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.status = status
        self.verificationTime = verificationTime
        self.verificationTimeIsNow = verificationTimeIsNow
        self.trustSnapshot = trustSnapshot
        self.processorVersion = processorVersion
        self.inputs = inputs
        self.manifestPath = manifestPath
        self.merkleRoot = merkleRoot
        self.proofCount = proofCount
        self.transactionsInScope = transactionsInScope
    }
}

/// A transaction whose verdict differs from its previous verification's.
package struct ReportChangeRow: Codable, Sendable, Equatable {
    package var referenceCode: String
    package var transactionID: String
    package var displayName: String
    package var source: String
    package var capturedAt: String?
    package var previousVerdict: String
    package var verdictNow: String
    package var previousRunID: String
    package var runID: String
    package var previousVerificationTime: String
    package var verificationTime: String
    package var previousTrustSnapshot: String
    package var trustSnapshot: String
    /// The check ids that failed in the verification now, sorted.
    package var failingChecks: [String]
    /// The trust changes between the two verifications' runs that concern the transaction (an
    /// IACA removed from a VICAL, a CRL replaced, a status token added), for people.
    package var trustChanges: [String] = []

    package init(
        referenceCode: String, transactionID: String, displayName: String, source: String, capturedAt: String?,
        previousVerdict: String, verdictNow: String, previousRunID: String, runID: String,
        previousVerificationTime: String, verificationTime: String, previousTrustSnapshot: String,
        trustSnapshot: String, failingChecks: [String]
    ) {
        self.referenceCode = referenceCode
        self.transactionID = transactionID
        self.displayName = displayName
        self.source = source
        self.capturedAt = capturedAt
        self.previousVerdict = previousVerdict
        self.verdictNow = verdictNow
        self.previousRunID = previousRunID
        self.runID = runID
        self.previousVerificationTime = previousVerificationTime
        self.verificationTime = verificationTime
        self.previousTrustSnapshot = previousTrustSnapshot
        self.trustSnapshot = trustSnapshot
        self.failingChecks = failingChecks
    }
}

/// A transaction of the report's table.
package struct ReportTransactionRow: Codable, Sendable, Equatable {
    package var referenceCode: String
    package var transactionID: String
    package var displayName: String
    package var source: String
    package var capturedAt: String?
    package var verificationTime: String
    package var verdictAtCapture: String?
    package var verdictNow: String
    package var consentState: String
    /// The check ids that failed, sorted.
    package var failingChecks: [String]
    /// What the failures say: `authenticity`, `validity`, `policy` (``FailureClass``), in that order.
    package var failureClasses: [String]
    /// The file holding the transaction's proof, relative to the output folder (a run's proof
    /// file, found in it by reference code, or a proof file of its own).
    package var proofPath: String?
    /// The element values kept, when the report includes them.
    package var values: [ReportElementValue]?

    package init(
        referenceCode: String, transactionID: String, displayName: String, source: String, capturedAt: String?,
        verificationTime: String, verdictAtCapture: String?, verdictNow: String, consentState: String,
        failingChecks: [String], proofPath: String?, values: [ReportElementValue]?
    ) {
        self.referenceCode = referenceCode
        self.transactionID = transactionID
        self.displayName = displayName
        self.source = source
        self.capturedAt = capturedAt
        self.verificationTime = verificationTime
        self.verdictAtCapture = verdictAtCapture
        self.verdictNow = verdictNow
        self.consentState = consentState
        self.failingChecks = failingChecks
        self.failureClasses = FailureClass.of(failed: failingChecks.map { CheckID($0) }).map(\.rawValue)
        self.proofPath = proofPath
        self.values = values
    }
}

/// A kept element value.
package struct ReportElementValue: Codable, Sendable, Equatable {
    package var namespace: String
    package var identifier: String
    /// The value as text (CBOR diagnostic notation as the run kept it).
    package var value: String

    package init(namespace: String, identifier: String, value: String) {
        self.namespace = namespace
        self.identifier = identifier
        self.value = value
    }
}

/// Uploads of the scope with one outcome.
package struct ReportImageOutcome: Codable, Sendable, Equatable {
    package var outcome: String
    package var count: Int
    package var originalBytes: Int
    package var outputBytes: Int

    package init(outcome: String, count: Int, originalBytes: Int, outputBytes: Int) {
        self.outcome = outcome
        self.count = count
        self.originalBytes = originalBytes
        self.outputBytes = outputBytes
    }
}

/// An input of a run that did not become a transaction.
package struct ReportIngestFailureRow: Codable, Sendable, Equatable {
    package var runID: String
    package var source: String
    package var code: String
    package var reason: String

    package init(runID: String, source: String, code: String, reason: String) {
        self.runID = runID
        self.source = source
        self.code = code
        self.reason = reason
    }
}

/// A certificate's metadata, as the store keeps it.
package struct ReportCertificate: Sendable, Equatable {
    package var subject: String
    package var issuer: String
    package var serial: String
    package var notBefore: String
    package var notAfter: String
    package var country: String?

    package init(
        subject: String, issuer: String, serial: String, notBefore: String, notAfter: String, country: String?
    ) {
        self.subject = subject
        self.issuer = issuer
        self.serial = serial
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.country = country
    }
}
