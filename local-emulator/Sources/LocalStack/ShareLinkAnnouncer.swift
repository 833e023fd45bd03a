import Foundation
import Functions
import Logging
import PostgresNIO

/// The local stack's share links: for each ride it sees booked (an `order.status` event of a `NEW` order in the
/// order event log) it makes the ride's public link, unless the rider already made one, and announces
/// `http://…/share/{token}` (the token is shown only here: the database keeps its hash).
///
/// It reads the log every half second: a developer's convenience beside the API's own hub, which holds the
/// process's LISTEN.
struct ShareLinkAnnouncer: Sendable {
    let client: PostgresClient
    let apiURL: String
    let logger: Logger
    let announce: @Sendable (_ orderID: UUID, _ url: String) -> Void

    func run() async {
        let log = OrderEventLog(client: self.client, logger: self.logger)
        var cursor: Int64?
        while !Task.isCancelled {
            do {
                if cursor == nil { cursor = try await log.ends().last }
                let events = try await log.events(after: cursor ?? 0)
                for event in events where event.kind == .orderStatus && event.payload.contains(#""status": "NEW""#) {
                    try await self.share(event.orderID)
                }
                if let last = events.last { cursor = last.position }
            } catch {
                if Task.isCancelled { return }
                self.logger.debug("share links: the log is not readable yet", metadata: ["error": "\(error)"])
            }
            // The announcer's poll clock (a convenience of the local stack; the API's streams are woken by LISTEN).
            if (try? await Task.sleep(for: .milliseconds(500))) == nil { return }
        }
    }

    private func share(_ orderID: UUID) async throws {
        let token = ShareTokens.make()
        let hash = ShareTokens.hash(token)
        let made = try await self.client.query(
            """
            INSERT INTO order_shares (order_id, token_hash) VALUES (\(orderID), \(hash))
            ON CONFLICT (order_id) DO NOTHING RETURNING order_id
            """,
            logger: self.logger
        ).collect().count
        if made > 0 { self.announce(orderID, "\(self.apiURL)/share/\(token)") }
    }
}
