import Foundation
import Logging
import PostgresNIO
import TriggerRuntime

/// `applyWebhookDelivery`: applies a webhook delivery the API received (its receipt, ``M0031WebhookReceipts``).
///
/// In one transaction, the delivery's body decoded (it is stored as received, ``M0034WebhookBodiesAsReceived``), its
/// rejected events recorded (``WebhookIntake``), and its: device statuses and positions applied (the newest of each
/// device, unless a newer one is recorded), usable events into the inbox (an event already there, by message id and
/// index or by content, is skipped; each with its ordering key, ``M0014WebhookOrdering``; `received_at` the
/// receipt's), and the receipt deleted. A receipt already applied (gone) is nothing to do. The statements are
/// prepared once per connection (``WebhookStatements``).
///
/// **When.** With `WEBHOOKS_APPLY=worker` (``Backend/Configuration/Webhook/Apply/worker``); by default the request
/// applies its delivery itself, with ``apply(_:on:stillRefresh:logger:)``, before its answer: 65-80 ms p50 and
/// 600 ms p99 under the 10,000-driver city, where issue 19 asks 50 ms p99. Applied here, the answer is about half
/// that and the city runs faster; with the worker's eight lanes the rides' functions then waited seconds to be
/// claimed on a 2-core machine, with sixteen they kept up (BENCHMARKS.md, 34th and 35th sessions).
///
/// **Positions and device statuses are applied set-based, a delivery at a time, not by `onTripWebhook`.** Location
/// events are nearly all of HyperTrack's traffic (every online driver every few seconds); handled by
/// `onTripWebhook` one event a delivery, each cost the worker a claim, a transaction and an outcome update, and the
/// 10,000-driver simulation's worker topped out at 270 events/s, 21,000 deliveries behind, with dispatch and
/// arrivals queued behind them. Here a delivery of 500 costs one statement more; their inbox rows are written
/// already handled (outcome and `processed_at`) and `onTripWebhook`'s trigger skips them
/// (``OnTripWebhook/trigger``). The upsert takes the drivers' rows in driver order, so two deliveries naming the same
/// drivers in different orders cannot deadlock, and its `recorded_at` guard makes the newest position win whichever
/// commits first (but for a still driver's unwritten reports: ``WebhookStatements/Positions``). An event seen again
/// (a replay) is not newer than itself, so it moves nothing. Device statuses
/// (`active`, `inactive`, `disconnected`: whether dispatch may offer the driver rides) likewise: every drive's start
/// and end sends one. They are applied first: a status change writes the driver's `driver_positions.online`
/// (``M0021FreeDriverIndex``), and every writer takes a driver's `users` row before their position row, so this
/// transaction and an availability change beside it cannot each hold the row the other waits for.
///
/// High priority: a delivery carries the arrivals that move rides on and the positions dispatch reads, and
/// HyperTrack's answer no longer waits for it.
public struct ApplyWebhookDelivery: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "applyWebhookDelivery"
    /// Each receipt is its own document: deliveries apply side by side (their writes are ordered per driver).
    public static var trigger: Trigger { Trigger.create(M0031WebhookReceipts.receipts) }
    /// The runtime's retries; high priority (see above).
    public static var options: FunctionOptions { FunctionOptions(priority: .high) }

    /// What the inbox records on a location event's row (the same words `onTripWebhook` uses when it applies one).
    public static let positionApplied = "applied: position"
    public static let positionIgnored = "ignored: unknown device or a newer position is recorded"
    /// The same for `device_status` events (`applied: device <value>` when applied).
    public static let statusIgnored = "ignored: unknown device or a newer status is recorded"
    public static let statusIncomplete = "ignored: device_status without device or value"

    /// How long a still driver's stored position stands for their reports of the same place
    /// (``WebhookStatements/Positions``): a quarter of dispatch's position age.
    let stillRefresh: Duration

    /// Creates the function for dispatch's `maxPositionAge` (``Backend/Configuration/Dispatch/maxPositionAge``).
    public init(maxPositionAge: Duration = DriverSearch.defaultMaxPositionAge) {
        self.stillRefresh = WebhookStatements.Positions.stillRefresh(maxPositionAge: maxPositionAge)
    }

    public func handle(_ change: Change<WebhookReceiptRow>, context: FunctionContext) async throws {
        guard let receipt = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the inserted receipt")
        }
        guard let connection = context.transaction else { throw FunctionsError.noTransaction(Self.name) }
        let inserted = try await Self.apply(
            receipt: receipt.id,
            on: connection,
            stillRefresh: self.stillRefresh,
            logger: context.logger
        )
        context.logger.debug(
            "webhook delivery applied",
            metadata: [
                "webhook.receipt": "\(receipt.id)", "webhook.new_events": "\(inserted.map { "\($0)" } ?? "gone")",
            ]
        )
    }

    /// Applies every receipt waiting, oldest first, each in its own transaction, as a worker would: for a test or a
    /// tool that runs the API without a worker. A worker running beside it is harmless (a receipt one of them
    /// applied is gone for the other).
    /// - Returns: How many receipts it applied.
    @discardableResult
    public static func applyWaiting(
        client: PostgresClient,
        maxPositionAge: Duration = DriverSearch.defaultMaxPositionAge,
        logger: Logger
    ) async throws -> Int {
        let stillRefresh = WebhookStatements.Positions.stillRefresh(maxPositionAge: maxPositionAge)
        let ids = try await client.rows(
            "SELECT id FROM \(unescaped: M0031WebhookReceipts.receipts) ORDER BY id",
            logger: logger
        ) { try $0.decode(Int64.self) }
        var applied = 0
        for id in ids {
            let done = try await client.withTransactionClosedOnFailure(logger: logger) { connection in
                try await Self.apply(receipt: id, on: connection, stillRefresh: stillRefresh, logger: logger)
            }
            if done != nil { applied += 1 }
        }
        return applied
    }

    /// Applies a receipt on `connection`, inside its open transaction, and deletes it. A body as received is decoded
    /// here (``WebhookIntake``, ``M0034WebhookBodiesAsReceived``) and its rejected events recorded with the rest.
    /// - Returns: How many inbox rows were new; `nil` when the receipt is gone (applied already).
    static func apply(
        receipt id: Int64,
        on connection: PostgresConnection,
        stillRefresh: Duration,
        logger: Logger
    ) async throws -> Int? {
        guard let receipt = try await connection.rows(WebhookStatements.ReceiptToApply(id: id), logger: logger).first
        else { return nil }
        var inserted = 0
        switch receipt {
        case .decoded(let delivery):
            inserted = try await Self.apply(delivery, on: connection, stillRefresh: stillRefresh, logger: logger)
        case .asReceived(let messageID, let receivedAt, let body):
            let intake = WebhookIntake(body: body)
            if let delivery = ReceivedDelivery(messageID: messageID, receivedAt: receivedAt, intake: intake) {
                inserted = try await Self.apply(delivery, on: connection, stillRefresh: stillRefresh, logger: logger)
            }
            try await WebhookStatements.recordRejections(
                intake.rejections,
                messageID: messageID,
                on: connection,
                logger: logger
            )
        }
        try await connection.count(
            "DELETE FROM \(unescaped: M0031WebhookReceipts.receipts) WHERE id = \(id)",
            logger: logger
        )
        return inserted
    }

    /// Applies a delivery on `connection`, inside its open transaction: the worker's receipt, or the request's own
    /// delivery (``Backend/Configuration/Webhook/Apply/request``).
    /// - Returns: How many inbox rows were new.
    static func apply(
        _ delivery: ReceivedDelivery,
        on connection: PostgresConnection,
        stillRefresh: Duration,
        logger: Logger
    ) async throws -> Int {
        try await connection.query(WebhookStatements.settings, logger: logger)
        var applied: [Int] = []
        if delivery.hasStatuses {
            applied += try await connection.rows(
                WebhookStatements.DeviceStatuses(events: try delivery.othersJSON()),
                logger: logger
            )
        }
        if !delivery.locations.isEmpty {
            applied += try await connection.rows(
                WebhookStatements.Positions(latest: delivery.latestLocations(), stillRefresh: stillRefresh),
                logger: logger
            )
        }
        return try await connection.rows(
            WebhookStatements.Inbox(delivery: delivery, applied: applied),
            logger: logger
        ).count
    }
}

/// A delivery's usable events as the intake hands them to PostgreSQL: applied by the request that received it, or
/// stored as a receipt (``M0031WebhookReceipts``) and read back by ``ApplyWebhookDelivery``.
///
/// **Locations go as array columns, not JSON.** A city's delivery is ~434 locations and a few other events; as one
/// JSON array PostgreSQL parsed it twice a delivery (`jsonb_to_recordset`: the position upsert's input, 3.3 ms with
/// its per-device sort, and the inbox's, 3 ms, of a ~30 ms intake on an idle machine; BENCHMARKS.md, 33rd
/// session). The API has decoded every event already, so it sends the locations as binary arrays (`unnest`) and
/// picks each device's newest itself (``latestLocations()``); only the other events (statuses, trips, batteries:
/// a few a delivery) stay JSON.
struct ReceivedDelivery: Sendable {
    var messageID: String
    /// When it was received; `nil`: now (the request applies it as it is received).
    var receivedAt: Date?
    /// The delivery's events as sent (a JSON array), for each inbox row's payload.
    var elements: String
    /// Its usable events.
    let events: [InboxEvent]
    /// Its locations with a device, a position and a time (every usable location has the first two): the inbox's
    /// and the position upsert's array columns.
    let locations: [InboxEvent]
    /// The devices of its location events, each once: the inbox asks which of them a drive reads.
    let devices: [String]
    /// Whether it holds a `device_status` event.
    let hasStatuses: Bool

    init(messageID: String, receivedAt: Date?, elements: String, events: [InboxEvent]) {
        self.messageID = messageID
        self.receivedAt = receivedAt
        self.elements = elements
        self.events = events
        self.locations = events.filter(Self.isColumnLocation)
        self.devices = Array(Set(events.compactMap { $0.type == "location" ? $0.deviceID : nil }))
        self.hasStatuses = events.contains { $0.type == "device_status" }
    }

    /// Whether an event goes to PostgreSQL in the location columns.
    static func isColumnLocation(_ event: InboxEvent) -> Bool {
        event.type == "location" && event.deviceID != nil && event.latitude != nil && event.longitude != nil
            && event.recordedAt != nil
    }

    /// Every event that is not in ``locations``, as the JSON array of ``InboxEvent`` rows `jsonb_to_recordset`
    /// reads.
    func othersJSON() throws -> String {
        let others = self.events.filter { !Self.isColumnLocation($0) }
        return String(decoding: try JSONEncoder().encode(others), as: UTF8.self)
    }

    /// Every event, encoded: a previous release's receipt's `events` (decoded back by
    /// ``init(messageID:receivedAt:elements:stored:)``); tests write such receipts with it.
    func storedEvents() throws -> String {
        String(decoding: try JSONEncoder().encode(self.events), as: UTF8.self)
    }

    /// The newest of each device's ``locations``: the latest `recorded_at`, then the latest index (as the position
    /// upsert's `DISTINCT ON` chose when PostgreSQL did this).
    func latestLocations() -> [InboxEvent] {
        var newest: [String: InboxEvent] = [:]
        newest.reserveCapacity(self.locations.count)
        for event in self.locations {
            guard let device = event.deviceID, let at = event.recordedAt else { continue }
            if let kept = newest[device], let keptAt = kept.recordedAt, (keptAt, kept.index) > (at, event.index) {
                continue
            }
            newest[device] = event
        }
        return newest.values.sorted { $0.index < $1.index }
    }
}

extension ReceivedDelivery {
    /// The usable events of `intake`, received at `receivedAt` (`nil`: now); `nil` when it has none.
    init?(messageID: String, receivedAt: Date? = nil, intake: WebhookIntake) {
        guard !intake.events.isEmpty else { return nil }
        self.init(messageID: messageID, receivedAt: receivedAt, elements: intake.elements, events: intake.events)
    }

    /// A previous release's receipt's delivery: its events as ``storedEvents()`` wrote them.
    init(messageID: String, receivedAt: Date, elements: String, stored: String) throws {
        self.init(
            messageID: messageID,
            receivedAt: receivedAt,
            elements: elements,
            events: try JSONDecoder().decode([InboxEvent].self, from: Data(stored.utf8))
        )
    }
}

/// A `webhook_receipts` row: a delivery received, not yet applied (its body is in `webhook_receipt_bodies`).
public struct WebhookReceiptRow: Sendable, Hashable, Codable {
    /// The receipt's id.
    public var id: Int64
    /// `x-amz-sns-message-id` of the delivery.
    public var messageID: String
    /// How many usable events it holds; `nil` for a body stored as received (not decoded yet).
    public var events: Int?

    /// Creates a row.
    public init(id: Int64, messageID: String, events: Int? = nil) {
        self.id = id
        self.messageID = messageID
        self.events = events
    }

    private enum CodingKeys: String, CodingKey {
        case id, events
        case messageID = "message_id"
    }
}
