import PostgresNIO

extension PostgresClient.Configuration {
    /// The pool of a long-running process: up to `connections` connections, opened on demand, each closed after
    /// `idleTimeout` unused; no keep-alive probes.
    ///
    /// **Why no minimum.** postgres-nio 1.33's pool fails a precondition (`minimumConcurrentConnections <=
    /// stats.active`, PoolStateMachine+ConnectionGroup.swift:163) and stops the process when a query asks for a
    /// connection while fewer than the minimum are open: exactly what happens when PostgreSQL restarts and every
    /// connection drops. The previous fixed pool (minimum = maximum) made every `serve` process crash at each
    /// PostgreSQL restart of the chaos simulation (`SimulationChaosTests`, every run); with no minimum the condition
    /// cannot fail, and the pool reconnects as queries come.
    ///
    /// **Why a short idle timeout and no keep-alive.** The pool arms the idle timer (for connections above the
    /// minimum: with none, every connection) and the keep-alive timer each time a connection goes back to it, and
    /// cancels them at the next lease. Each timer is a child task in `ContinuousClock.sleep`, and on Linux (Swift 6.3)
    /// a cancelled sleep keeps its task and its dispatch timer source until the original deadline: heaptrack on
    /// `serve --api-only` under `GET /v1/me` showed about 420 bytes per release held for the timers' 30–60 s
    /// (39 MB → 284 MB after ~150k requests in a few minutes with the defaults). What is held is bounded by the
    /// request rate × the longest timer: without keep-alive and with a 10 s idle timeout, ~4 MB at 1,000 releases/s.
    /// A connection idle for 10 s is closed, so a process that was quiet opens its connections again (a few
    /// milliseconds each) when traffic returns.
    /// - Parameters:
    ///   - connections: The most connections (`options.maximumConnections`).
    ///   - idleTimeout: How long an unused connection stays open. Default 10 s.
    public mutating func useBoundedPool(connections: Int, idleTimeout: Duration = .seconds(10)) {
        self.options.maximumConnections = connections
        self.options.minimumConnections = 0
        self.options.connectionIdleTimeout = idleTimeout
        self.options.keepAliveBehavior = nil
    }
}
