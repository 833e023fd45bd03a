import Foundation
import Testing

@testable import Functions

#if canImport(FoundationXML)
import FoundationXML
#endif

@Suite("The trip's SVG map")
struct TripMapTests {
    /// Collects the elements of an XML document, failing on a parse error.
    final class Elements: NSObject, XMLParserDelegate {
        var names: [String] = []
        var attributes: [[String: String]] = []

        func parser(
            _ parser: XMLParser,
            didStartElement elementName: String,
            namespaceURI: String?,
            qualifiedName qName: String?,
            attributes attributeDict: [String: String] = [:]
        ) {
            self.names.append(elementName)
            self.attributes.append(attributeDict)
        }
    }

    @Test("the map is well-formed XML with the path's points and one marker per event")
    func wellFormed() throws {
        let drive = SyntheticDrive(speed: 12).cruise(20).accelerate(-4, seconds: 2).cruise(10, speed: 4).accelerate(
            2,
            seconds: 6
        ).cruise(20, speed: 17)
        let analysis = TripAnalysis(points: drive.points, postedLimit: { _ in 50 })
        #expect(analysis.events.map(\.kind) == [.hardBraking, .speeding])
        let svg = TripMap.svg(path: analysis.path, events: analysis.events)
        let parser = XMLParser(data: Data(svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        #expect(parser.parse(), "the SVG is not well-formed: \(String(describing: parser.parserError))")
        #expect(elements.names.first == "svg")
        let polyline = try #require(elements.names.firstIndex(of: "polyline").map { elements.attributes[$0] })
        #expect(polyline["points"]?.split(separator: " ").count == analysis.path.count)
        let markers = zip(elements.names, elements.attributes).filter { $0.0 == "circle" && $0.1["class"] != nil }
        #expect(markers.map { $0.1["class"] } == ["event hard_braking", "event speeding"])
        #expect(svg.contains("<title>hard_braking</title>"))
        // Every coordinate lies inside the picture.
        for pair in polyline["points"]?.split(separator: " ") ?? [] {
            let xy = pair.split(separator: ",").compactMap { Double($0) }
            #expect(xy.count == 2 && xy.allSatisfy { (0...TripMap.size).contains($0) })
        }
    }

    @Test("an empty trip is still a well-formed picture")
    func empty() {
        let parser = XMLParser(data: Data(TripMap.svg(path: [], events: []).utf8))
        #expect(parser.parse())
    }
}
