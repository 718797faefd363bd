@testable import Media
import Testing

/// When a session runs and reports: its start and stop, and RTCP once it has keys.
@Suite struct SessionScheduleTests {
    @Test func startAndStopTakeEffectOnce() {
        var schedule = SessionSchedule(rtcpInterval: .seconds(5))
        #expect(!schedule.isRunning)
        let starts = [schedule.start(), schedule.start()]
        #expect(starts == [true, false])
        #expect(schedule.isRunning)
        let stops = [schedule.stop(), schedule.stop()]
        #expect(stops == [true, false])
        #expect(!schedule.isRunning)
    }

    @Test func reportsStartHalfASecondAfterKeysThenFollowTheInterval() {
        var schedule = SessionSchedule(rtcpInterval: .seconds(5))
        let start = ContinuousClock.now
        let beforeKeys = schedule.reportDue(at: start + .seconds(60))
        #expect(!beforeKeys)
        schedule.secured(at: start)
        let due = [499, 500, 520, 5499, 5500].map { schedule.reportDue(at: start + .milliseconds($0)) }
        #expect(due == [false, true, false, false, true])
    }

    @Test func aNewAssociationReportsOnlyOnceItHasKeys() {
        var schedule = SessionSchedule(rtcpInterval: .seconds(1))
        let start = ContinuousClock.now
        schedule.secured(at: start)
        schedule.securityReplaced()
        let withoutKeys = schedule.reportDue(at: start + .seconds(10))
        #expect(!withoutKeys)
        schedule.secured(at: start + .seconds(10))
        let withKeys = schedule.reportDue(at: start + .milliseconds(10_500))
        #expect(withKeys)
    }
}
