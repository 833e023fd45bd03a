import Foundation
import HTTPTypes
import Hummingbird

/// The driver's trips and the insurance program: `GET /v1/drivers/me/trips`, `…/trips/{id}`,
/// `…/trips/{id}/map.svg`, `POST …/trips/{id}/feedback` and `GET /v1/drivers/me/program`.
///
/// A driver sees only their own trips: another driver's trip is a 404, as a trip that does not exist.
struct TripRoutes: Sendable {
    let store: APIStore
    let configuration: Backend.Configuration.Trips

    /// Trips per page of the list (the issue's 30).
    static let pageSize = 30
    /// Feedback is accepted on trips that ended less than 7 days ago (the program's rule).
    static let feedbackWindow = Duration.seconds(7 * 24 * 3600)

    func register(_ group: RouterGroup<APIRequestContext>) {
        group.get("drivers/me/trips") { request, context in
            let driver = try APIRoutes.requireDriver(context)
            let cursor = try request.uri.queryParameters["cursor"].map { try TripCursor(parsing: String($0)) }
            let rows = try await self.store.trips.trips(driverID: driver.id, limit: Self.pageSize + 1, after: cursor)
            let page = rows.prefix(Self.pageSize)
            return TripPage(
                trips: page.map(\.0),
                nextCursor: rows.count > Self.pageSize ? page.last.map { $0.1.description } : nil
            )
        }
        group.get("drivers/me/trips/:id") { _, context in
            try await self.trip(context)
        }
        group.get("drivers/me/trips/:id/map.svg") { _, context in
            let trip = try await self.trip(context)
            let svg = TripMap.svg(path: trip.path, events: trip.events)
            var headers = HTTPFields()
            headers[.contentType] = "image/svg+xml; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: svg)))
        }
        group.post("drivers/me/trips/:id/feedback") { request, context in
            let driver = try APIRoutes.requireDriver(context)
            let id = try Self.tripID(context)
            let body = try await RequestDecoding.decode(TripFeedbackBody.self, from: request, context: context)
            let program = try await self.program(driverID: driver.id)
            guard try await self.store.trips.trip(id: id, driverID: driver.id) != nil else {
                throw APIProblem.notFound("trip \(id) does not exist")
            }
            if program.qualified {
                throw APIProblem.conflict("the driver is qualified for the program; trips can no longer be removed")
            }
            switch try await self.store.trips.recordFeedback(
                tripID: id,
                driverID: driver.id,
                kind: body.kind.rawValue,
                window: Self.feedbackWindow
            ) {
            case .recorded: break
            case .notFound: throw APIProblem.notFound("trip \(id) does not exist")
            case .alreadyGiven(let given): throw APIProblem.conflict("the trip already has feedback: \(given)")
            case .tooOld: throw APIProblem.conflict("feedback is accepted only on trips less than 7 days old")
            }
            return try await self.trip(context).trip
        }
        group.get("drivers/me/program") { _, context in
            try await self.program(driverID: try APIRoutes.requireDriver(context).id)
        }
    }

    private func trip(_ context: APIRequestContext) async throws -> TripDetailView {
        let driver = try APIRoutes.requireDriver(context)
        let id = try Self.tripID(context)
        guard let trip = try await self.store.trips.trip(id: id, driverID: driver.id) else {
            throw APIProblem.notFound("trip \(id) does not exist")
        }
        return trip
    }

    private func program(driverID: UUID) async throws -> ProgramView {
        let rule = self.configuration.program
        let progress = try await self.store.trips.programProgress(driverID: driverID, days: rule.windowDays)
        let qualified =
            progress.count >= rule.minimumTrips && (progress.average ?? 0) >= Double(rule.minimumAverageScore)
        return ProgramView(
            rule: .init(
                minimumTrips: rule.minimumTrips,
                minimumAverageScore: rule.minimumAverageScore,
                windowDays: rule.windowDays
            ),
            scoredTrips: progress.count,
            averageScore: progress.average,
            tripsNeeded: max(0, rule.minimumTrips - progress.count),
            qualified: qualified
        )
    }

    private static func tripID(_ context: APIRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else {
            throw APIProblem.notFound("trip \(context.parameters.get("id") ?? "") does not exist")
        }
        return id
    }
}
