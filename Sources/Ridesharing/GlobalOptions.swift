import ArgumentParser

/// Options every subcommand takes: where the database is and how much to log.
struct GlobalOptions: ParsableArguments {
    @Option(name: .customLong("database-url"), help: "postgres://user:password@host:port/database (env: DATABASE_URL).")
    var databaseURL: String?

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical (env: LOG_LEVEL; default info).")
    var logLevel: String?

    @Option(help: "Log format: text or json, one object per line (env: LOG_FORMAT; default text).")
    var logFormat: String?

    @Flag(help: "Use a PostgreSQL started by this process in .local/pg (created on first run) instead of DATABASE_URL.")
    var embeddedPostgres = false
}

/// Options of the worker (`serve`).
struct WorkerOptions: ParsableArguments {
    @Option(help: "Handlers run at once (env: WORKER_CONCURRENCY; default 8).")
    var concurrency: Int?

    @Option(help: "Deliveries claimed per query (env: WORKER_BATCH_SIZE; default 64).")
    var batchSize: Int?

    @Option(help: "Deliveries one handler slot runs in one transaction, 1 to 60 (env: WORKER_TRANSACTION_BATCH_SIZE; default 32).")
    var transactionBatchSize: Int?

    @Option(help: "Wait for the WAL flush when committing handled deliveries, true or false (env: WORKER_SYNCHRONOUS_COMPLETION; default true).")
    var synchronousCompletion: Bool?

    @Option(help: "Under a steady stream of events, milliseconds between claims, 0 to 1000; 0 claims at every wake-up (env: WORKER_CLAIM_INTERVAL_MS; default 10).")
    var claimIntervalMs: Int?

    @Option(help: "Safety-net poll interval in milliseconds (env: WORKER_POLL_INTERVAL_MS; default 1000).")
    var pollIntervalMs: Int?

    @Option(help: "Lease of a claimed delivery in seconds (env: WORKER_LEASE_SECONDS; default 30).")
    var leaseSeconds: Int?

    @Option(help: "Seconds running handlers get to finish on SIGTERM/SIGINT (env: WORKER_SHUTDOWN_GRACE_SECONDS; default 20).")
    var shutdownGraceSeconds: Int?

    @Option(help: "Hours done deliveries are kept (env: WORKER_RETENTION_HOURS; default 168).")
    var retentionHours: Int?

    @Option(help: "Hours dead deliveries are kept for events list/retry (env: WORKER_DEAD_RETENTION_HOURS; default 720).")
    var deadRetentionHours: Int?

    @Option(help: "Hold a LISTEN connection, true or false (env: WORKER_LISTEN; default true).")
    var listen: Bool?

    @Option(help: "NOTIFY channel (env: WORKER_CHANNEL; default trigger_runtime).")
    var channel: String?

    @Option(help: "This worker's name in leases (env: WORKER_ID; default host-pid-random).")
    var workerID: String?
}
