import Foundation
import Functions
import HyperTrackAPI
import Testing

@Suite("Pagination")
struct PaginationTests {
    @Test(arguments: [FakeHyperTrack.PaginationStyle.token, .linksNext])
    func tripsAreListedAcrossSeveralPages(style: FakeHyperTrack.PaginationStyle) async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.set(pageSize: 2, pagination: style)
            var ids: [String] = []
            for _ in 0..<5 { ids.append(try await client.createTrip(CreateTripRequest(deviceID: "D1")).tripID) }
            try await client.tracking.completeTrip(id: ids[4])
            await fake.finishCompletion(ids[4])

            var pages: [[String]] = []
            for try await page in client.trips(status: .active) { pages.append(page.data.map(\.tripID)) }
            #expect(pages == [[ids[0], ids[1]], [ids[2], ids[3]]])
            let lists = await fake.requests("GET", "/trips")
            #expect(lists.map { $0.query["pagination_token"] } == [nil, "t2"])
            #expect(lists.allSatisfy { $0.query["status"] == "active" })

            var items: [String] = []
            for try await trip in client.trips(status: TripStatus(rawValue: "all")).items { items.append(trip.tripID) }
            #expect(items == ids)
            #expect(try await client.trips(status: .completed).all().map(\.tripID) == [ids[4]])
            #expect(try await client.trips().all().count == 4)
            #expect(await fake.requests("GET", "/trips").suffix(2).map(\.query) == [[:], ["pagination_token": "t2"]])
        }
    }

    @Test func emptyLinksAndMissingTokensEndTheList() async throws {
        try await withHyperTrack { fake, client, _ in
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: #"{"data": [], "links": {}}"#))
            let first = try await client.trips().all()
            #expect(first.isEmpty)
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: #"{"data": [], "pagination_token": "", "links": null}"#))
            #expect(try await client.trips().all().count == 0)
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: #"{"data": []}"#))
            #expect(try await client.trips().all().count == 0)
            #expect(await fake.requests("GET", "/trips").count == 3)
        }
    }

    @Test func linksNextOnAnotherHostIsFollowedOnTheConfiguredHostOnly() async throws {
        try await withHyperTrack { fake, client, _ in
            let trip = #"{"trip_id": "t1", "device_id": "D1", "status": "active"}"#
            let first = #"{"data": [\#(trip)], "links": {"next": "https://elsewhere.example/trips?status=active&pagination_token=abc%2B1"}}"#
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: first))
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: #"{"data": [], "links": {"next": null}}"#))
            #expect(try await client.trips(status: .active).all().map(\.tripID) == ["t1"])
            let second = try #require(await fake.requests("GET", "/trips").last)
            #expect(second.query == ["status": "active", "pagination_token": "abc+1"])
            #expect(second.header("authorization") != nil)
        }
    }

    @Test func aRepeatingCursorStopsWithAnError() async throws {
        try await withHyperTrack { fake, client, _ in
            let page = #"{"data": [{"trip_id": "t1", "device_id": "D1", "status": "active"}], "pagination_token": "same"}"#
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: page), count: 3)
            let error = await #expect(throws: HyperTrackAPIError.self) { try await client.trips().all() }
            #expect(error?.code == .paginationLoop)
            #expect(await fake.requests("GET", "/trips").count == 2)
        }
    }

    @Test func tokensWithReservedCharactersAreEncoded() async throws {
        try await withHyperTrack { fake, client, _ in
            let page = #"{"data": [], "pagination_token": "a&b=c+d/e"}"#
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: page))
            await fake.script("GET", "/trips", ScriptedAnswer(status: 200, body: #"{"data": []}"#))
            _ = try await client.trips(status: .active, deviceID: "D 1&x").all()
            let sent = await fake.requests("GET", "/trips")
            #expect(sent[0].query == ["status": "active", "device_id": "D 1&x"])
            #expect(sent[1].query == ["status": "active", "device_id": "D 1&x", "pagination_token": "a&b=c+d/e"])
        }
    }
}
