import Foundation

/// A benchmark's section of a report file (e.g. BENCHMARKS.md), between two marker comments: each run replaces its
/// own section and leaves the rest of the file as it was.
public struct ReportSection: Sendable {
    /// The line that opens the section, e.g. `<!-- soak-bench:begin -->`.
    public var begin: String
    /// The line that closes it.
    public var end: String

    /// A section delimited by `<!-- NAME:begin -->` and `<!-- NAME:end -->`.
    public init(name: String) {
        self.begin = "<!-- \(name):begin -->"
        self.end = "<!-- \(name):end -->"
    }

    /// Replaces the section in the file at `path` with `markdown` (wrapped in the markers), or appends it.
    public func write(_ markdown: String, into path: String) throws {
        let section = [self.begin, markdown, self.end].joined(separator: "\n")
        // A missing file starts empty; an unreadable one is an error (writing would replace what it holds).
        let existing =
            FileManager.default.fileExists(atPath: path) ? try String(contentsOfFile: path, encoding: .utf8) : ""
        let updated: String
        if let start = existing.range(of: self.begin), let finish = existing.range(of: self.end),
            start.lowerBound < finish.upperBound
        {
            updated = existing.replacingCharacters(in: start.lowerBound..<finish.upperBound, with: section)
        } else {
            updated = existing + (existing.hasSuffix("\n") ? "\n" : "\n\n") + section + "\n"
        }
        try updated.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

extension ReportSection {
    /// The sections of other benchmarks (`<!-- NAME:begin -->` … `<!-- NAME:end -->`) in the file at `path`, for a
    /// tool that rewrites the whole file (trigger-bench) to carry over instead of deleting; `""` when there is no
    /// file or no section.
    public static func sections(in path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "" }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var sections: [Substring] = []
        var rest = text[...]
        while let open = rest.range(of: "<!-- "), let close = rest[open.upperBound...].range(of: ":begin -->") {
            let name = rest[open.upperBound..<close.lowerBound]
            let end = "<!-- \(name):end -->"
            guard !name.contains(" "), let finish = rest[close.upperBound...].range(of: end) else {
                rest = rest[close.upperBound...]
                continue
            }
            sections.append(rest[open.lowerBound..<finish.upperBound])
            rest = rest[finish.upperBound...]
        }
        return sections.joined(separator: "\n\n")
    }
}
