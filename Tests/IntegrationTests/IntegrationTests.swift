import EmbeddedPostgres
import PostgresNIO
import Testing

@Suite("Test database")
struct TestDatabaseTests {
    @Test("each test gets its own empty, working database")
    func isolatedDatabases() async throws {
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<2 {
                group.addTask {
                    try await TestDatabase.shared.withDatabase { client, _ in
                        try await client.query("CREATE TABLE probe (id int)")
                        try await client.query("INSERT INTO probe VALUES (1)")
                        let rows = try await client.query("SELECT current_database(), count(*) FROM probe")
                        var name = ""
                        for try await (database, count) in rows.decode((String, Int).self) {
                            #expect(count == 1)
                            name = database
                        }
                        return name
                    }
                }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(names.count == 2)
    }

    @Test("database URLs parse and bad ones are refused with a reason")
    func databaseURL() throws {
        let parts = try DatabaseURL.parse("postgres://app:s3cret@db.internal:6432/rides")
        #expect(parts.host == "db.internal")
        #expect(parts.port == 6432)
        #expect(parts.username == "app")
        #expect(parts.password == "s3cret")
        #expect(parts.database == "rides")
        #expect(DatabaseURL.redacted("postgres://app:s3cret@h/d").contains("s3cret") == false)
        #expect(throws: EmbeddedPostgresError.self) { try DatabaseURL.parse("mysql://h/d") }
        #expect(throws: EmbeddedPostgresError.self) { try DatabaseURL.parse("postgres://h/") }
    }
}
