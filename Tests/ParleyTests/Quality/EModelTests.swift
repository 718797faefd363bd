import Parley
import Testing

/// The model against figures worked by hand from G.107: R = 93.2 − Id − Ie-eff,
/// Ie-eff = Ie + (95 − Ie)·Ppl/(Ppl + Bpl), Id = 0.024·d + 0.11·(d − 177.3) past 177.3 ms,
/// MOS = 1 + 0.035·R + R·(R − 60)·(100 − R)·7·10⁻⁶.
@Suite struct EModelTests {
    @Test func aPerfectPathRatesTheDefaultR() {
        let model = EModel(codec: .g711WithPLC)
        #expect(abs(model.rating(lossPercent: 0, oneWayDelayMs: 0) - 93.2) < 1e-9)
        // 1 + 3.262 + 93.2 · 33.2 · 6.8 · 7e-6 = 4.262 + 0.147286 = 4.409286
        #expect(abs(model.mos(lossPercent: 0, oneWayDelayMs: 0) - 4.409286) < 1e-5)
    }

    @Test func delayBelowTheKneeCostsLinearly() {
        // 100 ms: Id = 2.4, R = 90.8
        #expect(abs(EModel.delayImpairment(oneWayDelayMs: 100) - 2.4) < 1e-9)
        #expect(abs(EModel(codec: .g711WithPLC).rating(lossPercent: 0, oneWayDelayMs: 100) - 90.8) < 1e-9)
    }

    @Test func delayPastTheKneeCostsMore() {
        // 200 ms: Id = 4.8 + 0.11 · 22.7 = 7.297, R = 85.903
        #expect(abs(EModel.delayImpairment(oneWayDelayMs: 200) - 7.297) < 1e-9)
        // 1 + 3.006605 + 85.903 · 25.903 · 14.097 · 7e-6 = 4.006605 + 0.219575 = 4.226180
        #expect(abs(EModel(codec: .g711WithPLC).mos(lossPercent: 0, oneWayDelayMs: 200) - 4.226180) < 1e-5)
    }

    @Test func g711LossUsesItsRobustness() {
        // 5 %: Ie-eff = 95 · 5 / 30.1 = 15.780731, R = 77.419269
        let model = EModel(codec: .g711WithPLC)
        #expect(abs(model.effectiveEquipmentImpairment(lossPercent: 5) - 15.780731) < 1e-5)
        #expect(abs(model.rating(lossPercent: 5, oneWayDelayMs: 0) - 77.419269) < 1e-5)
        // 1 + 2.709674 + 77.419269 · 17.419269 · 22.580731 · 7e-6 = 3.709674 + 0.213165 = 3.922839
        #expect(abs(model.mos(lossPercent: 5, oneWayDelayMs: 0) - 3.922839) < 1e-5)
    }

    @Test func opusWithFECLosesLessThanWithout() {
        // 5 %: with FEC Ie-eff = 475 / 45 = 10.555556; without, 475 / 25 = 19
        #expect(abs(EModel(codec: .opusWithFEC).effectiveEquipmentImpairment(lossPercent: 5) - 10.555556) < 1e-5)
        #expect(abs(EModel(codec: .opus).effectiveEquipmentImpairment(lossPercent: 5) - 19) < 1e-9)
        #expect(EModel(codec: .opusWithFEC).mos(lossPercent: 5, oneWayDelayMs: 50) > EModel(codec: .opus).mos(lossPercent: 5, oneWayDelayMs: 50))
        #expect(EModel.CodecImpairment.forCodec("opus", fec: true) == .opusWithFEC)
        #expect(EModel.CodecImpairment.forCodec("PCMU", fec: true) == .g711WithPLC)
    }

    @Test func ratingAndMOSStayInRange() {
        let model = EModel(codec: .g711WithPLC)
        #expect(model.rating(lossPercent: 100, oneWayDelayMs: 2000) == 0)
        #expect(EModel.mos(rating: 0) == 1)
        #expect(EModel.mos(rating: 100) == 4.5)
    }

    @Test func wordsFollowG109Bands() {
        // R 90 → 4.339, R 80 → 4.024, R 70 → 3.597, R 60 → 3.1
        #expect(CallQuality(mos: 4.409) == .excellent)
        #expect(CallQuality(mos: EModel.mos(rating: 90)) == .excellent)
        #expect(CallQuality(mos: 4.2) == .good)
        #expect(CallQuality(mos: 3.9) == .fair)
        #expect(CallQuality(mos: 3.3) == .poor)
        #expect(CallQuality(mos: 2.5) == .bad)
    }
}
