// Document-scan uploads. ISO/IEC 18013-5 says nothing about them: the rules come from the
// onboarding upload requirements: at most 1,000,000 bytes per image, JPEG or PNG, typed and
// sided, re-uploads linked to the upload they replace, an optional scan-SDK signature over the
// original bytes.

extension CheckID {
    /// The upload has at least one byte.
    package static let imageEmpty = CheckID("image.empty")
    /// The upload starts with a JPEG or PNG signature.
    package static let imageNotAnImage = CheckID("image.notAnImage")
    /// The upload decodes without format errors.
    package static let imageCorrupt = CheckID("image.corrupt")
    /// The upload is complete (libjpeg/libpng did not run out of data).
    package static let imageTruncated = CheckID("image.truncated")
    /// The upload uses a coding the decoder supports (8-bit JPEG, any standard PNG).
    package static let imageUnsupported = CheckID("image.unsupported")
    /// The declared pixel count is within the limit (decompression-bomb guard, checked on the header before decoding).
    package static let imageDimensions = CheckID("image.dimensions")
    /// The stored image is within the byte limit (1,000,000 by default), as uploaded or after re-encoding.
    package static let imageSize = CheckID("image.size")
    /// Whether the upload was re-encoded to fit, with the quality, scale and passes used and both SHA-256 digests.
    package static let imageReencoded = CheckID("image.reencoded")
    /// The uploads manifest is a JSON array of entries with file and type, each file present in the bundle.
    package static let imageManifest = CheckID("image.manifest")
    /// The document type is one of idCard, passport, driversLicense, residencePermit, other.
    package static let imageDocumentType = CheckID("image.documentType")
    /// A re-upload names an upload of the manifest with the same type and side, and the chain neither dangles nor loops.
    package static let imageReuploadChain = CheckID("image.reuploadChain")
    /// The scan SDK's dataSignature verifies over the original upload bytes.
    package static let imageDataSignature = CheckID("image.dataSignature")
}

extension CheckCatalogue {
    static let imageFamily: [CheckDefinition] = [
        CheckDefinition(
            .imageEmpty, clause: "Onboarding upload rule; 18013-5 n/a",
            "The upload has at least one byte.", failureClass: .policy),
        CheckDefinition(
            .imageNotAnImage, clause: "Onboarding upload rule; 18013-5 n/a",
            "The upload starts with a JPEG or PNG signature.", failureClass: .policy),
        CheckDefinition(
            .imageCorrupt, clause: "ITU-T T.81; ISO/IEC 15948; 18013-5 n/a",
            "The upload decodes without format errors.", failureClass: .policy),
        CheckDefinition(
            .imageTruncated, clause: "ITU-T T.81; ISO/IEC 15948; 18013-5 n/a",
            "The upload is complete (libjpeg/libpng did not run out of data).", failureClass: .policy),
        CheckDefinition(
            .imageUnsupported, clause: "mdocverify decoder support; 18013-5 n/a",
            "The upload uses a coding the decoder supports (8-bit JPEG, any standard PNG).", failureClass: .policy),
        CheckDefinition(
            .imageDimensions, clause: "mdocverify image limits; 18013-5 n/a",
            "The declared pixel count is within the limit (decompression-bomb guard, checked on the header before decoding).", failureClass: .policy),
        CheckDefinition(
            .imageSize, clause: "Onboarding upload rule: at most 1 MB; 18013-5 n/a",
            "The stored image is within the byte limit (1,000,000 by default), as uploaded or after re-encoding.", failureClass: .policy),
        CheckDefinition(
            .imageReencoded, clause: "Onboarding upload rule; 18013-5 n/a",
            "Whether the upload was re-encoded to fit, with the quality, scale and passes used and both SHA-256 digests.",
            required: false, failureClass: .policy),
        CheckDefinition(
            .imageManifest, clause: "mdocverify bundle layout (documents/manifest.json); 18013-5 n/a",
            "The uploads manifest is a JSON array of entries with file and type, each file present in the bundle.", failureClass: .policy),
        CheckDefinition(
            .imageDocumentType, clause: "Onboarding upload rule; 18013-5 n/a",
            "The document type is one of idCard, passport, driversLicense, residencePermit, other.", required: false, failureClass: .policy),
        CheckDefinition(
            .imageReuploadChain, clause: "Onboarding upload rule; 18013-5 n/a",
            "A re-upload names an upload of the manifest with the same type and side, and the chain neither dangles nor loops.", failureClass: .policy),
        CheckDefinition(
            .imageDataSignature, clause: "Onboarding upload rule; 18013-5 n/a",
            "The scan SDK's dataSignature verifies over the original upload bytes.", required: false),
    ]
}
