import ArgumentParser
import Foundation
import Hummingbird
import MdocSync

/// `mdocverify serve`: the central intake over HTTP.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Take in sealed records from kiosks over HTTP (POST /v1/batches), verify them again, answer with signed receipts.",
        discussion: """
            Put TLS in front with a reverse proxy (docs/kiosk.md). Runs until SIGTERM or SIGINT. \
            Exit codes: 0 stopped (SIGTERM or SIGINT, Ctrl-C); 2 usage or setup error.
            """)

    @Option(name: .long, help: "HOST:PORT to listen on (port 0: any free port, printed when listening).")
    var listen: String

    @OptionGroup var centre: CentreOptions

    func run() async throws {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]), (0...65_535).contains(port)
        else {
            throw SetupError("--listen \(listen) is not HOST:PORT")
        }
        let host = String(listen[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let intake = try centre.makeIntake(command: "serve")
        let app = IntakeServer.application(intake: intake, host: host, port: port) { bound in
            // Written unbuffered: scripts and tests wait for this line to know the port.
            FileHandle.standardOutput.write(Data("listening on http://\(host.contains(":") ? "[\(host)]" : host):\(bound)\n".utf8))
        }
        do {
            try await app.runService()
        } catch {
            try? intake.recorder?.store.interruptRun(id: intake.recorder?.runID ?? "", reason: "the server stopped: \(error)")
            throw SetupError("cannot serve on \(listen): \(error)")
        }
        // Stopped by SIGTERM or SIGINT: the intake's run in the report database is finished.
        do {
            try intake.recorder?.finish()
        } catch {
            FileHandle.standardError.write(Data("mdocverify: the report database's run could not be finished: \(error)\n".utf8))
        }
    }
}
