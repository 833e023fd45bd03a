import TriggerRuntime

/// The domain schema, migration group `app`, in the order it is applied.
enum AppMigrations {
    /// The migration group of the domain tables.
    static let group = "app"

    /// Every domain migration, oldest first.
    static let all: [Migration] = [
        M0001Extensions.migration,
        M0002Users.migration,
        M0003Orders.migration,
        M0004Legs.migration,
        M0005WebhookInbox.migration,
        M0006DriverPositions.migration,
        M0007Dispatch.migration,
        M0008DriverTrips.migration,
        M0010WebhookTrust.migration,
        M0014WebhookOrdering.migration,
        M0015Accounts.migration,
        M0016OrderEvents.migration,
        M0017NearestDrivers.migration,
        M0018BoundedDriverSearch.migration,
        M0019PositionWrites.migration,
        M0020PositionEventsPerStatement.migration,
        M0021FreeDriverIndex.migration,
        M0022FreeDriverCopiesWithoutWaiting.migration,
        M0023PositionEarth.migration,
        M0024CachedPlans.migration,
        M0025PositionEventPlans.migration,
        M0026EventPositions.migration,
        M0027ContentIDs.migration,
        M0028DriveLocations.migration,
        M0029DeviceDriveEnds.migration,
        M0030UnverifiedPhones.migration,
        M0031WebhookReceipts.migration,
        M0032DocumentStatistics.migration,
        M0033OrderViewPlans.migration,
        M0034WebhookBodiesAsReceived.migration,
        M0035EventSequencerFunction.migration,
        M0036EventHubWakefulness.migration,
        M0037EventHubListening.migration,
    ]
}
