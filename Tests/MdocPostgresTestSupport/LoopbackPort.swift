#if canImport(Glibc)
import Glibc
#endif

/// A TCP port on 127.0.0.1 that nothing listens on: one the kernel hands out, then closed.
package func closedLoopbackPort() throws -> Int {
    let listener = try SilentLoopbackListener(listening: false)
    return listener.port
}

/// A TCP socket bound to a port of 127.0.0.1 that the kernel hands out. Listening, it completes
/// connections (the kernel's backlog) but never reads or answers: a server that hangs.
package final class SilentLoopbackListener {
    package let port: Int
    private let descriptor: Int32

    package init(listening: Bool = true) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ThrowawayPostgres.SetupFailure("socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let descriptor = self.descriptor
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
                    && (!listening || listen(descriptor, 8) == 0)
            }
        }
        guard bound else {
            close(descriptor)
            throw ThrowawayPostgres.SetupFailure("bind or listen: errno \(errno)")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit { close(descriptor) }
}
