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
        for await _ in self.prepared {}
        // The stream also ends when the task is cancelled (the preparation failed and the group is stopping).
        try Task.checkCancellation()
        try await self.service.run()
    }

    var description: String { "\(self.service)" }
}
