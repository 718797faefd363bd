/// The `# HELP` text of every metric (docs/metrics.md lists the same names): a scraper's user
/// reads what a series counts without the docs at hand.
enum MetricHelp {
    static let text: [String: String] = [
        "parley_ready": "1 while /ready answers 200: the process is ready for work.",
        "parley_calls_active": "Calls up now.",
        "parley_calls_total": "Calls ended, by direction and why (localStatus, else the server's cause, else the dial's error code).",
        "parley_call_setup_seconds": "From the dial (outgoing) or the offer (incoming) until the call is active.",
        "parley_call_first_audio_seconds": "From the dial or the offer until the first RTP packet from the far end.",
        "parley_call_mos": "Each ended call's MOS estimate (E-model).",
        "parley_call_loss_percent": "Each ended call's loss of the stream it received, percent.",
        "parley_call_jitter_ms": "Each ended call's interarrival jitter, milliseconds.",
        "parley_rtp_packets_total": "RTP packets sent and received, calls up included.",
        "parley_rtp_bytes_total": "RTP payload bytes sent and received, calls up included.",
        "parley_rtp_packets_lost_total": "Packets of received RTP streams lost (RFC 3550 cumulative loss).",
        "parley_reconnections_total": "Calls that recovered their media path, by how.",
        "parley_bot_verdicts_total": "Bot verdicts on calls: passed, failed or aborted.",
        "parley_agent_frames_dropped_total": "Audio frames an agent call's bounded queue dropped, oldest first, because its program fell behind or sent too fast.",
        "parley_media_clock_steps_total": "Media-clock session steps (one per call per 20 ms tick), all shards.",
        "parley_media_clock_late_steps_total": "Media-clock steps whose frame left more than 10 ms, or a whole frame, after their tick, or never left (a tick given up).",
        "parley_media_clock_overruns_total": "Times a media clock fell more than five ticks behind and gave up the lost time.",
        "parley_saturated": "1 while this process is itself the bottleneck (media clock late, CPU at its limit, calls begun late).",
        "parley_saturations_total": "Times this process became the bottleneck, by the signal that crossed its bound.",
        "parley_switch_logins_total": "parley switch: logins, accepted or refused.",
        "parley_switch_sessions": "parley switch: clients logged in now.",
        "parley_switch_calls_total": "parley switch: calls routed.",
        "parley_switch_calls_active": "parley switch: calls routed and not yet ended.",
        "parley_switch_transfers_total": "parley switch: blind transfers and forwards carried out.",
        "parley_switch_call_ratings_total": "parley switch: calls its clients rated (feedback), by rating and issue.",
        "parley_switch_messages_relayed_total": "parley switch: requests sent to clients, by method.",
    ]
}
