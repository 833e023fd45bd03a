import Foundation

/// The SVG picture of a trip: its path as a polyline and its events as coloured markers, on a plain background
/// (no map tiles: the app shows it offline and nothing leaks to a tile server).
///
/// Coordinates are projected equirectangularly around the path's centre and fitted into the picture with a margin,
/// keeping the aspect ratio, so a north-south street looks north-south.
enum TripMap {
    /// The picture's width and height in pixels.
    static let size = 512.0
    /// Blank border around the path in pixels.
    static let margin = 24.0

    /// Marker colours per event kind.
    static let colours: [DrivingCategory: String] = [
        .rapidAcceleration: "#f59e0b", .hardBraking: "#dc2626", .hardTurn: "#7c3aed", .speeding: "#2563eb",
        .phoneUse: "#6b7280",
    ]

    /// The SVG document of a path and its events.
    /// - Parameters:
    ///   - path: The (simplified) path.
    ///   - events: The trip's events; each gets a circle at its start, with a `<title>` naming it.
    /// - Returns: A standalone SVG 1.1 document.
    static func svg(path: [TripPoint], events: [DrivingEvent]) -> String {
        let all = path + events.flatMap { [$0.start, $0.end] }
        let project = Self.projection(for: all)
        let size = Self.format(Self.size)
        var lines = [
            ##"<?xml version="1.0" encoding="UTF-8"?>"##,
            ##"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\##(size)" height="\##(size)" "##
                + ##"viewBox="0 0 \##(size) \##(size)">"##,
            ##"<rect width="100%" height="100%" fill="#f8fafc"/>"##,
        ]
        let points = path.map(project).map { "\(Self.format($0.x)),\(Self.format($0.y))" }.joined(separator: " ")
        lines.append(
            ##"<polyline id="path" fill="none" stroke="#111827" stroke-width="4" stroke-linejoin="round" "##
                + ##"stroke-linecap="round" points="\##(points)"/>"##
        )
        if let first = path.first.map(project), let last = path.last.map(project) {
            lines.append(Self.circle(id: "start", at: first, radius: 7, colour: "#16a34a"))
            lines.append(Self.circle(id: "end", at: last, radius: 7, colour: "#111827"))
        }
        for (index, event) in events.enumerated() {
            let at = project(event.start)
            let colour = Self.colours[event.kind] ?? "#000000"
            lines.append(
                ##"<circle class="event \##(event.kind.rawValue)" id="event-\##(index)" "##
                    + ##"cx="\##(Self.format(at.x))" cy="\##(Self.format(at.y))" r="9" fill="\##(colour)" "##
                    + ##"fill-opacity="0.85"><title>\##(event.kind.rawValue)</title></circle>"##
            )
        }
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// Maps a point to picture coordinates (y grows southwards).
    private static func projection(for points: [TripPoint]) -> @Sendable (TripPoint) -> (x: Double, y: Double) {
        guard let first = points.first else { return { _ in (Self.size / 2, Self.size / 2) } }
        let latitudes = points.map(\.latitude)
        let longitudes = points.map(\.longitude)
        let minLat = latitudes.min() ?? first.latitude
        let maxLat = latitudes.max() ?? first.latitude
        let minLng = longitudes.min() ?? first.longitude
        let maxLng = longitudes.max() ?? first.longitude
        let shrink = cos((minLat + maxLat) / 2 * .pi / 180)
        let width = (maxLng - minLng) * shrink
        let height = maxLat - minLat
        let usable = Self.size - 2 * Self.margin
        let scale = max(width, height) > 0 ? usable / max(width, height) : 0
        let offsetX = (Self.size - width * scale) / 2
        let offsetY = (Self.size - height * scale) / 2
        return { point in
            (
                x: offsetX + (point.longitude - minLng) * shrink * scale,
                y: offsetY + (maxLat - point.latitude) * scale
            )
        }
    }

    private static func circle(id: String, at point: (x: Double, y: Double), radius: Int, colour: String) -> String {
        ##"<circle id="\##(id)" cx="\##(Self.format(point.x))" cy="\##(Self.format(point.y))" r="\##(radius)" "##
            + ##"fill="\##(colour)"/>"##
    }

    private static func format(_ value: Double) -> String {
        String(format: "%.1f", value)
    }
}
