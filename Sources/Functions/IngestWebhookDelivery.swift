import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// `ingestWebhookDelivery`: files a webhook delivery the endpoint acknowledged (``M0027WebhookDeliveries``) into the
/// inbox, in the delivery's transaction: its device statuses and locations move their drivers (the newest of each
/// device in the delivery, unless a newer one is recorded), its events go to the inbox (an event already there, by
/// message id and index or by content, is skipped), and the delivery's row and body are deleted.
///
/// One multi-row INSERT instead of one statement per event, each row with its ordering key (see
/// ``M0014WebhookOrdering``) and the delivery's `received_at`; the statements are prepared once per connection
/// (``WebhookStatements``).
///
/// **Positions and device statuses are applied here, a delivery at a time, not an event at a time.** Location
/// events are nearly all of HyperTrack's traffic (every online driver every few seconds); handled one by one by
/// `onTripWebhook`, each cost the worker a claim, a transaction and an outcome update, and the 10,000-driver
/// simulation's worker topped out at 270 events/s, 21,000 deliveries behind, with dispatch and arrivals queued behind
/// them. Applied set-based, they cost one statement per delivery; their inbox rows are written already handled
/// (outcome and `processed_at`) and `onTripWebhook`'s trigger skips them (``OnTripWebhook/trigger``). The upsert
/// takes the drivers' rows in driver order, so two transactions naming the same drivers in different orders cannot
/// deadlock, and its `recorded_at` guard makes the newest position win whichever commits first. An event seen again
/// (a replay) is not newer than itself, so it moves nothing. Device statuses (`active`, `inactive`, `disconnected`:
/// whether dispatch may offer the driver rides) likewise: every drive's start and end sends one. They are applied
/// first: a status change writes the driver's `driver_positions.online` (``M0021FreeDriverIndex``), and every writer
/// takes a driver's `users` row before their position row.
///
/// **High priority, one lane.** Every delivery has the same ordering key (`lane`), so they are filed in the order
/// they committed; as high-priority deliveries they are claimed before the others and commit as soon as they ran,
/// so arrivals (and the positions dispatch reads) do not wait behind a backlog of other functions' work. A failing
/// delivery is retried quickly (at most 10 s apart) and, after its attempts, dead-lettered with its body kept
/// (`GET /v1/ops/deliveries/dead`, and retried from there), so the lane moves on.
public struct IngestWebhookDelivery: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "ingestWebhookDelivery"
    /// Fires on each stored delivery, in one lane.
    public static var trigger: Trigger { .create("webhook_deliveries", keyColumn: "lane") }
    /// High priority; retries at most 10 s apart (see the type's comment).
    public static var options: FunctionOptions {
        FunctionOptions(maxAttempts: 8, maximumBackoff: .seconds(10), priority: .high)
    }

    /// Creates the function.
    public init() {}

    public func handle(_ change: Change<WebhookDeliveryRow>, context: FunctionContext) async throws {
        guard let delivery = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the inserted delivery")
        }
        guard let connection = context.transaction else { throw FunctionsError.noTransaction(Self.name) }
        if try await Self.file(delivery, on: connection, logger: context.logger) == nil {
            context.logger.warning("webhook delivery filed already", metadata: ["webhook.delivery": "\(delivery.id)"])
        }
    }

    /// Files `delivery` on `connection` (in its transaction); returns how many of its events were new in the inbox,
    /// or `nil` when it has no body (filed already).
    ///
    /// Idempotent: were a delivery filed by two transactions at once (by hand, or a twin of the lane), the second
    /// waits on the first's row locks and unique index entries, then moves no driver (a position is not newer than
    /// itself; a status is written again, the same), inserts no event (`ON CONFLICT DO NOTHING`) and deletes
    /// nothing.
    static func file(_ delivery: WebhookDeliveryRow, on connection: PostgresConnection, logger: Logger) async throws
        -> Int?
    {
        guard let body = try await connection.rows(WebhookStatements.Body(deliveryID: delivery.id), logger: logger).first
        else { return nil }
        var applied: [Int] = []
        if body.hasStatuses {
            applied += try await connection.rows(WebhookStatements.DeviceStatuses(events: body.events), logger: logger)
        }
        if body.hasLocations {
            applied += try await connection.rows(WebhookStatements.Positions(events: body.events), logger: logger)
        }
        let inserted = try await connection.rows(
            WebhookStatements.Inbox(
                elements: body.elements,
                messageID: delivery.messageID,
                events: body.events,
                applied: applied,
                deliveryID: delivery.id
            ),
            logger: logger
        ).count
        _ = try await connection.rows(WebhookStatements.Filed(deliveryID: delivery.id), logger: logger)
        return inserted
    }
}
