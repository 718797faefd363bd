/// Orders received RTP payloads by sequence number and releases one frame per playout tick after
/// a delay that adapts to the measured jitter (RFC 3550 interarrival jitter), within bounds.
///
/// Storage is allocated once: a ring of slots, and a ring of payload bytes that packets are copied
/// into in arrival order (so a call's buffer costs what its packets need, not `capacity` times the
/// largest packet: resident memory per call, docs/media.md). Inserting and popping allocate nothing.
/// Not thread-safe: the media session serialises access.
package final class JitterBuffer {
    package struct Configuration: Sendable, Equatable {
        package var frameMilliseconds: Int
        package var minimumDelayMilliseconds: Int
        package var maximumDelayMilliseconds: Int
        /// Ring slots; packets further ahead than this reset the buffer.
        package var capacity: Int
        package var maximumPayload: Int
        /// Payload bytes kept: the newest packets' payloads, older ones overwritten (a frame whose
        /// payload was overwritten plays as lost). The default holds 16 packets of the largest
        /// size, more than the maximum delay at 20 ms frames, and hundreds of voice packets.
        package var payloadBytes: Int

        package init(
            frameMilliseconds: Int = 20, minimumDelayMilliseconds: Int = 20, maximumDelayMilliseconds: Int = 200, capacity: Int = 64, maximumPayload: Int = 1500,
            payloadBytes: Int? = nil
        ) {
            self.frameMilliseconds = frameMilliseconds
            self.minimumDelayMilliseconds = minimumDelayMilliseconds
            self.maximumDelayMilliseconds = maximumDelayMilliseconds
            self.capacity = capacity
            self.maximumPayload = maximumPayload
            self.payloadBytes = payloadBytes ?? 16 * maximumPayload
        }
    }

    package enum InsertResult: Sendable, Equatable {
        case stored
        case duplicate
        /// Arrived after its playout time had passed.
        case late
        case tooLarge
        /// So far ahead of playout (a sender restart or a long stall) that the buffer started over.
        case reset
    }

    /// What the player gets for one frame. Payload pointers stay valid until the next insert.
    package enum Playout {
        case frame(UnsafeRawBufferPointer)
        /// The frame is missing; `next` is the following frame when already here (for Opus FEC).
        case lost(next: UnsafeRawBufferPointer?)
        /// Nothing to play yet: not started, or rebuffering after an underrun.
        case buffering
    }

    package struct Counters: Sendable, Equatable {
        package var stored = 0
        package var duplicates = 0
        package var late = 0
        package var lostFrames = 0
        package var underruns = 0
        package var resets = 0
        /// Frames dropped to bring the delay back down to the target.
        package var droppedForDelay = 0
        var playedFrames = 0
    }

    private enum SlotState: UInt8 { case empty, audio, placeholder }

    private struct Slot {
        var sequence: Int64 = -1
        /// Where the payload starts, in bytes written to the payload ring since it was made.
        var position = 0
        var length = 0
        var state = SlotState.empty
    }

    package let configuration: Configuration
    private let slots: UnsafeMutableBufferPointer<Slot>
    private let storage: UnsafeMutableRawBufferPointer
    /// Bytes written to `storage` so far, counting the unused tails skipped so that no payload wraps.
    private var written = 0
    private var started = false
    private var playing = false
    private var highest: Int64 = 0
    private var next: Int64 = 0
    private var excessPops = 0
    package private(set) var targetFrames: Int
    package private(set) var counters = Counters()
    private var delaySumMilliseconds = 0.0

    package init(configuration: Configuration = Configuration()) {
        precondition(configuration.capacity >= 4 && configuration.frameMilliseconds > 0, "jitter buffer needs at least 4 slots and a positive frame time")
        precondition(configuration.payloadBytes >= configuration.maximumPayload, "jitter buffer payload ring smaller than one payload")
        self.configuration = configuration
        slots = .allocate(capacity: configuration.capacity)
        slots.initialize(repeating: Slot())
        storage = .allocate(byteCount: configuration.payloadBytes, alignment: 16)
        targetFrames = Self.frames(forMilliseconds: configuration.minimumDelayMilliseconds, configuration)
    }

    deinit {
        slots.deallocate()
        storage.deallocate()
    }

    private static func frames(forMilliseconds milliseconds: Double, _ configuration: Configuration) -> Int {
        let bounded = min(Double(configuration.maximumDelayMilliseconds), max(Double(configuration.minimumDelayMilliseconds), milliseconds))
        return max(1, Int((bounded / Double(configuration.frameMilliseconds)).rounded(.toNearestOrAwayFromZero)))
    }

    private static func frames(forMilliseconds milliseconds: Int, _ configuration: Configuration) -> Int {
        frames(forMilliseconds: Double(milliseconds), configuration)
    }

    /// The playout delay the buffer aims for, in milliseconds.
    package var targetDelayMilliseconds: Int { targetFrames * configuration.frameMilliseconds }

    /// Span of audio between the next frame to play and the newest received, in milliseconds.
    package var currentDelayMilliseconds: Int {
        guard started, highest >= next else { return 0 }
        return Int(highest - next + 1) * configuration.frameMilliseconds
    }

    /// Mean delay over the frames played so far, in milliseconds.
    var averageDelayMilliseconds: Double {
        counters.playedFrames == 0 ? 0 : delaySumMilliseconds / Double(counters.playedFrames)
    }

    /// Sets the target from the measured interarrival jitter: one frame plus three times the
    /// jitter, bounded by the configuration.
    package func updateTarget(jitterMilliseconds: Double) {
        targetFrames = Self.frames(forMilliseconds: Double(configuration.frameMilliseconds) + 3 * jitterMilliseconds, configuration)
    }

    private func extend(_ sequence: UInt16) -> Int64 {
        let delta = Int16(bitPattern: sequence &- UInt16(truncatingIfNeeded: highest))
        return highest + Int64(delta)
    }

    private func index(_ sequence: Int64) -> Int { Int(sequence % Int64(configuration.capacity)) }

    /// Bytes the buffer keeps for payloads, whatever the packets.
    package var payloadStorageBytes: Int { storage.count }

    package func insert(sequence: UInt16, payload: UnsafeRawBufferPointer) -> InsertResult {
        guard payload.count <= configuration.maximumPayload else { return .tooLarge }
        return place(sequence: sequence, payload: payload, state: .audio)
    }

    /// Marks a sequence number that carries no audio (e.g. a telephone-event packet sharing the
    /// stream), so playout skips it instead of concealing it as a loss.
    @discardableResult
    package func insertPlaceholder(sequence: UInt16) -> InsertResult {
        place(sequence: sequence, payload: UnsafeRawBufferPointer(start: nil, count: 0), state: .placeholder)
    }

    private func place(sequence: UInt16, payload: UnsafeRawBufferPointer, state: SlotState) -> InsertResult {
        // Extended sequences start high so that reordering before the first packet stays positive.
        let extended = started ? extend(sequence) : Int64(sequence) + (1 << 32)
        var result = InsertResult.stored
        if !started {
            started = true
            highest = extended
            next = extended
        } else if extended < next {
            // Before playout starts, an earlier packet that still fits moves the start back.
            if !playing && highest - extended < Int64(configuration.capacity) {
                next = extended
            } else {
                counters.late += 1
                return .late
            }
        } else if extended - next >= Int64(configuration.capacity) {
            reset(at: extended)
            result = .reset
        }
        let slotIndex = index(extended)
        if slots[slotIndex].state != .empty && slots[slotIndex].sequence == extended {
            counters.duplicates += 1
            return .duplicate
        }
        slots[slotIndex] = Slot(sequence: extended, position: store(payload), length: payload.count, state: state)
        highest = max(highest, extended)
        if state == .audio { counters.stored += 1 }
        return result
    }

    /// Forgets everything, for a new source with its own sequence space.
    package func reset() {
        for index in slots.indices { slots[index] = Slot() }
        started = false
        playing = false
    }

    private func reset(at sequence: Int64) {
        for index in slots.indices { slots[index] = Slot() }
        counters.resets += 1
        playing = false
        highest = sequence
        next = sequence
    }

    /// Copies a payload to the ring after the last one (or to its start when the tail is too
    /// short) and returns where it went.
    private func store(_ payload: UnsafeRawBufferPointer) -> Int {
        guard payload.count > 0, let source = payload.baseAddress else { return written }
        var position = written
        let offset = position % storage.count
        if offset + payload.count > storage.count { position += storage.count - offset }
        (storage.baseAddress! + position % storage.count).copyMemory(from: source, byteCount: payload.count)
        written = position + payload.count
        return position
    }

    /// Whether no later payload has been written over this slot's.
    private func isIntact(_ slot: Slot) -> Bool { written - slot.position <= storage.count }

    private func payload(of slot: Slot) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.baseAddress! + slot.position % storage.count, count: slot.length)
    }

    /// The next frame to play, once per frame time.
    package func pop() -> Playout {
        guard started else { return .buffering }
        let depth = Int(highest - next + 1)
        if !playing {
            guard depth >= targetFrames else { return .buffering }
            playing = true
        }
        dropExcessDelay(depth: depth)
        for _ in 0..<configuration.capacity {
            guard next <= highest else {
                // Underrun: wait until the target depth has built up again.
                playing = false
                counters.underruns += 1
                return .buffering
            }
            let delay = Double(Int(highest - next + 1) * configuration.frameMilliseconds)
            let slotIndex = index(next)
            let slot = slots[slotIndex]
            let isCurrent = slot.sequence == next && slot.state != .empty
            slots[slotIndex].state = isCurrent ? .empty : slot.state
            next += 1
            if isCurrent && slot.state == .placeholder { continue }
            counters.playedFrames += 1
            delaySumMilliseconds += delay
            if isCurrent && isIntact(slot) { return .frame(payload(of: slot)) }
            counters.lostFrames += 1
            let following = slots[index(next)]
            let hasNext = following.sequence == next && following.state == .audio && isIntact(following)
            return .lost(next: hasNext ? payload(of: following) : nil)
        }
        return .buffering
    }

    /// When the buffer has held two frames more than its target for a second, drop the oldest
    /// frame, so the delay follows a falling jitter back down. Beyond the maximum delay (a sender
    /// running faster than our clock, or a burst after a stall) the excess goes at once: the delay
    /// must never grow without bound.
    private func dropExcessDelay(depth: Int) {
        if depth > configuration.maximumDelayMilliseconds / configuration.frameMilliseconds {
            for _ in 0..<(depth - targetFrames) { dropOldest() }
            excessPops = 0
            return
        }
        guard depth > targetFrames + 2 else {
            excessPops = 0
            return
        }
        excessPops += 1
        guard excessPops >= 1000 / configuration.frameMilliseconds else { return }
        excessPops = 0
        dropOldest()
    }

    private func dropOldest() {
        let slotIndex = index(next)
        if slots[slotIndex].sequence == next { slots[slotIndex].state = .empty }
        next += 1
        counters.droppedForDelay += 1
    }
}
