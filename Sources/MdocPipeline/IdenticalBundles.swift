package import MdocIngest

extension Orchestrator {
    /// Verifies a batch's bundles (``verifyDistinct(_:)``); results in the bundles' order.
    ///
    /// Identical bundles (one content hash) are one transaction: verified and signed once, the
    /// copies shown under their own names with the same result and proof, so that a run never
    /// holds two proofs for one reference code.
    func verifyConcurrently(_ bundles: [(Int, TransactionBundle)]) async -> [Processed] {
        var firstOf: [String: Int] = [:]
        var distinct: [(Int, TransactionBundle)] = []
        let slots = bundles.map { bundle in
            if let slot = firstOf[bundle.1.contentHashHex] { return slot }
            firstOf[bundle.1.contentHashHex] = distinct.count
            distinct.append(bundle)
            return distinct.count - 1
        }
        let processed = await verifyDistinct(distinct)
        guard distinct.count < bundles.count else { return processed }
        var shown = Set<Int>()
        return zip(bundles, slots).map { bundle, slot in
            guard shown.insert(slot).inserted else { return copy(processed[slot], as: bundle.1) }
            return processed[slot]
        }
    }

    /// The result of an identical bundle shown under `bundle`'s name and path.
    func copy(_ processed: Processed, as bundle: TransactionBundle) -> Processed {
        var copy = processed
        copy.report.inputPath = bundle.source
        if var verified = processed.verified, let outcome = processed.outcome {
            verified.name = verified.metadata.id ?? bundle.name
            verified.inputPath = bundle.source
            copy.report.name = verified.name
            copy.verified = verified
            copy.outcome = makeOutcome(
                verified, responseSHA256: processed.responseSHA256, proof: outcome.proof)
        } else {
            copy.report.name = bundle.name
        }
        return copy
    }
}
