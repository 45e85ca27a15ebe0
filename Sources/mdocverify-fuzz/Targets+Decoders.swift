import Foundation
import MdocBLE
import MdocCBOR
import MdocCOSE
import MdocCrypto
import MdocImaging
import MdocModel
import MdocVerification

/// The Annex D vectors (ISO 18013-5 Annex D) used as seeds, by file name.
let annexDVectors = "Tests/MdocTestSupport/Vectors/iso18013-5"

extension FuzzTarget {
    /// Decoders of bytes that need no trust material.
    static let decoderTargets: [FuzzTarget] = [cbor, cose, engagement, metadata, image, scanManifest, ble]

    static let cbor = FuzzTarget(
        name: "cbor", summary: "CBOR(decoding:options:) and the diagnostic notation of what decodes",
        prepare: { _ in
            { bytes in
                guard let item = try? CBOR(decoding: bytes) else { return }
                _ = item.diagnostic()
            }
        },
        seeds: { fixtures in
            let names = [
                "device_engagement", "device_request", "device_response", "issuer_auth", "items_request", "session_data",
                "session_establishment", "session_transcript_bytes", "device_auth", "reader_auth",
            ]
            var seeds = try names.map { FuzzSeed("annexd-\($0)", try fixtures.hex("\(annexDVectors)/\($0).hex")) }
            seeds.append(FuzzSeed("aamva-vical", try fixtures.read(aamvaVICAL)))
            return seeds
        })

    /// The first byte picks the structure: 0 COSE_Sign1, 1 COSE_Mac0, 2 COSE_Key, 3 COSE_Encrypt.
    static let cose = FuzzTarget(
        name: "cose", summary: "COSE_Sign1 / COSE_Mac0 / COSE_Key / COSE_Encrypt decoding, verification and opening",
        prepare: { _ in
            let signer = try PrivateKey.generate(curve: .p256)
            let macKey = SecureBytes(Array(repeating: 7, count: 32))
            return { bytes in
                guard let selector = bytes.first else { return }
                let body = Array(bytes.dropFirst())
                switch selector % 4 {
                case 0:
                    guard let sign1 = try? COSESign1(decoding: body) else { return }
                    _ = try? sign1.verify(with: signer.publicKey, detachedPayload: sign1.payload == nil ? [1][...] : nil)
                case 1:
                    guard let item = try? CBOR(decoding: body), let mac0 = try? COSEMac0(item) else { return }
                    _ = try? mac0.verify(key: macKey, detachedPayload: mac0.payload == nil ? [1][...] : nil)
                case 2:
                    guard let item = try? CBOR(decoding: body), let key = try? COSEKey(item) else { return }
                    _ = try? key.publicKey()
                default:
                    guard let message = try? COSEEncrypt(decoding: body) else { return }
                    _ = try? message.open(with: signer)
                }
            }
        },
        seeds: { fixtures in
            let key = try PrivateKey.generate(curve: .p256)
            let eDeviceKeyBytes = try CBOR(decoding: try fixtures.hex("\(annexDVectors)/e_device_key_bytes.hex"))
            guard let coseKey = eDeviceKeyBytes.embeddedBytes else { throw FuzzSetupError("EDeviceKeyBytes is not embedded CBOR") }
            let mac = try COSEMac0.mac(payload: [1, 2, 3], key: SecureBytes(Array(repeating: 7, count: 32)), detached: false, tagged: true)
            let encrypted = try COSEEncrypt.seal([1, 2, 3], to: key.publicKey, keyID: [1])
            return [
                FuzzSeed("sign1-issuer-auth", [0] + (try fixtures.hex("\(annexDVectors)/issuer_auth.hex"))),
                FuzzSeed("sign1-reader-auth", [0] + (try fixtures.hex("\(annexDVectors)/reader_auth.hex"))),
                FuzzSeed("sign1-signed", [0] + (try COSESign1.sign(payload: [1, 2, 3], key: key))),
                FuzzSeed("mac0", [1] + mac),
                FuzzSeed("key-annexd-edevice", [2] + Array(coseKey)),
                FuzzSeed("key-p384", [2] + (try COSEKey.node(for: try PrivateKey.generate(curve: .p384).publicKey).encoded())),
                FuzzSeed("key-ed25519", [2] + (try COSEKey.node(for: try PrivateKey.generate(curve: .ed25519).publicKey).encoded())),
                FuzzSeed("encrypt", [3] + encrypted),
            ]
        })

    /// `engagement.txt`: an `mdoc:` URI, through the verifier's engagement checks.
    static let engagement = FuzzTarget(
        name: "engagement", summary: "mdoc: URIs and DeviceEngagement, through Verifier.verify",
        prepare: { fixtures in
            let verifier = try fixtures.verifier()
            return { bytes in
                var inputs = TransactionInputs()
                inputs.engagementText = bytes
                _ = verifier.verify(inputs)
                if let item = try? CBOR(decoding: bytes) { _ = try? DeviceEngagement(item) }
            }
        },
        seeds: { fixtures in
            var seeds = [
                FuzzSeed("annexd-uri", try fixtures.read("\(annexDVectors)/device_engagement_qr_uri.txt")),
                FuzzSeed("annexd-cbor", try fixtures.hex("\(annexDVectors)/device_engagement.hex")),
            ]
            for folder in try fixtures.sampleTransactions() where FileManager.default.fileExists(atPath: fixtures.url("\(folder)/engagement.txt").path) {
                seeds.append(FuzzSeed("sample-\((folder as NSString).lastPathComponent)", try fixtures.read("\(folder)/engagement.txt")))
            }
            return seeds
        })

    static let metadata = FuzzTarget(
        name: "metadata", summary: "transaction.json (TransactionMetadata(json:))",
        prepare: { _ in { bytes in _ = try? TransactionMetadata(json: bytes) } },
        seeds: { fixtures in
            try fixtures.sampleTransactions().prefix(8).map {
                FuzzSeed("sample-\(($0 as NSString).lastPathComponent)", try fixtures.read("\($0)/transaction.json"))
            }
        })

    /// Engagement QR images: JPEG/PNG header probe, decoding within small limits, and zbar.
    static let image = FuzzTarget(
        name: "image", summary: "JPEG/PNG decoding and the QR reader (EngagementImageReader.read)",
        prepare: { _ in
            let limits = ImageLimits(maxInputBytes: 1 << 20, maxPixels: 4_000_000)
            return { bytes in
                _ = try? ImageCodec.probe(bytes)
                _ = EngagementImageReader.read(bytes, limits: limits)
            }
        },
        seeds: { fixtures in
            try ["annexd-qr.png", "not-mdoc.png", "scan-16bit.png", "scan-palette-alpha.png", "two-codes.png", "scan-exif6.jpg", "scan-progressive.jpg", "scan-gray.jpg"]
                .map { FuzzSeed($0, try fixtures.read("Tests/MdocImagingTests/Fixtures/\($0)")) }
        })

    /// `documents/manifest.json` of document-scan uploads, with one small scan the manifest may name.
    static let scanManifest = FuzzTarget(
        name: "scan-manifest", summary: "the document-scan manifest (DocumentUploads.process)",
        prepare: { fixtures in
            let scan = try fixtures.read("Tests/MdocImagingTests/Fixtures/scan-exif6.jpg")
            let files = ["front.jpg": scan, "back.jpg": scan]
            return { bytes in
                _ = DocumentUploads.process(manifest: bytes, files: files, limit: 20_000, verifySignature: { _, signature in signature.count == 3 })
            }
        },
        seeds: { fixtures in
            let sample = try fixtures.sampleTransactions().filter { $0.contains("scan-") }.prefix(2).map {
                FuzzSeed("sample-\(($0 as NSString).lastPathComponent)", try fixtures.read("\($0)/documents/manifest.json"))
            }
            let both = #"[{"file":"front.jpg","id":"a","type":"driversLicense","side":"front","dataSignature":"AQID"},"#
                + #"{"file":"back.jpg","id":"b","type":"driversLicense","side":"back","replaces":"a"}]"#
            return sample + [FuzzSeed("front-back", Array(both.utf8))]
        })

    /// BLE chunks (ISO 18013-5 §8.3.3.1.1.6): each part is one chunk; reassembled messages are
    /// decoded as SessionData, as the transport does.
    static let ble = FuzzTarget(
        name: "ble", summary: "BLE chunk reassembly (BLEReassembler) and the messages it yields",
        prepare: { _ in
            { bytes in
                var reassembler = BLEReassembler(limit: 1 << 16)
                for chunk in FuzzParts.split(bytes) {
                    guard let message = try? reassembler.add(chunk) else { continue }
                    if let item = try? CBOR(decoding: message) { _ = try? SessionData(item) }
                }
            }
        },
        seeds: { fixtures in
            let data = try fixtures.hex("\(annexDVectors)/session_data.hex")
            let establishment = try fixtures.hex("\(annexDVectors)/session_establishment.hex")
            return [
                FuzzSeed("session-data-20", FuzzParts.join(BLEFraming.chunks(data, chunkSize: 20))),
                FuzzSeed("establishment-185", FuzzParts.join(BLEFraming.chunks(establishment, chunkSize: 185))),
                FuzzSeed("termination", FuzzParts.join(BLEFraming.chunks(try fixtures.hex("\(annexDVectors)/session_termination.hex"), chunkSize: 512))),
            ]
        })
}
