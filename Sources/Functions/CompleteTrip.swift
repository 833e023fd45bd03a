import HyperTrackAPI
import Logging
import TriggerRuntime

/// `completeTrip`: completes on HyperTrack the trip of a leg marked for completion, then marks the leg completed.
///
/// The other functions only mark legs (`status = 'completing'`) in their own transaction; this function is the one
/// place that calls `POST /trips/{id}/complete`, so a HyperTrack failure retries only this call. Completing a trip
/// that is already completed counts as success, so retries and replays are harmless.
public struct CompleteTrip: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "completeTrip"
    /// Fires when a leg's `status` changes to `completing`, the only change it acts on (a leg's other change, to
    /// `completed`, was half its deliveries, each claimed and run for nothing).
    public static var trigger: Trigger {
        .update("order_legs", columns: ["status"]).matching("status", in: [LegStatus.completing.rawValue])
    }
    /// Survives an hour of HyperTrack outage (``FunctionOptions/hyperTrackCalls``): it retries nothing but one
    /// idempotent call.
    public static var options: FunctionOptions { .hyperTrackCalls }

    private let tracking: any TripTracking
    private let stores: RideStoreFactory

    /// Creates the function.
    /// - Parameters:
    ///   - tracking: HyperTrack.
    ///   - stores: Where the function's store comes from (`.postgres` in production).
    public init(tracking: some TripTracking, stores: RideStoreFactory) {
        self.tracking = tracking
        self.stores = stores
    }

    public func handle(_ change: Change<LegRow>, context: FunctionContext) async throws {
        guard let leg = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the leg after the update")
        }
        guard leg.status == .completing else { return }
        var logger = context.logger
        logger[metadataKey: "hypertrack.trip_id"] = "\(leg.tripID)"
        try await self.tracking.completeTrip(id: leg.tripID)
        let store = try self.stores.store(for: context)
        let moved = try await store.markLegCompleted(id: leg.id)
        logger.info("trip completed", metadata: ["leg_updated": "\(moved)"])
    }
}
