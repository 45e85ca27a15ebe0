internal import AsyncHTTPClient
package import Foundation
package import MdocCrypto
import MdocTime
import MdocTrustLists
internal import NIOCore
internal import MdocFiles

/// What became of one download.
package struct TrustFetchOutcome: Sendable {
    package enum Result: Sendable, Equatable {
        /// Written to the target's file.
        case written
        /// The same bytes are already in the trust folder: nothing written.
        case unchanged
        /// Nothing written, and why (the network, the server's answer, what came back).
        case failed(String)
    }

    package let target: TrustFetchTarget
    package let result: Result
    /// The file holding the bytes (the target's, or the earlier file with the same bytes).
    package let file: String?
}

/// Downloads a ``TrustFetchPlan`` into the trust folder through AsyncHTTPClient, and appends one
/// line per download to the folder's fetch log (``TrustFetchLog``), with the time fetched.
///
/// A CRL or VICAL replaces its file only when what came back is one (a CRL in PEM or DER, a
/// VICAL that decodes): a failed or wrong download leaves the folder as it was. A status token
/// is kept as received whatever it holds, in a file of its own: verification judges it (a JWT
/// offered for a uri is a finding, `status.format`).
package struct TrustFetcher: Sendable {
    package let trustDirectory: String
    /// How long one download may take.
    package var timeout: TimeInterval = 30
    /// Largest body accepted (the limit on a signed list's size).
    package var maximumBytes = TrustListLimits.default.maximumListBytes

    package init(trustDirectory: String) { self.trustDirectory = trustDirectory }

    /// Fetches every target, one after the other; `now` stamps the log.
    package func fetch(_ targets: [TrustFetchTarget], now: @Sendable () -> Date = { Date() }) async -> [TrustFetchOutcome] {
        var outcomes: [TrustFetchOutcome] = []
        let log = TrustFetchLog(directory: trustDirectory)
        for target in targets {
            let outcome: TrustFetchOutcome
            var sha256: String?
            do {
                let bytes = try await download(target)
                sha256 = hexString(HashFunction.sha256.hash(bytes))
                outcome = try store(bytes, sha256: sha256 ?? "", for: target, log: log)
            } catch {
                outcome = TrustFetchOutcome(target: target, result: .failed("\(error)"), file: nil)
            }
            outcomes.append(outcome)
            var failure: String?
            if case .failed(let reason) = outcome.result { failure = reason }
            append(TrustFetchLog.Entry(
                kind: target.kind.rawValue, url: target.url, file: outcome.file, fetchedAt: RFC3339.format(now()), sha256: sha256,
                failure: failure))
        }
        return outcomes
    }

    /// Why a download failed, for people.
    struct FetchFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// The body of a GET of the target's address (200 only, at most ``maximumBytes``).
    func download(_ target: TrustFetchTarget) async throws -> [UInt8] {
        guard TrustFetchPlan.isHTTP(target.url) else { throw FetchFailure(description: "\(target.url) is not an http(s) address") }
        var request = HTTPClientRequest(url: target.url)
        request.headers.add(name: "Accept", value: Self.accept(target.kind))
        let response = try await HTTPClient.shared.execute(request, timeout: .milliseconds(Int64(timeout * 1000)))
        guard response.status.code == 200 else {
            throw FetchFailure(description: "the server answered \(response.status.code) \(response.status.reasonPhrase)")
        }
        var buffer = try await response.body.collect(upTo: maximumBytes)
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    static func accept(_ kind: TrustFetchTarget.Kind) -> String {
        switch kind {
        case .crl: "application/pkix-crl"
        case .vical: "application/cbor, application/cose"
        case .statusList: StatusTokenKind.statusList.mediaType
        case .identifierList: StatusTokenKind.identifierList.mediaType
        }
    }

    /// Writes `bytes` where the target says, once they are what was asked for.
    func store(_ bytes: [UInt8], sha256: String, for target: TrustFetchTarget, log: TrustFetchLog) throws -> TrustFetchOutcome {
        let path = (trustDirectory as NSString).appendingPathComponent(target.file)
        switch target.kind {
        case .crl:
            guard (try? CRL.parseAll(pemOrDER: bytes))?.isEmpty == false else {
                throw FetchFailure(description: "what came back is not a CRL (PEM or DER); the folder keeps its own")
            }
        case .vical:
            do {
                _ = try CertificateList(decoding: bytes[...], kind: .vical)
            } catch {
                throw FetchFailure(description: "what came back is not a VICAL (\(error)); the folder keeps its own")
            }
        case .statusList, .identifierList:
            // A token already fetched with the same bytes is not written twice.
            if let earlier = log.entries.last(where: { $0.url == target.url && $0.sha256 == sha256 && $0.file != nil }),
                let file = earlier.file,
                FileManager.default.fileExists(atPath: (trustDirectory as NSString).appendingPathComponent(file))
            {
                return TrustFetchOutcome(target: target, result: .unchanged, file: file)
            }
        }
        if let existing = FileManager.default.contents(atPath: path), Array(existing) == bytes {
            return TrustFetchOutcome(target: target, result: .unchanged, file: target.file)
        }
        do {
            try FileManager.default.createDirectory(
                atPath: FilePaths.parent(of: path), withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FetchFailure(description: "cannot write \(path): \(error.localizedDescription)")
        }
        return TrustFetchOutcome(target: target, result: .written, file: target.file)
    }

    /// Appends `entry` to the trust folder's fetch log.
    func append(_ entry: TrustFetchLog.Entry) {
        let path = (trustDirectory as NSString).appendingPathComponent(TrustFetchLog.fileName)
        if !FileManager.default.fileExists(atPath: path) { FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { return }
        defer { try? handle.close() }
        _ = try? handle.seekToEnd()
        try? handle.write(contentsOf: Data(TrustFetchLog.line(entry)))
    }
}
