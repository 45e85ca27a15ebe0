import Foundation
import MdocChecks
import MdocCrypto
import MdocKiosk
import MdocSeal

// Kiosks (docs/kiosk.md): sealing one transaction at the kiosk (the Annex D bundle: seal alone,
// and seal + outbox insert), and syncs of a tenth of --kiosk-records, then of all of them
// (default 10,000) from a kiosk to `mdocverify serve` across two network namespaces joined by a
// veth pair, intake and the centre's re-verification included, each with the centre's peak RSS
// (a fresh centre each: memory flat as the batch grows); the larger one also with one request
// in flight at a time. The sync part needs root and iproute2;
// it is skipped otherwise.

/// The figures of the kiosk benchmarks.
func kioskBenchmarks(binary: String, seconds measure: Double, records: Int) -> [(String, Double, String)] {
    var figures: [(String, Double, String)] = []
    do {
        let bench = try KioskBench()
        defer { try? FileManager.default.removeItem(atPath: bench.root) }
        let capture = try bench.capture()
        let sealer = RecordSealer(signer: bench.outbox.identity.signer, recipient: bench.outbox.identity.recipient)
        var sequence: UInt64 = 0
        let sealRate = rate(seconds: measure) {
            sequence += 1
            let content = RecordContent(
                kiosk: bench.outbox.identity.signer.id, sequence: sequence, sealedAt: Date(), files: capture.files, consent: nil,
                verdict: capture.verdict, checks: capture.checks)
            return (try? sealer.seal(content)) != nil
        }
        figures.append(("kiosk.seal.1core", 1_000 / sealRate, "ms/tx"))
        let canSync = geteuid() == 0 && FileManager.default.isExecutableFile(atPath: binary)
        var peaks: [Double] = []
        for (index, batch) in [max(1, records / 10), records].enumerated() {
            let started = Date()
            for _ in 0..<batch { try bench.outbox.seal(capture) }
            if index == 1 {
                figures.append(("kiosk.seal+outbox.1core", Date().timeIntervalSince(started) * 1_000 / Double(batch), "ms/tx"))
            }
            guard canSync else {
                print("kiosk sync benchmark skipped: it needs root (network namespaces) and \(binary)")
                continue
            }
            if index == 1 {
                // The same sync with one request at a time, for comparison; then the outbox again.
                let (serial, serialPeak, _) = try bench.syncAcrossNamespaces(
                    binary: binary, records: batch, centreOut: "\(bench.root)/centre/out-\(batch)-serial", inFlight: 1)
                figures.append(("kiosk.sync.\(batch)records.inFlight1", Double(batch) / serial, "records/s"))
                figures.append(("kiosk.sync.\(batch)records.inFlight1.centre.peakRSS", Double(serialPeak) / 1024, "MiB"))
                for _ in 0..<batch { try bench.outbox.seal(capture) }
            }
            let (elapsed, peakKilobytes, cpu) = try bench.syncAcrossNamespaces(binary: binary, records: batch, centreOut: "\(bench.root)/centre/out-\(batch)")
            figures.append(("kiosk.sync.\(batch)records", Double(batch) / elapsed, "records/s"))
            figures.append(("kiosk.sync.\(batch)records.kiosk.cpu", cpu.kiosk * 1_000 / Double(batch), "ms/record"))
            figures.append(("kiosk.sync.\(batch)records.centre.cpu", cpu.centre * 1_000 / Double(batch), "ms/record"))
            figures.append(("kiosk.sync.\(batch)records.centre.peakRSS", Double(peakKilobytes) / 1024, "MiB"))
            peaks.append(Double(peakKilobytes))
        }
        // Flat memory: the centre's peak for the whole batch over its peak for a tenth of it.
        if peaks.count == 2, let small = peaks.first, let large = peaks.last, small > 0 {
            figures.append(("kiosk.sync.centre.peakRSS.growth", large / small, "x"))
        }
    } catch {
        print("kiosk benchmark failed: \(error)")
    }
    return figures
}

/// A kiosk, enrolled at a centre whose files are in the same temporary folder.
private struct KioskBench {
    let root = NSTemporaryDirectory() + "mdocverify-bench-kiosk-\(getpid())"
    let outbox: Outbox

    init() throws {
        let root = self.root
        try FileManager.default.createDirectory(atPath: root + "/centre/kiosks", withIntermediateDirectories: true)
        func identity(_ name: String) throws -> PrivateKey {
            let key = try PrivateKey.generate(curve: .p256)
            var builder = CertificateBuilder(
                subject: [("CN", name)], serialNumber: [1], notBefore: Date().addingTimeInterval(-3_600),
                notAfter: Date().addingTimeInterval(86_400), publicKey: key.publicKey)
            builder.keyUsage = (.digitalSignature, critical: true)
            let certificate = try builder.sign(issuer: nil, issuerKey: key, hash: .sha256)
            try Data(try key.pkcs8PEM().utf8).write(to: URL(fileURLWithPath: "\(root)/centre/\(name)-key.pem"))
            try Data(certificate.pem.utf8).write(to: URL(fileURLWithPath: "\(root)/centre/\(name)-cert.pem"))
            return key
        }
        _ = try identity("sealing")
        _ = try identity("processor")
        let kiosk = try KioskIdentity.create(
            id: try KioskID.validated("bench-kiosk"), sealingCertificatePEM: Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/centre/sealing-cert.pem"))),
            receiptCertificatePEM: Array(try Data(contentsOf: URL(fileURLWithPath: "\(root)/centre/processor-cert.pem"))),
            directory: root + "/kiosk")
        try Data(kiosk.signer.certificate.pem.utf8).write(to: URL(fileURLWithPath: "\(root)/centre/kiosks/bench-kiosk.pem"))
        outbox = try Outbox(directory: root + "/kiosk")
    }

    /// The Annex D transaction as the kiosk seals it.
    func capture() throws -> KioskCapture {
        let annexD = FileManager.default.currentDirectoryPath + "/samples/annex-d/"
        var files: [String: [UInt8]] = [:]
        for name in ["device-response.cbor", "session-transcript.cbor", "reader-key.pem"] {
            files[name] = Array(try Data(contentsOf: URL(fileURLWithPath: annexD + name)))
        }
        return KioskCapture(
            files: files, consent: nil, verdict: KioskVerdict(atVerification: .valid, atCapture: nil, verifiedAt: Date(), trustSnapshot: nil),
            checks: [CheckResult(.init("mso.digest"), .pass, "6/6 digests match")])
    }

    /// Starts `serve` in one namespace, times `sync` in the other; the sync's seconds, the
    /// centre's peak RSS in KiB, and the CPU seconds (user + system) of the kiosk's `sync` and of
    /// the centre's `serve` while it ran.
    func syncAcrossNamespaces(
        binary: String, records: Int, centreOut: String, inFlight: Int = 4
    ) throws -> (Double, Int, cpu: (kiosk: Double, centre: Double)) {
        let (kiosk, centre) = ("mdvb-kiosk-\(getpid())", "mdvb-centre-\(getpid())")
        let (kioskLink, centreLink) = ("mbk\(getpid() % 100_000)", "mbc\(getpid() % 100_000)")
        defer {
            ip(["netns", "del", kiosk])
            ip(["netns", "del", centre])
        }
        for command in [
            ["netns", "add", kiosk], ["netns", "add", centre], ["link", "add", kioskLink, "type", "veth", "peer", "name", centreLink],
            ["link", "set", kioskLink, "netns", kiosk], ["link", "set", centreLink, "netns", centre],
            ["-n", kiosk, "addr", "add", "10.231.251.1/30", "dev", kioskLink], ["-n", centre, "addr", "add", "10.231.251.2/30", "dev", centreLink],
            ["-n", kiosk, "link", "set", kioskLink, "up"], ["-n", centre, "link", "set", centreLink, "up"],
            ["-n", centre, "link", "set", "lo", "up"],
        ] where ip(command) != 0 {
            throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "ip \(command.joined(separator: " ")) failed"])
        }
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        server.arguments = [
            "netns", "exec", centre, binary, "serve", "--listen", "10.231.251.2:8470", "--sealing-key", "\(root)/centre/sealing-key.pem",
            "--signing-key", "\(root)/centre/processor-key.pem", "--signing-cert", "\(root)/centre/processor-cert.pem",
            "--kiosks", "\(root)/centre/kiosks", "--trust", "samples/annex-d/trust", "--out", centreOut,
        ]
        let pipe = Pipe()
        server.standardOutput = pipe
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            if server.isRunning { server.terminate() }
            server.waitUntilExit()
        }
        _ = pipe.fileHandleForReading.availableData  // the "listening on" line
        let sync = Process()
        sync.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        sync.arguments = [
            "netns", "exec", kiosk, binary, "sync", "--kiosk", "\(root)/kiosk", "--to", "http://10.231.251.2:8470", "--batch", "200",
            "--in-flight", "\(inFlight)",
        ]
        sync.standardOutput = FileHandle.nullDevice
        let centreBefore = Self.cpuSeconds(pid: server.processIdentifier)
        let kioskBefore = Self.childrenCPUSeconds()
        let started = Date()
        try sync.run()
        sync.waitUntilExit()
        let elapsed = Date().timeIntervalSince(started)
        // `ip netns exec` runs the binary in its own process: the sync is the child just waited for.
        let cpu = (kiosk: Self.childrenCPUSeconds() - kioskBefore, centre: Self.cpuSeconds(pid: server.processIdentifier) - centreBefore)
        guard sync.terminationStatus == 0, try outbox.status().waiting == 0 else {
            throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "the sync did not deliver all \(records) records"])
        }
        let status = (try? String(contentsOfFile: "/proc/\(server.processIdentifier)/status", encoding: .utf8)) ?? ""
        let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (elapsed, peak, cpu)
    }

    /// User + system CPU seconds of a running process (`/proc/PID/stat`, fields 14 and 15).
    static func cpuSeconds(pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // After the command: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// User + system CPU seconds of this process's children waited for so far.
    static func childrenCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    @discardableResult
    private func ip(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ip")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
