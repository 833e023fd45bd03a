import Foundation

/// The pending deliveries sampled during a run, drawn as a small SVG line chart (plain text, no dependencies):
/// x is seconds since the rides began, y the deliveries ready and not yet done, axes labelled with their maxima.
enum PendingPlot {
    struct Sample: Sendable, Equatable {
        var seconds: Double
        var pending: Int
    }

    static func svg(_ samples: [Sample], title: String, width: Int = 640, height: Int = 240) -> String {
        let left = 56.0
        let right = 16.0
        let top = 28.0
        let bottom = 36.0
        let plotWidth = Double(width) - left - right
        let plotHeight = Double(height) - top - bottom
        let maxSeconds = max(samples.map(\.seconds).max() ?? 0, 1)
        let maxPending = max(samples.map(\.pending).max() ?? 0, 1)
        func x(_ seconds: Double) -> String { String(format: "%.1f", left + seconds / maxSeconds * plotWidth) }
        func y(_ pending: Int) -> String {
            String(format: "%.1f", top + plotHeight - Double(pending) / Double(maxPending) * plotHeight)
        }
        let points = samples.map { "\(x($0.seconds)),\(y($0.pending))" }.joined(separator: " ")
        let escaped = title.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let axisBottom = String(format: "%.1f", top + plotHeight)
        let axisRight = String(format: "%.1f", left + plotWidth)
        return """
            <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" \
            viewBox="0 0 \(width) \(height)" font-family="sans-serif" font-size="11">
            <title>\(escaped)</title>
            <rect width="100%" height="100%" fill="white"/>
            <text x="\(Int(left))" y="16" font-size="12">\(escaped)</text>
            <line x1="\(Int(left))" y1="\(Int(top))" x2="\(Int(left))" y2="\(axisBottom)" stroke="black"/>
            <line x1="\(Int(left))" y1="\(axisBottom)" x2="\(axisRight)" y2="\(axisBottom)" stroke="black"/>
            <text x="\(Int(left) - 4)" y="\(Int(top) + 4)" text-anchor="end">\(maxPending)</text>
            <text x="\(Int(left) - 4)" y="\(axisBottom)" text-anchor="end">0</text>
            <text x="\(Int(left))" y="\(height - 18)" text-anchor="middle">0 s</text>
            <text x="\(axisRight)" y="\(height - 18)" text-anchor="end">\(String(format: "%.0f", maxSeconds)) s</text>
            <text x="\(Int(left) + Int(plotWidth / 2))" y="\(height - 4)" text-anchor="middle">seconds since the first booking; y: pending deliveries</text>
            <polyline fill="none" stroke="#1f6feb" stroke-width="1.5" points="\(points)"/>
            </svg>

            """
    }
}
