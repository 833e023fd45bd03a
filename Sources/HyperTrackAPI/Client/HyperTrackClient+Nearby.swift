import Foundation
import NIOHTTP1

/// A started Nearby request (`POST /devices/nearby` answers `{"request_url": …}`).
public struct NearbySearch: Sendable, Hashable, Decodable {
    /// The URL to poll, as the service sent it.
    public var requestURL: String
    /// The request's id (the `request_id` query item of ``requestURL``).
    public var requestID: String?

    private enum CodingKeys: String, CodingKey {
        case requestURL = "request_url"
        case requestID = "request_id"
    }

    /// Creates a search handle.
    public init(requestURL: String, requestID: String? = nil) {
        self.requestURL = requestURL
        self.requestID =
            requestID
            ?? URLComponents(string: requestURL)?.queryItems?.first { $0.name == "request_id" }?.value
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            requestURL: try container.decode(String.self, forKey: .requestURL),
            requestID: try container.decodeIfPresent(String.self, forKey: .requestID)
        )
    }
}

/// One page of Nearby results: devices nearest first, and whether the search is done.
public struct NearbyPage: Sendable, Decodable {
    /// The devices of this page, nearest first.
    public var devices: [NearbyDevice]
    /// `pending` or `completed`.
    public var status: NearbyStatus
    /// The token of the next page.
    public var paginationToken: String?
    /// The URL of the next page.
    public var next: String?

    private enum CodingKeys: String, CodingKey {
        case data, status
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let page = try Page<NearbyDevice>(from: decoder)
        self.devices = page.data
        self.paginationToken = page.paginationToken
        self.next = page.next
        self.status = try container.decodeIfPresent(NearbyStatus.self, forKey: .status) ?? .pending
    }
}

extension HyperTrackClient {
    /// Starts a Nearby search (`POST /devices/nearby`, 202). Not retried (each call starts a new search).
    /// - Parameter request: The point, radius and filters.
    public func startNearby(_ request: NearbyRequest) async throws -> NearbySearch {
        guard request.radius > 0, request.radius.isFinite else {
            throw HyperTrackAPIError(code: .invalidRequest, reason: "the Nearby radius must be positive")
        }
        let target = self.target(["devices", "nearby"])
        let search = try await self.send(.POST, target, json: request, as: NearbySearch.self, repeatability: .once)
        guard search.requestID != nil else {
            var error = HyperTrackAPIError(code: .undecodableResponse, reason: "request_url has no request_id")
            error.method = "POST"
            error.path = target
            throw error
        }
        return search
    }

    /// Fetches one page of a Nearby search's results.
    /// - Parameters:
    ///   - search: The search.
    ///   - limit: Page size, when set.
    ///   - paginationToken: The token of the page to fetch; the first page when `nil`.
    public func nearbyPage(
        _ search: NearbySearch,
        limit: Int? = nil,
        paginationToken: String? = nil
    ) async throws
        -> NearbyPage
    {
        var query = [("request_id", search.requestID ?? "")]
        if let limit { query.append(("limit", String(limit))) }
        if let paginationToken { query.append(("pagination_token", paginationToken)) }
        return try await self.get(self.target(["devices", "nearby"], query: query), as: NearbyPage.self)
    }

    /// Fetches every page of a Nearby search's current results.
    /// - Parameter search: The search.
    /// - Returns: The search's status and its devices, nearest first.
    public func nearbyResults(_ search: NearbySearch) async throws -> (status: NearbyStatus, devices: [NearbyDevice]) {
        var page = try await self.nearbyPage(search)
        var devices = page.devices
        var seen: Set<String> = []
        while let token = page.paginationToken ?? page.next.flatMap(Self.paginationToken(in:)) {
            guard seen.insert(token).inserted else {
                throw HyperTrackAPIError(code: .paginationLoop, reason: "the next page repeats an earlier one")
            }
            page = try await self.nearbyPage(search, paginationToken: token)
            devices += page.devices
        }
        return (page.status, devices)
    }

    static func paginationToken(in url: String) -> String? {
        URLComponents(string: url)?.queryItems?.first { $0.name == "pagination_token" }?.value
    }
}
