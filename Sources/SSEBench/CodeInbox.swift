import BenchSupport
import Foundation
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// What an SMS provider is to `ridesharing serve`: the receiver at `AUTH_CODE_WEBHOOK_URL` that keeps the sign-in
/// codes the API posts, so the benchmark signs its riders in as an app does (ask for a code, read it, trade it). The
/// signature header is not checked: the benchmark is both ends of that wire.
final class CodeInbox: Sendable {
    private struct Message: Decodable {
        var phone: String
        var code: String
    }

    private let codes = Mutex<[String: String]>([:])

    /// The last code posted for `phone`.
    func code(for phone: String) throws -> String {
        guard let code = self.codes.withLock({ $0[phone] }) else {
            throw BenchError("no sign-in code was posted for \(phone)")
        }
        return code
    }

    /// Serves the inbox on 127.0.0.1:`port` while `body` runs.
    func withRunning<T: Sendable>(
        port: Int,
        logger: Logger,
        _ body: @Sendable () async throws -> T
    ) async throws -> T {
        let router = Router()
        router.post("codes") { request, context -> HTTPResponse.Status in
            let message = try await request.decode(as: Message.self, context: context)
            self.codes.withLock { $0[message.phone] = message.code }
            return .noContent
        }
        let (running, started) = AsyncStream.makeStream(of: Void.self)
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { _ in started.yield() },
            logger: logger
        )
        let group = ServiceGroup(services: [app], gracefulShutdownSignals: [], logger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { tasks in
            tasks.addTask {
                try await group.run()
                return nil
            }
            var iterator = running.makeAsyncIterator()
            await iterator.next()
            do {
                let result = try await body()
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                do {
                    try await tasks.waitForAll()
                } catch let stopping {
                    logger.warning("the code inbox did not stop cleanly", metadata: ["error": "\(stopping)"])
                }
                throw error
            }
        }
    }
}
