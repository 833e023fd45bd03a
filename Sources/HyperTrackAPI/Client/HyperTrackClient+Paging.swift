import Foundation

extension HyperTrackClient {
    /// Pages of a list endpoint starting at `target`.
    func pages<Item: Sendable & Decodable>(_ target: String, of: Item.Type) -> Pages<Item> {
        Pages(
            first: target,
            fetch: { target in try await self.get(target, as: Page<Item>.self) },
            nextTarget: { current, page in self.nextTarget(after: current, page: page) }
        )
    }

    /// The request for the page after `page`, fetched with `current`.
    func nextTarget<Item>(after current: String, page: Page<Item>) -> String? {
        if let token = page.paginationToken {
            var components = URLComponents(string: current) ?? URLComponents()
            var items = (components.queryItems ?? []).filter { $0.name != "pagination_token" }
            items.append(URLQueryItem(name: "pagination_token", value: token))
            let path = components.percentEncodedPath
            components.queryItems = nil
            let query = items.map { "\(Self.encodeQuery($0.name))=\(Self.encodeQuery($0.value ?? ""))" }
            return path + "?" + query.joined(separator: "&")
        }
        guard let next = page.next, let link = URLComponents(string: next) else { return nil }
        var path = link.percentEncodedPath
        // `links.next` carries the service's own base path; keep only what follows ours.
        if !self.base.path.isEmpty, path.hasPrefix(self.base.path) {
            path.removeFirst(self.base.path.count)
        }
        guard path.hasPrefix("/") else { return nil }
        return link.percentEncodedQuery.map { path + "?" + $0 } ?? path
    }
}
