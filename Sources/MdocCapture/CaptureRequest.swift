import Foundation
package import MdocCrypto
package import MdocModel

/// A problem with what `capture` was given (request file, reader key): exit code 2.
package struct CaptureSetupError: Error, Sendable, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The DeviceRequest a capture sends: a named preset or a JSON file
/// `{"docType": "...", "nameSpaces": {namespace: {element: intentToRetain}}}`.
package enum CaptureRequest {
    package static let mdlDocType = "org.iso.18013.5.1.mDL"
    package static let mdlNameSpace = "org.iso.18013.5.1"
    /// A request file longer than this is refused.
    package static let maxFileBytes = 64 * 1024
    /// More elements than this in one request are refused.
    package static let maxElements = 1_000

    /// The presets by name: the usual identity data of an mDL, and an age check with the portrait.
    package static let presets: [String: ItemsRequestSpec] = [
        "mdl-basic": ItemsRequestSpec(docType: mdlDocType, nameSpaces: [.init(mdlNameSpace, [
            "family_name", "given_name", "birth_date", "issue_date", "expiry_date", "issuing_country", "issuing_authority",
            "document_number", "portrait", "driving_privileges",
        ].map { ItemsRequestSpec.Element($0) })]),
        "age-over-18": ItemsRequestSpec(docType: mdlDocType, nameSpaces: [.init(mdlNameSpace, [
            ItemsRequestSpec.Element("age_over_18"), ItemsRequestSpec.Element("portrait"),
        ])]),
    ]

    /// A preset's name, or the path of a JSON request file.
    package static func load(_ argument: String) throws(CaptureSetupError) -> ItemsRequestSpec {
        if let preset = presets[argument] { return preset }
        guard argument.hasSuffix(".json") || FileManager.default.fileExists(atPath: argument) else {
            throw CaptureSetupError("--request \(argument): not a preset (\(presets.keys.sorted().joined(separator: ", "))) nor a JSON file")
        }
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: argument),
            let size = attributes[.size] as? Int, size <= maxFileBytes, let data = FileManager.default.contents(atPath: argument)
        else {
            throw CaptureSetupError("--request \(argument) cannot be read, or is larger than \(maxFileBytes) bytes")
        }
        do {
            return try parse(json: Array(data))
        } catch {
            throw CaptureSetupError("--request \(argument): \(error.description)")
        }
    }

    private struct File: Decodable {
        var docType: String
        var nameSpaces: [String: [String: Bool]]
    }

    /// Parses a request file; name spaces and elements in lexical order.
    package static func parse(json: [UInt8]) throws(CaptureSetupError) -> ItemsRequestSpec {
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: Data(json))
        } catch {
            throw CaptureSetupError("not {\"docType\": text, \"nameSpaces\": {namespace: {element: true|false}}}")
        }
        guard !file.docType.isEmpty else { throw CaptureSetupError("docType is empty") }
        let spec = ItemsRequestSpec(docType: file.docType, nameSpaces: file.nameSpaces.keys.sorted().compactMap { name in
            let elements = file.nameSpaces[name] ?? [:]
            return elements.isEmpty ? nil : .init(name, elements.keys.sorted().map { .init($0, intentToRetain: elements[$0] ?? false) })
        })
        guard spec.elementCount > 0 else { throw CaptureSetupError("the request asks for no element") }
        guard spec.elementCount <= maxElements else {
            throw CaptureSetupError("the request asks for \(spec.elementCount) elements, more than \(maxElements)")
        }
        return spec
    }
}

/// The reader's long-term key and certificate chain, which sign readerAuth (§9.1.4).
package struct ReaderAuthority: Sendable {
    package let key: PrivateKey
    /// DER, the reader certificate first.
    package let certificates: [[UInt8]]

    package init(key: PrivateKey, certificates: [[UInt8]]) {
        self.key = key
        self.certificates = certificates
    }

    /// `--reader-key` (PKCS#8 PEM) and `--reader-cert` (PEM or DER, the reader certificate
    /// first): the key must be the certificate's.
    package static func load(keyPath: String, certificatePath: String) throws(CaptureSetupError) -> ReaderAuthority {
        guard let keyData = FileManager.default.contents(atPath: keyPath) else {
            throw CaptureSetupError("--reader-key \(keyPath) cannot be read")
        }
        guard let certificateData = FileManager.default.contents(atPath: certificatePath) else {
            throw CaptureSetupError("--reader-cert \(certificatePath) cannot be read")
        }
        let key: PrivateKey
        do {
            key = try PrivateKey(pem: Array(keyData))
        } catch {
            throw CaptureSetupError("--reader-key \(keyPath): not a PKCS#8 PEM private key (\(error))")
        }
        let certificates: [Certificate]
        do {
            certificates = try Certificate.parseAll(pemOrDER: Array(certificateData))
        } catch {
            throw CaptureSetupError("--reader-cert \(certificatePath): not a certificate (\(error))")
        }
        guard let leaf = certificates.first else { throw CaptureSetupError("--reader-cert \(certificatePath) holds no certificate") }
        guard leaf.publicKey.isSameKey(as: key.publicKey) else {
            throw CaptureSetupError("--reader-key is not the key of the first certificate in --reader-cert")
        }
        return ReaderAuthority(key: key, certificates: certificates.map(\.der))
    }
}
