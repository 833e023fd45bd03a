import Foundation
import Hummingbird
import Logging

/// The apps' server-sent-event streams: `GET /v1/events` (the caller's orders, and for a driver their offers) and
/// `GET /v1/orders/{id}/events` (one order, for its rider or driver, or a driver it is offered to: 404 otherwise, as
/// `GET /v1/orders/{id}`). Both resume after `Last-Event-ID` (or `last_event_id`) and end after `timeout` seconds
/// (at most ``Backend/Configuration/Events/maximumStreamDuration``).
struct EventRoutes: Sendable {
    let store: APIStore
    let hub: OrderEventHub
    let configuration: Backend.Configuration.Events

    func register(_ group: RouterGroup<APIRequestContext>) {
        group.get("events") { request, context in
            let caller = try context.requireCaller()
            return try self.stream(.caller(caller.id), request: request)
        }
        group.get("orders/:id/events") { request, context in
            let caller = try context.requireCaller()
            let id = try APIRoutes.orderID(context)
            guard try await self.store.order(id: id, caller: caller) != nil else {
                throw APIProblem.notFound("order \(id) does not exist")
            }
            return try self.stream(.order(id, caller: caller.id), request: request)
        }
    }

    private func stream(_ scope: OrderEventScope, request: Request) throws -> Response {
        try EventStream(
            hub: self.hub,
            scope: scope,
            resumeAfter: try EventStream.resumePosition(request),
            maximumDuration: try EventStream.duration(request, maximum: self.configuration.maximumStreamDuration),
            logger: self.store.logger
        ).response()
    }
}
