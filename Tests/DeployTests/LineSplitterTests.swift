import Foundation
import Testing

/// `ChildProcess` reads both outputs through `LineSplitter`; the 47th session's review found the logs' reader
/// dropping a last line that had no newline, which is what a crash's message often is.
@Suite("LineSplitter: a child's output as lines")
struct LineSplitterTests {
    @Test("lines split across reads are joined; a last line without a newline is kept at the end")
    func splitsAndKeepsTheLastLine() {
        var splitter = LineSplitter()
        #expect(splitter.append(Data("first\nsec".utf8)) == ["first"])
        #expect(splitter.append(Data("ond\n\nfatal: no".utf8)) == ["second", ""])
        #expect(splitter.append(Data(" newline".utf8)) == [])
        #expect(splitter.finish() == ["fatal: no newline"])
        #expect(splitter.finish() == [])
    }

    @Test("output ending in a newline leaves nothing at the end")
    func nothingLeftAfterANewline() {
        var splitter = LineSplitter()
        #expect(splitter.append(Data("only\n".utf8)) == ["only"])
        #expect(splitter.finish() == [])
    }
}
