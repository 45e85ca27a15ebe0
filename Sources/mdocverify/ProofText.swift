import MdocCBOR
import MdocCrypto
import MdocProof

/// `proof show` as text: one labelled line per field, every value from the file escaped.
enum ProofText {
    static func line(_ label: String, _ value: String) {
        print(label.padding(toLength: 14, withPad: " ", startingAt: 0) + value)
    }

    /// A field of the payload as text (tdate tags as their text), escaped; "-" when absent.
    static func text(_ item: CBOR?) -> String {
        guard let item, !item.isNull else { return "-" }
        if let text = item.text ?? item.tagContent?.text { return TerminalText.escaped(text) }
        if let n = item.uint { return String(n) }
        if let bytes = item.bytes { return hexString(bytes) }
        return TerminalText.escaped(item.diagnostic(expandEmbedded: false, pretty: false))
    }

    static func printSignature(_ opened: ProofVerifier.Opened) {
        line("signature", opened.signatureValid ? "valid" : "DOES NOT VERIFY")
        switch opened.signer {
        case .notChecked:
            line("signer", "not checked: give --cert or --processor-trust to check it")
            line("", "embedded certificate SHA-256 \(opened.embeddedCertificate.fingerprintHex)")
        case .trusted(let subject, let sha256):
            line("signer", "\(TerminalText.escaped(subject)) (certificate SHA-256 \(sha256), trusted)")
        case .untrusted(let reason):
            line("signer", "NOT TRUSTED: \(reason)")
        }
    }

    /// The proof's fields; `allChecks` lists every check, otherwise only those that did not pass.
    static func printProof(_ opened: ProofVerifier.Opened, allChecks: Bool = false) {
        let map = opened.payload.map
        line("proof", text(map?["referenceCode"]))
        line("transaction", opened.transactionID.map(TerminalText.escaped) ?? "-")
        line("name", text(map?["name"]))
        line("source", text(map?["source"]))
        line("verdict", "\(text(map?["verdict"])) (at capture: \(text(map?["verdictAtCapture"])))")
        line("captured", text(map?["capturedAt"]))
        line("verified", "\(text(map?["verifiedAt"])) (verification time \(text(map?["verificationTime"])))")
        line("run", "\(opened.runID.map(TerminalText.escaped) ?? "-") (\(text(map?["processor"]?.map?["name"])) \(text(map?["processor"]?.map?["version"])))")
        line("trust", "snapshot \(text(map?["trustSnapshot"]))")
        for list in map?["trustLists"]?.array ?? .empty {
            let issue = (list.map?["issueID"] ?? list.map?["issueId"])?.uint.map { " issue \($0)" } ?? ""
            line("", "\(text(list.map?["kind"])) of \(text(list.map?["provider"]))\(issue) of \(text(list.map?["date"]))  \(text(list.map?["sha256"]))")
        }
        line("consent", text(map?["consentReference"]))
        for (index, input) in (map?["inputs"]?.array ?? .empty).enumerated() {
            line(index == 0 ? "inputs" : "", "\(text(input.map?["path"]))  \(text(input.map?["sha256"]))")
        }
        for (index, certificate) in (map?["certificates"]?.array ?? .empty).enumerated() {
            line(index == 0 ? "certificates" : "",
                 "\(text(certificate.map?["role"]))  \(text(certificate.map?["subject"]))  \(text(certificate.map?["sha256"]))")
        }
        let checks = (map?["checks"]?.array ?? .empty).map(Check.init)
        var counts: [String: Int] = [:]
        for check in checks { counts[text(check.status), default: 0] += 1 }
        line("checks", "\(checks.count): " + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            + (allChecks || counts["pass", default: 0] == 0 ? "" : Style.dim(" (--verbose lists those that passed too)")))
        for check in checks {
            let status = text(check.status)
            if status == "pass" && !allChecks { continue }
            let mark = status == "pass" ? Style.green("✓") : status == "fail" ? Style.red("✗") : Style.yellow("·")
            var parts = ["  \(mark) \(status.padding(toLength: 9, withPad: " ", startingAt: 0))", text(check.id)]
            if let subject = check.subject { parts.append("[\(text(subject))]") }
            if let instant = check.instant { parts.append("(at \(text(instant)))") }
            parts.append(text(check.detail))
            print(parts.joined(separator: " "))
        }
        for upload in map?["uploads"]?.array ?? .empty {
            line("upload", "\(text(upload.map?["id"])) \(text(upload.map?["type"])) \(text(upload.map?["side"])): \(text(upload.map?["outcome"]))")
        }
    }

    /// A check of a proof: `[id, status, instant / null, subject, detail, evidence]`, or the map
    /// proofs of earlier builds carry. An empty subject and a null instant are absent.
    struct Check {
        var id, status, instant, subject, detail: CBOR?

        init(_ item: CBOR) {
            if let fields = item.array, fields.count >= 5 {
                (id, status, detail) = (fields[0], fields[1], fields[4])
                instant = fields[2].isNull ? nil : fields[2]
                subject = fields[3].text?.isEmpty == true ? nil : fields[3]
            } else {
                let map = item.map
                (id, status, instant, subject, detail) = (map?["id"], map?["status"], map?["instant"], map?["subject"], map?["detail"])
            }
        }
    }

    static func printManifest(_ opened: ProofVerifier.Opened) {
        let map = opened.payload.map
        let run = opened.runID.map(TerminalText.escaped) ?? "-"
        line("run manifest", run)
        line("created", text(map?["createdAt"]))
        line("proofs", "\(text(map?["proofCount"])), Merkle root \(text(map?["merkleRoot"]))")
        if let runFile = map?["runFile"]?.map {
            line("run file", "proofs/\(text(runFile["name"])) (\(text(runFile["length"])) bytes committed)")
        } else {
            line("run file", "none: one file per proof in proofs/\(run)/")
        }
        for entry in map?["proofs"]?.array ?? .empty {
            let fields = entry.array ?? .empty
            var parts = ["  \(text(fields.first))"]
            if fields.count == 4 { parts.append("offset \(text(fields[2])), \(text(fields[3])) bytes") }
            parts.append("SHA-256 \(text(fields.count > 1 ? fields[1] : nil))")
            print(parts.joined(separator: "  "))
        }
    }
}
