import Foundation
import HTTPTypes
import Hummingbird

/// Share links and the public share page:
/// - `POST /v1/orders/{id}/share` (the order's rider): a new link `{url: "/share/{token}", expires_at}`;
///   `DELETE /v1/orders/{id}/share` revokes it.
/// - `GET /share/{token}`: the page (HTML; its script and style are `GET /share/assets/share.js` and
///   `/share/assets/share.css`, under a Content-Security-Policy that allows nothing from elsewhere).
/// - `GET /share/{token}/events`: the page's stream, a snapshot (`share.order`, and `driver.position` while the
///   ride is on) then live events of the order, shown as ``ShareView``s.
///
/// An unknown, revoked or expired token is a 404 HTML page (the stream: a 404 problem).
struct ShareRoutes: Sendable {
    let store: APIStore
    let hub: OrderEventHub
    let configuration: Backend.Configuration.Events

    /// Nothing but this origin, no inline script or style, no framing, no referrer (the URL is the secret).
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    func register(authenticated: RouterGroup<APIRequestContext>, public router: Router<APIRequestContext>) {
        authenticated.post("orders/:id/share") { _, context in
            let caller = try context.requireCaller()
            let id = try APIRoutes.orderID(context)
            guard caller.role == .rider else { throw APIProblem.forbidden("only the order's rider can share it") }
            let (token, expiresAt) = try await self.store.share(
                orderID: id,
                rider: caller,
                ttl: self.configuration.shareTTL
            )
            return EditedResponse(
                status: .created,
                response: ShareLinkView(url: "/share/\(token)", expiresAt: expiresAt)
            )
        }
        authenticated.delete("orders/:id/share") { _, context in
            let caller = try context.requireCaller()
            let id = try APIRoutes.orderID(context)
            guard caller.role == .rider else { throw APIProblem.forbidden("only the order's rider can share it") }
            guard try await self.store.revokeShare(orderID: id, rider: caller) else {
                throw APIProblem.notFound("order \(id) has no share link")
            }
            return Response(status: .noContent)
        }
        router.get("share/assets/share.js") { _, _ in
            Self.page(SharePage.script, type: "text/javascript; charset=utf-8", cache: true)
        }
        router.get("share/assets/share.css") { _, _ in
            Self.page(SharePage.style, type: "text/css; charset=utf-8", cache: true)
        }
        router.get("share/:token") { _, context in
            guard let token = context.parameters.get("token"), try await self.sharedOrder(token) != nil else {
                return Self.page(SharePage.notFound, status: .notFound)
            }
            return Self.page(SharePage.html(token: token))
        }
        router.get("share/:token/events") { request, context in
            guard let token = context.parameters.get("token"), let order = try await self.sharedOrder(token),
                let snapshot = try await self.store.shareSnapshot(orderID: order)
            else { throw APIProblem.notFound("this share link does not exist or has expired") }
            let encoder = OrderEventRenderer.encoder
            var prelude = OrderEventRenderer.frame(
                id: nil,
                name: "share.order",
                data: String(decoding: try encoder.encode(snapshot.view), as: UTF8.self)
            )
            if let position = snapshot.position {
                prelude += OrderEventRenderer.frame(
                    id: nil,
                    name: OrderEventKind.driverPosition.rawValue,
                    data: String(decoding: try encoder.encode(position), as: UTF8.self)
                )
            }
            return try EventStream(
                hub: self.hub,
                scope: .share(order, tokenHash: ShareTokens.hash(token)),
                resumeAfter: try EventStream.resumePosition(request),
                maximumDuration: try EventStream.duration(request, maximum: self.configuration.maximumStreamDuration),
                prelude: prelude,
                logger: self.store.logger
            ).response()
        }
    }

    private func sharedOrder(_ token: String) async throws -> UUID? {
        guard ShareTokens.isWellFormed(token) else { return nil }
        return try await self.store.sharedOrder(token: token, ttl: self.configuration.shareTTL)
    }

    static func page(
        _ text: String,
        status: HTTPResponse.Status = .ok,
        type: String = "text/html; charset=utf-8",
        cache: Bool = false
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = type
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[.cacheControl] = cache ? "public, max-age=300" : "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// `POST /v1/orders/{id}/share`'s reply.
struct ShareLinkView: Codable, Sendable, ResponseEncodable {
    /// The page's path on this API: `/share/{token}`.
    var url: String
    /// When the link stops working: the configured time after the ride ended; `null` while it is on.
    var expiresAt: Date?

    enum CodingKeys: String, CodingKey {
        case url
        case expiresAt = "expires_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.url, forKey: .url)
        try container.encode(self.expiresAt, forKey: .expiresAt)
    }
}
