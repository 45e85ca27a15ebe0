import Foundation
import MdocImaging
import MdocVerification

extension FuzzTarget {
    /// Whole verifications against the trust folder of `Fuzz/fixtures/trust`.
    static let verificationTargets: [FuzzTarget] = [deviceResponse, session]

    static let deviceResponse = FuzzTarget(
        name: "device-response", summary: "DeviceResponse verification against a trust store (Verifier.verifyResponse)",
        prepare: { fixtures in
            let verifier = try fixtures.verifier()
            return { bytes in _ = verifier.verifyResponse(bytes) }
        },
        seeds: { fixtures in
            var seeds = [FuzzSeed("annexd", try fixtures.read("samples/annex-d/device-response.cbor"))]
            let verifier = try fixtures.verifier()
            for folder in try fixtures.sampleTransactions() {
                let pending = verifier.verify(try fixtures.transactionInputs(folder), services: FuzzFixtures.imageServices)
                guard let response = pending.facts.deviceResponseBytes else { continue }
                seeds.append(FuzzSeed("sample-\((folder as NSString).lastPathComponent)", response))
            }
            return seeds
        })

    /// A captured session: parts are the `mdoc:` engagement URI, the reader's ephemeral key
    /// (PKCS#8 PEM), SessionEstablishment and the SessionData messages, in that order.
    static let session = FuzzTarget(
        name: "session", summary: "SessionEstablishment and SessionData decryption with a reader key (Verifier.verify)",
        prepare: { fixtures in
            let verifier = try fixtures.verifier()
            return { bytes in
                let parts = FuzzParts.split(bytes)
                var inputs = TransactionInputs()
                inputs.engagementText = parts.first
                inputs.readerKeyPEM = parts.count > 1 ? parts[1] : nil
                inputs.sessionEstablishment = parts.count > 2 ? parts[2] : nil
                inputs.sessionData = Array(parts.dropFirst(3).prefix(8))
                _ = verifier.verify(inputs)
            }
        },
        seeds: { fixtures in
            var seeds: [FuzzSeed] = []
            for folder in try fixtures.sampleTransactions().prefix(12) {
                let inputs = try fixtures.transactionInputs(folder)
                let uri = inputs.engagementText ?? inputs.engagementImage.flatMap { EngagementImageReader.read($0).uri.map { Array($0.utf8) } }
                guard let uri, let key = inputs.readerKeyPEM, let establishment = inputs.sessionEstablishment else { continue }
                seeds.append(FuzzSeed("sample-\((folder as NSString).lastPathComponent)", FuzzParts.join([uri, key, establishment] + inputs.sessionData)))
            }
            return seeds
        })
}

extension FuzzFixtures {
    /// Reading engagement images, as the pipeline does.
    static let imageServices = VerificationServices(readEngagementImage: { EngagementImageReader.read($0) })

    /// A sample transaction folder's files as the verifier's inputs (what the pipeline reads).
    func transactionInputs(_ folder: String) throws -> TransactionInputs {
        func optional(_ name: String) -> [UInt8]? { FileManager.default.contents(atPath: url("\(folder)/\(name)").path).map(Array.init) }
        var inputs = TransactionInputs()
        inputs.metadataJSON = optional("transaction.json")
        inputs.engagementText = optional("engagement.txt")
        inputs.engagementImage = optional("engagement.png") ?? optional("engagement.jpg")
        inputs.sessionEstablishment = optional("session-establishment.cbor")
        inputs.readerKeyPEM = optional("reader-key.pem")
        inputs.sessionData = try files(in: folder).filter { $0.name.hasPrefix("session-data") }.map(\.bytes)
        return inputs
    }
}
