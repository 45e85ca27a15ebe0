package import Hummingbird
internal import Foundation
package import MdocIntake
internal import MdocSeal

/// `mdocverify serve`: the intake over HTTP (Hummingbird 2). TLS is left to a reverse proxy in
/// front (`docs/kiosk.md`); records are sealed and signed end to end either way.
package enum IntakeServer {
    /// The application listening on `host:port` (port 0: one the system chooses, given to
    /// `onRunning` once the server listens).
    package static func application(
        intake: Intake, host: String, port: Int, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router(context: BasicRequestContext.self)
        router.get(RouterPath(stringLiteral: SyncProtocol.healthPath)) { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: SyncProtocol.problemMediaType],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
        router.post(RouterPath(stringLiteral: SyncProtocol.batchesPath)) { request, _ -> Response in
            await batch(request, intake: intake)
        }
        router.add(middleware: AllowedMethods<BasicRequestContext>())
        return Application(
            router: router, configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "mdocverify"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) })
    }

    static func batch(_ request: Request, intake: Intake) async -> Response {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == SyncRequest.mediaType else {
            return problem(SyncRefusal(SyncProtocol.unsupportedMediaType, "send the batch as \(SyncRequest.mediaType)"), status: 415)
        }
        let limit = intake.limits.sync.maximumRequestByteCount
        let body: [UInt8]
        do {
            var buffer = try await request.body.collect(upTo: limit)
            body = buffer.readBytes(length: buffer.readableBytes) ?? []
        } catch {
            return problem(SyncRefusal(.tooLarge, "the body is over \(limit) bytes"))
        }
        do {
            let receipt = try await intake.accept(body: body)
            return Response(
                status: .ok, headers: [.contentType: SyncProtocol.receiptMediaType],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: receipt)))
        } catch {
            return problem(error)
        }
    }

    static func problem(_ refusal: SyncRefusal, status: Int? = nil) -> Response {
        Response(
            status: HTTPResponse.Status(code: status ?? SyncProtocol.status(for: refusal.code)),
            headers: [.contentType: SyncProtocol.problemMediaType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: SyncProtocol.problemBody(refusal))))
    }
}

/// Any method other than the one each path takes: 405 with `Allow` (RFC 9110 §15.5.6).
struct AllowedMethods<Context: RequestContext>: RouterMiddleware {
    static var allowed: [String: HTTPRequest.Method] { [SyncProtocol.healthPath: .get, SyncProtocol.batchesPath: .post] }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let method = Self.allowed[request.uri.path], request.method != method {
            return Response(status: .methodNotAllowed, headers: [.allow: method.rawValue])
        }
        return try await next(request, context)
    }
}
