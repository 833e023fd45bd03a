import Foundation

extension Engine {
    /// Turns events produced now into one delivery (a JSON array), applying webhook faults; with a batch size, they
    /// join the delivery of this instant scheduled just before them while it has room, unless a fault touched
    /// either (`WebhookQueue.join`). A rule limited to an event type takes only those events out of a mixed delivery
    /// (they travel in a delivery of their own, after the rest, and meet the fault), so "drop every trip webhook"
    /// still delivers the locations of the same step.
    func enqueueEvents(_ events: [JSON]) {
        guard !events.isEmpty else { return }
        let types = events.compactMap { $0["type"]?.stringValue }
        if let size = options.webhookBatchSize, size > 0, events.count > size {
            for start in stride(from: 0, to: events.count, by: size) {
                enqueueEvents(Array(events[start..<min(start + size, events.count)]))
            }
            return
        }
        guard let rule = faults.webhookFault(eventTypes: types, now: now) else {
            // With a batch size, events of this instant join the delivery before them while it has room.
            var attempt = pendingAttempt(events)
            if let size = options.webhookBatchSize, size > 0 {
                if webhooks.join(attempt.body, eventCount: events.count, types: types, dueAt: now, limit: size) {
                    return
                }
                attempt.joinable = true
            }
            webhooks.schedule(attempt)
            return
        }
        var affected = events
        if let type = rule.eventType {
            affected = events.filter { $0["type"]?.stringValue == type }
            let rest = events.filter { $0["type"]?.stringValue != type }
            if !rest.isEmpty { webhooks.schedule(pendingAttempt(rest)) }
        }
        let attempt = pendingAttempt(affected)
        switch rule.kind {
        case .dropWebhooks:
            webhooks.log.append(record(attempt, status: nil, error: nil, outcome: .dropped))
            webhooks.outcomes[.dropped, default: 0] += 1
        case .duplicateWebhooks:
            webhooks.schedule(attempt)
            webhooks.schedule(attempt)
        case .reorderWebhooks where webhooks.held == nil:
            webhooks.held = (attempt, now)
        case .delayWebhooks:
            var delayed = attempt
            delayed.dueAt = now.addingTimeInterval(rule.delaySeconds)
            webhooks.scheduled.append(delayed)
        case .replayWebhooks:
            // SNS would keep the id on a retry; a replay is a new notification of the same events, so it gets a
            // new `x-amz-sns-message-id` (the id is not signed, the body and its signature are the same).
            webhooks.schedule(attempt)
            var replay = attempt
            replay.messageID = webhooks.random.uuid()
            replay.dueAt = now.addingTimeInterval(rule.delaySeconds)
            webhooks.scheduled.append(replay)
        default:
            webhooks.schedule(attempt)
        }
    }

    /// A first attempt at delivering `events` now, under a new message id.
    func pendingAttempt(_ events: [JSON]) -> PendingAttempt {
        PendingAttempt(
            messageID: webhooks.random.uuid(),
            body: JSON.array(events).bytes,
            eventTypes: events.compactMap { $0["type"]?.stringValue },
            attempt: 1,
            dueAt: now,
            eventCount: events.count
        )
    }

    /// Moves to the next moment with work (a tick or a due attempt) not after `target`: runs the tick if due and
    /// returns the attempts to make now, or `nil` when nothing is left before `target`.
    func nextStep(upTo target: Date) -> [PendingAttempt]? {
        let tickAt = state.nextTickAt
        let dueAt = webhooks.scheduled.map(\.dueAt).min()
        let time = max(now, min(tickAt, dueAt ?? tickAt))
        guard time <= target else { return nil }
        if tickAt <= time {
            enqueueEvents(tick())
            if let held = webhooks.held, held.heldAt < tickAt {
                webhooks.held = nil
                var released = held.attempt
                released.dueAt = now
                webhooks.scheduled.append(released)
            }
        } else {
            state.now = time
        }
        return webhooks.takeDue(at: now)
    }

    /// Ends an advance at `target` (after all steps up to it ran).
    func finishAdvance(at target: Date) {
        if target > state.now { state.now = target }
    }

    /// Logs an attempt's result and schedules a retry when the receiver failed.
    func recordAttempt(
        _ attempt: PendingAttempt,
        status: Int?,
        error: String?,
        configured: Bool,
        roundTrip: RoundTrip? = nil
    ) {
        if status != nil, let roundTrip { webhooks.roundTrips.append(roundTrip) }
        let outcome: WebhookDelivery.Outcome
        if !configured {
            outcome = .notConfigured
        } else if let status, (200..<500).contains(status) {
            outcome = status >= 400 ? .rejected : .delivered
        } else if attempt.attempt <= options.webhookMaxRetries {
            outcome = .retryScheduled
            var retry = attempt
            retry.attempt += 1
            retry.dueAt = now.addingTimeInterval(options.webhookRetryInterval)
            webhooks.scheduled.append(retry)
        } else {
            outcome = .failed
        }
        webhooks.log.append(record(attempt, status: status, error: error, outcome: outcome))
        webhooks.outcomes[outcome, default: 0] += 1
        if outcome == .delivered {
            for type in attempt.eventTypes { webhooks.deliveredEvents[type, default: 0] += 1 }
        }
        if let limit = options.webhookLogLimit, webhooks.log.count > limit + limit / 4 {
            // Trimmed in batches, not one element per attempt (each removal moves the whole array).
            webhooks.log.removeFirst(webhooks.log.count - limit)
        }
    }

    /// Every trip in brief (`GET /_emulator/trips`): id, device, status and the metadata's `order_id` and `leg`,
    /// for tools that check a city's trips without exporting the whole state (megabytes at thousands of devices).
    func tripSummaries() -> JSON {
        .array(
            state.trips.values.sorted { $0.id < $1.id }.map { trip in
                [
                    "id": .string(trip.id), "device_id": .string(trip.deviceID), "status": .string(trip.status.rawValue),
                    "order_id": trip.metadata["order_id"] ?? .null, "leg": trip.metadata["leg"] ?? .null,
                ]
            })
    }

    /// How many attempts had each outcome, since the start.
    func webhookOutcomes() -> JSON {
        .object(Dictionary(uniqueKeysWithValues: webhooks.outcomes.map { ($0.key.rawValue, JSON.number(Double($0.value))) }))
    }

    /// The delivered attempts' events by type, since the start.
    func deliveredEvents() -> JSON {
        .object(Dictionary(uniqueKeysWithValues: webhooks.deliveredEvents.map { ($0.key, JSON.number(Double($0.value))) }))
    }

    /// The acknowledgement round trips from index `after` on (as the stepper timed them, and on the wire), and how
    /// many there are in all.
    func roundTrips(after: Int) -> (total: Int, roundTrips: [RoundTrip]) {
        let all = webhooks.roundTrips
        return (all.count, after < all.count ? Array(all[max(after, 0)...]) : [])
    }

    func record(_ attempt: PendingAttempt, status: Int?, error: String?, outcome: WebhookDelivery.Outcome)
        -> WebhookDelivery
    {
        WebhookDelivery(
            messageID: attempt.messageID, attempt: attempt.attempt, attemptedAt: now, statusCode: status,
            error: error, outcome: outcome, eventTypes: attempt.eventTypes,
            body: String(decoding: attempt.body, as: UTF8.self))
    }

    func deliveryLog() -> [WebhookDelivery] { webhooks.log }
}
