package import MdocIngest
package import MdocStore

/// One transaction on its way through the pipeline: its bundle and its session.
package struct Transaction: Sendable {
    package var bundle: TransactionBundle
    package let session: VerifierSession
    /// How a live capture that did not complete ended (failed or cancelled): its bundle is
    /// verified and recorded, and its session ends so.
    package var captureEnding: VerifierSession.State?
    /// The kiosk's side of the central intake's record the transaction was sealed in, when read
    /// from one: recorded beside the run's verification.
    package var kioskSide: KioskSide?

    /// A transaction of a batch: a session of its own, holding the bundle's reader key, past
    /// its pre-flight (the run's passed, and the bundle was read).
    init(bundle: TransactionBundle, kioskSide: KioskSide? = nil) {
        var bundle = bundle
        self.kioskSide = kioskSide
        self.session = TransactionVerifier.session(for: &bundle)
        self.bundle = bundle
        session.transition(to: .preflight)
    }

    /// A transaction captured live in `session` (its reader key held there, not in the bundle).
    package init(captured bundle: TransactionBundle, session: VerifierSession, ending: VerifierSession.State?) {
        var bundle = bundle
        if let copy = bundle.takeFile(TransactionVerifier.readerKeyFile) {
            // Only the session holds the key; a bundle bringing one has it taken over there.
            var key = copy
            session.keep(readerKeyPEM: &key)
        }
        self.bundle = bundle
        self.session = session
        self.captureEnding = ending
    }
}

/// Reads the inputs one batch at a time (constant memory), in input order: each bundle becomes
/// a ``Transaction`` with its session, each input that is no transaction an ingest failure.
struct ReadStage {
    enum Item: Sendable {
        case transaction(Transaction)
        /// An input that did not become a transaction, with its stable code and reason.
        case failure(source: String, code: String, reason: String)
    }

    /// The inputs not begun yet; the ordinary ones are read a run of them at a time.
    private var pending: ArraySlice<String>
    private var iterator: QueuedInputReader.Iterator?
    private let limits: IngestLimits
    private let archiveParts: Bool
    private let records: (any RecordInputs)?
    private let batchSize: Int
    private(set) var exhausted = false

    /// With `archiveParts` (a worker's items), an input naming an ``ArchivePart`` reads that part.
    init(inputs: [String], limits: IngestLimits, batchSize: Int, archiveParts: Bool = false, records: (any RecordInputs)? = nil) {
        pending = inputs[...]
        self.limits = limits
        self.archiveParts = archiveParts
        self.records = records
        self.batchSize = max(1, batchSize)
    }

    /// The next batch: up to the batch size, empty once the inputs are exhausted.
    mutating func next() -> [Item] {
        var items: [Item] = []
        while !exhausted && items.count < batchSize {
            guard let item = nextItem() else {
                exhausted = true
                break
            }
            items.append(item)
        }
        return items
    }

    /// The next item in input order: a record from ``RecordInputs``, else from MdocIngest's reader.
    private mutating func nextItem() -> Item? {
        while true {
            if let item = iterator?.next() {
                switch item {
                case .transaction(let bundle): return .transaction(Transaction(bundle: bundle))
                case .failure(let failure):
                    return .failure(source: failure.source, code: failure.error.code.description, reason: failure.error.reason)
                }
            }
            iterator = nil
            guard let input = pending.first else { return nil }
            if let records, records.handles(input) {
                pending.removeFirst()
                let items: [String]?
                do {
                    items = try records.expand(input)
                } catch {
                    return .failure(source: input, code: IngestError.Code.unreadable.description, reason: "\(error)")
                }
                // A store: its records are read next, in its order.
                if let items {
                    pending = items[...] + pending
                    continue
                }
                switch records.read(input) {
                case .transaction(let bundle, let kiosk): return .transaction(Transaction(bundle: bundle, kioskSide: kiosk))
                case .failure(let code, let reason): return .failure(source: input, code: code, reason: reason)
                }
            }
            let end = pending.firstIndex { records?.handles($0) == true } ?? pending.endIndex
            iterator = QueuedInputReader(inputs: Array(pending[..<end]), limits: limits, parts: archiveParts).makeIterator()
            pending = pending[end...]
        }
    }
}
