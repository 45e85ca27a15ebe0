import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Hosts in network namespaces made by bin/netns (hosts 1…N at 10.200.0.I), removed by
/// ``remove()`` or when the value goes away. Code runs "on" a host in a thread that joins the
/// host's namespace: sockets it opens live there, as on another machine.
package final class NetworkHosts: Sendable {
    package let name: String
    package let count: Int

    package init(count: Int) throws {
        name = "mdv-" + UUID().uuidString.prefix(8).lowercased()
        self.count = count
        try Command.run(["bin/netns", "up", name, String(count)])
    }

    deinit { remove() }

    package func namespace(_ host: Int) -> String { "\(name)-\(host)" }
    package func address(_ host: Int) -> String { "10.200.0.\(host)" }

    /// Pulls host `host`'s cable (its switch port goes down).
    package func cut(_ host: Int) throws { try Command.run(["bin/netns", "cut", name, String(host)]) }
    /// Plugs it back in.
    package func restore(_ host: Int) throws { try Command.run(["bin/netns", "restore", name, String(host)]) }
    /// Removes the hosts; stop what runs in them first.
    package func remove() { _ = try? Command.run(["bin/netns", "down", name]) }

    /// Runs `body` on a new thread inside host `host`'s network namespace (setns(2)) and
    /// returns what it returns.
    package func run<T: Sendable>(onHost host: Int, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let path = "/run/netns/\(namespace(host))"
        let outcome = OutcomeBox<T>()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            defer { finished.signal() }
            outcome.set(Result { () throws -> T in
                let descriptor = open(path, O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw ThrowawayPostgres.SetupFailure("open \(path): errno \(errno)") }
                defer { close(descriptor) }
                try joinNetworkNamespace(descriptor)
                return try body()
            })
        }.start()
        finished.wait()
        return try outcome.get()
    }
}

/// setns(fd, CLONE_NEWNET) for the calling thread. Glibc's module does not declare setns, so it
/// is looked up by name.
private func joinNetworkNamespace(_ descriptor: Int32) throws {
    typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
    let cloneNewNet: Int32 = 0x4000_0000
    guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "setns") else {
        throw ThrowawayPostgres.SetupFailure("setns is not in the C library")
    }
    let setns = unsafeBitCast(symbol, to: SetNamespace.self)
    guard setns(descriptor, cloneNewNet) == 0 else { throw ThrowawayPostgres.SetupFailure("setns: errno \(errno)") }
}

/// The result a host's thread hands back.
private final class OutcomeBox<T: Sendable>: @unchecked Sendable {
    // Written by the thread before it signals, read after the wait: the semaphore orders them.
    private var result: Result<T, any Error> = .failure(ThrowawayPostgres.SetupFailure("the host's thread did not run"))
    func set(_ value: Result<T, any Error>) { result = value }
    func get() throws -> T { try result.get() }
}
