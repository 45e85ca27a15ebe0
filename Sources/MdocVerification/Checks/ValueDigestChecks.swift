package import Foundation
package import MdocCBOR
package import MdocChecks
package import MdocCrypto
package import MdocModel

/// The disclosed IssuerSignedItems (§8.3.2.1.2.2): each IssuerSignedItemBytes of the
/// document's nameSpaces is read; a malformed one fails `mso.digest` (its digest cannot be
/// matched to anything). Publishes the items, in received order, and lists them in the findings.
struct DisclosureCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.msoDigest]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document)]

    func run(_ context: inout CheckContext) {
        // The facts are read field by field: binding a whole Document copies (retains) every
        // buffer it holds, once per check and document.
        guard let nameSpaces = context.document.document?.issuerSigned.nameSpaces else { return }
        let subject = context.document.subject
        let keepValues = context.settings.keepValues
        let count = nameSpaces.reduce(0) { $0 + $1.items.count }
        var disclosures: [ArraySlice<UInt8>] = []
        disclosures.reserveCapacity(count)
        context.document.findings.elements.reserveCapacity(count)
        for (namespace, items) in nameSpaces {
            let issuing = namespace == IssuingCountryCheck.namespace
            // By index: the items are read through CBORArray's own subscript, not the generic iterator.
            for position in 0..<items.count {
                do {
                    let item = try IssuerSignedItem(items[position], path: namespace, decodingValue: keepValues || issuing)
                    if issuing { Self.noteIssuing(item, &context.document) }
                    disclosures.append(item.itemBytes)
                    context.document.findings.elements.append(DisclosedElement(
                        namespace: namespace, identifier: item.elementIdentifier, digestID: item.digestID, digest: nil,
                        verified: false, deviceSigned: false, value: keepValues ? item.elementValue : nil))
                } catch {
                    context.report(CheckResult(
                        .msoDigest, .fail, "IssuerSignedItemBytes \(position) of \(namespace) malformed: \(error)",
                        subject: "\(subject)/\(namespace)[\(position)]"))
                }
            }
        }
        context.document.disclosures = disclosures
        context.document.issuerSignedItemCount = count
    }

    /// Keeps the first `issuing_country` and `issuing_jurisdiction` of the mDL namespace for
    /// ``IssuingCountryCheck`` (their text, `.some(nil)` when not a text string).
    static func noteIssuing(_ item: IssuerSignedItem, _ document: inout DocumentFacts) {
        switch item.elementIdentifier {
        case "issuing_country" where document.issuingCountry == nil:
            document.issuingCountry = .some(item.elementValue?.text)
        case "issuing_jurisdiction" where document.issuingJurisdiction == nil:
            document.issuingJurisdiction = .some(item.elementValue?.text)
        default:
            break
        }
    }
}

/// `mso.digest` and `mso.digestId` (§9.1.2.5, §9.3.1): each disclosed IssuerSignedItemBytes,
/// hashed exactly as received with the MSO's digest algorithm, equals the digest the MSO holds
/// for its namespace and digestID. Needs the MSO's digest function: without an MSO, or with an
/// algorithm this build does not support, both are `unchecked`.
struct ValueDigestCheck: Check {
    var ids: [CheckID] { Self.ids }
    static let ids: [CheckID] = [.msoDigest, .msoDigestId]
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document), .needs(.digestFunction)]

    func run(_ context: inout CheckContext) {
        guard let hash = context.document.digestFunction, let valueDigests = context.document.mso?.valueDigests else { return }
        let subject = context.document.subject
        let total = context.document.issuerSignedItemCount
        guard total > 0 else {
            context.report(CheckResult(.msoDigest, .skipped, "no issuer-signed element disclosed", subject: subject))
            context.report(CheckResult(.msoDigestId, .skipped, "no issuer-signed element disclosed", subject: subject))
            return
        }
        let disclosures = context.document.disclosures ?? []
        var checked = 0
        var matched = 0
        var missing = 0
        // The MSO's digests of the namespace being read (items come namespace by namespace).
        var namespace: String?
        var expectedDigests: DigestIDs?
        for index in disclosures.indices where index < context.document.findings.elements.count {
            // The element's fields are read in place: a copy of the element retains its texts.
            if context.document.findings.elements[index].namespace != namespace {
                namespace = context.document.findings.elements[index].namespace
                expectedDigests = namespace.flatMap { valueDigests[$0] }
            }
            guard let digestID = context.document.findings.elements[index].digestID else { continue }
            // Over the IssuerSignedItemBytes exactly as received (the tag-24 item).
            let digest = hash.digest(disclosures[index])
            var verified = false
            if let expected = expectedDigests?[digestID] {
                checked += 1
                if Self.equal(digest, expected) {
                    matched += 1
                    verified = true
                } else {
                    let element = context.document.findings.elements[index]
                    context.report(CheckResult(
                        .msoDigest, .fail,
                        "digest \(digestID) of \(element.namespace)/\(element.identifier) does not match the MSO",
                        subject: "\(subject)/\(element.namespace)/\(element.identifier)",
                        evidence: [Evidence("digestID", String(digestID)), Evidence("computed", digest.hex),
                                   Evidence("expected", hexString(expected))]))
                }
            } else {
                missing += 1
                let element = context.document.findings.elements[index]
                context.report(CheckResult(
                    .msoDigestId, .fail,
                    "digestID \(digestID) of \(element.namespace)/\(element.identifier) is not in the MSO valueDigests",
                    subject: "\(subject)/\(element.namespace)/\(element.identifier)",
                    evidence: [Evidence("digestID", String(digestID))]))
            }
            context.document.findings.elements[index].digest = digest
            context.document.findings.elements[index].verified = verified
        }
        guard missing == 0 || (matched == checked && checked == total) else { return }
        // The passes depend only on the count, the algorithm and the subject: built once per run.
        let cache = context.settings.issuerCache
        let passes = cache.entry(cache.record(chain: [], subject: subject, bucket: ""), family: .valueDigests(count: total, hash: hash)) {
            IssuerChainCache.Entry(
                results: [
                    CheckResult(.msoDigestId, .pass, "all \(total) digest ids present", subject: subject),
                    CheckResult(
                        .msoDigest, .pass, "\(total) of \(total) \(hash.rawValue) digests match", subject: subject,
                        evidence: [Evidence("algorithm", hash.rawValue), Evidence("count", String(total))]),
                ],
                validated: [])
        }
        if missing == 0, let idsPass = passes.results.first { context.report(idsPass) }
        if matched == checked && checked == total, let digestsPass = passes.results.last { context.report(digestsPass) }
    }

    /// Whether `digest` holds the bytes `expected`.
    static func equal(_ digest: Digest, _ expected: ArraySlice<UInt8>) -> Bool {
        digest.withUnsafeBytes { computed in
            expected.withUnsafeBytes { received in
                guard computed.count == received.count else { return false }
                guard let a = computed.baseAddress, let b = received.baseAddress else { return true }
                return memcmp(a, b, computed.count) == 0
            }
        }
    }
}
