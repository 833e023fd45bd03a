import Foundation
import Hummingbird
import Logging
import PostgresNIO
import TriggerRuntime

/// The operators' routes (an operator key, ``OperatorAuthMiddleware``): orders in any state, drivers' positions,
/// dead deliveries and their replay (what `ridesharing events list --dead` and `events retry` do, over HTTP).
struct OpsRoutes: Sendable {
    let client: PostgresClient
    let logger: Logger
    let channel: String

    var admin: DeliveryAdmin { DeliveryAdmin(client: self.client, channel: self.channel, logger: self.logger) }

    func register(_ group: RouterGroup<APIRequestContext>) {
        group.get("ops/orders") { request, _ in
            let text = request.uri.queryParameters["status"].map(String.init)
            let status = try text.map { text in
                guard let status = OrderStatus(rawValue: text) else {
                    throw APIProblem.validation(
                        "status",
                        "must be one of \(OrderStatus.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                }
                return status.rawValue
            }
            return OpsOrderList(
                orders: try await self.client.rows(
                    """
                    SELECT id, status, rider_id, driver_id, created_at FROM orders
                    WHERE \(status)::text IS NULL OR status = \(status)
                    ORDER BY created_at DESC, id LIMIT 200
                    """,
                    logger: self.logger
                ) { row in
                    let (id, status, rider, driver, created) = try row.decode((UUID, String, UUID, UUID?, Date).self)
                    return OpsOrderView(id: id, status: status, riderID: rider, driverID: driver, createdAt: created)
                }
            )
        }
        group.get("ops/drivers/positions") { _, _ in
            OpsPositionList(
                drivers: try await self.client.rows(
                    """
                    SELECT u.id, u.name, u.device_id, u.available, p.lat, p.lng, p.recorded_at
                    FROM driver_positions p JOIN users u ON u.id = p.driver_id
                    ORDER BY p.recorded_at DESC, u.id LIMIT 1000
                    """,
                    logger: self.logger
                ) { row in
                    let (id, name, device, available, lat, lng, recorded) = try row.decode(
                        (UUID, String?, String?, Bool, Double, Double, Date).self
                    )
                    return OpsPositionView(
                        driverID: id,
                        name: name,
                        deviceID: device,
                        available: available,
                        lat: lat,
                        lng: lng,
                        recordedAt: recorded
                    )
                }
            )
        }
        group.get("ops/deliveries/dead") { _, _ in
            OpsDeliveryList(deliveries: try await self.admin.list(dead: true, limit: 200).map(OpsDeliveryView.init))
        }
        group.post("ops/deliveries/:id/retry") { _, context in
            let text = context.parameters.get("id") ?? ""
            guard let id = Int64(text) else { throw APIProblem.notFound("delivery \(text) does not exist") }
            do {
                try await self.admin.retry(id)
            } catch let error as TriggerRuntimeError where error.code == .notDead {
                throw APIProblem.conflict("delivery \(id) is not dead-lettered; only dead deliveries are retried")
            } catch let error as TriggerRuntimeError where error.code == .notFound {
                throw APIProblem.notFound("delivery \(id) does not exist")
            }
            return EditedResponse(status: .accepted, response: OpsRetryView(id: id, retried: true))
        }
    }
}
