package import MdocCBOR
package import MdocCrypto

/// ISO 18013-5 §9.1.5.1 SessionTranscript, kept as received.
///
/// ```
/// SessionTranscriptBytes = #6.24(bstr .cbor SessionTranscript)
/// SessionTranscript = [ DeviceEngagementBytes, EReaderKeyBytes, Handover ]
/// ```
/// ``bytes`` is SessionTranscriptBytes (the tag-24 wrapped form): the HKDF salt of §9.1.1.5 is
/// SHA-256 over exactly these bytes (Annex D confirms the tag is part of what is hashed), and
/// DeviceAuthentication/ReaderAuthentication embed ``transcript`` (the inner array) verbatim.
package struct SessionTranscript: Sendable {
    /// SessionTranscriptBytes: `#6.24(bstr .cbor SessionTranscript)`.
    package let bytes: [UInt8]
    /// The SessionTranscript array, its `encoded` slice exactly as received.
    package let transcript: CBOR
    package let deviceEngagementBytes: CBOR
    package let eReaderKeyBytes: CBOR
    package let handover: CBOR

    /// Accepts SessionTranscriptBytes (tag 24 around the array) or the bare SessionTranscript
    /// array; in the second case the tag-24 wrapper is added around the received bytes (the
    /// array itself is not re-encoded).
    package init(decoding input: [UInt8]) throws {
        let outer: CBOR
        do {
            outer = try CBOR(decoding: input)
        } catch {
            throw ModelError(.invalidEmbedded, "SessionTranscript", "not well-formed CBOR: \(error)")
        }
        let bytes: [UInt8]
        if outer.tag == 24 {
            bytes = input
        } else {
            bytes = CBORNode.embedded(raw: outer.encoded).encoded()
        }
        let wrapper: CBOR
        do {
            wrapper = try CBOR(decoding: bytes)
        } catch {
            throw ModelError(.invalidEmbedded, "SessionTranscriptBytes", "not well-formed CBOR: \(error)")
        }
        let transcript = try wrapper.requireEmbedded(at: "SessionTranscriptBytes")
        guard let array = transcript.array, array.count == 3 else {
            throw ModelError(.wrongType, "SessionTranscript", "not an array of 3 items")
        }
        self.bytes = bytes
        self.transcript = transcript
        self.deviceEngagementBytes = array[0]
        self.eReaderKeyBytes = array[1]
        self.handover = array[2]
    }

    /// Builds SessionTranscriptBytes for QR engagement (§9.1.5.1, Handover = null) from the exact
    /// received encodings of DeviceEngagementBytes and EReaderKeyBytes (both `#6.24` items).
    package init(deviceEngagementBytes: ArraySlice<UInt8>, eReaderKeyBytes: ArraySlice<UInt8>, handover: CBORNode = .null)
        throws
    {
        let array = CBORNode.array([.raw(deviceEngagementBytes), .raw(eReaderKeyBytes), handover])
        try self.init(decoding: CBORNode.embedded(array).encoded())
    }

    /// SHA-256(SessionTranscriptBytes): the HKDF salt for session keys and EMacKey (§9.1.1.5, §9.1.3.5).
    package var hkdfSalt: [UInt8] { HashFunction.sha256.hash(bytes) }
}

/// ISO 18013-5 §9.1.3.4 DeviceAuthenticationBytes.
///
/// ```
/// DeviceAuthentication = [ "DeviceAuthentication", SessionTranscript, DocType, DeviceNameSpacesBytes ]
/// DeviceAuthenticationBytes = #6.24(bstr .cbor DeviceAuthentication)
/// ```
/// Built from the received encodings of the transcript, the docType and DeviceNameSpacesBytes.
package func deviceAuthenticationBytes(
    transcript: SessionTranscript, docType: CBOR, deviceNameSpacesBytes: CBOR
) -> [UInt8] {
    // #6.24(bstr .cbor [ "DeviceAuthentication", transcript, docType, DeviceNameSpacesBytes ]),
    // written straight into one buffer of the final size (the parts are copied once, as received).
    let context: StaticString = "DeviceAuthentication"
    // The three parts by name, not in an array (which would be an allocation per document).
    let transcriptBytes = transcript.transcript.encoded
    let docTypeBytes = docType.encoded
    let nameSpacesBytes = deviceNameSpacesBytes.encoded
    let innerCount = 1 + 1 + context.utf8CodeUnitCount + transcriptBytes.count + docTypeBytes.count + nameSpacesBytes.count
    var out: [UInt8] = []
    out.reserveCapacity(2 + 9 + innerCount)
    CBORNode.appendHead(major: 6, 24, to: &out)
    CBORNode.appendHead(major: 2, UInt64(innerCount), to: &out)
    CBORNode.appendHead(major: 4, 4, to: &out)
    CBORNode.appendHead(major: 3, UInt64(context.utf8CodeUnitCount), to: &out)
    out.append(contentsOf: UnsafeBufferPointer(start: context.utf8Start, count: context.utf8CodeUnitCount))
    out.append(contentsOf: transcriptBytes)
    out.append(contentsOf: docTypeBytes)
    out.append(contentsOf: nameSpacesBytes)
    return out
}
