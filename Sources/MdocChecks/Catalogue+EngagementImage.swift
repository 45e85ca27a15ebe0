extension CheckID {
    /// The engagement image has at least one byte.
    package static let engagementImageEmpty = CheckID("engagement.image.empty")
    /// The engagement image starts with a JPEG or PNG signature.
    package static let engagementImageNotAnImage = CheckID("engagement.image.notAnImage")
    /// The engagement image is complete (libjpeg/libpng did not run out of data).
    package static let engagementImageTruncated = CheckID("engagement.image.truncated")
    /// The engagement image decodes without format errors.
    package static let engagementImageCorrupt = CheckID("engagement.image.corrupt")
    /// The engagement image uses a coding the decoder supports (8-bit JPEG, any standard PNG).
    package static let engagementImageUnsupported = CheckID("engagement.image.unsupported")
    /// The engagement image is within the byte and pixel-count limits (checked on the header, before decoding).
    package static let engagementImageTooLarge = CheckID("engagement.image.tooLarge")
    /// The engagement image holds a QR code zbar can decode.
    package static let engagementQrNotFound = CheckID("engagement.qr.notFound")
    /// A decoded QR code carries an mdoc: URI (the others found are listed).
    package static let engagementQrNotMdoc = CheckID("engagement.qr.notMdoc")
    /// A QR code with an mdoc: device engagement URI was decoded from the image.
    package static let engagementQrDecoded = CheckID("engagement.qr.decoded")
}

extension CheckCatalogue {
    static let engagementImageFamily: [CheckDefinition] = [
        CheckDefinition(
            .engagementImageEmpty, clause: "18013-5 §8.2.2.3; §8.2.1",
            "The engagement image has at least one byte."),
        CheckDefinition(
            .engagementImageNotAnImage, clause: "18013-5 §8.2.2.3; §8.2.1",
            "The engagement image starts with a JPEG or PNG signature."),
        CheckDefinition(
            .engagementImageTruncated, clause: "18013-5 §8.2.2.3; ITU-T T.81; ISO/IEC 15948",
            "The engagement image is complete (libjpeg/libpng did not run out of data)."),
        CheckDefinition(
            .engagementImageCorrupt, clause: "18013-5 §8.2.2.3; ITU-T T.81; ISO/IEC 15948",
            "The engagement image decodes without format errors."),
        CheckDefinition(
            .engagementImageUnsupported, clause: "18013-5 §8.2.2.3; mdocverify decoder support",
            "The engagement image uses a coding the decoder supports (8-bit JPEG, any standard PNG)."),
        CheckDefinition(
            .engagementImageTooLarge, clause: "mdocverify image limits",
            "The engagement image is within the byte and pixel-count limits (checked on the header, before decoding)."),
        CheckDefinition(
            .engagementQrNotFound, clause: "18013-5 §8.2.2.3; ISO/IEC 18004",
            "The engagement image holds a QR code zbar can decode."),
        CheckDefinition(
            .engagementQrNotMdoc, clause: "18013-5 §8.2.2.3",
            "A decoded QR code carries an mdoc: URI (the others found are listed)."),
        CheckDefinition(
            .engagementQrDecoded, clause: "18013-5 §8.2.2.3; §8.2.1",
            "A QR code with an mdoc: device engagement URI was decoded from the image."),
    ]
}
