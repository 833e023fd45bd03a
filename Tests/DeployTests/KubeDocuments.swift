import Foundation

/// The documents `kubectl kustomize` prints, read with a parser of the block YAML it emits (mappings, sequences,
/// plain and quoted scalars; no flow collections except `{}` and `[]`, no multi-line scalars). Anything else is an
/// error, so a manifest that cannot be read fails the test instead of passing unchecked.
struct KubeDocuments {
    struct Unsupported: Error, CustomStringConvertible {
        var description: String
    }

    /// A YAML node.
    indirect enum Node: Sendable {
        case map([(String, Node)])
        case list([Node])
        case scalar(String)

        func map(_ key: String) -> Node {
            if case .map(let pairs) = self, let value = pairs.first(where: { $0.0 == key })?.1 { return value }
            return .map([])
        }
        func string(_ key: String) -> String? {
            if case .scalar(let text) = self.map(key) { return text }
            return nil
        }
        func int(_ key: String) -> Int? { self.string(key).flatMap { Int($0) } }
        func strings(_ key: String) -> [String] {
            guard case .list(let items) = self.map(key) else { return [] }
            return items.compactMap { if case .scalar(let text) = $0 { return text } else { return nil } }
        }
        var keys: [String] {
            if case .map(let pairs) = self { return pairs.map(\.0) }
            return []
        }
        /// The first container of a workload's pod template (Deployment, Job).
        var container: Node {
            guard case .list(let containers) = self.map("spec").map("template").map("spec").map("containers"),
                let first = containers.first
            else { return .map([]) }
            return first
        }
    }

    let documents: [Node]

    init(_ text: String) throws {
        var documents: [Node] = []
        var current: [(indent: Int, text: String)] = []
        func flush() throws {
            guard !current.isEmpty else { return }
            var parser = Parser(lines: current)
            documents.append(try parser.node(indent: current[0].indent))
            guard parser.index == current.count else {
                throw Unsupported(description: "unparsed YAML from: \(current[parser.index].text)")
            }
            current = []
        }
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "---" {
                try flush()
                continue
            }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            current.append((line.prefix { $0 == " " }.count, trimmed))
        }
        try flush()
        self.documents = documents
    }

    func all(kind: String) -> [Node] { self.documents.filter { $0.string("kind") == kind } }

    func first(kind: String, name: String? = nil) -> Node? {
        self.all(kind: kind).first { name == nil || $0.map("metadata").string("name") == name }
    }

    private struct Parser {
        var lines: [(indent: Int, text: String)]
        var index = 0

        mutating func node(indent: Int) throws -> Node {
            if self.lines[self.index].text.hasPrefix("-") { return try self.sequence(indent: indent) }
            return try self.mapping(indent: indent)
        }

        mutating func mapping(indent: Int) throws -> Node {
            var pairs: [(String, Node)] = []
            while self.index < self.lines.count, self.lines[self.index].indent == indent,
                !self.lines[self.index].text.hasPrefix("- "), self.lines[self.index].text != "-"
            {
                let text = self.lines[self.index].text
                let (key, rest) = try Self.split(text)
                self.index += 1
                if !rest.isEmpty {
                    pairs.append((key, try Self.scalar(rest)))
                } else if self.index < self.lines.count, self.lines[self.index].indent > indent {
                    pairs.append((key, try self.node(indent: self.lines[self.index].indent)))
                } else if self.index < self.lines.count, self.lines[self.index].indent == indent,
                    self.lines[self.index].text.hasPrefix("-")
                {
                    pairs.append((key, try self.sequence(indent: indent)))
                } else {
                    pairs.append((key, .scalar("")))
                }
            }
            if self.index < self.lines.count, self.lines[self.index].indent > indent {
                throw Unsupported(description: "unexpected indentation at: \(self.lines[self.index].text)")
            }
            return .map(pairs)
        }

        mutating func sequence(indent: Int) throws -> Node {
            var items: [Node] = []
            while self.index < self.lines.count, self.lines[self.index].indent == indent,
                self.lines[self.index].text.hasPrefix("-")
            {
                let rest = String(self.lines[self.index].text.dropFirst()).trimmingCharacters(in: .whitespaces)
                if rest.isEmpty {
                    self.index += 1
                    items.append(try self.node(indent: self.lines[self.index].indent))
                } else if (try? Self.split(rest)) != nil, !rest.hasPrefix("\""), !rest.hasPrefix("'") {
                    // "- key: value" opens a mapping whose keys sit two columns further in.
                    self.lines[self.index] = (indent + 2, rest)
                    items.append(try self.mapping(indent: indent + 2))
                } else {
                    self.index += 1
                    items.append(try Self.scalar(rest))
                }
            }
            return .list(items)
        }

        static func split(_ text: String) throws -> (String, String) {
            if text.hasSuffix(":") { return (try Self.unquote(String(text.dropLast())), "") }
            guard let range = text.range(of: ": ") else { throw Unsupported(description: "not a mapping entry: \(text)") }
            return (try Self.unquote(String(text[..<range.lowerBound])), String(text[range.upperBound...]))
        }

        static func scalar(_ text: String) throws -> Node {
            if text == "{}" { return .map([]) }
            if text == "[]" { return .list([]) }
            if text.hasPrefix("{") || text.hasPrefix("[") || text.hasPrefix("|") || text.hasPrefix(">") {
                throw Unsupported(description: "unsupported YAML value: \(text)")
            }
            return .scalar(try Self.unquote(text))
        }

        static func unquote(_ text: String) throws -> String {
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") {
                return String(text.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"")
            }
            if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
                return String(text.dropFirst().dropLast()).replacingOccurrences(of: "''", with: "'")
            }
            return text
        }
    }
}
