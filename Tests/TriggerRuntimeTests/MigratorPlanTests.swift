import Testing
@testable import TriggerRuntime

@Suite("Migration planning")
struct MigratorPlanTests {
    static func migration(_ group: String, _ name: String) -> Migration {
        Migration(group: group, name: name, statements: ["SELECT 1"])
    }

    @Test("pending migrations are the code's list after the recorded prefix")
    func pending() throws {
        let code = [Self.migration("app", "1"), Self.migration("app", "2"), Self.migration("app", "3")]
        #expect(try Migrator.pending(group: "app", code: code, recorded: []) == code)
        #expect(try Migrator.pending(group: "app", code: code, recorded: ["1", "2"]) == [code[2]])
        #expect(try Migrator.pending(group: "app", code: code, recorded: ["1", "2", "3"]).isEmpty)
    }

    @Test("a history that is not a prefix of the code is refused")
    func divergent() {
        let code = [Self.migration("app", "1"), Self.migration("app", "2")]
        for recorded in [["2"], ["1", "x"], ["1", "2", "3"]] {
            let error = #expect(throws: TriggerRuntimeError.self) {
                try Migrator.pending(group: "app", code: code, recorded: recorded)
            }
            #expect(error?.code == .divergentHistory)
        }
    }

    @Test("groups keep their first-appearance order; malformed lists are refused")
    func grouping() {
        let list = [Self.migration("b", "1"), Self.migration("a", "1"), Self.migration("b", "2")]
        #expect(Migrator.grouped(list).map(\.0) == ["b", "a"])
        #expect(Migrator.grouped(list).first?.1.map(\.name) == ["1", "2"])
        for bad in [
            [Self.migration("a", "1"), Self.migration("a", "1")], [Self.migration("", "1")],
            [Migration(group: "a", name: "1", statements: [])],
        ] {
            let error = #expect(throws: TriggerRuntimeError.self) { try Migrator.validate(bad) }
            #expect(error?.code == .invalidMigrations)
        }
    }

    @Test("configurations out of range are refused with the field's name")
    func configuration() throws {
        try TriggerRuntime.Configuration().validate()
        var bad = TriggerRuntime.Configuration()
        bad.leaseRenewalInterval = .seconds(60)
        let error = #expect(throws: TriggerRuntimeError.self) { try bad.validate() }
        #expect(error?.message.contains("leaseRenewalInterval") == true)
        bad = TriggerRuntime.Configuration()
        bad.concurrency = 0
        #expect(throws: TriggerRuntimeError.self) { try bad.validate() }
    }
}
