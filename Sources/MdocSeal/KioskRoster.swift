internal import Foundation
package import MdocCrypto
internal import NIOConcurrencyHelpers

/// The enrolled kiosks: one certificate each, named by its subject's common name (the kiosk
/// id). A certificate whose common name is not a kiosk id, or two certificates naming the same
/// kiosk, enrol nobody (a problem is listed): the centre must not guess which one is meant.
package struct KioskRoster: Sendable {
    package let certificates: [KioskID: Certificate]
    /// What could not be enrolled, for the operator.
    package let problems: [String]

    package init(certificates: [Certificate]) {
        var byID: [KioskID: [Certificate]] = [:]
        var problems: [String] = []
        for certificate in certificates {
            guard let name = certificate.subject.commonName, let id = KioskID(rawValue: name) else {
                problems.append("\(certificate.subject.rfc2253): the common name is not a kiosk id")
                continue
            }
            byID[id, default: []].append(certificate)
        }
        var enrolled: [KioskID: Certificate] = [:]
        for (id, list) in byID {
            let distinct = Set(list.map(\.der))
            if distinct.count == 1, let only = list.first {
                enrolled[id] = only
            } else {
                problems.append("kiosk \(id) has \(distinct.count) different certificates: none is enrolled")
            }
        }
        self.certificates = enrolled
        self.problems = problems.sorted()
    }

    package func certificate(for id: KioskID) -> Certificate? { certificates[id] }
}

/// The kiosks folder of the centre (`--kiosks DIR`), read again whenever a file in it is added,
/// removed or changed: removing a kiosk's certificate revokes it for the next request.
package final class KioskFolder: Sendable {
    package let path: String
    private let cache = NIOLockedValueBox<(signature: [String], roster: KioskRoster)?>(nil)

    /// - Throws: ``SealError`` (`unknownKiosk`) when the folder cannot be listed.
    package init(path: String) throws {
        self.path = path
        _ = try roster()
    }

    /// The roster as the folder is now.
    package func roster() throws -> KioskRoster {
        let signature = try listing()
        if let cached = cache.withLockedValue({ $0 }), cached.signature == signature { return cached.roster }
        var certificates: [Certificate] = []
        var problems: [String] = []
        for entry in signature {
            let name = String(entry.prefix { $0 != "\u{0}" })
            guard let bytes = FileManager.default.contents(atPath: (path as NSString).appendingPathComponent(name)) else { continue }
            do {
                certificates.append(contentsOf: try Certificate.parseAll(pemOrDER: Array(bytes)))
            } catch {
                problems.append("\(name): not a certificate (\(error))")
            }
        }
        let read = KioskRoster(certificates: certificates)
        let roster = problems.isEmpty ? read : KioskRoster(merging: read, problems: problems)
        cache.withLockedValue { $0 = (signature, roster) }
        return roster
    }

    /// Each regular file's name, size and modification time: what changes when a kiosk is
    /// enrolled, replaced or revoked.
    private func listing() throws -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw SealError(.unknownKiosk, "the kiosks folder \(path) cannot be read")
        }
        var entries: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let full = (path as NSString).appendingPathComponent(name)
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: full),
                attributes[.type] as? FileAttributeType == .typeRegular
            else { continue }
            let size = (attributes[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            entries.append("\(name)\u{0}\(size)\u{0}\(modified)")
        }
        return entries
    }
}

extension KioskRoster {
    init(merging roster: KioskRoster, problems: [String]) {
        self.certificates = roster.certificates
        self.problems = (roster.problems + problems).sorted()
    }
}
