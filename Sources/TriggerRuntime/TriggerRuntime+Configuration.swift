import Foundation

extension TriggerRuntime {
    /// How a worker claims, runs and settles deliveries. Every value has a documented default.
    public struct Configuration: Sendable {
        /// The channel `TriggerInstaller` uses unless told otherwise.
        public static let defaultChannel = "trigger_runtime"

        /// Handlers run at once, at most. Each holds a pooled connection while it runs, plus one for LISTEN:
        /// keep it below the client's `maximumConnections`. Default 8.
        public var concurrency: Int = 8
        /// Deliveries claimed per query, at most. The worker keeps claimed but not yet started about 100 ms of work
        /// at the rate its handlers finish, between half this and twice this, and claims again when half of that
        /// is taken, so its handler slots never wait for a claim and slow handlers do not hoard. Default 64.
        public var batchSize: Int = 64
        /// Deliveries handled one after another in one transaction, at most (each in its own savepoint, so a
        /// failing handler rolls back only its own writes). While more deliveries are queued, a handler slot keeps
        /// its transaction open for the next one, up to this many and for up to `transactionWindow`, so the commit
        /// (and its WAL flush) is shared. 1 commits every delivery alone. 1 to 60 (PostgreSQL caches 64
        /// subtransactions per transaction). Default 32.
        public var transactionBatchSize: Int = 32
        /// How long a handler slot may keep adding queued deliveries to its open transaction before it commits.
        /// Slow handlers therefore commit one by one; fast ones share commits. A high-priority delivery ends its
        /// transaction (it commits as soon as it ran). Default 20 ms.
        ///
        /// **Why not longer.** In the 4,000-ride city (one worker, 16 lanes, 2 cores saturated) a lane's transaction
        /// held 1.05-1.08 deliveries at 20 ms, the window closing once the first delivery (most make a HyperTrack
        /// call) had run, and 1.22-1.29 at 100 ms. Over eight runs of the two alternated (50th and 51st sessions) the
        /// rides' latencies followed the machine's speed that hour (the same set-up took 183-298 s), not the window:
        /// 100 ms looked better in one pair of alike machines, even in another, and nothing showed it safe for the
        /// row locks an open transaction holds longer (BENCHMARKS.md). The worker process reads it from its
        /// settings, so a deployment can try another.
        public var transactionWindow: Duration = .milliseconds(20)
        /// Under a stream of events (two claims in a row that found several deliveries, or 20 claims within a second
        /// that found some), claims are at least this far apart, so each takes what gathered meanwhile and one
        /// transaction handles several deliveries; behind a backlog (full claims) they follow each other at once. It
        /// adds up to this much latency under such load and none to a trickle. Pacing ends when a whole second of
        /// paced claims found work fewer than 10 times (``ClaimPacing``). While claims are paced, the worker tells
        /// the capture triggers so (a short-lived row in `trigger_runtime.awake_workers`) and writers skip their
        /// NOTIFY, which would make each of them wait for the others' commits; when pacing ends it withdraws that and
        /// claims until every writer that skipped has committed. Zero claims at every wake-up and never skips a
        /// notification. Default 10 ms.
        public var claimInterval: Duration = .milliseconds(10)
        /// Lanes (handler slots) start one at a time: another starts when a claimed delivery has waited this long
        /// for one (and none started within this time), up to `concurrency`. Fast handlers then share one lane and
        /// its transactions; slow ones get a lane each within `concurrency` × this. Default 1 ms.
        public var laneStartDelay: Duration = .milliseconds(1)
        /// Whether the commit of a delivery transaction (handler writes + done-marking) waits for its WAL flush.
        ///
        /// `true` (the default): a completed delivery is durable like any other commit. `false` sets
        /// `synchronous_commit = off` for these transactions: a server crash can then lose the last completions
        /// (up to about three times `wal_writer_delay`, 0.6 s by default), together with their handlers' writes,
        /// which stay atomic; those deliveries simply run again (at-least-once is unchanged). The default stays
        /// `true` because handlers' writes may be read and acted on by others before the flush, and forgetting
        /// them after a crash is a choice the application must make knowingly. Claims always commit without
        /// waiting for the flush: losing a claim in a crash loses nothing (the delivery is simply claimable again).
        /// Suggested environment variable: `TRIGGER_SYNCHRONOUS_COMPLETION` (`on`/`off`).
        public var synchronousCompletion: Bool = true
        /// The safety-net poll: how long the worker waits for a notification before looking anyway. Default 1 s.
        public var pollInterval: Duration = .seconds(1)
        /// How long a claim is leased: another worker takes the delivery over if this worker stops renewing it
        /// (it died). Default 30 s.
        public var leaseDuration: Duration = .seconds(30)
        /// How often the leases of running handlers are renewed; well under `leaseDuration`. Default 10 s.
        public var leaseRenewalInterval: Duration = .seconds(10)
        /// On graceful shutdown, how long running handlers may take to finish before they are cancelled and their
        /// deliveries handed back. Default 20 s.
        public var shutdownGracePeriod: Duration = .seconds(20)
        /// How long done deliveries stay in `trigger_runtime.done` (for `events list/show`). Default 7 days.
        public var retention: Duration = .seconds(7 * 86_400)
        /// How long dead-lettered deliveries are kept for `events list --dead` / `events retry` before they are
        /// deleted; counted from when they died. Default 30 days.
        public var deadRetention: Duration = .seconds(30 * 86_400)
        /// How often the done log is pruned. Default 10 minutes; the first pruning runs at start.
        public var pruneInterval: Duration = .seconds(600)
        /// Whether to hold a LISTEN connection. Without it the worker finds work by polling only. Default `true`.
        public var listen: Bool = true
        /// The NOTIFY channel (lowercase letters, digits, `_`); it must match `TriggerInstaller.install(_:channel:)`.
        public var channel: String = Configuration.defaultChannel
        /// The first delay before re-opening a lost LISTEN connection; doubles up to `maximumReconnectBackoff`.
        public var reconnectBackoff: Duration = .milliseconds(100)
        /// The longest delay between two attempts to re-open the LISTEN connection. Default 5 s.
        public var maximumReconnectBackoff: Duration = .seconds(5)
        /// This worker's name in leases (`events show` prints it). Default `host-pid-random`.
        public var workerID: String = Configuration.defaultWorkerID()

        /// How long a worker's awake declaration lasts unless renewed (see `Wakefulness`): ten claim intervals,
        /// at least 100 ms. A worker that dies while awake delays the other workers' notifications this long.
        var awakeFor: Duration { max(self.claimInterval * 10, .milliseconds(100)) }

        /// How many claimed deliveries the worker keeps queued for its handler slots, at most: about 100 ms of work
        /// at the rate its handlers finish (`completionRate`, per second), between half a batch and two batches. Fast
        /// handlers get a deep queue (larger claims, more deliveries per transaction: measured faster); slow ones
        /// do not hoard deliveries that another worker could run meanwhile.
        func claimAhead(completionRate: Double) -> Int {
            let work = completionRate.isNaN ? 0 : Int(min(max(completionRate * 0.1, 0), Double(Int32.max)))
            return min(2 * self.batchSize, max(max(1, self.batchSize / 2), work))
        }

        /// Creates a configuration with the defaults.
        public init() {}

        static func defaultWorkerID() -> String {
            let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? "worker"
            return "\(host)-\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
        }

        /// Throws `invalidConfiguration` naming the first value out of range.
        public func validate() throws {
            func require(_ condition: Bool, _ message: String) throws {
                if !condition { throw TriggerRuntimeError(.invalidConfiguration, message) }
            }
            try require(self.concurrency >= 1, "concurrency must be at least 1, got \(self.concurrency)")
            try require(self.batchSize >= 1, "batchSize must be at least 1, got \(self.batchSize)")
            try require(
                (1...60).contains(self.transactionBatchSize),
                "transactionBatchSize must be 1 to 60, got \(self.transactionBatchSize)"
            )
            try require(self.transactionWindow >= .zero, "transactionWindow must not be negative")
            try require(self.claimInterval >= .zero, "claimInterval must not be negative")
            try require(self.laneStartDelay >= .zero, "laneStartDelay must not be negative")
            try require(self.pollInterval > .zero, "pollInterval must be positive")
            try require(self.leaseDuration > .zero, "leaseDuration must be positive")
            try require(
                self.leaseRenewalInterval > .zero && self.leaseRenewalInterval < self.leaseDuration,
                "leaseRenewalInterval must be positive and shorter than leaseDuration"
            )
            try require(self.shutdownGracePeriod >= .zero, "shutdownGracePeriod must not be negative")
            try require(self.retention >= .zero, "retention must not be negative")
            try require(self.deadRetention >= .zero, "deadRetention must not be negative")
            try require(self.pruneInterval > .zero, "pruneInterval must be positive")
            try require(self.reconnectBackoff > .zero, "reconnectBackoff must be positive")
            try require(!self.workerID.isEmpty, "workerID must not be empty")
            try Self.validateChannel(self.channel)
        }

        static func validateChannel(_ channel: String) throws {
            let valid = !channel.isEmpty && channel.utf8.count <= 63
                && channel.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
            if !valid {
                throw TriggerRuntimeError(
                    .invalidConfiguration,
                    "channel must be 1-63 lowercase letters, digits or _, got \"\(channel)\""
                )
            }
        }
    }
}
