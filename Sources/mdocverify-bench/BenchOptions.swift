import Foundation

/// The command line of mdocverify-bench.
struct BenchOptions {
    var seconds = 3.0
    var out = "reports/bench.json"
    var imaging = true
    var openssl = true
    var pipeline = true
    /// The report benchmark (ReportBench.swift): `mdocverify report` over a synthetic store.
    var report = true
    var reportTransactions = 1_000_000
    /// Build the report benchmark's store here and keep it (reused when it exists).
    var reportStore: String?
    var threads = ProcessInfo.processInfo.activeProcessorCount
    /// Rounds of the paired P-256 one-core measurement (0: none).
    var rounds = 5
    /// Verify the P-256 response this many times and exit (for `valgrind --tool=callgrind`).
    var profileResponses: Int?
    /// With --profile-responses: leave the CRLs out of the trust store.
    var profileWithoutCRLs = false
    /// Parse a PKCS#8 P-256 reader key this many times (and compare it with its COSE_Key) and exit.
    var profileReaderKeys: Int?
    /// Verify the first response of a `--write-batch` folder N times on one core and exit.
    var profileBatchResponses: (count: Int, folder: String)?
    /// Run the pipeline in this process on a `--write-batch` folder's archive and exit.
    var profilePipeline: String?
    /// Write the end-to-end batch (N transactions, `.tar.gz`) and its trust folder into a folder and exit.
    var writeBatch: (count: Int, folder: String)?
    /// Record N outcomes into a new store in a folder, measure the store alone and exit (StoreBench.swift).
    var storeBench: (count: Int, folder: String)?
    /// Only measure MSO status resolution (StatusBench.swift), in --rounds paired rounds, and exit.
    var onlyStatus = false
    /// Only measure live capture's work after the last chunk (CaptureBench.swift) and exit.
    var onlyCapture = false
    /// Verify the status bench's response N times, with its list loaded or without it, and exit.
    var profileStatus: (count: Int, loaded: Bool)?
    /// The kiosk benchmarks (KioskBench.swift): sealing, and syncs across network namespaces.
    var kiosk = true
    /// Only run the kiosk benchmarks.
    var onlyKiosk = false
    /// Sealed records of the larger kiosk sync (the smaller one sends a tenth).
    var kioskRecords = 10_000

    static let usage = """
        usage: mdocverify-bench [--seconds S] [--threads N] [--out FILE] [--no-imaging] [--no-openssl] [--no-pipeline] [--no-report]
          --seconds S    time per measurement (default 3)
          --threads N    threads for the all-cores figures (default: all cores)
          --rounds N     rounds of the paired one-core P-256 measurement: each round measures the
                         response, the same without CRLs in the trust store and MdocCrypto's bound
                         interleaved in CPU time, and `openssl speed` beside them;
                         the ratio targets take the median round (default 5; 0: unpaired only)
          --out FILE     JSON results (default reports/bench.json)
          --no-imaging   skip the imaging benchmarks
          --no-openssl   skip `openssl speed`
          --no-pipeline  skip the end-to-end pipeline runs
          --no-report    skip the report benchmark (a synthetic store of --report-transactions, default 1000000)
          --report-transactions N
                         transactions of the report benchmark's store
          --report-store PATH
                         build the report benchmark's store at PATH and keep it; reuse it when it exists
                         (a postgresql:// URI: build it in that database, reuse it when it holds the runs)
          --profile-responses N
                         only verify the P-256 sample response N times, single-threaded, and exit
                         (for profiling: valgrind --tool=callgrind .build/release/mdocverify-bench --profile-responses 300)
          --profile-without-crls
                         with --profile-responses: no CRL in the trust store (revocation unchecked)
          --profile-reader-keys N
                         only parse a PKCS#8 PEM reader key N times, matching it to its COSE_Key, and exit
          --profile-batch-responses N DIR
                         only verify the first response of a --write-batch folder (with its transcript and
                         reader key, against DIR/trust) N times on one core, and exit: the verification
                         cost to set against the end-to-end CPU per transaction on the same batch
          --profile-pipeline DIR
                         only run the pipeline (store and proofs, no JSON Lines) in this process on the
                         archive of a --write-batch folder, into a new folder under DIR, and exit
                         (for callgrind, which cannot run the mdocverify executable)
          --write-batch N DIR
                         only write the end-to-end batch (DIR/batch-N.tar.gz, DIR/trust/) and exit
                         (for profiling `mdocverify verify` on the benchmark's input)
          --only-status  only measure MSO status resolution with a one-million-entry list loaded:
                         --rounds paired rounds of --seconds each, with and without the list
          --only-capture only measure live capture's processing after the holder's last chunk, and exit
          --profile-status N with|without
                         only verify the status benchmark's response N times on one core, with its
                         one-million-entry list loaded or without it, and exit (for callgrind)
          --no-kiosk     skip the kiosk benchmarks (sealing; syncs across network namespaces, as root)
          --only-kiosk   only run the kiosk benchmarks
          --kiosk-records N
                         records of the larger kiosk sync (default 10000; the smaller sends a tenth)
          --store N DIR  only record N outcomes into a new store under DIR (batches of 256), print the
                         store's CPU per transaction, bytes written, size and report times, and exit
        """

    static func parse(_ arguments: [String]) -> BenchOptions {
        var options = BenchOptions()
        var rest = arguments.dropFirst()[...]
        func value(_ flag: String) -> String {
            guard let next = rest.popFirst() else { fail("\(flag) needs a value\n\(usage)") }
            return next
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--seconds":
                guard let s = Double(value(argument)), s.isFinite, s >= 0.1, s <= 600 else { fail("--seconds must be 0.1...600") }
                options.seconds = s
            case "--threads":
                guard let n = Int(value(argument)), (1...1024).contains(n) else { fail("--threads must be 1...1024") }
                options.threads = n
            case "--rounds":
                guard let n = Int(value(argument)), (0...100).contains(n) else { fail("--rounds must be 0...100") }
                options.rounds = n
            case "--out": options.out = value(argument)
            case "--no-imaging": options.imaging = false
            case "--no-openssl": options.openssl = false
            case "--no-pipeline": options.pipeline = false
            case "--no-report": options.report = false
            case "--report-transactions":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--report-transactions must be 1...10000000") }
                options.reportTransactions = n
            case "--report-store": options.reportStore = value(argument)
            case "--profile-without-crls": options.profileWithoutCRLs = true
            case "--only-status": options.onlyStatus = true
            case "--only-capture": options.onlyCapture = true
            case "--profile-status":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--profile-status needs a count and with|without") }
                switch value(argument) {
                case "with": options.profileStatus = (n, true)
                case "without": options.profileStatus = (n, false)
                default: fail("--profile-status needs a count and with|without")
                }
            case "--no-kiosk": options.kiosk = false
            case "--only-kiosk": options.onlyKiosk = true
            case "--kiosk-records":
                guard let n = Int(value(argument)), (10...10_000_000).contains(n) else { fail("--kiosk-records must be 10...10000000") }
                options.kioskRecords = n
            case "--profile-reader-keys":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--profile-reader-keys must be 1...10000000") }
                options.profileReaderKeys = n
            case "--write-batch":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--write-batch needs a count 1...10000000 and a folder") }
                options.writeBatch = (n, value(argument))
            case "--profile-pipeline": options.profilePipeline = value(argument)
            case "--profile-batch-responses":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--profile-batch-responses needs a count and a folder") }
                options.profileBatchResponses = (n, value(argument))
            case "--store":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--store needs a count 1...10000000 and a folder") }
                options.storeBench = (n, value(argument))
            case "--profile-responses":
                guard let n = Int(value(argument)), (1...10_000_000).contains(n) else { fail("--profile-responses must be 1...10000000") }
                options.profileResponses = n
            case "-h", "--help":
                print(usage)
                exit(0)
            default: fail("unknown argument \(argument)\n\(usage)")
            }
        }
        return options
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("mdocverify-bench: \(message)\n".utf8))
    exit(2)
}
