import CLibPQ

/// The isolation level a transaction begins with.
package enum PostgresIsolation: String, Sendable {
    case readCommitted = "READ COMMITTED"
    case repeatableRead = "REPEATABLE READ"
    case serializable = "SERIALIZABLE"
}

/// Where a connection stands between statements (`PQtransactionStatus`).
package enum PostgresTransactionState: Sendable {
    /// Outside a transaction block.
    case idle
    /// A statement is running.
    case active
    /// Inside a transaction block that can go on.
    case inTransaction
    /// Inside a transaction block that a failed statement aborted: only ROLLBACK is accepted.
    case failed
    /// The connection is broken or closed.
    case unknown
}

extension PostgresConnection {
    package var transactionState: PostgresTransactionState {
        guard let handle = try? liveHandle() else { return .unknown }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .failed
        default: return .unknown
        }
    }

    package func begin(_ isolation: PostgresIsolation = .readCommitted) throws(PostgresError) {
        try executeScript("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
    }

    /// Commits the open transaction. Throws `pg.transactionAborted` when a statement of it had
    /// failed (PostgreSQL then answers COMMIT with a rollback, and no error).
    package func commit() throws(PostgresError) {
        if transactionState == .failed {
            try rollback()
            throw PostgresError(.transactionAborted, "a statement of the transaction failed, so it was rolled back")
        }
        let result = try execute("COMMIT")
        if result.commandTag == "ROLLBACK" {
            throw PostgresError(.transactionAborted, "the server rolled the transaction back at COMMIT")
        }
    }

    package func rollback() throws(PostgresError) {
        try executeScript("ROLLBACK")
    }

    /// Runs `body` in a transaction: committed when `body` returns, rolled back when it throws
    /// (the error is rethrown). Retrying on ``PostgresError/isRetryable`` is the caller's choice.
    @discardableResult
    package func transaction<T>(
        _ isolation: PostgresIsolation = .readCommitted, _ body: () throws -> T
    ) throws -> T {
        try begin(isolation)
        do {
            let value = try body()
            try commit()
            return value
        } catch {
            // A failed COMMIT has already ended the transaction; a lost connection has nothing
            // left to roll back. The first error is the one to report.
            if transactionState == .inTransaction || transactionState == .failed { try? rollback() }
            throw error
        }
    }
}
