import Foundation
import Logging
import TriggerRuntime

/// `analyzeTrip`: when a leg's drive ends, builds the driver's trip from the locations their device reported during
/// it (simplified path, driving events, score and stars) and stores it, so reads never recompute.
///
/// It fires on the leg's move to `completed` (by `completeTrip`, or by the `completed` webhook). The insert is
/// keyed by the leg, so a retried or replayed delivery stores nothing twice. Trips are ride legs only (the pickup
/// drive and the dropoff drive); driving between rides is not recorded as a trip.
public struct AnalyzeTrip: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "analyzeTrip"
    /// Fires when a leg's `status` changes to `completed`, the only change it acts on (the change to `completing`
    /// was half its deliveries, each claimed and run for nothing).
    public static var trigger: Trigger {
        .update("order_legs", columns: ["status"]).matching("status", in: [LegStatus.completed.rawValue])
    }

    /// Retries at the runtime's pace (0.5 s doubling), twelve attempts: about eight minutes for the webhook
    /// deliveries received during the drive to be applied.
    public static var options: FunctionOptions { FunctionOptions(maxAttempts: 12, maximumBackoff: .seconds(120)) }

    private let trips: Backend.Configuration.Trips

    /// Creates the function.
    /// - Parameter trips: The default posted limit the detector measures speeding against where a location
    ///   carries none (see `Backend.Configuration.Trips.speedLimit`).
    public init(trips: Backend.Configuration.Trips) {
        self.trips = trips
    }

    public func handle(_ change: Change<LegRow>, context: FunctionContext) async throws {
        guard let leg = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the leg after the update")
        }
        guard leg.status == .completed, change.before?.status != .completed else { return }
        guard let connection = context.transaction else { throw FunctionsError.noTransaction(context.functionName) }
        let store = TripStore(executor: connection, logger: context.logger)
        guard let drive = try await store.legContext(id: leg.id) else {
            context.logger.info("no trip: the leg's device belongs to no driver")
            return
        }
        // A delivery received before the drive ended and not applied yet may hold some of its points: the runtime
        // retries until it is applied (``ApplyWebhookDelivery``), but the last attempt takes what is there.
        if context.attempt < Self.options.maxAttempts, try await store.webhooksWaiting(receivedBy: drive.endedAt) {
            throw FunctionsError.webhooksWaiting(by: drive.endedAt)
        }
        let points = try await store.locations(deviceID: drive.deviceID, from: drive.startedAt, to: drive.endedAt)
        let limit = self.trips.speedLimit
        let analysis = TripAnalysis(points: points, postedLimit: { $0.postedLimit ?? limit })
        let first = points.min { $0.time < $1.time }
        let last = points.max { $0.time < $1.time }
        let (startPlace, endPlace): (OrderRow.Place?, OrderRow.Place?) =
            switch drive.kind {
            case .pickup: (nil, drive.pickup)
            case .dropoff: (drive.pickup, drive.dropoff)
            }
        let stored = try await store.insert(
            NewDriverTrip(
                driverID: drive.driverID,
                legID: drive.legID,
                orderID: drive.orderID,
                driveType: drive.kind.rawValue,
                startedAt: drive.startedAt,
                endedAt: drive.endedAt,
                distance: analysis.pointCount >= 2 ? analysis.distance : (drive.summaryDistance ?? 0),
                start: Self.place(first, address: startPlace?.address) ?? startPlace,
                end: Self.place(last, address: endPlace?.address) ?? endPlace,
                analysis: analysis
            )
        )
        context.logger.info(
            "trip analysed",
            metadata: [
                "trip.points": "\(analysis.pointCount)", "trip.events": "\(analysis.events.count)",
                "trip.stored": "\(stored)",
            ]
        )
    }

    private static func place(_ point: TripPoint?, address: String?) -> OrderRow.Place? {
        point.map { OrderRow.Place(latitude: $0.latitude, longitude: $0.longitude, address: address) }
    }
}
