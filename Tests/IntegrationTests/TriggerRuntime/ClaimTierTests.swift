import Foundation
import Logging
import PostgresNIO
import Testing
import TriggerRuntime

/// Migration 0015: a worker's claim of several priority tiers is one statement (`trigger_runtime.claim_tiers()`),
/// which must take from each tier what the rule of `OutboxStore.claimTierByTier` (a claim per tier, the in-memory
/// store's) takes. Both run here on the same PostgreSQL, case by case.
@Suite("TriggerRuntime: the tiers' claim in one statement", .timeLimit(.minutes(10)))
struct ClaimTierTests {
    /// Three functions on inserts of `items`, by its `name`: the tiers, first first.
    static let tiers: [[FunctionName]] = [["hi"], ["mid"], ["lo"]]

    static func registry() -> FunctionRegistry {
        var registry = FunctionRegistry()
        for name in Self.tiers.joined() {
            registry.register(name, on: Trigger.create("items").matching("name", in: [name.rawValue]), as: Item.self) {
                _, _ in
            }
        }
        return registry
    }

    /// A case: how many deliveries of each tier are due, the claim's limit, and what it takes of each tier.
    struct Case: Sendable, CustomStringConvertible {
        var due: [Int]
        var limit: Int
        var taken: [Int]
        var description: String { "due \(self.due), limit \(self.limit)" }
    }

    static let cases: [Case] = [
        // The first tier leaves a quarter of the room (at least one) to the later ones, the second likewise.
        Case(due: [10, 10, 10], limit: 8, taken: [6, 1, 1]),
        // What an earlier tier does not use goes to the later ones.
        Case(due: [2, 0, 10], limit: 8, taken: [2, 0, 6]),
        Case(due: [0, 3, 10], limit: 8, taken: [0, 3, 5]),
        // What the later tiers leave goes back to a tier whose claim was full.
        Case(due: [10, 10, 0], limit: 8, taken: [7, 1, 0]),
        // A room of one is the last tier's, unless it has nothing.
        Case(due: [10, 10, 10], limit: 1, taken: [0, 0, 1]),
        Case(due: [10, 0, 0], limit: 1, taken: [1, 0, 0]),
        Case(due: [0, 0, 0], limit: 8, taken: [0, 0, 0]),
    ]

    @Test("one statement takes from each tier what a claim per tier takes", arguments: Self.cases)
    func sameAsTierByTier(_ example: Case) async throws {
        let (logger, _) = Logger.capturing()
        try await RuntimeHarness.withPreparedDatabase(registry: Self.registry(), logger: logger) { client, _ in
            let store = PostgresOutboxStore(client: client, channel: "trigger_runtime", logger: logger)
            var taken: [String: [Int]] = [:]
            for way in ["one statement", "tier by tier"] {
                try await client.query("DELETE FROM trigger_runtime.deliveries")
                try await client.query("DELETE FROM items")
                var id = 0
                for (tier, count) in zip(Self.tiers, example.due) where count > 0 {
                    for _ in 1...count {
                        id += 1
                        try await client.query(
                            "INSERT INTO items (id, name, value) VALUES (\(id), \(tier[0].rawValue), 0)")
                    }
                }
                let claimed =
                    way == "one statement"
                    ? try await store.claim(limit: example.limit, tiers: Self.tiers, owner: "w", lease: .seconds(30))
                    : try await store.claimTierByTier(
                        limit: example.limit, tiers: Self.tiers, owner: "w", lease: .seconds(30))
                taken[way] = Self.tiers.map { tier in claimed.filter { tier.contains($0.function) }.count }
                // Each claimed once and leased to the claimer; the statement's in commit order.
                #expect(Set(claimed.map(\.id)).count == claimed.count)
                if way == "one statement" { #expect(claimed.map(\.id) == claimed.map(\.id).sorted()) }
                let leased = try await RuntimeHarness.count(
                    client, "SELECT count(*) FROM trigger_runtime.deliveries WHERE lease_owner = 'w'")
                #expect(leased == claimed.count)
            }
            #expect(taken["one statement"] == example.taken, "\(example)")
            #expect(taken["tier by tier"] == example.taken, "\(example)")
        }
    }
}
