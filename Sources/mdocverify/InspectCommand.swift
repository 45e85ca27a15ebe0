import ArgumentParser
import Foundation
import MdocCBOR

/// `mdocverify inspect FILE`: CBOR diagnostic notation with embedded CBOR decoded inline.
struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Print a CBOR file (binary or hex) in diagnostic notation, tag-24 contents decoded inline.")

    @Argument(help: "A CBOR file: DeviceResponse, DeviceRequest, session message, transcript, ...")
    var file: String

    func run() throws {
        let bytes = try InputFile.readCBOR(file)
        do {
            let item = try CBOR(decoding: bytes)
            print(item.diagnostic(expandEmbedded: true, pretty: true))
        } catch {
            FileHandle.standardError.write(Data("mdocverify: \(file) is not well-formed CBOR: \(error)\n".utf8))
            throw ExitCode(1)
        }
    }
}
