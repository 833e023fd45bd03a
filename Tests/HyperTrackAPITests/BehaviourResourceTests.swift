import Foundation
import Functions
import HyperTrackAPI
import Testing

/// Devices, geofences and lists through the public API only, against every ``ServerUnderTest``.
@Suite("Resources against a server under test")
struct BehaviourResourceTests {
    @Test func listsFollowEveryPage() async throws {
        try await withEachServer { server, client in
            let deviceID = "LIST-\(UUID().uuidString)"
            try await server.seedDevice(id: deviceID, name: "lister", latitude: 52.52, longitude: 13.40)
            var created: [String] = []
            for index in 0..<5 {
                let trip = try await client.createTrip(
                    CreateTripRequest(deviceID: deviceID, metadata: ["n": .number(Double(index))])
                )
                created.append(trip.tripID)
            }
            var listed: [String] = []
            for try await trip in client.trips(status: .active).items where trip.deviceID == deviceID {
                listed.append(trip.tripID)
            }
            #expect(Set(listed) == Set(created))
            #expect(listed.count == created.count)
            #expect(Set(try await client.tracking.activeTrips(deviceID: deviceID).map(\.tripID)) == Set(created))

            for index in 0..<4 {
                try await server.seedDevice(id: "\(deviceID)-\(index)", name: "d\(index)", latitude: 52.5, longitude: 13.4)
            }
            let bare = try await client.allDevices().map(\.deviceID).filter { $0.hasPrefix(deviceID) }
            var paged: [String] = []
            for try await page in client.devices() { paged += page.data.map(\.deviceID).filter { $0.hasPrefix(deviceID) } }
            #expect(bare.count == 5)
            #expect(Set(paged) == Set(bare))
            #expect(paged.count == bare.count)
        }
    }

    @Test func deviceCommandsAndHistory() async throws {
        try await withEachServer { server, client in
            let deviceID = "CMD-\(UUID().uuidString)"
            try await server.seedDevice(id: deviceID, name: "cmd", latitude: 40.0, longitude: -3.7)
            try await client.setDeviceName(id: deviceID, name: "renamed")
            try await client.setDeviceMetadata(id: deviceID, metadata: ["fleet": "blue"])
            let device = try await client.device(id: deviceID)
            #expect(device.deviceInfo?.name == "renamed")
            #expect(device.metadata == ["fleet": "blue"])
            #expect(device.location?.coordinate?.latitude == 40.0)

            try await client.startTracking(deviceID: deviceID)
            try await client.stopTracking(deviceID: deviceID)
            try await client.deleteDevice(id: deviceID)
            #expect(try await client.allDevices().allSatisfy { $0.deviceID != deviceID })
            try await client.undeleteDevice(id: deviceID)
            #expect(try await client.allDevices().contains { $0.deviceID == deviceID })

            let day = HyperTrackDate.format(Date()).prefix(10)
            let history = try await client.deviceHistory(id: deviceID, day: String(day))
            #expect(history.deviceID == nil || history.deviceID == deviceID)
            _ = try await client.accountHistory(day: String(day))
        }
    }

    @Test func accountAndTripGeofences() async throws {
        try await withEachServer { server, client in
            let created = try await client.createGeofences([
                GeofenceDefinition(
                    geometry: .point(Coordinate(latitude: 51.5, longitude: -0.12)),
                    radius: 80,
                    metadata: ["name": "depot"]
                )
            ])
            let geofence = try #require(created.first)
            #expect(geofence.radius == 80)
            #expect(try await client.geofence(id: geofence.geofenceID).metadata == ["name": "depot"])
            try await client.updateGeofence(id: geofence.geofenceID, metadata: ["name": "main depot"])
            #expect(try await client.geofence(id: geofence.geofenceID).metadata == ["name": "main depot"])
            try await client.deleteGeofence(id: geofence.geofenceID)
            let readAfterDelete = try? await client.geofence(id: geofence.geofenceID)
            #expect(readAfterDelete == nil || readAfterDelete?.archived == true)

            let deviceID = "GEO-\(UUID().uuidString)"
            try await server.seedDevice(id: deviceID, name: "geo", latitude: 51.5, longitude: -0.1)
            let trip = try await client.createTrip(
                CreateTripRequest(
                    deviceID: deviceID,
                    geofences: [
                        GeofenceDefinition(geometry: .point(Coordinate(latitude: 51.51, longitude: -0.1)), radius: 40, metadata: ["stop": 1])
                    ]
                )
            )
            let tripGeofenceID = try #require(trip.geofences?.first?.geofenceID)
            #expect(try await client.tripGeofence(tripID: trip.tripID, geofenceID: tripGeofenceID).metadata == ["stop": 1])
            try await client.updateTripGeofence(tripID: trip.tripID, geofenceID: tripGeofenceID, metadata: ["stop": 1, "done": true])
            let patched = try await client.tripGeofence(tripID: trip.tripID, geofenceID: tripGeofenceID)
            #expect(patched.metadata == ["stop": 1, "done": true])
            try await client.addTripGeofences(
                tripID: trip.tripID,
                geofences: [GeofenceDefinition(geometry: .point(Coordinate(latitude: 51.52, longitude: -0.1)), metadata: ["stop": 2])]
            )
            #expect(try await client.trip(id: trip.tripID).geofences?.count == 2)
        }
    }
}
