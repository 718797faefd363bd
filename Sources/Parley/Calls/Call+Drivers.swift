/// What a driver above the library (Sources/Drivers: bots, agents) needs of a call beyond its API.
extension Call {
    /// The call's audio taps; nil before media is negotiated or after it stopped.
    package func audioTaps() async -> AudioTaps? {
        await leg?.audioTaps()
    }

    /// Ends the call because of the driver's own failure (an agent gone away), telling the server.
    package func end(_ reason: TerminationReason, failure: ParleyError) async {
        await end(reason, failure: failure, notifyServer: true)
    }
}
