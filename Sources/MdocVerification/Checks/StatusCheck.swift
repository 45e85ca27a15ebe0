package import Foundation
package import MdocChecks
package import MdocCrypto
package import MdocTrustLists

/// The MSO's status (18013-5 second edition §12.3.6), judged with the run's status folder:
/// `status.reference`, then for each list the MSO points to (subject `doc[i]/status_list`,
/// `doc[i]/identifier_list`) `status.format` and `status.subject`, and at each instant
/// `status.token`, `status.signature` and the status itself (`status.index`, `status.revoked`,
/// `status.suspended`; `status.identifier`).
///
/// At each instant the token used is the newest whose [iat, exp] covers it and whose signature
/// and signer (chained to the MSO's `certificate`, else the document's IACA) hold: at the capture
/// time a token of that time, now the newest. When there is none the status is unknown: its ids
/// are `unchecked`, never `fail`. Both lists, when present, are judged.
struct StatusCheck: Check {
    var ids: [CheckID] {
        [.statusReference, .statusFormat, .statusSubject, .statusToken, .statusSignature, .statusIndex, .statusRevoked,
         .statusSuspended, .statusIdentifier]
    }
    var scope: CheckScope { .document }
    var prerequisites: [Prerequisite] { Self.prerequisites }
    static let prerequisites: [Prerequisite] = [.examines(.document), .examines(.mso)]

    /// The ids judged for a status list and for an identifier list.
    static let statusListIDs: [CheckID] = [
        .statusFormat, .statusSubject, .statusToken, .statusSignature, .statusIndex, .statusRevoked, .statusSuspended,
    ]
    static let identifierListIDs: [CheckID] = [.statusFormat, .statusSubject, .statusToken, .statusSignature, .statusIdentifier]
    /// The ids of the status itself, for each kind of list.
    static let listStatusIDs: [CheckID] = [.statusIndex, .statusRevoked, .statusSuspended]
    static let identifierStatusIDs: [CheckID] = [.statusIdentifier]

    func run(_ context: inout CheckContext) {
        // The MSO as its check decoded it: its `status` is read from that map, not decoded again.
        guard let mso = context.document.mso?.map else { return }
        let subject = context.document.subject
        let status: MSOStatus?
        do {
            status = try MSOStatus(mobileSecurityObject: mso)
        } catch {
            context.report(CheckResult(
                .statusReference, .fail, error.reason, subject: subject, evidence: [Evidence("code", error.code.rawValue)]))
            return
        }
        guard let status, status.statusList != nil || status.identifierList != nil else {
            context.report(CheckResult(.statusReference, .skipped, "the MSO names no status list", subject: subject))
            return
        }
        context.document.findings.status = status
        let named = [status.statusList.map { "status_list at \($0.uri)" }, status.identifierList.map { "identifier_list at \($0.uri)" }]
        context.report(CheckResult(.statusReference, .pass, named.compactMap { $0 }.joined(separator: ", "), subject: subject))
        let iaca = context.document.findings.iacaCertificate
        if let reference = status.statusList {
            let judged = Judged(
                kind: .statusList, uri: reference.uri, subject: "\(subject)/status_list",
                roots: [reference.certificate ?? iaca].compactMap { $0 },
                evidence: [Evidence("uri", reference.uri), Evidence("idx", String(reference.index))])
            judge(judged, ids: Self.statusListIDs, &context) { folder, roots, time in folder.resolve(reference, roots: roots, at: time) }
        }
        if let reference = status.identifierList {
            let judged = Judged(
                kind: .identifierList, uri: reference.uri, subject: "\(subject)/identifier_list",
                roots: [reference.certificate ?? iaca].compactMap { $0 }, evidence: [Evidence("uri", reference.uri)])
            judge(judged, ids: Self.identifierListIDs, &context) { folder, roots, time in folder.resolve(reference, roots: roots, at: time) }
        }
    }

    /// One list reference being judged.
    struct Judged {
        let kind: StatusTokenKind
        let uri: String
        let subject: String
        /// The roots the token's signer must chain to.
        let roots: [Certificate]
        let evidence: [Evidence]
    }

    func judge(
        _ judged: Judged, ids: [CheckID], _ context: inout CheckContext,
        resolve: (StatusFolder, [Certificate], Date) -> StatusResolution
    ) {
        let subject = judged.subject
        guard let folder = context.settings.lists.status else {
            context.reportEach(ids, .unchecked, "no status tokens were given (--status DIR): the status of \(judged.uri) is unknown", subject: subject)
            return
        }
        context.report(Self.format(judged, folder: folder))
        context.report(Self.addressing(judged, folder: folder))
        // The instants usually resolve to the same token, signer and outcome: their results are
        // then the same values, made once and reported at each instant.
        var previous: (resolution: StatusResolution, results: [CheckResult])?
        for instant in context.instants {
            let resolution = resolve(folder, judged.roots, instant.time)
            let results: [CheckResult]
            if let previous, Self.sameResults(previous.resolution, resolution) {
                results = previous.results
            } else {
                results = Self.results(judged, resolution)
                previous = (resolution, results)
            }
            for var result in results {
                result.instant = instant.instant
                context.report(result)
            }
        }
    }

    /// Whether two resolutions give the same results: ``results(_:_:)`` reads only their token,
    /// outcome, time-to-live flag and signer's root.
    static func sameResults(_ a: StatusResolution, _ b: StatusResolution) -> Bool {
        a.outcome == b.outcome && a.isPastTimeToLive == b.isPastTimeToLive && a.token?.file == b.token?.file
            && a.token?.sha256 == b.token?.sha256 && a.signer?.path.last?.sha256Fingerprint == b.signer?.path.last?.sha256Fingerprint
    }

    /// `status.format`: the files offered for the uri that are not usable tokens.
    static func format(_ judged: Judged, folder: StatusFolder) -> CheckResult {
        let refused = folder.refusals(answering: judged.uri)
        guard let first = refused.first else {
            return CheckResult(
                .statusFormat, .pass, "no token offered for \(judged.uri) was refused", subject: judged.subject, evidence: judged.evidence)
        }
        return CheckResult(
            .statusFormat, .fail, "\(first.file), offered for \(judged.uri), is refused: \(first.error.reason)", subject: judged.subject,
            evidence: judged.evidence + refused.map { Evidence("refused", "\($0.file) \($0.error.code)") })
    }

    /// `status.subject`: the tokens fetched from the uri answer it.
    static func addressing(_ judged: Judged, folder: StatusFolder) -> CheckResult {
        if let wrong = folder.misaddressedTokens(fetchedFrom: judged.uri).first {
            return CheckResult(
                .statusSubject, .fail, "\(wrong.file) was fetched from \(judged.uri) but its sub is \(wrong.claims.subject)",
                subject: judged.subject, evidence: judged.evidence + [Evidence("sub", wrong.claims.subject), Evidence("file", wrong.file)])
        }
        guard folder.hasTokens(judged.kind, answering: judged.uri) else {
            return CheckResult(.statusSubject, .unchecked, "no token answers \(judged.uri)", subject: judged.subject, evidence: judged.evidence)
        }
        return CheckResult(.statusSubject, .pass, "the tokens' sub is \(judged.uri)", subject: judged.subject, evidence: judged.evidence)
    }

    /// The results of one instant: the token, its signature, and the status it gives.
    static func results(_ judged: Judged, _ resolution: StatusResolution) -> [CheckResult] {
        let subject = judged.subject
        var evidence = judged.evidence
        if let token = resolution.token {
            evidence += [Evidence("token", token.file), Evidence("iat", token.issuedAtText), Evidence("exp", token.expiresAtText)]
            if resolution.isPastTimeToLive { evidence.append(Evidence("pastTimeToLive", "true")) }
        }
        let statusIDs = judged.kind == .statusList ? Self.listStatusIDs : Self.identifierStatusIDs
        func unknown(_ reason: String) -> [CheckResult] {
            let detail = "status unknown: " + reason
            return statusIDs.map { CheckResult($0, .unchecked, detail, subject: subject, evidence: evidence) }
        }
        let outcome: StatusResolution.Outcome
        switch resolution.outcome {
        case .unknown(let error) where resolution.token == nil:
            return [
                CheckResult(.statusToken, .unchecked, error.reason, subject: subject, evidence: evidence + [Evidence("code", error.code.rawValue)]),
                CheckResult(.statusSignature, .unchecked, "no token to check", subject: subject, evidence: evidence),
            ] + unknown(error.reason)
        case .unknown(let error):
            return [
                CheckResult(.statusToken, .pass, "a token covers the instant", subject: subject, evidence: evidence),
                CheckResult(
                    .statusSignature, .unchecked, error.reason, subject: subject, evidence: evidence + [Evidence("code", error.code.rawValue)]),
            ] + unknown("no usable token: \(error.reason)")
        default:
            outcome = resolution.outcome
        }
        let chained = resolution.signer?.path.last.map { "the token verifies; its signer chains to \($0.subject.rfc2253)" }
        var results = [
            CheckResult(.statusToken, .pass, "a token covers the instant", subject: subject, evidence: evidence),
            CheckResult(.statusSignature, .pass, chained ?? "the token verifies; its signer chains", subject: subject, evidence: evidence),
        ]
        let uri = judged.uri
        func result(_ id: CheckID, _ status: CheckStatus, _ detail: String, _ extra: [Evidence] = []) -> CheckResult {
            CheckResult(id, status, detail, subject: subject, evidence: extra.isEmpty ? evidence : evidence + extra)
        }
        switch outcome {
        case .indexOutOfRange(let index, let count):
            results += [
                result(.statusIndex, .fail, "idx \(index) is outside the list at \(uri), which holds \(count) entries"),
                result(.statusRevoked, .unchecked, "the list holds no entry \(index)"),
                result(.statusSuspended, .unchecked, "the list holds no entry \(index)"),
            ]
        case .valid where judged.kind == .identifierList:
            results.append(result(.statusIdentifier, .pass, "the identifier is not listed at \(uri)"))
        case .revoked where judged.kind == .identifierList:
            results.append(result(.statusIdentifier, .fail, "the identifier is listed at \(uri): the document is revoked", [Evidence("status", "revoked")]))
        case .valid:
            let valid = "valid at \(uri)"
            results += [
                result(.statusIndex, .pass, "idx inside the list"), result(.statusRevoked, .pass, valid),
                result(.statusSuspended, .pass, valid),
            ]
        case .revoked:
            results += [
                result(.statusIndex, .pass, "idx inside the list"),
                result(.statusRevoked, .fail, "revoked: the entry at \(uri) is 0x01 (invalid)", [Evidence("status", "invalid")]),
                result(.statusSuspended, .pass, "not suspended (revoked)"),
            ]
        case .suspended:
            results += [
                result(.statusIndex, .pass, "idx inside the list"), result(.statusRevoked, .pass, "not revoked (suspended)"),
                result(.statusSuspended, .fail, "suspended: the entry at \(uri) is 0x02", [Evidence("status", "suspended")]),
            ]
        case .other(let value):
            let reason = "the entry at \(uri) is \(value), an application-specific status this verifier does not interpret"
            results += [
                result(.statusIndex, .pass, "idx inside the list"), result(.statusRevoked, .unchecked, reason, [Evidence("status", "\(value)")]),
                result(.statusSuspended, .unchecked, reason, [Evidence("status", "\(value)")]),
            ]
        case .unknown:
            break
        }
        return results
    }
}
