import Foundation
import HyperTrackAPI
import Testing

@Suite("Devices API")
struct DeviceEndpointTests {
    @Test func getDecodesTheDocumentedDeviceObject() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("00112233-4455-6677-8899-AABBCCDDEEFF", name: "Alex", latitude: 47.847252, longitude: 35.10654)
            let device = try await client.device(id: "00112233-4455-6677-8899-AABBCCDDEEFF")
            #expect(device.deviceID == "00112233-4455-6677-8899-AABBCCDDEEFF")
            #expect(device.location?.coordinate == Coordinate(latitude: 47.847252, longitude: 35.10654, altitude: 610))
            #expect(device.location?.speed == 4.2)
            #expect(device.location?.bearing == 193)
            #expect(device.location?.recordedAt == HyperTrackDate.parse("2019-07-18T18:01:59.064Z"))
            #expect(device.deviceStatus == DeviceStatus(value: .active, recordedAt: HyperTrackDate.parse("2019-07-30T01:38:45.61Z"), activity: .stop))
            #expect(device.battery == .normal)
            #expect(device.deviceInfo?.name == "Alex")
            #expect(device.deviceInfo?.osName == "iOS")
            #expect(device.deviceInfo?.networkOperator == "T-Mobile")
            #expect(device.views?.shareURL == "https://trck.at/abcdef")
            #expect(device.metadata == ["team": "sf"])
            #expect(device.registeredAt == HyperTrackDate.parse("2019-07-10T01:38:45.610000Z"))

            let missing = await #expect(throws: HyperTrackAPIError.self) { try await client.device(id: "nope") }
            #expect(missing?.status == 404)
            #expect(missing?.problemCode == "device_not_found")
        }
    }

    @Test func idsArePercentEncodedIntoOnePathSegment() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("a b/c?d")
            let device = try await client.device(id: "a b/c?d")
            #expect(device.deviceID == "a b/c?d")
            #expect(await fake.requests.last?.path == "/devices/a%20b%2Fc%3Fd")
        }
    }

    @Test func listsDevicesInTheBareArrayAndThePagedForm() async throws {
        try await withHyperTrack { fake, client, _ in
            for index in 1...5 { await fake.addDevice("D\(index)") }
            let all = try await client.allDevices()
            #expect(all.map(\.deviceID) == ["D1", "D2", "D3", "D4", "D5"])
            #expect(await fake.requests("GET", "/devices").first?.query == ["pagination": "0"])

            await fake.set(pageSize: 2, pagination: .token)
            var pages: [[String]] = []
            for try await page in client.devices() { pages.append(page.data.map(\.deviceID)) }
            #expect(pages == [["D1", "D2"], ["D3", "D4"], ["D5"]])
            let paged = await fake.requests("GET", "/devices").dropFirst()
            #expect(paged.map { $0.query["pagination_token"] } == [nil, "t2", "t4"])
            #expect(paged.allSatisfy { $0.query["pagination"] == "1" })
        }
    }

    @Test func allDevicesFollowsPagesWhenTheServerAnswersThePagedForm() async throws {
        try await withHyperTrack { fake, client, _ in
            let page1 = #"{"data": [{"device_id": "D1"}, {"device_id": "D2"}], "pagination_token": "t2", "links": {}}"#
            let page2 = #"{"data": [{"device_id": "D3"}], "pagination_token": null, "links": {"next": null}}"#
            await fake.script("GET", "/devices", ScriptedAnswer(status: 200, body: page1))
            await fake.script("GET", "/devices", ScriptedAnswer(status: 200, body: page2))
            let all = try await client.allDevices()
            #expect(all.map(\.deviceID) == ["D1", "D2", "D3"])
            let sent = await fake.requests("GET", "/devices")
            #expect(sent.map { $0.query["pagination_token"] } == [nil, "t2"])
        }
    }

    @Test func renamesAndSetsMetadataWithEmptyAnswers() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("D1", name: "old")
            try await client.setDeviceName(id: "D1", name: "new name")
            try await client.setDeviceMetadata(id: "D1", metadata: ["vehicle": ["seats": 4, "ev": true]])
            let patches = await fake.requests("PATCH", "/devices/D1")
            #expect(patches.map(\.json) == [["name": "new name"], ["metadata": ["vehicle": ["seats": 4, "ev": true]]]])
            let device = try await client.device(id: "D1")
            #expect(device.deviceInfo?.name == "new name")
            #expect(device.metadata == ["vehicle": ["seats": 4, "ev": true]])
        }
    }

    @Test func startStopDeleteUndeleteAreBodilessCommands() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("D1")
            try await client.startTracking(deviceID: "D1")
            try await client.stopTracking(deviceID: "D1")
            try await client.deleteDevice(id: "D1")
            #expect(await fake.isDeleted("D1"))
            #expect(try await client.allDevices().isEmpty)
            try await client.undeleteDevice(id: "D1")
            #expect(await !fake.isDeleted("D1"))
            let sent = await fake.requests.filter { $0.path.hasPrefix("/devices/D1") }
            #expect(
                sent.map { "\($0.method) \($0.path)" } == [
                    "POST /devices/D1/start", "POST /devices/D1/stop", "DELETE /devices/D1", "POST /devices/D1/undelete",
                ]
            )
            #expect(sent.allSatisfy { $0.body.isEmpty && $0.header("content-type") == nil })
            #expect(sent.filter { $0.method == "POST" }.allSatisfy { $0.header("content-length") == "0" })
            await #expect(throws: HyperTrackAPIError.self) { try await client.startTracking(deviceID: "unknown") }
        }
    }

    @Test func readsADeviceDayAndTheAccountExport() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.addDevice("D1")
            let day = try await client.deviceHistory(id: "D1", day: "2021-02-05")
            #expect(day.deviceID == "D1")
            #expect(day.distance == 6347)
            #expect(day.duration == 86_400)
            #expect(day.trackingRate == 100)
            #expect(day.driveDuration == 610)
            #expect(day.locations.count == 3)
            #expect(day.locations[0].recordedAt == HyperTrackDate.parse("2021-02-05T11:53:10.544Z"))
            #expect(day.markers.count == 4)
            #expect(day.startedAt == HyperTrackDate.parse("2021-02-05T00:00:00Z"))
            #expect(await fake.requests.last?.path == "/devices/D1/history/2021-02-05")

            let export = try await client.accountHistory(day: "2021-02-05", options: [("response", "blob"), ("type", "json"), ("unit", "km")])
            #expect(export.url == "https://exports.example/2021-02-05.json")
            let sent = try #require(await fake.requests.last)
            #expect(sent.path == "/devices/history/2021-02-05")
            #expect(sent.query == ["response": "blob", "type": "json", "unit": "km"])

            for bad in ["2021-2-05", "yesterday", "2021-13-01", "../trips"] {
                let error = await #expect(throws: HyperTrackAPIError.self) { try await client.deviceHistory(id: "D1", day: bad) }
                #expect(error?.code == .invalidRequest)
            }
            #expect(await fake.requests.count == 2)
        }
    }
}
