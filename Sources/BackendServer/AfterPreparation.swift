import ServiceLifecycle

/// Runs a service once the application's `beforeServerStarts` work (migrations, capture triggers) has finished.
///
/// Hummingbird starts an application's services beside that work, not after it; the worker must not claim before
/// its tables and triggers exist.
struct AfterPreparation: Service, CustomStringConvertible {
    /// Finishes when the preparation is done; never yields.
    let prepared: AsyncStream<Never>
    let service: any Service

    func run() async throws {
        let prepared = self.prepared
        await cancelWhenGracefulShutdown {
            for await _ in prepared {}
        }
        // The wait also ends on cancellation (the preparation failed and the group is stopping) and on graceful
        // shutdown (SIGTERM during the migrations): the service then has nothing to do.
        if Task.isCancelled || Task.isShuttingDownGracefully { return }
        try await self.service.run()
    }

    var description: String { "\(self.service)" }
}
