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

    @Test("migration 0018's search (the one in use) walks the nearest-first scan, 500 positions at most")
    func boundedScan() throws {
        let body = Self.squeezed(try #require(M0018BoundedDriverSearch.migration.statements.first))
        let latest = AppMigrations.all.last { $0.statements.contains { $0.contains("FUNCTION nearest_dispatchable_drivers") } }
        #expect(latest?.name == "0018_bounded_driver_search")
        #expect(body.contains(Self.squeezed(DriverSearchSQL.dispatchable("u"))))
        #expect(body.contains("ORDER BY ll_to_earth(p.lat, p.lng) <-> ll_to_earth(p_lat, p_lng) LOOP"))
        #expect(body.contains("EXIT WHEN scanned > 500;"))
        #expect(body.contains("EXIT WHEN found >= p_limit;"))
        #expect(body.contains("SET enable_bitmapscan = off"))
    }
}
