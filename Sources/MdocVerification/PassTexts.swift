import MdocChecks
import MdocCOSE
import MdocCrypto

/// Details and evidence of passing results that depend only on an algorithm, a curve or a
/// small count: the same for every response of a batch, so built once here instead of for every
/// verification (each a string, an evidence array, or both). Every text is built by the same
/// expression the verifier would otherwise evaluate; anything not in a table is built as before.
enum PassTexts {
    /// The counts tabulated (digests, documents).
    static let countLimit = 64

    /// `issuer.algorithm` pass: "<alg> with <curve>" and its evidence, for each supported
    /// signature algorithm and each curve it allows.
    struct AlgorithmPair: Sendable {
        let algorithm: COSEAlgorithm
        let curve: Curve
        let detail: String
        let evidence: [Evidence]
    }

    static let algorithmPairs: [AlgorithmPair] = {
        var pairs: [AlgorithmPair] = []
        for algorithm in signatureAlgorithms {
            for curve in Curve.all where algorithm.allows(curve) {
                let algEvidence = Evidence("alg", algorithm.description)
                pairs.append(AlgorithmPair(
                    algorithm: algorithm, curve: curve,
                    detail: String(concatenating: [algEvidence.value, " with ", curve.description]),
                    evidence: [algEvidence, Evidence("curve", curve.description)]))
            }
        }
        return pairs
    }()

    /// The signature algorithms whose evidence is tabulated.
    static let signatureAlgorithms: [COSEAlgorithm] = [.es256, .es384, .es512, .edDSA, .esp256, .esp384, .esp512, .ed25519, .ed448]

    /// `[Evidence("alg", algorithm.description)]` for each of ``signatureAlgorithms``.
    static let algorithmEvidence: [(algorithm: COSEAlgorithm, evidence: [Evidence])] =
        signatureAlgorithms.map { ($0, [Evidence("alg", $0.description)]) }

    static func algorithmPair(_ algorithm: COSEAlgorithm, _ curve: Curve) -> AlgorithmPair? {
        for index in algorithmPairs.indices where algorithmPairs[index].algorithm == algorithm {
            if algorithmPairs[index].curve == curve { return algorithmPairs[index] }
        }
        return nil
    }

    /// `[Evidence("alg", algorithm.description)]`.
    static func evidence(_ algorithm: COSEAlgorithm) -> [Evidence] {
        for index in algorithmEvidence.indices where algorithmEvidence[index].algorithm == algorithm {
            return algorithmEvidence[index].evidence
        }
        return [Evidence("alg", algorithm.description)]
    }

    /// `msoDeviceKey` pass: "<curve> device key", for every curve.
    static let deviceKeyTexts: [(curve: Curve, detail: String)] =
        Curve.all.map { ($0, String(concatenating: [$0.description, " device key"])) }

    static func deviceKeyText(_ curve: Curve) -> String {
        for index in deviceKeyTexts.indices where deviceKeyTexts[index].curve == curve { return deviceKeyTexts[index].detail }
        return String(concatenating: [curve.description, " device key"])
    }

    /// `responseDocuments` pass: "<n> document(s)".
    static let documentCounts: [String] = (0..<countLimit).map { String(concatenating: [String($0), " document(s)"]) }

    static func documentCount(_ count: Int) -> String {
        count >= 0 && count < documentCounts.count
            ? documentCounts[count] : String(concatenating: [String(count), " document(s)"])
    }

    /// `mso.digestId` pass: "all <n> digest ids present".
    static let digestIDCounts: [String] = (0..<countLimit).map { String(concatenating: ["all ", String($0), " digest ids present"]) }

    static func digestIDCount(_ total: Int) -> String {
        total >= 0 && total < digestIDCounts.count
            ? digestIDCounts[total] : String(concatenating: ["all ", String(total), " digest ids present"])
    }

    /// `mso.digest` pass, every digest matching: "<n> of <n> <alg> digests match" and its evidence.
    static let digestMatches: [(hash: HashFunction, texts: [(detail: String, evidence: [Evidence])])] =
        HashFunction.allCases.map { hash in (hash, (0..<countLimit).map { digestMatch(hash, $0) }) }

    static func digestMatch(_ hash: HashFunction, _ total: Int) -> (detail: String, evidence: [Evidence]) {
        (String(concatenating: [String(total), " of ", String(total), " ", hash.rawValue, " digests match"]),
         [Evidence("algorithm", hash.rawValue), Evidence("count", String(total))])
    }

    static func allDigestsMatch(_ hash: HashFunction, _ total: Int) -> (detail: String, evidence: [Evidence]) {
        guard total >= 0, total < countLimit else { return digestMatch(hash, total) }
        for index in digestMatches.indices where digestMatches[index].hash == hash { return digestMatches[index].texts[total] }
        return digestMatch(hash, total)
    }
}
