import Foundation
import Testing

@testable import Functions

@Suite("Driving score and stars, pinned with hand-computed examples")
struct DrivingScoreTests {
    static func events(_ kinds: [DrivingCategory]) -> [DrivingEvent] {
        let point = TripPoint(time: SyntheticDrive.start, latitude: 52.5, longitude: 13.4)
        return kinds.map { DrivingEvent(kind: $0, start: point, end: point) }
    }

    @Test("5 km, one hard brake, one speeding stretch: rates 2 and 2 per 10 km, 3 stars each, 100 − 10 − 20 = 70")
    func example() {
        let score = DrivingScore(events: Self.events([.hardBraking, .speeding]), distance: 5000)
        #expect(score.score == 70)
        #expect(score.ratings[.hardBraking] == .stars(3))
        #expect(score.ratings[.speeding] == .stars(3))
        #expect(score.ratings[.rapidAcceleration] == .stars(5))
        #expect(score.ratings[.hardTurn] == .stars(5))
        #expect(score.ratings[.phoneUse] == .notAvailable)
    }

    @Test("no events: 100 and 5 stars, phone use not available")
    func clean() {
        let score = DrivingScore(events: [], distance: 20_000)
        #expect(score.score == 100)
        #expect(DrivingCategory.allCases.filter { $0 != .phoneUse }.allSatisfy { score.ratings[$0] == .stars(5) })
        #expect(score.ratings[.phoneUse] == .notAvailable)
    }

    @Test("star boundaries: rate exactly 1 per 10 km is 4 stars; just over is 3; over 3 is 1")
    func boundaries() {
        #expect(DrivingScore(events: Self.events([.hardBraking]), distance: 10_000).ratings[.hardBraking] == .stars(4))
        #expect(DrivingScore(events: Self.events([.hardBraking]), distance: 10_000).score == 95)
        #expect(DrivingScore(events: Self.events([.hardBraking]), distance: 9_999).ratings[.hardBraking] == .stars(3))
        #expect(
            DrivingScore(events: Self.events([.hardTurn, .hardTurn, .hardTurn]), distance: 10_000)
                .ratings[.hardTurn] == .stars(2)
        )
        #expect(
            DrivingScore(events: Self.events(Array(repeating: .hardTurn, count: 4)), distance: 10_000)
                .ratings[.hardTurn] == .stars(1)
        )
    }

    @Test("a short trip counts as 1 km: 300 m with one hard turn is rate 10, 1 star, 100 − 50 = 50")
    func shortTrip() {
        let score = DrivingScore(events: Self.events([.hardTurn]), distance: 300)
        #expect(score.score == 50)
        #expect(score.ratings[.hardTurn] == .stars(1))
    }

    @Test("the score is clamped at 0; 2.5 km with one rapid acceleration rounds 100 − 20 = 80")
    func clampAndRound() {
        #expect(DrivingScore(events: Self.events(Array(repeating: .speeding, count: 30)), distance: 1000).score == 0)
        #expect(DrivingScore(events: Self.events([.rapidAcceleration]), distance: 2500).score == 80)
        // 3 km, one speeding: rate 3.33…, 100 − 33.33 = 66.67 → 67; stars 5 − 4 = 1.
        let odd = DrivingScore(events: Self.events([.speeding]), distance: 3000)
        #expect(odd.score == 67)
        #expect(odd.ratings[.speeding] == .stars(1))
    }

    @Test("a trip without a path has no score and no stars")
    func unrated() {
        let score = DrivingScore(events: [], distance: 0, rated: false)
        #expect(score.score == nil)
        #expect(DrivingCategory.allCases.allSatisfy { score.ratings[$0] == .notAvailable })
    }

    @Test("ratings encode as numbers and \"not_available\" under the categories' names")
    func encoding() throws {
        let score = DrivingScore(events: Self.events([.hardBraking]), distance: 10_000)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(score.ratings), as: UTF8.self)
        #expect(
            text
                == #"{"hard_braking":4,"hard_turn":5,"phone_use":"not_available","rapid_acceleration":5,"speeding":5}"#
        )
        #expect(try JSONDecoder().decode([DrivingCategory: StarRating].self, from: Data(text.utf8)) == score.ratings)
    }
}
