import Foundation
import Functions
import FunctionsTesting
import HyperTrackAPI
import Testing
import TriggerRuntime

@Suite("registerDriverDevice")
struct RegisterDriverDeviceTests {
    let driver = UserRow(
        id: UUID(),
        role: .driver,
        name: "Dana",
        phone: "+4930123456",
        deviceID: "DEVICE-1",
        carModel: "Prius",
        carPlate: "B-RS 42"
    )

    @Test("a new driver's device gets the driver's name and metadata")
    func names() async throws {
        let tracking = FakeTripTracking()
        try await RegisterDriverDevice(tracking: tracking).handle(makeCreateChange(self.driver), context: .testing())
        let device = try #require(tracking.device("DEVICE-1"))
        #expect(device.name == "Dana")
        #expect(device.metadata?["phone"] == "+4930123456")
        #expect(device.metadata?["driver_id"] == .string(self.driver.id.uuidString.lowercased()))
        #expect(device.metadata?["car"] == ["model": "Prius", "plate": "B-RS 42"])
    }

    @Test("an update (new car) sets the metadata again")
    func update() async throws {
        let tracking = FakeTripTracking()
        var after = self.driver
        after.carPlate = "B-RS 43"
        try await RegisterDriverDevice(tracking: tracking).handle(
            makeChange(before: self.driver, after: after),
            context: .testing()
        )
        #expect(tracking.device("DEVICE-1")?.metadata?["car"] == ["model": "Prius", "plate": "B-RS 43"])
    }

    @Test("riders have no device: nothing is called")
    func riders() async throws {
        let tracking = FakeTripTracking()
        let rider = UserRow(id: UUID(), role: .rider, name: "Ria", phone: "+4930999")
        try await RegisterDriverDevice(tracking: tracking).handle(makeCreateChange(rider), context: .testing())
        #expect(tracking.calls.isEmpty)
    }

    @Test("HyperTrack failing throws, so the runtime retries")
    func failure() async throws {
        let tracking = FakeTripTracking()
        tracking.fail(.updateDevice)
        await #expect(throws: FakeTripTrackingError.scripted) {
            try await RegisterDriverDevice(tracking: tracking).handle(
                makeCreateChange(self.driver),
                context: .testing()
            )
        }
        #expect(tracking.device("DEVICE-1") == nil)
    }

    @Test("fires on inserts and on updates of what the device shows, not on availability")
    func trigger() {
        let trigger = RegisterDriverDevice.trigger
        #expect(trigger.table == "users")
        #expect(trigger.operations == [.create, .update])
        #expect(trigger.columns?.contains("available") == false)
        #expect(trigger.columns?.contains("car_plate") == true)
    }
}
