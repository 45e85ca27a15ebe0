package import Foundation
package import MdocCrypto
import MdocTime
import NIOConcurrencyHelpers

/// The status and identifier list tokens of a folder (`--status DIR`), each file as it was
/// fetched from its uri, several per uri over time. Which uri a token answers is read from its
/// `sub`, so file names are free.
///
/// Every token is decoded, its list inflated and its signature verified once, when the folder is
/// read; ``resolve(_:roots:at:)`` then costs a dictionary lookup, a cached chain and a bit
/// extraction. Files that are not usable tokens are listed in ``refused`` with their reason;
/// they never stop the others.
package final class StatusFolder: Sendable {
    /// A token of the folder: a class, so that each status judged refers to it instead of
    /// copying the token.
    package final class Entry: Sendable {
        /// The file's name in the folder.
        package let file: String
        package let token: StatusToken
        package let claims: StatusTokenClaims
        /// The signature over the token as received, verified when read.
        package let signature: Fact
        /// The address the file was fetched from, when the fetch log says (`trust fetch`).
        package let fetchedFrom: String?
        /// SHA-256 of the file's bytes: identifies the token in trust snapshots.
        package let sha256: [UInt8]
        /// `iat` and `exp` in RFC 3339, as every status judged with the token cites them.
        package let issuedAtText: String
        package let expiresAtText: String

        init(file: String, token: StatusToken, signature: Fact, fetchedFrom: String?, sha256: [UInt8]) {
            self.file = file
            self.token = token
            self.claims = token.claims
            self.signature = signature
            self.fetchedFrom = fetchedFrom
            self.sha256 = sha256
            issuedAtText = RFC3339.format(claims.issuedAt)
            expiresAtText = RFC3339.format(claims.expiresAt)
        }
    }

    /// A file that is not a usable token.
    package struct RefusedFile: Sendable {
        package let file: String
        package let error: TrustListError
        /// The uri it was offered for, when known: the address it was fetched from, or the `sub`
        /// a JWT claims (read without trusting it, only to say which reference it failed).
        package let uri: String?
    }

    /// The folder read.
    package let directory: String
    /// The tokens, by file name.
    package let entries: [Entry]
    package let refused: [RefusedFile]
    /// For each kind and uri, the positions in ``entries``, newest `iat` first.
    private let index: [Lookup: [Int]]
    /// The signer paths established so far, per token and set of roots (time-independent).
    private let paths = NIOLockedValueBox<[PathKey: (Fact, [Certificate])]>([:])

    /// Bound on cached signer paths: a batch has a handful of issuers per token.
    static let pathCacheLimit = 10_000

    struct Lookup: Hashable {
        let kind: StatusTokenKind
        let uri: String
    }

    struct PathKey: Hashable {
        let entry: Int
        let roots: [[UInt8]]
    }

    /// Reads every regular file of `directory` (not recursive; names starting with "." are
    /// skipped). `origins` gives, by file name, the address a file was fetched from. Throws only
    /// when the folder cannot be listed or holds more than ``TrustListLimits/maximumTokenFiles``
    /// files.
    package convenience init(
        directory: String, origins: [String: String] = [:], limits: TrustListLimits = .default
    ) throws(TrustListError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        } catch {
            throw TrustListError(.folderUnreadable, "cannot list the status folder \(directory): \(error.localizedDescription)")
        }
        guard names.count <= limits.maximumTokenFiles else {
            throw TrustListError(
                .tooManyFiles, "the status folder \(directory) holds \(names.count) files, over the limit of \(limits.maximumTokenFiles)")
        }
        var files: [(name: String, bytes: Result<[UInt8], TrustListError>)] = []
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files.append((name, Self.read(path, limit: limits.maximumTokenBytes)))
        }
        self.init(directory: directory, files: files, origins: origins, limits: limits)
    }

    /// The tokens of `files` (name and bytes, or why they could not be read).
    init(
        directory: String, files: [(name: String, bytes: Result<[UInt8], TrustListError>)], origins: [String: String] = [:],
        limits: TrustListLimits
    ) {
        var entries: [Entry] = []
        var refused: [RefusedFile] = []
        for (name, bytes) in files {
            do {
                let read = try bytes.get()
                let token = try StatusToken(decoding: read[...], limits: limits)
                entries.append(
                    Entry(
                        file: name, token: token, signature: token.claims.envelope.verifySignature(), fetchedFrom: origins[name],
                        sha256: HashFunction.sha256.hash(read)))
            } catch {
                let claimed = error.code == .tokenIsJWT ? (try? bytes.get()).flatMap { StatusTokenClaims.jwtSubject($0[...]) } : nil
                refused.append(RefusedFile(file: name, error: error, uri: origins[name] ?? claimed))
            }
        }
        var index: [Lookup: [Int]] = [:]
        for (position, entry) in entries.enumerated() {
            index[Lookup(kind: entry.claims.kind, uri: entry.claims.subject), default: []].append(position)
        }
        for key in index.keys {
            index[key]?.sort { entries[$0].claims.issuedAt > entries[$1].claims.issuedAt }
        }
        self.directory = directory
        self.entries = entries
        self.refused = refused
        self.index = index
    }

    /// The bytes of the file at `path`, refused unread when larger than `limit`.
    static func read(_ path: String, limit: Int) -> Result<[UInt8], TrustListError> {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            return .failure(TrustListError(.fileUnreadable, "cannot open \(path)"))
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: limit == .max ? limit : limit + 1) ?? Data()
            guard data.count <= limit else {
                return .failure(TrustListError(.tokenTooLarge, "\(path) is over the limit of \(limit) bytes"))
            }
            return .success(Array(data))
        } catch {
            return .failure(TrustListError(.fileUnreadable, "cannot read \(path): \(error.localizedDescription)"))
        }
    }

    /// The positions in ``entries`` of the tokens of `kind` answering `uri`, newest `iat` first.
    func positions(_ kind: StatusTokenKind, answering uri: String) -> [Int] {
        index[Lookup(kind: kind, uri: uri)] ?? []
    }

    /// Whether any token of `kind` answers `uri` (at any time).
    package func hasTokens(_ kind: StatusTokenKind, answering uri: String) -> Bool {
        !positions(kind, answering: uri).isEmpty
    }

    /// The files offered for `uri` that are not usable tokens (a JWT, a wrong typ, ...).
    package func refusals(answering uri: String) -> [RefusedFile] {
        refused.filter { $0.uri == uri }
    }

    /// The tokens fetched from `uri` that answer another uri (their `sub` is not `uri`).
    package func misaddressedTokens(fetchedFrom uri: String) -> [Entry] {
        entries.filter { $0.fetchedFrom == uri && $0.claims.subject != uri }
    }

    /// The tokens of `kind` answering `uri` whose [iat, exp] covers `time`, newest first. The
    /// first of them whose signature and signer hold is the one to use (``resolve(_:roots:at:)``).
    package func candidates(_ kind: StatusTokenKind, answering uri: String, at time: Date) -> [Entry] {
        positions(kind, answering: uri).map { entries[$0] }.filter { $0.claims.covers(time) }
    }

    /// The signer of the token at `position` against `roots` at `time`; the path is established
    /// once per token and set of roots.
    func signer(of position: Int, roots: [Certificate], at time: Date) -> SignerValidation {
        let chain = entries[position].claims.envelope.chain
        let key = PathKey(entry: position, roots: roots.map(\.sha256Fingerprint))
        if let path = paths.withLockedValue({ $0[key] }) { return SignerChain.validation(chain: chain, path: path, at: time) }
        let path = SignerChain.path(chain, roots: roots)
        paths.withLockedValue { cache in
            if cache.count >= Self.pathCacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = path
        }
        return SignerChain.validation(chain: chain, path: path, at: time)
    }
}
