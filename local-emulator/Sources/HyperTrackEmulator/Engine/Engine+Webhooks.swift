import Foundation

extension Engine {
    /// Turns events produced now into one delivery (a JSON array), applying webhook faults.
    func enqueueEvents(_ events: [JSON]) {
        guard !events.isEmpty else { return }
        let types = events.compactMap { $0["type"]?.stringValue }
        let attempt = PendingAttempt(
            messageID: webhooks.random.uuid(), body: JSON.array(events).bytes, eventTypes: types, attempt: 1,
            dueAt: now)
        switch faults.webhookFault(eventTypes: types) {
        case .dropWebhooks:
            webhooks.log.append(record(attempt, status: nil, error: nil, outcome: .dropped))
        case .duplicateWebhooks:
            webhooks.schedule(attempt)
            webhooks.schedule(attempt)
        case .reorderWebhooks where webhooks.held == nil:
            webhooks.held = (attempt, now)
        default:
            webhooks.schedule(attempt)
        }
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
    func recordAttempt(_ attempt: PendingAttempt, status: Int?, error: String?, configured: Bool) {
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
