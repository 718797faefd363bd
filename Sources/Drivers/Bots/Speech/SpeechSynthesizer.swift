import CEspeakNG
import Dispatch
import Foundation
import Locking
import Media
import Parley

/// espeak-ng for the whole process. The library keeps global state and is not thread-safe, so
/// every call into it runs on one serial queue; synthesis never runs on a media clock, only
/// where a bot prepares a prompt. Speech whose text has no call variables is kept at espeak's
/// own rate, so a hundred calls saying the same greeting cost one synthesis.
/// Unchecked: espeak's state and the cache are confined to `queue`, which the compiler cannot see.
package final class SpeechSynthesizer: @unchecked Sendable {
    package static let shared = SpeechSynthesizer()

    private let queue = DispatchQueue(label: "parley.speech")
    // Confined to `queue`.
    private var nativeRate = 0
    private var voice: String?
    private var kept: [Speech: [Int16]] = [:]
    private var counts: [Speech: Int] = [:]

    init() {}

    /// How many times `speech` has been synthesised in this process (at most 1 for speech
    /// without call variables).
    package func syntheses(of speech: Speech) -> Int { queue.sync { counts[speech, default: 0] } }

    /// Checks that espeak-ng knows `voice` (a language such as "en-us", or a voice file name).
    package func checkVoice(_ voice: String) throws(AudioError) {
        try queue.sync { Result { () throws(AudioError) in try select(Speech("", voice: voice)) } }.get()
    }

    /// `speech` as mono samples at `sampleRate`, synthesised now unless it was before. Blocks
    /// the caller while espeak-ng speaks; bots call `prepare` first, which does not.
    package func audio(_ speech: Speech, sampleRate: Int) throws(AudioError) -> [Int16] {
        let spoken = try queue.sync { SignallingPriority.runAsBulkWork { Result { () throws(AudioError) in try synthesise(speech, values: [:]) } } }.get()
        return try AudioResampler.resample(spoken.samples, from: spoken.sampleRate, to: sampleRate)
    }

    /// Synthesises `speech` on the speech queue without blocking the caller's thread. Speech
    /// with call variables is filled in from `values` and spoken for this call only; other
    /// speech is kept for every later call.
    func prepare(_ speech: Speech, values: [String: String]) async throws(AudioError) -> SpokenAudio {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<SpokenAudio, AudioError>, Never>) in
            queue.async {
                let result = SignallingPriority.runAsBulkWork { Result { () throws(AudioError) in try self.synthesise(speech, values: values) } }
                // The result crosses from this queue to the task: an edge TSan may miss.
                SanitizerEdge.release(self)
                continuation.resume(returning: result)
            }
        }
        SanitizerEdge.acquire(self)
        return try result.get()
    }

    /// espeak-ng's phonemes for `word` in `voice`'s language: its ASCII phoneme names one
    /// space apart (Pronunciation maps them onto the recogniser's phones), or nil when espeak-ng
    /// gives none. Runs on the speech queue, as every call into espeak-ng does.
    package func phonemes(of word: String, voice: String = Speech.defaultVoice) -> String? {
        queue.sync {
            guard (try? select(Speech("", voice: voice))) != nil else { return nil }
            return word.withCString { text -> String? in
                var cursor: UnsafeRawPointer? = UnsafeRawPointer(text)
                var spelled: [String] = []
                // Bounded: espeak-ng advances the cursor past each clause it spells, or sets it to nil.
                for _ in 0..<64 {
                    guard cursor != nil, let phonemes = espeak_TextToPhonemes(&cursor, Int32(espeakCHARS_UTF8), Self.spaceSeparated) else { break }
                    spelled.append(String(cString: phonemes))
                }
                let joined = spelled.joined(separator: " ").trimmingCharacters(in: .whitespaces)
                return joined.isEmpty ? nil : joined
            }
        }
    }

    /// `espeak_TextToPhonemes`' mode: ASCII phoneme names (bit 1 clear), a space between each
    /// (the separator in bits 8-23).
    private static let spaceSeparated = Int32(0x20 << 8)

    // MARK: On the queue

    /// Counted and kept under the script's text, so the digits a caller pressed stay in no table.
    private func synthesise(_ speech: Speech, values: [String: String]) throws(AudioError) -> SpokenAudio {
        dispatchPrecondition(condition: .onQueue(queue))
        if let samples = kept[speech] { return SpokenAudio(samples: samples, sampleRate: nativeRate) }
        let spoken = speech.isPerCall ? speech.filled(values) : speech
        try select(spoken)
        Self.collected = []
        let status = spoken.text.withCString { text in
            espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil, nil)
        }
        let samples = Self.collected
        Self.collected = []
        guard status == EE_OK else { throw .speech("espeak_Synth error \(status.rawValue)") }
        guard !samples.isEmpty else { throw .speech("espeak-ng produced no audio") }
        counts[speech, default: 0] += 1
        if !speech.isPerCall { kept[speech] = samples }
        return SpokenAudio(samples: samples, sampleRate: nativeRate)
    }

    private func select(_ speech: Speech) throws(AudioError) {
        dispatchPrecondition(condition: .onQueue(queue))
        if nativeRate == 0 {
            let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, Int32(espeakINITIALIZE_DONT_EXIT))
            guard rate > 0 else { throw .speech("espeak-ng did not start (is espeak-ng-data installed?)") }
            espeak_SetSynthCallback { samples, count, _ in
                if let samples, count > 0 {
                    SpeechSynthesizer.collected.append(contentsOf: UnsafeBufferPointer(start: samples, count: Int(count)))
                }
                return 0
            }
            nativeRate = Int(rate)
        }
        if voice != speech.voice {
            guard espeak_SetVoiceByName(speech.voice) == EE_OK || Self.selectLanguage(speech.voice) else {
                voice = nil
                throw .speech("espeak-ng has no voice \"\(speech.voice)\"; its languages are \(Self.languages().joined(separator: ", "))")
            }
            voice = speech.voice
        }
        espeak_SetParameter(espeakRATE, Int32(speech.rate), 0)
        espeak_SetParameter(espeakPITCH, Int32(speech.pitch), 0)
    }

    /// The languages espeak-ng-data has voices for (each voice's first), for the unknown-voice
    /// message: the `espeak-ng` command that would list them is not part of the library's package.
    private static func languages() -> [String] {
        guard let list = espeak_ListVoices(nil) else { return [] }
        var names = Set<String>()
        var index = 0
        while let voice = list[index] {
            // Each entry is a priority byte, then the language's name.
            if let languages = voice.pointee.languages, languages.pointee != 0 { names.insert(String(cString: languages + 1)) }
            index += 1
        }
        return names.sorted()
    }

    /// A language tag such as "en-gb" names no voice file; espeak-ng picks the best voice for it.
    private static func selectLanguage(_ language: String) -> Bool {
        language.withCString { tag in
            var spec = espeak_VOICE()
            spec.languages = tag
            return espeak_SetVoiceByProperties(&spec) == EE_OK
        }
    }

    /// Where espeak-ng's callback puts samples; it runs inside `espeak_Synth`, on the queue.
    /// Unsafe: espeak-ng's C callback takes no context of ours to reach an instance; only `queue` runs it.
    nonisolated(unsafe) private static var collected: [Int16] = []
}
