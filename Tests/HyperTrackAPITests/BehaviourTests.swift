import Foundation
import Functions
import HyperTrackAPI
import Testing

/// End-to-end behaviour through the public API only (no recorded requests, no scripted answers), so the suite can
/// run against any ``ServerUnderTest``.
@Suite("Behaviour against a server under test")
struct BehaviourTests {
    @Test func aRideLifecycle() async throws {
        try await withEachServer { server, client in
            let deviceID = "DEV-\(UUID().uuidString)"
            try await server.seedDevice(id: deviceID, name: "Phone", latitude: 37.7749, longitude: -122.4194)

            try await client.updateDevice(id: deviceID, name: "Ada · Prius", metadata: ["driver_id": "d-1"])
            let device = try await client.device(id: deviceID)
            #expect(device.deviceInfo?.name == "Ada · Prius")
            #expect(device.metadata?["driver_id"] == "d-1")

            let orderID = UUID().uuidString
            let pickup = Coordinate(latitude: 37.7849, longitude: -122.4094)
            let created = try await client.createTrip(
                CreateTripRequest(
                    deviceID: deviceID,
                    destination: .init(point: pickup, radius: 50),
                    metadata: ["order_id": .string(orderID), "leg": "pickup"]
                )
            )
            #expect(created.deviceID == deviceID)
            #expect(created.status == .active)
            #expect(created.metadata?["order_id"] == .string(orderID))
            #expect(created.destination?.point == pickup)
            #expect(created.views?.shareURL?.isEmpty == false)

            // Adoption after a crash: the trip is found among the device's active trips by its metadata.
            let active = try await client.tracking.activeTrips(deviceID: deviceID)
            #expect(active.contains { $0.tripID == created.tripID && $0.metadata?["order_id"] == .string(orderID) })

            try await client.tracking.completeTrip(id: created.tripID)
            try await client.tracking.completeTrip(id: created.tripID)  // already completing: still success
            let completing = try await client.trip(id: created.tripID)
            #expect(completing.status == .processingCompletion || completing.status == .completed)
            #expect(try await client.tracking.activeTrips(deviceID: deviceID).allSatisfy { $0.tripID != created.tripID })

            try await server.finishCompletion(tripID: created.tripID)
            try await client.tracking.completeTrip(id: created.tripID)  // completed: still success
            let completed = try await client.trip(id: created.tripID)
            #expect(completed.status == .completed)
            #expect(completed.summary != nil)
            #expect(completed.completedAt != nil)
        }
    }

    @Test func errorsFromTheServer() async throws {
        try await withEachServer { server, client in
            let unknownTrip = try #require(
                await #expect(throws: HyperTrackAPIError.self) { try await client.trip(id: UUID().uuidString.lowercased()) }
            )
            #expect(unknownTrip.status == 404)
            #expect(unknownTrip.problemCode == "trip_not_found")

            let completeUnknown = await #expect(throws: HyperTrackAPIError.self) {
                try await client.tracking.completeTrip(id: UUID().uuidString.lowercased())
            }
            #expect(completeUnknown?.status == 404)

            let unknownDevice = await #expect(throws: HyperTrackAPIError.self) { try await client.device(id: "no-such-device") }
            #expect(unknownDevice?.problemCode == "device_not_found")

            let intruder = try await makeClient(for: server, secretKey: "not-the-secret")
            let refused = await #expect(throws: HyperTrackAPIError.self) { try await intruder.trips().all() }
            #expect(refused?.code == .unauthorized)
            #expect(refused?.status == 401)
        }
    }

    @Test func nearbyFindsSeededDevicesNearestFirst() async throws {
        try await withEachServer { server, client in
            // A spot of its own, so devices of other tests are out of range.
            let origin = Coordinate(latitude: -33.8 + Double.random(in: 0..<1), longitude: 151.2 + Double.random(in: 0..<1))
            let tag = UUID().uuidString
            let far = "far-\(tag)"
            let near = "near-\(tag)"
            try await server.seedDevice(id: far, name: "far", latitude: origin.latitude + 0.009, longitude: origin.longitude)
            try await server.seedDevice(id: near, name: "near", latitude: origin.latitude + 0.001, longitude: origin.longitude)
            try await server.seedDevice(id: "out-\(tag)", name: "out", latitude: origin.latitude + 0.5, longitude: origin.longitude)
            let found = try await client.tracking.nearbyDevices(
                NearbyRequest(location: origin, radius: 2000),
                deadline: .now + .seconds(30)
            )
            #expect(found.map(\.deviceID) == [near, far])
        }
    }
}
