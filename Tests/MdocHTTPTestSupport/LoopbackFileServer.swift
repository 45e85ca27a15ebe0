package import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// An HTTP server on 127.0.0.1 that answers GETs with files held by path (a missing path is a
/// 404), for the tests of what downloads: the files may change while it runs.
package final class LoopbackFileServer: Sendable {
    package let files = NIOLockedValueBox<[String: [UInt8]]>([:])

    package init() {}

    /// Runs the server around `body`, which gets its base address (`http://127.0.0.1:PORT`);
    /// stopped when `body` returns, after which the port answers nothing.
    package func serve<T: Sendable>(_ body: (String) async throws -> T) async throws -> T {
        let port = NIOLockedValueBox<Int?>(nil)
        let router = Router(context: BasicRequestContext.self)
        router.get("**") { [self] request, _ -> Response in
            guard let bytes = self.files.withLockedValue({ $0[request.uri.path] }) else { return Response(status: .notFound) }
            return Response(status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        let app = Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLockedValue { $0 = channel.localAddress?.port } })
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        let deadline = Date().addingTimeInterval(30)
        while port.withLockedValue({ $0 }) == nil && Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        guard let bound = port.withLockedValue({ $0 }) else { throw LoopbackServerError() }
        return try await body("http://127.0.0.1:\(bound)")
    }
}

/// The server did not start within 30 seconds.
package struct LoopbackServerError: Error, CustomStringConvertible {
    package var description: String { "the loopback HTTP server did not start within 30 seconds" }
}
