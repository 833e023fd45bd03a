import Foundation
import HTTPTypes
import Hummingbird

/// The `/v1` routes of the apps' API.
struct APIRoutes: Sendable {
    let store: APIStore
    let accounts: AccountStore
    let configuration: Backend.Configuration

    /// Registers the routes: `POST /v1/orders` on `v1` (it authenticates in its own statement:
    /// ``registerBooking(_:)``), the rest on `authenticated` (behind ``BearerAuthMiddleware``).
    func register(v1: RouterGroup<APIRequestContext>, authenticated: RouterGroup<APIRequestContext>) {
        self.registerBooking(v1)
        self.register(authenticated)
    }

    /// `POST /v1/orders`, a rider's booking, authenticated by the booking's own statement rather than by
    /// ``BearerAuthMiddleware``'s lookup before it (``APIStore/book(tokenHash:pickup:dropoff:)``): one round trip to
    /// PostgreSQL for the booking, its first round and its timers. The answers are the middleware's: no bearer
    /// token is a 401 at once; a body that does not decode or validate is its 400 or 422 only once the caller is
    /// known to be a rider (401 and 403 first, as behind the middleware); a booking the statement did not write (a
    /// token that is not a live session's, a user who is not a rider with a name) is asked as the middleware asks,
    /// for its 401 or 403, and otherwise booked by the rider's id as before (a token issued before sign-in by code,
    /// or the 409 of a rider without a name).
    func registerBooking(_ v1: RouterGroup<APIRequestContext>) {
        v1.post("orders") { request, context in
            guard let token = BearerAuthMiddleware.bearer(request) else { throw APIProblem.unauthorized }
            let tokenHash = Tokens.hash(token)
            let pickup: PlaceBody
            let dropoff: PlaceBody
            do {
                let body = try await RequestDecoding.decode(BookOrderBody.self, from: request, context: context)
                pickup = try body.pickup.validated(field: "pickup")
                dropoff = try body.dropoff.validated(field: "dropoff")
            } catch {
                _ = try await self.rider(tokenHash: tokenHash)
                throw error
            }
            if let order = try await self.store.book(tokenHash: tokenHash, pickup: pickup, dropoff: dropoff) {
                return EditedResponse(status: .created, response: order)
            }
            let order = try await self.store.book(
                riderID: try await self.rider(tokenHash: tokenHash),
                pickup: pickup,
                dropoff: dropoff
            )
            return EditedResponse(status: .created, response: order)
        }
    }

    /// The rider a bearer token authenticates, as ``BearerAuthMiddleware`` would find them: 401 without a caller,
    /// 403 for a caller who is not a rider.
    private func rider(tokenHash: String) async throws -> UUID {
        guard let caller = try await self.accounts.caller(tokenHash: tokenHash) else { throw APIProblem.unauthorized }
        guard caller.role == .rider else { throw APIProblem.forbidden("only riders book rides") }
        return caller.id
    }

    private func register(_ authenticated: RouterGroup<APIRequestContext>) {
        authenticated.get("me") { _, context in
            let caller = try context.requireCaller()
            guard let user = try await self.store.user(id: caller.id) else { throw APIProblem.unauthorized }
            return user
        }
        authenticated.put("me") { request, context in
            let caller = try context.requireCaller()
            let body = try await RequestDecoding.decode(ProfileBody.self, from: request, context: context)
            let profile = try Self.profile(body, role: caller.role)
            switch try await self.accounts.updateProfile(userID: caller.id, profile: profile) {
            case .deviceTaken: throw APIProblem.conflict("device_id: this device is bound to another account")
            case .updated(let user?): return user
            case .updated(nil): throw APIProblem.unauthorized
            }
        }
        authenticated.get("orders") { request, context in
            let caller = try context.requireCaller()
            let query = request.uri.queryParameters
            var limit = 20
            if let text = query["limit"] {
                guard let value = Int(text), (1...self.configuration.maximumPageSize).contains(value) else {
                    throw APIProblem.validation("limit", "must be 1 to \(self.configuration.maximumPageSize)")
                }
                limit = value
            }
            let cursor = try query["cursor"].map { try OrderCursor(parsing: String($0)) }
            return try await self.store.orders(of: caller, limit: limit, after: cursor)
        }
        authenticated.get("orders/:id") { _, context in
            let caller = try context.requireCaller()
            let id = try Self.orderID(context)
            guard let order = try await self.store.order(id: id, caller: caller) else {
                throw APIProblem.notFound("order \(id) does not exist")
            }
            return order
        }
        authenticated.get("orders/:id/route") { _, context in
            let caller = try context.requireCaller()
            let id = try Self.orderID(context)
            guard let order = try await self.store.order(id: id, caller: caller) else {
                throw APIProblem.notFound("order \(id) does not exist")
            }
            return OrderRouteView(order: order)
        }
        self.registerDriverRoutes(authenticated)
    }

    private func registerDriverRoutes(_ group: RouterGroup<APIRequestContext>) {
        group.get("drivers/nearby") { request, context in
            guard try context.requireCaller().role == .rider else {
                throw APIProblem.forbidden("only riders see nearby cars")
            }
            let query = request.uri.queryParameters
            let lat = try Validate.latitude(try Self.number(query["lat"], field: "lat"), field: "lat")
            let lng = try Validate.longitude(try Self.number(query["lng"], field: "lng"), field: "lng")
            let radius = try query["radius"].map { try Self.number($0, field: "radius") } ?? 2000
            guard (1...50_000).contains(radius) else {
                throw APIProblem.validation("radius", "must be 1 to 50000 metres")
            }
            return NearbyDriverList(
                drivers: try await self.store.nearbyDrivers(latitude: lat, longitude: lng, radius: radius, limit: 20)
            )
        }
        group.put("drivers/me/availability") { request, context in
            let driver = try Self.requireDriver(context)
            let body = try await RequestDecoding.decode(AvailabilityBody.self, from: request, context: context)
            guard try await self.store.setAvailability(driverID: driver.id, available: body.available) else {
                throw APIProblem.conflict(
                    "complete your profile (PUT /v1/me with name, car and device_id) before going online"
                )
            }
            return AvailabilityView(available: body.available)
        }
        group.get("offers") { _, context in
            let driver = try Self.requireDriver(context)
            return OfferList(offers: try await self.store.offers(driverID: driver.id))
        }
        group.post("orders/:id/accept") { _, context in
            try await self.store.accept(orderID: try Self.orderID(context), driver: try Self.requireDriver(context))
        }
        group.post("orders/:id/decline") { _, context in
            try await self.store.decline(orderID: try Self.orderID(context), driver: try Self.requireDriver(context))
        }
        group.post("orders/:id/start") { _, context in
            try await self.store.advance(
                orderID: try Self.orderID(context),
                driver: try Self.requireDriver(context),
                from: .reachedPickup,
                to: .startedRide
            )
        }
        group.post("orders/:id/complete") { _, context in
            try await self.store.advance(
                orderID: try Self.orderID(context),
                driver: try Self.requireDriver(context),
                from: .reachedDropoff,
                to: .completed
            )
        }
        group.post("orders/:id/cancel") { request, context in
            let caller = try context.requireCaller()
            let id = try Self.orderID(context)
            let body = try await RequestDecoding.decode(CancelBody.self, from: request, context: context)
            let reason = try Validate.text(body.reason, field: "reason", length: 1...500)
            return try await self.store.cancel(orderID: id, caller: caller, reason: reason)
        }
    }

    /// The profile of `body` for a user of `role`: riders have a name only; drivers a name, a car and a device.
    static func profile(_ body: ProfileBody, role: UserRole) throws -> AccountStore.Profile {
        let name = try Validate.text(body.name, field: "name", length: 1...200)
        switch role {
        case .rider:
            if body.car != nil { throw APIProblem.validation("car", "riders have no car") }
            if body.deviceID != nil { throw APIProblem.validation("device_id", "riders have no device") }
            return AccountStore.Profile(name: name, car: nil, deviceID: nil)
        case .driver:
            guard let car = body.car else { throw APIProblem.validation("car", "is required for drivers") }
            guard let device = body.deviceID else {
                throw APIProblem.validation("device_id", "is required for drivers")
            }
            return AccountStore.Profile(
                name: name,
                car: CarView(
                    model: try Validate.text(car.model, field: "car.model", length: 1...100),
                    plate: try Validate.text(car.plate, field: "car.plate", length: 1...20)
                ),
                deviceID: try Validate.text(device, field: "device_id", length: 1...200)
            )
        }
    }

    static func requireDriver(_ context: APIRequestContext) throws -> Caller {
        let caller = try context.requireCaller()
        guard caller.role == .driver else { throw APIProblem.forbidden("only drivers can do this") }
        return caller
    }

    static func orderID(_ context: APIRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw APIProblem.notFound("order \(context.parameters.get("id") ?? "") does not exist")
        }
        return id
    }

    static func number(_ text: Substring?, field: String) throws -> Double {
        guard let text else { throw APIProblem.validation(field, "is required") }
        guard let value = Double(text), value.isFinite else { throw APIProblem.validation(field, "must be a number") }
        return value
    }
}
