import PostgresNIO

extension PostgresClient.Configuration {
    /// Makes the pool a fixed set of `connections` connections that are opened at start and never idle-closed, and
    /// turns off the pool's keep-alive: a pool that arms no timer when a connection is released.
    ///
    /// Why: postgres-nio 1.33's pool arms two timers each time a connection goes back to it (the idle timeout, 60 s,
    /// for connections above `minimumConnections`; the keep-alive, 30 s) and cancels them at the next lease. Each
    /// timer is a child task in `ContinuousClock.sleep`, and on Linux (Swift 6.3) a cancelled sleep keeps its task
    /// and its dispatch timer source until the original deadline. heaptrack on `serve --api-only` under
    /// `GET /v1/me` showed it as the only growth: about 420 bytes per release held for 30–60 s, so resident memory
    /// rose with the request rate (39 MB → 284 MB after ~150k requests in a few minutes; ~1.2 KB a request with
    /// two queries) and reached a 128 Mi pod limit at ~1,000 requests/s. With a fixed pool and no keep-alive,
    /// releasing arms nothing; the soak benchmark (`soak-bench`, BENCHMARKS.md) shows the API flat.
    ///
    /// What it costs: every process holds `connections` server connections from the start (the deploy sizing
    /// already counts `DATABASE_MAX_CONNECTIONS` per process), and an idle connection is not probed: one the
    /// server closes is dropped and reopened at once (the socket's close reaches the pool), one that a network
    /// path silently dropped fails the next query on it (a function's delivery is retried; an API request fails).
    ///
    /// And one known failure: when PostgreSQL restarts, a query that asks for a connection while fewer than the
    /// minimum are open makes postgres-nio 1.33's pool fail a precondition (`minimumConcurrentConnections <=
    /// stats.active`), which stops the process; a supervisor starts it again. How, as read in 1.33.2's source
    /// (`PoolStateMachine`, 37th session; not traced in a run): once a connect fails the pool is
    /// `connectionCreationFailing` and retries one connection, destroying the others whose connects fail or whose
    /// back-off ends, so fewer than the minimum stay active; nothing refills them, and the next request that finds
    /// no idle connection asks `createNewDemandConnectionIfPossible`, whose precondition is that minimum. A pool
    /// without a minimum (and a 10 s idle timeout, to bound the timers above) was tried: it does not crash, but in
    /// the chaos simulation the API's pool made no further connection attempt after PostgreSQL's "not yet accepting
    /// connections" (57P03) during crash recovery, and every query waited for ever. A crash that is restarted beats
    /// a process that hangs.
    /// Reproduced in isolation (12th session, a throwaway probe not kept in the suite): a `PostgresClient` of at most
    /// 8 connections, minimum 0 or 1, no keep-alive, 16 tasks querying in a loop while PostgreSQL was stopped
    /// (`immediate`) and started 20 times 0.3-1.5 s apart: after the restarts 13 to 15 of the 16 tasks waited for ever
    /// in both pools (over 4 minutes, until the probe was killed), the server up and idle.
    /// - Parameter connections: The pool size (`options.maximumConnections` and `options.minimumConnections`).
    public mutating func useSteadyPool(connections: Int) {
        self.options.maximumConnections = connections
        self.options.minimumConnections = connections
        self.options.keepAliveBehavior = nil
    }
}
