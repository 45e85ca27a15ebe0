package import MdocChecks

/// One check, or a family of checks that read the same inputs, in the spirit of
/// swift-certificates' `VerifierPolicy`: a value that examines what the transaction holds and
/// reports check results, never throws.
///
/// A check declares the facts it needs (``prerequisites``). The runner (``CheckRunner``) reads
/// them before calling ``run(_:)``: when one is absent, the check is not run and the runner
/// reports each of its ``ids`` `unchecked` with the reason the fact is missing (or `skipped`, when
/// the fact does not apply, or nothing at all, for a fact the check only examines). A check may
/// publish facts for the checks after it (the issuer chain publishes the DS certificate, the MSO
/// check the MSO and the device key).
///
/// To add a check: write a type conforming to this protocol in `Checks/`, and add it to
/// ``VerificationPolicy/standard`` (docs/architecture.md, "Adding a check").
package protocol Check: Sendable {
    /// The ids this check reports (each described in the catalogue of MdocChecks).
    var ids: [CheckID] { get }
    /// Once per transaction, or once per document of the DeviceResponse.
    var scope: CheckScope { get }
    /// The facts the check needs, in the order their absence is reported.
    var prerequisites: [Prerequisite] { get }
    /// Examines the facts, reports results and publishes facts. Runs only when every
    /// prerequisite is present.
    func run(_ context: inout CheckContext)
}

/// Where a check runs.
package enum CheckScope: Sendable {
    /// Once for the whole transaction (its bundle, session, request, consent, uploads).
    case transaction
    /// Once for the DeviceResponse, when there is one.
    case response
    /// Once per Document of the DeviceResponse, with the document's subject (`doc[0]`, ...).
    case document
}

/// A fact a check needs, and what the runner reports when it is absent.
package struct Prerequisite: Sendable {
    package enum WhenAbsent: Sendable {
        /// Each id `unchecked`, with the reason the fact's producer gave (or the fact's own
        /// description when none did); `skipped` when the producer said it does not apply.
        case unchecked
        /// Each id `unchecked` with this reason (`skipped` with the producer's reason when the
        /// fact does not apply).
        case uncheckedBecause(String)
        /// Nothing: the check examines this fact, and without it there is nothing to examine.
        case nothing
    }

    package let fact: Fact
    package let whenAbsent: WhenAbsent

    /// The check needs `fact`; without it its ids are `unchecked` (or `skipped`), with the
    /// producer's reason.
    package static func needs(_ fact: Fact) -> Prerequisite { Prerequisite(fact: fact, whenAbsent: .unchecked) }

    /// The check needs `fact`; without it its ids are `unchecked` with `reason`.
    package static func needs(_ fact: Fact, otherwise reason: String) -> Prerequisite {
        Prerequisite(fact: fact, whenAbsent: .uncheckedBecause(reason))
    }

    /// The check examines `fact`; without it the check has nothing to say.
    package static func examines(_ fact: Fact) -> Prerequisite { Prerequisite(fact: fact, whenAbsent: .nothing) }
}

/// The facts checks read and publish: the transaction's inputs, and what earlier checks found.
/// Their values live in ``TransactionFacts`` and ``DocumentFacts``.
package enum Fact: String, Sendable, CaseIterable {
    // The transaction.
    /// `transaction.json`, as received.
    case metadataFile
    /// The consent recorded in `transaction.json`.
    case consent
    /// An engagement QR image (JPEG or PNG), when the bundle has no `engagement.txt`.
    case engagementImage
    /// The `mdoc:` URI of the device engagement.
    case engagementURI
    /// The decoded DeviceEngagement (§8.2.1.1).
    case deviceEngagement
    /// SessionTranscriptBytes (§9.1.5.1).
    case sessionTranscript
    /// The reader's ephemeral private key (EReaderKey.Priv).
    case readerEphemeralKey
    /// The DeviceRequest (§8.3.2.1.2.1).
    case deviceRequest
    /// The DeviceResponse as received, or as decrypted from SessionData.
    case deviceResponseBytes
    /// The DeviceResponse decoded as CBOR.
    case deviceResponseCBOR
    /// The DeviceResponse read as its CDDL structure.
    case deviceResponse
    /// `documents/manifest.json` of the document-scan uploads, when consent allows keeping them.
    case uploadsManifest
    /// What the pipeline found of earlier presentations of the same DeviceResponse.
    case earlierPresentations

    // One document.
    /// The Document, decoded with its issuerAuth COSE_Sign1. The document checks examine it:
    /// without it (the document structure check said why) they have nothing to say.
    case document
    /// The issuerAuth COSE_Sign1 of the document.
    case issuerAuth
    /// The certificates of issuerAuth's x5chain, DS first.
    case receivedChain
    /// The Document Signer certificate.
    case dsCertificate
    /// The decoded MobileSecurityObject.
    case mso
    /// The hash function of the MSO's digestAlgorithm.
    case digestFunction
    /// The device key of the MSO.
    case deviceKey
    /// The IssuerSignedItems of the document.
    case disclosures
    /// The document's DeviceSigned.
    case deviceSigned
    /// The device-signed elements of DeviceSigned.
    case deviceSignedElements
    /// The deviceSignature of DeviceAuth.
    case deviceSignature
    /// The deviceMac of DeviceAuth.
    case deviceMac

    /// What the runner says when the fact is missing and its producer gave no reason.
    var missingText: String {
        switch self {
        case .metadataFile: "no transaction.json"
        case .consent: "no consent record"
        case .engagementImage: "no engagement image"
        case .engagementURI: "no device engagement"
        case .deviceEngagement: "no DeviceEngagement"
        case .sessionTranscript: "no SessionTranscript"
        case .readerEphemeralKey: "no reader key"
        case .deviceRequest: "no DeviceRequest"
        case .deviceResponseBytes, .deviceResponseCBOR, .deviceResponse: "no DeviceResponse"
        case .uploadsManifest: "no uploads"
        case .earlierPresentations: "no replay lookup"
        case .document: "the document does not decode"
        case .issuerAuth: "no issuerAuth"
        case .receivedChain: "no x5chain"
        case .dsCertificate: "no DS certificate"
        case .mso: "no MSO"
        case .digestFunction: "no digest algorithm"
        case .deviceKey: "no device key"
        case .disclosures: "no issuer-signed element"
        case .deviceSigned: "no deviceSigned"
        case .deviceSignedElements: "no device-signed element"
        case .deviceSignature: "no deviceSignature"
        case .deviceMac: "no deviceMac"
        }
    }

    /// Whether the fact belongs to one document (reset for each).
    var isDocumentFact: Bool {
        switch self {
        case .document, .issuerAuth, .receivedChain, .dsCertificate, .mso, .digestFunction, .deviceKey, .disclosures, .deviceSigned,
            .deviceSignedElements, .deviceSignature, .deviceMac:
            true
        default:
            false
        }
    }
}

/// Why a fact is absent, as its producer said.
package struct Absence: Sendable {
    /// `true` when the fact could not be obtained (its checks are `unchecked`), `false` when it
    /// does not apply to this transaction (its checks are `skipped`).
    package var applies: Bool
    package var reason: String

    /// The fact applies but could not be obtained.
    package static func unavailable(_ reason: String) -> Absence { Absence(applies: true, reason: reason) }
    /// The fact does not apply here.
    package static func notApplicable(_ reason: String) -> Absence { Absence(applies: false, reason: reason) }
}
