#ifndef PARLEY_VOICE_PROCESSING_H
#define PARLEY_VOICE_PROCESSING_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// WebRTC's audio processing (echo cancellation, noise suppression, gain control) behind a C
/// interface Swift can call. One instance per call, used from one thread (the media clock).
typedef struct parley_voice_processor parley_voice_processor;

/// NULL when the rate is not one the library supports (8, 16, 32, 48 kHz) or it cannot start.
parley_voice_processor *parley_voice_processor_create(int sample_rate, int echo_cancellation, int noise_suppression, int gain_control);
void parley_voice_processor_destroy(parley_voice_processor *processor);
/// Samples in one 10 ms chunk: every call below takes exactly that many, mono.
int parley_voice_processor_chunk(const parley_voice_processor *processor);
/// What the speaker is about to play (the far end), so its echo can be recognised.
int parley_voice_processor_analyze_render(parley_voice_processor *processor, const int16_t *samples);
/// Cleans one chunk of microphone audio in place; `delay_ms` is the time between a sample
/// passing analyze_render and its echo reaching process_capture.
int parley_voice_processor_process_capture(parley_voice_processor *processor, int16_t *samples, int delay_ms);

#ifdef __cplusplus
}
#endif

#endif
