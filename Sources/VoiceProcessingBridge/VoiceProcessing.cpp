#include "parley_voice_processing.h"

#include <webrtc/common.h>
#include <webrtc/modules/audio_processing/include/audio_processing.h>

// The float interface: the AudioFrame one needs headers Debian's package does not ship.
struct parley_voice_processor {
    webrtc::AudioProcessing *apm;
    webrtc::StreamConfig config;
    float samples[480];
    int chunk;
};

static void to_float(const int16_t *from, float *to, int count) {
    for (int i = 0; i < count; i++) to[i] = from[i] / 32768.0f;
}

static void to_int16(const float *from, int16_t *to, int count) {
    for (int i = 0; i < count; i++) {
        float value = from[i] * 32768.0f;
        to[i] = value > 32767.0f ? 32767 : value < -32768.0f ? -32768 : (int16_t)value;
    }
}

extern "C" parley_voice_processor *parley_voice_processor_create(int sample_rate, int echo_cancellation, int noise_suppression, int gain_control) {
    if (sample_rate != 8000 && sample_rate != 16000 && sample_rate != 32000 && sample_rate != 48000) return nullptr;
    webrtc::Config config;
    // The extended filter and delay-agnostic mode follow a delay that moves with the device
    // buffers, which a fixed estimate from the stream figures cannot.
    config.Set<webrtc::ExtendedFilter>(new webrtc::ExtendedFilter(true));
    config.Set<webrtc::DelayAgnostic>(new webrtc::DelayAgnostic(true));
    webrtc::AudioProcessing *apm = webrtc::AudioProcessing::Create(config);
    if (apm == nullptr) return nullptr;
    apm->high_pass_filter()->Enable(true);
    apm->echo_cancellation()->enable_drift_compensation(false);
    apm->echo_cancellation()->set_suppression_level(webrtc::EchoCancellation::kHighSuppression);
    apm->echo_cancellation()->Enable(echo_cancellation != 0);
    apm->noise_suppression()->set_level(webrtc::NoiseSuppression::kHigh);
    apm->noise_suppression()->Enable(noise_suppression != 0);
    apm->gain_control()->set_mode(webrtc::GainControl::kAdaptiveDigital);
    apm->gain_control()->Enable(gain_control != 0);
    auto *processor = new parley_voice_processor;
    processor->apm = apm;
    processor->chunk = sample_rate / 100;
    processor->config = webrtc::StreamConfig(sample_rate, 1);
    return processor;
}

extern "C" void parley_voice_processor_destroy(parley_voice_processor *processor) {
    if (processor == nullptr) return;
    delete processor->apm;
    delete processor;
}

extern "C" int parley_voice_processor_chunk(const parley_voice_processor *processor) { return processor->chunk; }

extern "C" int parley_voice_processor_analyze_render(parley_voice_processor *processor, const int16_t *samples) {
    to_float(samples, processor->samples, processor->chunk);
    float *channels[1] = {processor->samples};
    return processor->apm->ProcessReverseStream(channels, processor->config, processor->config, channels);
}

extern "C" int parley_voice_processor_process_capture(parley_voice_processor *processor, int16_t *samples, int delay_ms) {
    to_float(samples, processor->samples, processor->chunk);
    float *channels[1] = {processor->samples};
    processor->apm->set_stream_delay_ms(delay_ms);
    int status = processor->apm->ProcessStream(channels, processor->config, processor->config, channels);
    if (status == 0) to_int16(processor->samples, samples, processor->chunk);
    return status;
}
