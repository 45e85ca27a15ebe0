import Foundation
import MdocChecks
import MdocCrypto

/// A named defect the generator can plant in a transaction, with the check(s) it must trip.
///
/// Each defect changes one thing. Where two checks depend on the same fact (an unknown critical
/// extension is refused both by the extension check and by OpenSSL's path validation),
/// ``expectedFailures`` lists both. An IACA without basicConstraints is still accepted by
/// OpenSSL as a trust anchor, so only the Annex B profile check catches it.
package enum SampleDefect: String, Sendable, CaseIterable, Codable {
    case tamperedElement
    case tamperedMSO
    case wrongDocType
    case expiredMSO
    case notYetValidMSO
    case dsNotChained
    case dsExpired
    case dsMissingEKU
    case dsWrongKeyUsage
    case dsCountryMismatch
    case dsValidityTooLong
    case dsUnknownCriticalExtension
    case iacaNotCA
    case revokedDS
    case unsupportedDigestAlgorithm
    case missingX5chain
    case wrongIssuerAlgorithm
    case msoSignedOutsideDS
    case msoVersion
    case invalidDeviceKey
    case badDeviceSignature
    case badDeviceMac
    case digestIDMissing
    case keyNotAuthorized
    case errorStatus

    /// The check ids that must fail, and no other.
    package var expectedFailures: Set<CheckID> {
        switch self {
        case .tamperedElement: [.msoDigest]
        case .tamperedMSO: [.issuerSignature]
        case .wrongDocType: [.msoDocType]
        case .expiredMSO, .notYetValidMSO: [.msoValidity]
        case .dsNotChained: [.issuerChain]
        case .dsExpired: [.issuerDsValidity]
        case .dsMissingEKU: [.issuerDsExtendedKeyUsage]
        case .dsWrongKeyUsage: [.issuerDsKeyUsage]
        case .dsCountryMismatch: [.issuerDsCountry, .issuerDsIssuingCountry]  // the DS names another country than the issuing_country element
        case .dsValidityTooLong: [.issuerDsValidityPeriod]
        case .dsUnknownCriticalExtension: [.issuerCriticalExtensions, .issuerChain]
        case .iacaNotCA: [.issuerIacaBasicConstraints]
        case .revokedDS: [.issuerRevocation]
        case .unsupportedDigestAlgorithm: [.msoDigestAlgorithm]
        case .missingX5chain: [.issuerX5chain]
        case .wrongIssuerAlgorithm: [.issuerAlgorithm]
        case .msoSignedOutsideDS: [.msoSignedWithinDS]
        case .msoVersion: [.msoVersion]
        case .invalidDeviceKey: [.msoDeviceKey]
        case .badDeviceSignature: [.deviceSignature]
        case .badDeviceMac: [.deviceMac]
        case .digestIDMissing: [.msoDigestId]
        case .keyNotAuthorized: [.deviceKeyAuthorizations]
        case .errorStatus: [.responseStatus]
        }
    }

    /// Whether the defect lives in the certificates (the authority must be built with it).
    package var needsOwnAuthority: Bool {
        switch self {
        case .dsNotChained, .dsExpired, .dsMissingEKU, .dsWrongKeyUsage, .dsCountryMismatch, .dsValidityTooLong,
            .dsUnknownCriticalExtension, .iacaNotCA:
            true
        default: false
        }
    }

    /// Applies the defect to the certificate profile (for ``needsOwnAuthority`` defects).
    /// `verificationTime` is the instant the sample will be judged at.
    package func apply(to profile: inout IssuingAuthority.Profile, verificationTime: Date) {
        switch self {
        case .dsExpired:
            // DS valid for 200 days ending 10 days before the verification time; the MSO was
            // signed inside that window and is still valid (like Annex D's 13h overlap, longer).
            profile.dsNotBefore = verificationTime.addingTimeInterval(-210 * 86_400)
            profile.dsValidityDays = 200
        case .dsMissingEKU: profile.dsExtendedKeyUsage = []
        case .dsWrongKeyUsage: profile.dsKeyUsage = [.digitalSignature, .keyEncipherment]
        case .dsCountryMismatch: profile.dsCountry = "ZZ"
        case .dsValidityTooLong: profile.dsValidityDays = 500
        case .dsUnknownCriticalExtension: profile.dsCustomCriticalExtension = true
        case .iacaNotCA: profile.iacaIsCA = false
        default: break
        }
    }

    /// Applies the defect to the document spec. `verificationTime` is the instant judged;
    /// `authority` the one that signs.
    package func apply(to spec: inout DocumentSpec, verificationTime: Date, authority: IssuingAuthority) {
        switch self {
        case .tamperedElement: spec.tamperElementAfterSigning = true
        case .tamperedMSO:
            spec.tamperMSOAfterSigning = true
            if spec.undisclosed.isEmpty {
                spec.undisclosed.append(SampleElement("org.iso.18013.5.1", "un_distinguishing_sign", .text("UT")))
            }
        case .wrongDocType: spec.msoDocType = "org.iso.23220.photoid.1"
        case .expiredMSO:
            spec.signed = verificationTime.addingTimeInterval(-40 * 86_400)
            spec.validFrom = spec.signed
            spec.validUntil = verificationTime.addingTimeInterval(-86_400)
        case .notYetValidMSO:
            spec.validFrom = verificationTime.addingTimeInterval(5 * 86_400)
            spec.validUntil = verificationTime.addingTimeInterval(300 * 86_400)
        case .dsExpired:
            spec.signed = authority.ds.notBefore.addingTimeInterval(86_400)
            spec.validFrom = spec.signed
            spec.validUntil = verificationTime.addingTimeInterval(30 * 86_400)
        case .unsupportedDigestAlgorithm: spec.digestAlgorithmName = "SHA-1"
        case .missingX5chain: spec.includeX5chain = false
        case .wrongIssuerAlgorithm:
            spec.issuerAlgorithm = authority.curve == .p384 ? .es256 : .es384
        case .msoSignedOutsideDS:
            spec.signed = authority.ds.notBefore.addingTimeInterval(-86_400)
            spec.validFrom = authority.ds.notBefore.addingTimeInterval(86_400)
        case .msoVersion: spec.msoVersion = "2.0"
        case .invalidDeviceKey: spec.invalidDeviceKeyInMSO = true
        case .badDeviceSignature, .badDeviceMac: spec.signDeviceAuthWithOtherKey = true
        case .digestIDMissing: spec.dropDigestOfFirstElement = true
        case .keyNotAuthorized:
            spec.deviceSignedElements = [SampleElement("org.iso.18013.5.1", "given_name_national_character", .text("Dev"))]
            spec.authorizedNameSpaces = []
            spec.authorizedDataElements = ["org.iso.18013.5.1": ["family_name"]]
        default: break
        }
    }
}
