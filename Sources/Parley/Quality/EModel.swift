/// The ITU-T G.107 E-model reduced the way WebRTC monitoring tools reduce it: every default
/// (no echo, no noise, a standard handset) folded into R0 − Is = 93.2, the delay impairment Id
/// from the one-way delay, and the effective equipment impairment Ie-eff from the codec and the
/// random packet loss. Pure arithmetic, so that docs/calls.md's worked figures can be checked.
package struct EModel: Sendable, Equatable {
    /// A codec's equipment impairment Ie and packet-loss robustness Bpl (G.107 §3.6).
    package struct CodecImpairment: Sendable, Equatable {
        var ie: Double
        var bpl: Double

        package init(ie: Double, bpl: Double) {
            self.ie = ie
            self.bpl = bpl
        }

        /// G.711 with packet-loss concealment, random loss (G.113 Appendix I).
        package static let g711WithPLC = CodecImpairment(ie: 0, bpl: 25.1)
        /// Opus has no G.113 entry. On the narrowband scale its speech is as clean as G.711
        /// (Ie 0); its own concealment is taken as weaker than G.711's for 20 ms frames, and
        /// in-band FEC, which rebuilds a lost frame from the next packet, as much stronger
        /// (docs/calls.md gives the reasoning).
        package static let opus = CodecImpairment(ie: 0, bpl: 20)
        package static let opusWithFEC = CodecImpairment(ie: 0, bpl: 40)

        /// The entry for a negotiated codec name (as `MediaStatistics.codec` spells it).
        package static func forCodec(_ name: String, fec: Bool) -> CodecImpairment {
            name.lowercased() == "opus" ? (fec ? .opusWithFEC : .opus) : .g711WithPLC
        }
    }

    /// R0 − Is with G.107's default values (Table 1).
    static let defaultBase = 93.2

    package var codec: CodecImpairment

    package init(codec: CodecImpairment) {
        self.codec = codec
    }

    /// Delay impairment for a one-way mouth-to-ear delay in milliseconds, the usual linear
    /// reduction of G.107's Idd: 0.024·d, plus 0.11·(d − 177.3) past 177.3 ms.
    package static func delayImpairment(oneWayDelayMs delay: Double) -> Double {
        let d = max(0, delay)
        return 0.024 * d + (d > 177.3 ? 0.11 * (d - 177.3) : 0)
    }

    /// Ie-eff = Ie + (95 − Ie) · Ppl / (Ppl / BurstR + Bpl) with random loss (BurstR = 1).
    package func effectiveEquipmentImpairment(lossPercent: Double) -> Double {
        let loss = min(100, max(0, lossPercent))
        return codec.ie + (95 - codec.ie) * loss / (loss + codec.bpl)
    }

    /// The rating factor R, 0...100.
    package func rating(lossPercent: Double, oneWayDelayMs: Double) -> Double {
        let r = Self.defaultBase - Self.delayImpairment(oneWayDelayMs: oneWayDelayMs) - effectiveEquipmentImpairment(lossPercent: lossPercent)
        return min(100, max(0, r))
    }

    /// G.107 Annex B: MOS-CQE from R.
    package static func mos(rating r: Double) -> Double {
        if r <= 0 { return 1 }
        if r >= 100 { return 4.5 }
        return 1 + 0.035 * r + r * (r - 60) * (100 - r) * 7e-6
    }

    package func mos(lossPercent: Double, oneWayDelayMs: Double) -> Double {
        Self.mos(rating: rating(lossPercent: lossPercent, oneWayDelayMs: oneWayDelayMs))
    }
}

/// A word for a MOS, on the bands of G.109's user satisfaction classes: R 90, 80, 70 and 60,
/// which are MOS 4.34, 4.02, 3.60 and 3.10.
public enum CallQuality: String, Sendable, Equatable, CaseIterable {
    case excellent, good, fair, poor, bad

    private static let bands: [(CallQuality, Double)] = [
        (.excellent, EModel.mos(rating: 90)), (.good, EModel.mos(rating: 80)), (.fair, EModel.mos(rating: 70)), (.poor, EModel.mos(rating: 60)),
    ]

    public init(mos: Double) {
        // A hair below each bound, so that the MOS of exactly R 90 is still excellent.
        self = Self.bands.first { mos >= $0.1 - 1e-9 }?.0 ?? .bad
    }
}
