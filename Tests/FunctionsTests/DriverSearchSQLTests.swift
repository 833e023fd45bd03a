import Testing
import TriggerRuntime

@testable import Functions

@Suite("The nearest-driver search's SQL")
struct DriverSearchSQLTests {
    static func squeezed(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    @Test("migration 0017's search function filters drivers with the dispatchable condition the other queries use")
    func sameCondition() throws {
        let body = Self.squeezed(try #require(M0017NearestDrivers.migration.statements.first))
        #expect(body.contains(Self.squeezed(DriverSearchSQL.dispatchable("u"))))
        // One index scan ordered by distance: a second sort key would bring back the sort of every driver in reach.
        #expect(body.contains("ORDER BY ll_to_earth(p.lat, p.lng) <-> ll_to_earth(p_lat, p_lng) LIMIT p_limit"))
        #expect(body.contains("SET enable_bitmapscan = off"))
    }

    @Test("migration 0018's search walks the nearest-first scan, 500 positions at most; 0021's the free ones; 0023's (in use) on position_earth")
    func boundedScan() throws {
        let latest = AppMigrations.all.last {
            $0.statements.contains { $0.contains("CREATE OR REPLACE FUNCTION nearest_dispatchable_drivers") }
        }
        #expect(latest?.name == "0023_position_earth")
        // 0024 keeps its body and plans its walk once per connection.
        let cached = Self.squeezed(try #require(M0024CachedPlans.migration.statements.last))
        #expect(cached.hasPrefix("ALTER FUNCTION nearest_dispatchable_drivers("))
        #expect(cached.hasSuffix("SET plan_cache_mode = force_generic_plan"))
        for (migration, earth) in [
            (M0018BoundedDriverSearch.migration, "ll_to_earth"), (M0021FreeDriverIndex.migration, "ll_to_earth"),
            (M0023PositionEarth.migration, "position_earth"),
        ] {
            let function = try #require(migration.statements.last { $0.contains("FUNCTION nearest_dispatchable_drivers") })
            let body = Self.squeezed(function)
            #expect(body.contains(Self.squeezed(DriverSearchSQL.dispatchable("u"))))
            #expect(body.contains("ORDER BY \(earth)(p.lat, p.lng) <-> \(earth)(p_lat, p_lng) LOOP"))
            #expect(body.contains("EXIT WHEN scanned > 500;"))
            #expect(body.contains("EXIT WHEN found >= p_limit;"))
            #expect(body.contains("SET enable_bitmapscan = off"))
        }
        // 0021's walk names the partial index's predicate, so PostgreSQL can use that index.
        let index = try #require(M0021FreeDriverIndex.migration.statements.first { $0.contains("CREATE INDEX") })
        #expect(Self.squeezed(index).hasSuffix("WHERE online AND NOT busy"))
        let function = try #require(M0021FreeDriverIndex.migration.statements.last)
        #expect(Self.squeezed(function).contains("WHERE p.online AND NOT p.busy AND earth_box("))
        // 0023's indexes and walk are on position_earth only: an expression that differs from the index's is not
        // served by it.
        let rebuilt = M0023PositionEarth.migration.statements.filter { $0.contains("CREATE INDEX") }.map(Self.squeezed)
        #expect(rebuilt.count == 2)
        #expect(rebuilt.allSatisfy { $0.contains("USING gist (position_earth(") && !$0.contains("ll_to_earth") })
        #expect(rebuilt.first?.hasSuffix("WHERE online AND NOT busy") == true)
        let walk = try #require(M0023PositionEarth.migration.statements.last)
        #expect(!walk.contains("ll_to_earth"))
        #expect(Self.squeezed(walk).contains("WHERE p.online AND NOT p.busy AND earth_box(position_earth(p_lat, p_lng)"))
    }
}
