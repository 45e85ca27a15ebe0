import MdocCBOR
import MdocTestSupport
import XCTest

/// ISO/IEC 18013-5 Annex D worked example: zero-copy decoding, exact received bytes of nested
/// items, and tag-24 embedded items decoded in place.
final class AnnexDTests: XCTestCase {
    func testAnnexD_4_1_2_deviceResponseTopLevelBytesAreTheInput() throws {
        let input = try AnnexD.deviceResponse()
        let response = try CBOR(decoding: input)
        XCTAssertEqual(Array(response.encoded), input)
        XCTAssertEqual(response.encoded.indices, input.indices)
        let map = try response.asMap()
        XCTAssertEqual(map["version"]?.text, "1.0")
        XCTAssertEqual(map["status"]?.uint, 0)
        XCTAssertEqual(map["documents"]?.array?.count, 1)
    }

    func testAnnexD_5_2_issuerAuthIsTheExactReceivedSlice() throws {
        let input = try AnnexD.deviceResponse()
        let response = try CBOR(decoding: input)
        let document = try XCTUnwrap(response.map?["documents"]?.array?.first?.map)
        XCTAssertEqual(document["docType"]?.text, "org.iso.18013.5.1.mDL")
        let issuerAuth = try XCTUnwrap(document["issuerSigned"]?.map?["issuerAuth"])
        XCTAssertEqual(Array(issuerAuth.encoded), try AnnexD.issuerAuth())
        // The slice points into the original buffer, at the position where the bytes are.
        XCTAssertEqual(input[issuerAuth.encoded.indices], issuerAuth.encoded)
        XCTAssertGreaterThan(issuerAuth.encoded.startIndex, 0)

        // COSE_Sign1 = [protected, unprotected, payload, signature].
        let sign1 = try issuerAuth.asArray()
        XCTAssertEqual(sign1.count, 4)
        XCTAssertEqual(Array(try sign1[0].asBytes()), [0xa1, 0x01, 0x26])
        let x5chain = try XCTUnwrap(sign1[1].map?[33 as Int64]?.bytes)
        XCTAssertEqual(Array(x5chain), try AnnexD.dsCertificateDER())
        XCTAssertEqual(try sign1[3].asBytes().count, 64)
    }

    func testAnnexD_5_2_msoDecodedInPlaceThroughTag24() throws {
        let input = try AnnexD.deviceResponse()
        let response = try CBOR(decoding: input)
        let issuerAuth = try XCTUnwrap(
            response.map?["documents"]?.array?.first?.map?["issuerSigned"]?.map?["issuerAuth"]?.array)
        // The payload bstr holds MobileSecurityObjectBytes = #6.24(bstr .cbor MSO).
        let payload = try issuerAuth[2].asBytes()
        let msoBytes = try CBOR(decoding: payload)
        XCTAssertEqual(msoBytes.tag, 24)
        XCTAssertEqual(msoBytes.encoded.indices, payload.indices)
        let mso = try msoBytes.decodeEmbedded()
        let msoMap = try mso.asMap()
        XCTAssertEqual(msoMap["docType"]?.text, "org.iso.18013.5.1.mDL")
        XCTAssertEqual(msoMap["digestAlgorithm"]?.text, "SHA-256")
        XCTAssertEqual(msoMap["version"]?.text, "1.0")
        XCTAssertEqual(msoMap["valueDigests"]?.map?["org.iso.18013.5.1"]?.map?.count, 13)
        XCTAssertEqual(msoMap["valueDigests"]?.map?["org.iso.18013.5.1.US"]?.map?.count, 4)
        let validity = try XCTUnwrap(msoMap["validityInfo"]?.map)
        XCTAssertEqual(validity["signed"]?.tag, 0)
        XCTAssertEqual(validity["validFrom"]?.tagContent?.text, "2020-10-01T13:30:02Z")
        XCTAssertEqual(validity["validUntil"]?.tagContent?.text, "2021-10-01T13:30:02Z")

        // Every slice, however deep, indexes into the same original buffer.
        XCTAssertEqual(input[mso.encoded.indices], mso.encoded)
        let docType = try XCTUnwrap(msoMap["docType"])
        XCTAssertEqual(input[docType.encoded.indices], docType.encoded)
        XCTAssertEqual(Array(docType.encoded.prefix(1)), [0x75])  // text string of 21 bytes
        XCTAssertEqual(mso.encoded.endIndex, msoBytes.encoded.endIndex)
    }

    func testAnnexD_4_1_2_issuerSignedItemsAndPortraitAreZeroCopy() throws {
        let input = try AnnexD.deviceResponse()
        let response = try CBOR(decoding: input)
        let nameSpaces = try XCTUnwrap(
            response.map?["documents"]?.array?.first?.map?["issuerSigned"]?.map?["nameSpaces"]?.map)
        let items = try XCTUnwrap(nameSpaces["org.iso.18013.5.1"]?.array)
        XCTAssertEqual(items.count, 6)
        var identifiers: [String] = []
        for itemBytes in items {
            // IssuerSignedItemBytes begin d8 18 58 .. or d8 18 59 .. .. (README fact 9).
            XCTAssertEqual(Array(itemBytes.encoded.prefix(2)), [0xd8, 0x18])
            let item = try itemBytes.decodeEmbedded().asMap()
            XCTAssertEqual(item.count, 4)
            XCTAssertEqual(try item["random"]?.asBytes().count, 32)
            let identifier = try XCTUnwrap(item["elementIdentifier"]?.text)
            identifiers.append(identifier)
            if identifier == "family_name" { XCTAssertEqual(item["elementValue"]?.text, "Doe") }
            if identifier == "issue_date" {
                XCTAssertEqual(item["elementValue"]?.tag, 1004)
                XCTAssertEqual(item["elementValue"]?.tagContent?.text, "2019-10-20")
            }
            if identifier == "portrait" {
                let portrait = try XCTUnwrap(item["elementValue"]?.bytes)
                XCTAssertEqual(Array(portrait), try AnnexD.portraitJPEG())
                XCTAssertEqual(input[portrait.indices], portrait)
            }
        }
        XCTAssertEqual(
            identifiers.sorted(),
            ["document_number", "driving_privileges", "expiry_date", "family_name", "issue_date", "portrait"])
    }

    func testAnnexD_5_3_deviceAuthMatchesTheVector() throws {
        let input = try AnnexD.deviceResponse()
        let response = try CBOR(decoding: input)
        let deviceSigned = try XCTUnwrap(response.map?["documents"]?.array?.first?.map?["deviceSigned"]?.map)
        let deviceAuth = try XCTUnwrap(deviceSigned["deviceAuth"])
        XCTAssertEqual(Array(deviceAuth.encoded), try AnnexD.deviceAuth())
        // DeviceNameSpacesBytes = #6.24(h'a0').
        let nameSpaces = try XCTUnwrap(deviceSigned["nameSpaces"])
        XCTAssertEqual(Array(nameSpaces.encoded), [0xd8, 0x18, 0x41, 0xa0])
        XCTAssertEqual(try nameSpaces.decodeEmbedded().map?.count, 0)
        let mac0 = try XCTUnwrap(deviceAuth.map?["deviceMac"]?.array)
        XCTAssertTrue(mac0[2].isNull)  // detached payload
    }

    func testAnnexD_4_1_1_deviceRequestAndReaderAuth() throws {
        let input = try AnnexD.deviceRequest()
        let request = try CBOR(decoding: input)
        XCTAssertEqual(Array(request.encoded), input)
        let docRequest = try XCTUnwrap(request.map?["docRequests"]?.array?.first?.map)
        XCTAssertEqual(request.map?["version"]?.text, "1.0")
        let itemsRequest = try XCTUnwrap(docRequest["itemsRequest"])
        XCTAssertEqual(Array(try XCTUnwrap(itemsRequest.embeddedBytes)), try AnnexD.itemsRequest())
        XCTAssertEqual(try itemsRequest.decodeEmbedded().map?["docType"]?.text, "org.iso.18013.5.1.mDL")
        XCTAssertEqual(Array(try XCTUnwrap(docRequest["readerAuth"]).encoded), try AnnexD.readerAuth())
    }

    func testAnnexD_5_1_sessionTranscriptNestedEmbeddedItems() throws {
        let input = try AnnexD.sessionTranscriptBytes()
        let transcriptBytes = try CBOR(decoding: input)
        let transcript = try transcriptBytes.decodeEmbedded().asArray()
        XCTAssertEqual(transcript.count, 3)
        let engagement = try transcript[0].decodeEmbedded().asMap()
        XCTAssertEqual(engagement[0 as Int64]?.text, "1.0")
        let eReaderKey = try transcript[1].decodeEmbedded().asMap()
        XCTAssertEqual(eReaderKey[key: 1]?.uint, 2)  // kty EC2
        XCTAssertEqual(eReaderKey[key: -1]?.uint, 1)  // crv P-256
        XCTAssertEqual(input[eReaderKey.keys[0].encoded.indices], eReaderKey.keys[0].encoded)
        // EReaderKeyBytes are the same bytes as in SessionEstablishment.
        let establishment = try CBOR(decoding: try AnnexD.sessionEstablishment())
        XCTAssertEqual(establishment.map?["eReaderKey"]?.encoded, transcript[1].encoded)
    }

    /// README fact 14: these Annex D structures are deterministically encoded, so our encoder
    /// reproduces them byte for byte from their decoded values.
    func testAnnexD_deterministicStructuresReencodeIdentically() throws {
        for input in [
            try AnnexD.deviceEngagement(), try AnnexD.issuerAuth(), try AnnexD.deviceAuth(),
            try AnnexD.sessionTranscriptBytes(), try AnnexD.eDeviceKeyBytes(),
        ] {
            let item = try CBOR(decoding: input, options: .strict)
            XCTAssertEqual(CBORNode(item).encoded(), input)
        }
    }

    /// Structures whose maps are not in deterministic key order re-encode to other bytes, which
    /// is why nothing may be hashed after re-encoding; the values survive the round trip.
    func testAnnexD_deviceResponseRoundTripsByValue() throws {
        let input = try AnnexD.deviceResponse()
        let item = try CBOR(decoding: input)
        let reencoded = CBORNode(item).encoded()
        XCTAssertEqual(reencoded.count, input.count)
        XCTAssertNotEqual(reencoded, input)  // its maps are in received order, not §4.2.1 order
        let again = try CBOR(decoding: reencoded, options: .strict)
        XCTAssertEqual(CBORNode(again).encoded(), reencoded)
        // issuerAuth is deterministically encoded (README fact 14), so it survives unchanged.
        let issuerAuth = again.map?["documents"]?.array?.first?.map?["issuerSigned"]?.map?["issuerAuth"]
        XCTAssertEqual(issuerAuth.map { Array($0.encoded) }, try AnnexD.issuerAuth())
    }
}

extension AnnexD {
    /// EDeviceKeyBytes (`#6.24(COSE_Key)`), D.3.1.
    static func eDeviceKeyBytes() throws -> [UInt8] { try hex("e_device_key_bytes.hex") }
}
