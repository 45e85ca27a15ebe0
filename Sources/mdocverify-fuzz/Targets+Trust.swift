import Foundation
import MdocCBOR
import MdocCrypto
import MdocSamples
import MdocTrust
import MdocTrustLists

extension FuzzTarget {
    /// Trust material: certificates, CRLs, trust folders, VICALs and status tokens.
    static let trustTargets: [FuzzTarget] = [x509, trustFolder, vical, status]

    /// The first byte picks the parser: even certificates, odd CRLs (PEM or DER, several allowed).
    static let x509 = FuzzTarget(
        name: "x509", summary: "certificates and CRLs (Certificate.parseAll, CRL.parseAll)",
        prepare: { fixtures in
            let anchors = try TrustStore(directory: fixtures.trustFolder).anchors
            return { bytes in
                guard let selector = bytes.first else { return }
                let body = Array(bytes.dropFirst())
                if selector % 2 == 0 {
                    for certificate in (try? Certificate.parseAll(pemOrDER: body)) ?? [] {
                        _ = (certificate.subject.rfc2253, certificate.issuer.rfc2253, certificate.extensions.count, certificate.pem)
                        _ = anchors.map { certificate.isSigned(by: $0) }
                    }
                } else {
                    for crl in (try? CRL.parseAll(pemOrDER: body)) ?? [] {
                        _ = (crl.issuer.rfc2253, crl.revocation(ofSerialHex: "01"), crl.revokedCount, crl.pem)
                        _ = anchors.map { crl.isSigned(by: $0) }
                    }
                }
            }
        },
        seeds: { fixtures in
            var seeds = try fixtures.files(in: "Fuzz/fixtures/trust").map {
                FuzzSeed($0.name, ($0.name.hasSuffix(".crl") ? [1] : [0]) + $0.bytes)
            }
            let vectors = "Tests/MdocTestSupport/Vectors"
            for name in ["iso18013-5/ds_cert.der", "iso18013-5/reader_cert.der", "vical-aamva/aamva_ca_root.crt"] {
                seeds.append(FuzzSeed((name as NSString).lastPathComponent, [0] + (try fixtures.read("\(vectors)/\(name)"))))
            }
            return seeds
        })

    /// A trust folder: each part is one file, named `N.pem`, `N.crl` or `N.der` by its first byte.
    static let trustFolder = FuzzTarget(
        name: "trust-folder", summary: "trust folders (TrustStore(directory:))",
        prepare: { fixtures in
            let folder = try fixtures.scratch("trust")
            let suffixes = ["pem", "crl", "der", "txt"]
            return { bytes in
                let manager = FileManager.default
                for name in (try? manager.contentsOfDirectory(atPath: folder.path)) ?? [] {
                    try? manager.removeItem(at: folder.appendingPathComponent(name))
                }
                for (i, part) in FuzzParts.split(bytes).prefix(16).enumerated() {
                    let suffix = suffixes[Int(part.first ?? 0) % suffixes.count]
                    try? Data(part.dropFirst()).write(to: folder.appendingPathComponent("\(i).\(suffix)"))
                }
                _ = try? TrustStore(directory: folder.path)
            }
        },
        seeds: { fixtures in
            let files = try fixtures.files(in: "Fuzz/fixtures/trust")
            let parts = files.map { ($0.name.hasSuffix(".crl") ? [1] : [0]) + $0.bytes }
            return [FuzzSeed("samples", FuzzParts.join(Array(parts.prefix(4)))), FuzzSeed("one", FuzzParts.join(Array(parts.prefix(1))))]
        })

    /// A VICAL or RICAL (the first byte picks the kind), decoded and checked against the list roots.
    static let vical = FuzzTarget(
        name: "vical", summary: "VICALs and RICALs (CertificateList(decoding:kind:), verify(anchors:at:))",
        prepare: { fixtures in
            let anchors = [try fixtures.listSigner().root]
                + (try Certificate.parseAll(pemOrDER: try fixtures.read("Tests/MdocTestSupport/Vectors/vical-aamva/aamva_ca_root.crt")))
            return { bytes in
                guard let selector = bytes.first else { return }
                let kind: CertificateListKind = selector % 2 == 0 ? .vical : .rical
                guard let list = try? CertificateList(decoding: bytes.dropFirst(), kind: kind) else { return }
                _ = list.verify(anchors: anchors, at: FuzzFixtures.verificationTime)
            }
        },
        seeds: { fixtures in
            let signer = try fixtures.listSigner()
            let iacas = try TrustStore(directory: fixtures.trustFolder).anchors
            let date = FuzzFixtures.verificationTime.addingTimeInterval(-86_400)
            var list = SampleCertificateList(kind: .vical, date: date, entries: iacas.prefix(3).map { SampleCertificateList.Entry(certificate: $0) })
            list.nextUpdate = date.addingTimeInterval(30 * 86_400)
            var rical = SampleCertificateList(kind: .rical, date: date, entries: iacas.prefix(1).map { SampleCertificateList.Entry(certificate: $0) })
            rical.tagged = true
            return [
                FuzzSeed("aamva", [0] + (try fixtures.read(aamvaVICAL))),
                FuzzSeed("generated-vical", [0] + (try list.signed(by: signer))),
                FuzzSeed("generated-rical", [1] + (try rical.signed(by: signer))),
            ]
        })

    /// Status list and identifier list tokens (18013-5 second edition §12.3.6).
    static let status = FuzzTarget(
        name: "status", summary: "status list and identifier list tokens (StatusToken(decoding:))",
        prepare: { _ in
            { bytes in
                guard let token = try? StatusToken(decoding: bytes[...]) else { return }
                _ = token.claims.envelope.verifySignature()
                switch token {
                case .statusList(let list): _ = (list.status(at: 0), list.status(at: 7), list.status(at: UInt64.max))
                case .identifierList(let list): _ = list.contains([1, 2, 3])
                }
            }
        },
        seeds: { fixtures in
            let signer = try fixtures.listSigner()
            let issued = FuzzFixtures.verificationTime.addingTimeInterval(-3_600)
            var tagged = SampleStatusToken(uri: "https://status.example/2", issuedAt: issued, validFor: 86_400, content: .statusList(bits: 2, values: [0, 1, 2, 3, 0]))
            tagged.cwtTag = true
            return [
                FuzzSeed("status-1bit", try SampleStatusToken(uri: "https://status.example/1", issuedAt: issued, validFor: 86_400, content: .statusList(bits: 1, values: [0, 1, 0, 0, 1, 1, 0, 0, 1])).signed(by: signer)),
                FuzzSeed("status-2bit-cwt", try tagged.signed(by: signer)),
                FuzzSeed("identifiers", try SampleStatusToken(uri: "https://status.example/ids", issuedAt: issued, validFor: 86_400, content: .identifierList([[1, 2, 3], [4, 5]])).signed(by: signer)),
            ]
        })
}
