import CPulse

/// A microphone (source) or speaker (sink) the sound server offers.
package struct SoundDevice: Sendable, Equatable, Codable {
    package var name: String
    package var description: String
    package var sampleRate: Int
    package var channels: Int
    package var isDefault: Bool
    /// A source that records what a sink plays (PulseAudio's `.monitor` sources).
    package var isMonitor: Bool
}

extension SoundDevice {
    /// From the fields libpulse's source and sink records share; the defaults are marked later.
    init(_ name: UnsafePointer<CChar>, _ description: UnsafePointer<CChar>?, _ spec: pa_sample_spec, isMonitor: Bool) {
        self.init(
            name: String(cString: name), description: description.map { String(cString: $0) } ?? "",
            sampleRate: Int(spec.rate), channels: Int(spec.channels), isDefault: false, isMonitor: isMonitor)
    }
}

/// What `parley devices` shows.
package struct SoundDevices: Sendable, Equatable, Codable {
    package var server: String
    package var sources: [SoundDevice]
    package var sinks: [SoundDevice]
}

extension SoundServer {
    /// Every source and sink, with the server's defaults marked.
    package func devices() throws(AudioError) -> SoundDevices {
        let collector = DeviceCollector()
        let me = Unmanaged.passUnretained(collector).toOpaque()
        let serverQuery = try locked { _, context in
            pa_context_get_server_info(context, { _, info, userdata in
                guard let info, let userdata else { return }
                let collector = Unmanaged<DeviceCollector>.fromOpaque(userdata).takeUnretainedValue()
                collector.server = "\(String(cString: info.pointee.server_name)) \(String(cString: info.pointee.server_version))"
                collector.defaultSource = info.pointee.default_source_name.map { String(cString: $0) }
                collector.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
            }, me)
        }
        try wait(for: serverQuery)
        let sourceQuery = try locked { _, context in
            pa_context_get_source_info_list(context, { _, info, eol, userdata in
                guard eol == 0, let info, let userdata else { return }
                let collector = Unmanaged<DeviceCollector>.fromOpaque(userdata).takeUnretainedValue()
                let i = info.pointee
                collector.sources.append(SoundDevice(i.name, i.description, i.sample_spec, isMonitor: i.monitor_of_sink != UInt32.max))
            }, me)
        }
        try wait(for: sourceQuery)
        let sinkQuery = try locked { _, context in
            pa_context_get_sink_info_list(context, { _, info, eol, userdata in
                guard eol == 0, let info, let userdata else { return }
                let collector = Unmanaged<DeviceCollector>.fromOpaque(userdata).takeUnretainedValue()
                let i = info.pointee
                collector.sinks.append(SoundDevice(i.name, i.description, i.sample_spec, isMonitor: false))
            }, me)
        }
        try wait(for: sinkQuery)
        return withExtendedLifetime(collector) {
            SoundDevices(
                server: collector.server,
                sources: collector.sources.map { var d = $0; d.isDefault = d.name == collector.defaultSource; return d },
                sinks: collector.sinks.map { var d = $0; d.isDefault = d.name == collector.defaultSink; return d })
        }
    }

    /// Throws `noSuchDevice` unless the server has a source (or sink) of that name.
    func checkDevice(_ name: String?, sink: Bool) throws(AudioError) {
        let list = try devices()
        guard let name else { return }
        let names = (sink ? list.sinks : list.sources).map(\.name)
        guard names.contains(name) else { throw .noSuchDevice(kind: sink ? "speaker" : "microphone", name: name, known: names) }
    }
}

/// Filled by libpulse's callbacks on the main loop's thread while a query runs; read after it.
/// Unchecked: filled on libpulse's thread while the caller waits, read only after the query ends.
private final class DeviceCollector: @unchecked Sendable {
    var server = ""
    var defaultSource: String?
    var defaultSink: String?
    var sources: [SoundDevice] = []
    var sinks: [SoundDevice] = []
}
