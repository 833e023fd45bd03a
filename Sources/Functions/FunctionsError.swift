import Foundation

/// The errors of the Functions module: compare by `code`; `description` is safe to show, details are in
/// `debugDescription`.
public struct FunctionsError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// A stable error class.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Base: String, Hashable, Sendable {
            case noTransaction
            case driverWithoutDevice
            case illegalTransition
            case malformedRow
            case driverBusy
        }
        fileprivate let base: Base

        /// A function that writes to the database ran without a transaction.
        public static let noTransaction = Code(base: .noTransaction)
        /// An order's driver is unknown or has no HyperTrack device.
        public static let driverWithoutDevice = Code(base: .driverWithoutDevice)
        /// A status transition the state machine forbids.
        public static let illegalTransition = Code(base: .illegalTransition)
        /// A change is missing the row it needs (e.g. an update without `after`).
        public static let malformedRow = Code(base: .malformedRow)
        /// A driver accepted an order while another order of theirs is still active.
        public static let driverBusy = Code(base: .driverBusy)

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

    public var description: String { "\(self.code): \(self.message)" }
    public var debugDescription: String { "FunctionsError(\(self.code)) \(self.message) at \(self.file):\(self.line)" }
    /// A bounded label for metrics.
    public var shortDescription: String { self.code.description }

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
}

extension FunctionsError: Equatable {
    public static func == (lhs: FunctionsError, rhs: FunctionsError) -> Bool { lhs.code == rhs.code }
}
