import Foundation

/// Splits a byte stream into lines.
final class LineBuffer: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = Data()

    func append(_ data: Data) -> [String] {
        self.lock.lock()
        defer { self.lock.unlock() }
        self.pending.append(data)
        var lines: [String] = []
        while let newline = self.pending.firstIndex(of: UInt8(ascii: "\n")) {
            lines.append(String(decoding: self.pending[self.pending.startIndex..<newline], as: UTF8.self))
            self.pending = Data(self.pending[self.pending.index(after: newline)...])
        }
        return lines
    }
}
