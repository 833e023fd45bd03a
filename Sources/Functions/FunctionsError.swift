import Foundation

/// The one error type of the Functions module: compare by `code`; `description` is safe to show, and
/// `debugDescription` adds where it was thrown.
public struct FunctionsError: Error, Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A stable error class.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case noTransaction = "no_transaction"
            case driverWithoutDevice = "driver_without_device"
            case illegalTransition = "illegal_transition"
            case malformedRow = "malformed_row"
            case driverBusy = "driver_busy"
            case riderBusy = "rider_busy"
            case codeDeliveryFailed = "code_delivery_failed"
            case webhooksWaiting = "webhooks_waiting"
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A function that writes to the database ran without a transaction.
        public static let noTransaction = Code(.noTransaction)
        /// An order's driver is unknown or has no HyperTrack device.
        public static let driverWithoutDevice = Code(.driverWithoutDevice)
        /// A status transition the state machine forbids.
        public static let illegalTransition = Code(.illegalTransition)
        /// A change is missing the row it needs (e.g. an update without `after`).
        public static let malformedRow = Code(.malformedRow)
        /// A driver accepted an order while another order of theirs is still active.
        public static let driverBusy = Code(.driverBusy)
        /// A rider booked while another order of theirs is still open (at most one open order per rider).
        public static let riderBusy = Code(.riderBusy)
        /// A sign-in code could not be handed to its delivery (the SMS provider refused it or did not answer).
        public static let codeDeliveryFailed = Code(.codeDeliveryFailed)
        /// Webhook deliveries a function must see are received and not applied yet; a retry will find them applied.
        public static let webhooksWaiting = Code(.webhooksWaiting)

        /// A stable snake_case name, usable as a metric label.
        public var description: String { self.base.rawValue }
    }

    /// The error class.
    public let code: Code
    /// What went wrong, safe to show.
    public let message: String
    /// Where it was thrown.
    public let file: String
    /// Where it was thrown.
    public let line: Int

    private init(_ code: Code, _ message: String, file: String, line: Int) {
        self.code = code
        self.message = message
        self.file = file
        self.line = line
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }

    public var description: String { "FunctionsError.\(self.code): \(self.message)" }
    public var debugDescription: String { "\(self.description) [\(self.file):\(self.line)]" }

    static func noTransaction(
        _ function: some CustomStringConvertible,
        file: String = #fileID,
        line: Int = #line
    )
        -> Self
    {
        Self(.noTransaction, "\(function) needs the delivery's transaction", file: file, line: line)
    }

    static func driverWithoutDevice(_ driverID: UUID?, order: UUID, file: String = #fileID, line: Int = #line) -> Self {
        Self(
            .driverWithoutDevice,
            "order \(order) has no driver with a device (driver \(driverID.map { "\($0)" } ?? "none"))",
            file: file,
            line: line
        )
    }

    /// A booking that the one-open-order-per-rider rule refuses.
    /// - Parameter riderID: The rider, when the caller knows them (a booking authenticated by its own statement
    ///   learns who booked only when it succeeds).
    public static func riderBusy(_ riderID: UUID?, file: String = #fileID, line: Int = #line) -> Self {
        let rider = riderID.map { "rider \($0)" } ?? "the token's rider"
        return Self(.riderBusy, "\(rider) already has an open order", file: file, line: line)
    }

    static func illegalTransition(
        _ from: OrderStatus,
        _ to: OrderStatus,
        file: String = #fileID,
        line: Int = #line
    ) -> Self {
        Self(.illegalTransition, "illegal order transition \(from.rawValue) -> \(to.rawValue)", file: file, line: line)
    }

    static func malformedRow(_ detail: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.malformedRow, detail, file: file, line: line)
    }

    /// A driver's accept that the one-active-order rule refuses.
    public static func driverBusy(_ driverID: UUID, file: String = #fileID, line: Int = #line) -> Self {
        Self(.driverBusy, "driver \(driverID) already has an active order", file: file, line: line)
    }

    /// A sign-in code the delivery did not take.
    public static func codeDeliveryFailed(_ detail: String, file: String = #fileID, line: Int = #line) -> Self {
        Self(.codeDeliveryFailed, detail, file: file, line: line)
    }

    /// Deliveries received by `instant` that are not applied yet.
    static func webhooksWaiting(by instant: Date, file: String = #fileID, line: Int = #line) -> Self {
        Self(.webhooksWaiting, "webhook deliveries received by \(instant) are not applied yet", file: file, line: line)
    }
}
