import Foundation
import Functions
import HTTPTypes
import HyperTrackAPI
import LocalStack
import NIOHTTP1
import PostgresNIO
import Testing

/// Share links: who may make one, the page's headers and assets, and the 404 page of a revoked or expired link.
@Suite("Functions: share links", .timeLimit(.minutes(10)))
struct ShareLinkTests {
    @Test(
        "only the rider shares; the page is self-contained under a strict CSP; revoked and expired links are a 404 page"
    )
    func lifecycle() async throws {
        try await BackendHarness.with { h in
            let rider = try await h.api.rider()
            let driver = try await h.api.driver(device: "DEV-1")
            let stranger = try await h.api.rider("Stan")
            let booked = try await h.api.send(.POST, "/v1/orders", json: RideTests.book, token: rider.token)
            let order = try #require(booked.json["id"].stringValue)
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/share", token: driver.token).status == 403)
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/share", token: stranger.token).status == 404)
            #expect(try await h.api.send(.POST, "/v1/orders/\(UUID())/share", token: rider.token).status == 404)
            let shared = try await h.api.send(.POST, "/v1/orders/\(order)/share", token: rider.token)
            #expect(shared.status == 201)
            let path = try #require(shared.json["url"].stringValue)
            let token = String(path.dropFirst("/share/".count))
            #expect(token.count == 46, "32 random bytes")
            let stored = try await h.client.query("SELECT token_hash FROM order_shares", logger: BackendHarness.logger)
                .collect().map { try $0.decode(String.self) }
            #expect(stored.count == 1 && stored.first != token && stored.first?.count == 64, "stored hashed")

            let page = try await h.api.text(path)
            #expect(page.status == 200)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let policy = try #require(page.headers[.contentSecurityPolicy])
            #expect(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"))
            #expect(!policy.contains("unsafe-inline"))
            #expect(page.body.contains(#"<script src="/share/assets/share.js"></script>"#))
            #expect(!page.body.contains("http://") && !page.body.contains("https://"), "no external assets")
            #expect(!page.body.contains("<script>") && !page.body.contains("style="), "no inline script or style")
            for asset in ["/share/assets/share.js", "/share/assets/share.css"] {
                let reply = try await h.api.text(asset)
                #expect(reply.status == 200)
                // The SVG namespace is a name, not something fetched.
                let body = reply.body.replacingOccurrences(of: "http://www.w3.org/2000/svg", with: "")
                #expect(!body.contains("http://") && !body.contains("https://"), "\(asset) loads nothing")
                #expect(!body.contains("@import") && !body.contains("url("), "\(asset) loads nothing")
            }

            // Revoked: the page is a 404 page, and its stream a 404.
            #expect(try await h.api.send(.DELETE, "/v1/orders/\(order)/share", token: driver.token).status == 403)
            #expect(try await h.api.send(.DELETE, "/v1/orders/\(order)/share", token: rider.token).status == 204)
            #expect(try await h.api.send(.DELETE, "/v1/orders/\(order)/share", token: rider.token).status == 404)
            let revoked = try await h.api.text(path)
            #expect(revoked.status == 404)
            #expect(revoked.headers[.contentType] == "text/html; charset=utf-8")
            #expect(revoked.body.contains(#"id="not-found""#))
            #expect(try await h.api.text("\(path)/events").status == 404)
            #expect(try await h.api.text("/share/not-a-token").status == 404)

            // Expired: the ride ended longer ago than the link's time (2 h by default).
            let again = try #require(
                try await h.api.send(.POST, "/v1/orders/\(order)/share", token: rider.token).json["url"].stringValue
            )
            #expect(try await h.api.text(again).status == 200)
            #expect(try await h.api.text(path).status == 404, "a new link replaces the old one")
            let cancel = try await h.api.send(
                .POST,
                "/v1/orders/\(order)/cancel",
                json: ["reason": "changed plans"],
                token: rider.token
            )
            #expect(cancel.status == 200)
            #expect(try await h.api.text(again).status == 200, "still within its time after the ride")
            try await h.client.query(
                "UPDATE orders SET cancelled_at = now() - interval '3 hours' WHERE id = \(UUID(uuidString: order)!)",
                logger: BackendHarness.logger
            )
            let expired = try await h.api.text(again)
            #expect(expired.status == 404)
            #expect(expired.body.contains(#"id="not-found""#))
            #expect(try await h.api.send(.POST, "/v1/orders/\(order)/share", token: rider.token).status == 409)
        }
    }
}
