extension Setting {
    static let workerConcurrency = Setting(
        "worker.concurrency", "WORKER_CONCURRENCY", flag: "concurrency", default: .value("8"), .integer(1...1000),
        group: .worker, "Handlers run at once; each holds one connection while it runs."
    )
    static let workerBatchSize = Setting(
        "worker.batchSize", "WORKER_BATCH_SIZE", flag: "batch-size", default: .value("64"), .integer(1...10_000),
        group: .worker, "Deliveries claimed per query.",
        detail: "A worker keeps about 100 ms of work claimed ahead at the rate its handlers finish, between half this "
            + "and twice this: fast handlers get a queue of two claims, slow ones do not hoard deliveries another "
            + "worker could run."
    )
    static let workerTransactionBatchSize = Setting(
        "worker.transactionBatchSize", "WORKER_TRANSACTION_BATCH_SIZE", flag: "transaction-batch-size",
        default: .value("32"), .integer(1...60), group: .worker,
        "Deliveries one handler slot runs in one transaction; 1 gives one transaction per delivery.",
        detail: "Each runs in its own savepoint and is marked done at that transaction's commit."
    )
    static let workerTransactionWindow = Setting(
        "worker.transactionWindowMs", "WORKER_TRANSACTION_WINDOW_MS", flag: "transaction-window-ms",
        default: .value("20"), .integer(0...1000), group: .worker,
        "Milliseconds a handler slot keeps adding queued deliveries to its open transaction before it commits.",
        detail: "Slow handlers commit one by one, fast ones share a commit; a high-priority delivery commits as soon "
            + "as it ran; 0 commits every delivery alone. A longer window shares more commits but holds the rows "
            + "its transaction wrote longer: in the 4,000-ride city 100 made a transaction hold 1.2-1.3 deliveries "
            + "instead of 1.05-1.08, without a gain that outran the machine's own variation (BENCHMARKS.md, 51st "
            + "session)."
    )
    static let workerSynchronousCompletion = Setting(
        "worker.synchronousCompletion", "WORKER_SYNCHRONOUS_COMPLETION", flag: "synchronous-completion",
        default: .value("true"), .boolean, group: .worker,
        "Wait for the WAL flush when committing handled deliveries.",
        detail: "`false` commits without waiting: a database crash can then lose the last completions (and the "
            + "handlers' writes with them), whose deliveries simply run again. Measured without gain on the "
            + "benchmark; keep `true` unless the disk is slow."
    )
    static let workerClaimInterval = Setting(
        "worker.claimIntervalMs", "WORKER_CLAIM_INTERVAL_MS", flag: "claim-interval-ms", default: .value("10"),
        .integer(0...1000), group: .worker,
        "Under a stream of events, milliseconds between claims; 0 claims at every wake-up.",
        detail: "A stream means two claims in a row that found several deliveries, or 20 claims within a second that "
            + "found some; it ends when a whole second of paced claims found work fewer than 10 times. Then one "
            + "claim and one transaction serve several deliveries: fewer commits and less WAL per delivery, so "
            + "writers keep more of their rate while the worker runs (BENCHMARKS.md, \"Steady load\"). Adds at most "
            + "this much latency under such load; none to a trickle, and behind a backlog full claims follow each "
            + "other at once. While claims are paced the worker keeps a short-lived row in "
            + "`trigger_runtime.awake_workers` (expiring after ten intervals, at least 100 ms, unless renewed) and "
            + "writers in READ COMMITTED skip their NOTIFY, which would make each of them wait on a database-wide "
            + "lock through the others' commits; when pacing ends the worker deletes the row and claims until "
            + "every writer that skipped has finished. If a worker is killed while paced, what is captured before "
            + "its row expires waits for the other workers' poll (`WORKER_POLL_INTERVAL_MS`). 0 never skips a "
            + "notification."
    )
    static let workerPollInterval = Setting(
        "worker.pollIntervalMs", "WORKER_POLL_INTERVAL_MS", flag: "poll-interval-ms", default: .value("1000"),
        .integer(10...3_600_000), group: .worker, "Safety-net poll interval in milliseconds.",
        detail: "New rows normally wake the worker through LISTEN/NOTIFY."
    )
    static let workerLease = Setting(
        "worker.leaseSeconds", "WORKER_LEASE_SECONDS", flag: "lease-seconds", default: .value("30"),
        .integer(2...86_400), group: .worker, "Lease of a claimed delivery in seconds; renewed every third of it.",
        detail: "A crashed worker's deliveries are retried after it."
    )
    static let workerShutdownGrace = Setting(
        "worker.shutdownGraceSeconds", "WORKER_SHUTDOWN_GRACE_SECONDS", flag: "shutdown-grace-seconds",
        default: .value("20"), .integer(0...3600), group: .worker,
        "Seconds running handlers get to finish on SIGTERM/SIGINT.",
        detail: "Keep the orchestrator's kill timeout above it (k8s `terminationGracePeriodSeconds: 40`, systemd "
            + "`TimeoutStopSec=45`, compose `stop_grace_period: 40s`)."
    )
    static let workerRetention = Setting(
        "worker.retentionHours", "WORKER_RETENTION_HOURS", flag: "retention-hours", default: .value("168"),
        .integer(0...87_600), group: .worker, "Hours rows stay in `trigger_runtime.done`."
    )
    static let workerDeadRetention = Setting(
        "worker.deadRetentionHours", "WORKER_DEAD_RETENTION_HOURS", flag: "dead-retention-hours",
        default: .value("720"), .integer(0...87_600), group: .worker,
        "Hours dead deliveries stay for `events list --dead` / `events retry`, counted from when they died.",
        detail: "Then they are deleted. Deliveries of a function removed from the registry are dead-lettered when "
            + "the new registry is installed."
    )
    static let workerListen = Setting(
        "worker.listen", "WORKER_LISTEN", flag: "listen", default: .value("true"), .boolean, group: .worker,
        "Hold one extra connection for LISTEN."
    )
    static let workerChannel = Setting(
        "worker.channel", "WORKER_CHANNEL", flag: "channel", default: .value("trigger_runtime"), group: .worker,
        "NOTIFY channel.",
        detail: "Workers on one channel should run the same functions: while one of them is paced, writers skip the "
            + "channel's NOTIFY, so a delivery of a function only another worker runs (during a rolling update that "
            + "adds a function, say) waits for that worker's poll."
    )
    static let workerID = Setting(
        "worker.id", "WORKER_ID", flag: "worker-id", default: .computed("host-pid-random"), group: .worker,
        "This worker's name in leases and `done.lease_owner`."
    )

    static let worker: [Setting] = [
        .workerConcurrency, .workerBatchSize, .workerTransactionBatchSize, .workerTransactionWindow,
        .workerSynchronousCompletion, .workerClaimInterval, .workerPollInterval, .workerLease, .workerShutdownGrace,
        .workerRetention, .workerDeadRetention, .workerListen, .workerChannel, .workerID,
    ]
}
