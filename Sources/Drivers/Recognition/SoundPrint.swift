import Foundation
import Media
import Parley

/// How speech sounds, independent of its words or language, for `prompt: welcome.wav`
/// (docs/speech.md, "Matching a recording"): cepstra of a mel filter bank over 200-3800 Hz (the
/// band every codec carries, G.711's too), 25 ms frames every 10 ms, quiet frames left out, each
/// coefficient less its mean (so the level and the line's colour do not count). Two prints are
/// compared by dynamic time warping, so a prompt spoken a little faster or slower still matches.
struct SoundPrint: Sendable {
    static let sampleRate = 16000
    static let frameLength = 400
    static let hop = 160
    static let bandCount = 20
    static let coefficientCount = 12
    static let lowestHertz = 200.0
    static let highestHertz = 3800.0
    /// Frames quieter than this (dBFS) are pauses, not speech.
    static let quietDBFS = -45.0
    /// Frames either side over which each coefficient's mean is taken: one second.
    static let normalisationFrames = 100
    /// The mean warped distance between two prints that gives similarity 0 (docs/speech.md).
    static let distanceScale = 20.0

    let frames: [[Float]]
    let sampleCount: Int

    init(recording path: String) throws {
        let file = try WAVFileSource(path: path, sampleRate: Self.sampleRate)
        var samples = [Int16](repeating: 0, count: file.duration)
        _ = samples.withUnsafeMutableBufferPointer { file.read(into: $0) }
        self.init(samples: samples)
    }

    init(samples: [Int16]) {
        sampleCount = samples.count
        frames = Self.normalised(Self.cepstra(samples))
    }

    /// 1 for the same sound, falling towards 0 as the prints differ; 0 when either is empty.
    func similarity(to other: SoundPrint) -> Double {
        guard !frames.isEmpty, !other.frames.isEmpty else { return 0 }
        return max(0, 1 - Self.warpedDistance(frames, other.frames) / Self.distanceScale)
    }

    // MARK: Features

    private static let filterBank = FilterBank()

    private static func cepstra(_ samples: [Int16]) -> [[Float]] {
        guard samples.count >= frameLength else { return [] }
        let quiet = 32768.0 * 32768.0 * pow(10, quietDBFS / 10)
        var result: [[Float]] = []
        var window = [Double](repeating: 0, count: frameLength)
        for start in stride(from: 0, through: samples.count - frameLength, by: hop) {
            var power = 0.0
            for index in 0..<frameLength {
                let sample = Double(samples[start + index])
                power += sample * sample
                window[index] = sample * filterBank.hamming[index]
            }
            guard power / Double(frameLength) >= quiet else { continue }
            let bands = filterBank.bandLogEnergies(window)
            result.append(filterBank.dct.map { row in Float(zip(row, bands).reduce(0) { $0 + $1.0 * $1.1 }) })
        }
        return result
    }

    /// Each coefficient less its mean over the frames within a second either side: local, so
    /// speech heard before the prompt does not shift the prompt's own frames.
    private static func normalised(_ frames: [[Float]]) -> [[Float]] {
        guard !frames.isEmpty else { return [] }
        var prefix = [[Float]](repeating: [Float](repeating: 0, count: coefficientCount), count: frames.count + 1)
        for (index, frame) in frames.enumerated() {
            for coefficient in 0..<coefficientCount { prefix[index + 1][coefficient] = prefix[index][coefficient] + frame[coefficient] }
        }
        return frames.indices.map { index in
            let low = max(0, index - normalisationFrames), high = min(frames.count, index + normalisationFrames + 1)
            return (0..<coefficientCount).map { frames[index][$0] - (prefix[high][$0] - prefix[low][$0]) / Float(high - low) }
        }
    }

    /// The mean frame distance along the best alignment of `reference` with any stretch of
    /// `heard` (open at both ends of `heard`), steps of one frame in either or both.
    private static func warpedDistance(_ reference: [[Float]], _ heard: [[Float]]) -> Double {
        let columns = heard.count
        var cost = [Double](repeating: 0, count: columns), length = [Int](repeating: 1, count: columns)
        var nextCost = cost, nextLength = length
        for row in 0..<reference.count {
            for column in 0..<columns {
                let distance = Self.distance(reference[row], heard[column])
                guard row > 0 else {
                    cost[column] = distance
                    length[column] = 1
                    continue
                }
                var best = (cost[column], length[column])
                if column > 0, cost[column - 1] / Double(length[column - 1]) < best.0 / Double(best.1) { best = (cost[column - 1], length[column - 1]) }
                if column > 0, nextCost[column - 1] / Double(nextLength[column - 1]) < best.0 / Double(best.1) { best = (nextCost[column - 1], nextLength[column - 1]) }
                nextCost[column] = best.0 + distance
                nextLength[column] = best.1 + 1
            }
            if row > 0 { swap(&cost, &nextCost); swap(&length, &nextLength) }
        }
        return zip(cost, length).map { $0 / Double($1) }.min() ?? .infinity
    }

    private static func distance(_ first: [Float], _ second: [Float]) -> Double {
        var sum: Float = 0
        for index in 0..<min(first.count, second.count) {
            let difference = first[index] - second[index]
            sum += difference * difference
        }
        return Double(sum.squareRoot())
    }
}

/// The window, mel filters (as weights on DFT bins) and DCT of `SoundPrint`, computed once.
private struct FilterBank: Sendable {
    static let fftSize = 512
    let hamming: [Double]
    /// Per band: the bins it covers and their weights.
    let bands: [[(bin: Int, weight: Double)]]
    /// cos/sin of each bin any band uses, for each sample of a frame.
    let bins: [Int]
    let cosines: [[Double]]
    let sines: [[Double]]
    let dct: [[Double]]

    init() {
        let length = SoundPrint.frameLength, count = SoundPrint.bandCount, size = Self.fftSize
        let rate = Double(SoundPrint.sampleRate)
        hamming = (0..<length).map { 0.54 - 0.46 * cos(2 * Double.pi * Double($0) / Double(length - 1)) }
        func mel(_ hertz: Double) -> Double { 2595 * log10(1 + hertz / 700) }
        func hertz(_ mel: Double) -> Double { 700 * (pow(10, mel / 2595) - 1) }
        let low = mel(SoundPrint.lowestHertz), high = mel(SoundPrint.highestHertz)
        let edges = (0...(count + 1)).map { hertz(low + (high - low) * Double($0) / Double(count + 1)) * Double(size) / rate }
        var bands: [[(bin: Int, weight: Double)]] = []
        for band in 1...count {
            let (left, centre, right) = (edges[band - 1], edges[band], edges[band + 1])
            var weights: [(bin: Int, weight: Double)] = []
            for bin in Int(left.rounded(.up))...Int(right.rounded(.down)) {
                let position = Double(bin)
                let weight = position <= centre ? (position - left) / max(centre - left, 1e-9) : (right - position) / max(right - centre, 1e-9)
                if weight > 0 { weights.append((bin, weight)) }
            }
            bands.append(weights)
        }
        self.bands = bands
        bins = Array(Set(bands.flatMap { $0.map(\.bin) })).sorted()
        cosines = bins.map { bin in (0..<length).map { cos(2 * Double.pi * Double(bin) * Double($0) / Double(size)) } }
        sines = bins.map { bin in (0..<length).map { sin(2 * Double.pi * Double(bin) * Double($0) / Double(size)) } }
        dct = (1...SoundPrint.coefficientCount).map { coefficient in
            (0..<count).map { band in cos(Double.pi * Double(coefficient) * (Double(band) + 0.5) / Double(count)) }
        }
    }

    /// The log energy in each band of a windowed frame, by a DFT of only the bins the bands use.
    func bandLogEnergies(_ window: [Double]) -> [Double] {
        var power = [Int: Double]()
        for (index, bin) in bins.enumerated() {
            var real = 0.0, imaginary = 0.0
            let cosine = cosines[index], sine = sines[index]
            for sample in 0..<window.count {
                real += window[sample] * cosine[sample]
                imaginary -= window[sample] * sine[sample]
            }
            power[bin] = real * real + imaginary * imaginary
        }
        return bands.map { band in log(max(1, band.reduce(0) { $0 + $1.weight * (power[$1.bin] ?? 0) })) }
    }
}
