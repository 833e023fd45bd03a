import Foundation
import HyperTrackAPI
import Testing

@Suite("Geofences: account and trip")
struct GeofenceEndpointTests {
    static let square: GeoJSONGeometry = .polygon([
        [
            Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 0, longitude: 1),
            Coordinate(latitude: 1, longitude: 1), Coordinate(latitude: 0, longitude: 0),
        ]
    ])

    @Test func accountGeofencesCreateGetPatchDelete() async throws {
        try await withHyperTrack { fake, client, _ in
            let created = try await client.createGeofences([
                GeofenceDefinition(
                    geometry: .point(Coordinate(latitude: 37.79, longitude: -122.4)),
                    radius: 120,
                    metadata: ["name": "depot"],
                    deviceID: "D1"
                ),
                GeofenceDefinition(geometry: Self.square),
            ])
            let sent = try #require(await fake.requests("POST", "/geofences").first)
            #expect(
                sent.json == [
                    [
                        "geometry": ["type": "Point", "coordinates": [-122.4, 37.79]], "radius": 120, "metadata": ["name": "depot"],
                        "device_id": "D1",
                    ],
                    ["geometry": ["type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]]],
                ]
            )
            #expect(created.count == 2)
            #expect(created[0].radius == 120)
            #expect(created[0].deviceID == "D1")
            #expect(created[0].accountID == fake.accountID)
            #expect(created[0].singleUse == false)
            #expect(created[0].geofenceType == "device")
            #expect(created[0].createdAt == HyperTrackDate.parse("2021-02-05T11:53:10.544Z"))
            #expect(created[1].geometry == Self.square)

            let id = created[0].geofenceID
            #expect(try await client.geofence(id: id) == created[0])
            try await client.updateGeofence(id: id, metadata: ["name": "main depot"])
            #expect(await fake.requests("PATCH", "/geofences/\(id)").first?.json == ["metadata": ["name": "main depot"]])
            #expect(try await client.geofence(id: id).metadata == ["name": "main depot"])
            try await client.deleteGeofence(id: id)
            let gone = await #expect(throws: HyperTrackAPIError.self) { try await client.geofence(id: id) }
            #expect(gone?.status == 404)
            let empty = await #expect(throws: HyperTrackAPIError.self) { try await client.createGeofences([]) }
            #expect(empty?.code == .invalidRequest)
        }
    }

    @Test func tripGeofencesGetPatchAndAdd() async throws {
        try await withHyperTrack { fake, client, _ in
            let trip = try await client.createTrip(
                CreateTripRequest(
                    deviceID: "D1",
                    geofences: [GeofenceDefinition(geometry: .point(Coordinate(latitude: 1, longitude: 2)), radius: 50, metadata: ["stop": 1])]
                )
            )
            let geofenceID = try #require(trip.geofences?.first?.geofenceID)
            let geofence = try await client.tripGeofence(tripID: trip.tripID, geofenceID: geofenceID)
            #expect(geofence.radius == 50)
            #expect(geofence.metadata == ["stop": 1])
            #expect(await fake.requests.last?.path == "/trips/\(trip.tripID)/geofence/\(geofenceID)")

            try await client.updateTripGeofence(tripID: trip.tripID, geofenceID: geofenceID, metadata: ["stop": 1, "done": true])
            let patch = try #require(await fake.requests("PATCH", "/trips/\(trip.tripID)/geofence/\(geofenceID)").first)
            #expect(patch.json == ["metadata": ["stop": 1, "done": true]])
            #expect(try await client.tripGeofence(tripID: trip.tripID, geofenceID: geofenceID).metadata == ["stop": 1, "done": true])

            try await client.addTripGeofences(tripID: trip.tripID, geofences: [GeofenceDefinition(geometry: Self.square, metadata: ["stop": 2])])
            let add = try #require(await fake.requests("PATCH", "/trips/\(trip.tripID)/geofence").first)
            #expect(
                add.json == [
                    "geofences": [
                        ["geometry": ["type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]], "metadata": ["stop": 2]]
                    ]
                ]
            )
            #expect(try await client.trip(id: trip.tripID).geofences?.count == 2)

            let none = await #expect(throws: HyperTrackAPIError.self) { try await client.addTripGeofences(tripID: trip.tripID, geofences: []) }
            #expect(none?.code == .invalidRequest)
        }
    }
}
