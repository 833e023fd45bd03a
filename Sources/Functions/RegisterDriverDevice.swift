import Foundation
import HyperTrackAPI
import Logging
import TriggerRuntime

/// `registerDriverDevice`: names a driver's HyperTrack device and sets its metadata (driver id, name, phone, car),
/// so operators see who is who. Riders are ignored. `PATCH /devices/{id}` is idempotent, so retries are harmless.
public struct RegisterDriverDevice: TriggerFunction {
    /// The persisted name.
    public static let name: FunctionName = "registerDriverDevice"
    /// Fires on user inserts, and on updates of what the device shows.
    public static var trigger: Trigger {
        Trigger(
            table: "users",
            operations: [.create, .update],
            columns: ["name", "phone", "device_id", "car_model", "car_plate"]
        )
    }
    /// Names the device on HyperTrack: survives an hour of HyperTrack outage (``FunctionOptions/hyperTrackCalls``).
    public static var options: FunctionOptions { .hyperTrackCalls }

    private let tracking: any TripTracking

    /// Creates the function.
    /// - Parameter tracking: HyperTrack.
    public init(tracking: some TripTracking) {
        self.tracking = tracking
    }

    /// The metadata a driver's device carries.
    public static func metadata(of user: UserRow) -> [String: JSONValue] {
        [
            "driver_id": .string(user.id.uuidString.lowercased()),
            "name": .string(user.name ?? ""),
            "phone": .string(user.phone),
            "car": .object(["model": .string(user.carModel ?? ""), "plate": .string(user.carPlate ?? "")]),
        ]
    }

    public func handle(_ change: Change<UserRow>, context: FunctionContext) async throws {
        guard let user = change.after else {
            throw FunctionsError.malformedRow("\(Self.name) needs the user after the change")
        }
        // A driver who signed in but has not completed the profile (`PUT /v1/me` sets name and device together)
        // has nothing to name.
        guard user.role == .driver, let deviceID = user.deviceID, let name = user.name else { return }
        do {
            try await self.tracking.updateDevice(id: deviceID, name: name, metadata: Self.metadata(of: user))
        } catch let error as HyperTrackAPIError where error.status == 404 {
            // HyperTrack does not know the device (yet): no retry can name it, and an hour of retries would only
            // end in the dead letters. The next change of the driver's profile tries again.
            context.logger.warning(
                "HyperTrack does not know the driver's device; it was not named",
                metadata: ["device_id": "\(deviceID)", "error": "\(error)"]
            )
            return
        }
        context.logger.info("device registered", metadata: ["device_id": "\(deviceID)"])
    }
}
