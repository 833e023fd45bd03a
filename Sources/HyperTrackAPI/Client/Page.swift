/// One page of a list: `{"data": [...], "pagination_token": …, "links": {"next": …}}`.
public struct Page<Item: Sendable & Decodable>: Sendable, Decodable {
    /// The items of this page.
    public var data: [Item]
    /// The token of the next page; `nil` on the last page.
    public var paginationToken: String?
    /// The absolute URL of the next page, when the service sent one.
    public var next: String?

    private enum CodingKeys: String, CodingKey {
        case data, links
        case paginationToken = "pagination_token"
    }

    private enum LinkKeys: String, CodingKey {
        case next
    }

    /// Creates a page.
    public init(data: [Item], paginationToken: String? = nil, next: String? = nil) {
        self.data = data
        self.paginationToken = paginationToken
        self.next = next
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.data = try container.decodeIfPresent([Item].self, forKey: .data) ?? []
        self.paginationToken = try container.decodeIfPresent(String.self, forKey: .paginationToken)
            .flatMap { $0.isEmpty ? nil : $0 }
        if container.contains(.links), try !container.decodeNil(forKey: .links) {
            let links = try container.nestedContainer(keyedBy: LinkKeys.self, forKey: .links)
            self.next = try links.decodeIfPresent(String.self, forKey: .next).flatMap { $0.isEmpty ? nil : $0 }
        }
    }

    /// Whether another page follows.
    public var hasMore: Bool { self.paginationToken != nil || self.next != nil }
}

/// The pages of a list, fetched lazily as they are iterated; ``items`` flattens them.
///
/// The next page is requested with `pagination_token` when the page has one, otherwise by following `links.next`
/// (its path and query, resolved against the client's base URL, so credentials only ever go to that host).
public struct Pages<Item: Sendable & Decodable>: AsyncSequence, Sendable {
    public typealias Element = Page<Item>

    let first: String
    let fetch: @Sendable (_ target: String) async throws -> Page<Item>
    let nextTarget: @Sendable (_ current: String, _ page: Page<Item>) -> String?

    /// An iterator over the pages.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let pages: Pages<Item>
        var target: String?
        var seen: Set<String> = []

        public mutating func next() async throws -> Page<Item>? {
            guard let target = self.target else { return nil }
            self.seen.insert(target)
            let page = try await self.pages.fetch(target)
            self.target = self.pages.nextTarget(target, page)
            if let next = self.target, self.seen.contains(next) {
                self.target = nil
                throw HyperTrackAPIError(code: .paginationLoop, reason: "the next page repeats an earlier one")
            }
            return page
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(pages: self, target: self.first)
    }

    /// The items of all pages, in order.
    public var items: Items { Items(pages: self) }

    /// Collects every item of every page.
    public func all() async throws -> [Item] {
        var result: [Item] = []
        for try await page in self { result += page.data }
        return result
    }

    /// The items of all pages, fetched page by page.
    public struct Items: AsyncSequence, Sendable {
        public typealias Element = Item
        let pages: Pages<Item>

        /// An iterator over the items.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var pages: Pages<Item>.AsyncIterator
            var buffer: [Item] = []
            var index = 0

            public mutating func next() async throws -> Item? {
                while self.index == self.buffer.count {
                    guard let page = try await self.pages.next() else { return nil }
                    self.buffer = page.data
                    self.index = 0
                }
                defer { self.index += 1 }
                return self.buffer[self.index]
            }
        }

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(pages: self.pages.makeAsyncIterator())
        }
    }
}
