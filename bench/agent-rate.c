/* The codec side of one agent call-second, the part Opus at the agent's rate changes
 * (docs/performance.md, "Agent calls"): the far end's 50 Opus frames decoded and 50 frames of the
 * agent's audio encoded, either as Parley did before (libopus at 48 kHz and speexdsp, quality 3 as
 * StreamResampler, resampling to the agent's rate and back) or as now (libopus decoding and
 * encoding at the agent's rate, nothing resampled). Encoder settings as a Parley call's (VOIP,
 * voice, 32 kb/s, in-band FEC for 10 % loss). Only `agent_call_seconds` does the work, so
 * `valgrind --tool=callgrind --toggle-collect=agent_call_seconds` counts exactly it.
 * Build: cc -O2 agent-rate.c $(pkg-config --cflags --libs opus speexdsp) -lm
 * Usage: agent-rate before|after AGENT_RATE [CALL_SECONDS] [OPUS_COMPLEXITY]
 * Prints one JSON line: CPU microseconds per call-second.
 */
#include <math.h>
#include <opus/opus.h>
#include <speex/speex_resampler.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FAR_RATE 48000
#define FRAMES_PER_SECOND 50

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "agent-rate: %s failed\n", what);
        exit(1);
    }
}

static OpusEncoder *encoder_at(int rate, int complexity) {
    int error = 0;
    OpusEncoder *encoder = opus_encoder_create(rate, 1, OPUS_APPLICATION_VOIP, &error);
    check(error == OPUS_OK, "opus_encoder_create");
    opus_encoder_ctl(encoder, OPUS_SET_BITRATE(32000));
    opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(1));
    opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(10));
    opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
    opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
    return encoder;
}

/* One call's state on the media clock. */
struct call {
    OpusDecoder *decoder;
    OpusEncoder *encoder;
    SpeexResamplerState *down, *up; /* before only */
    int rate, codec_rate;
};

static unsigned char packets[FRAMES_PER_SECOND][1500];
static int lengths[FRAMES_PER_SECOND];

void agent_call_seconds(struct call *call, int seconds) {
    opus_int16 decoded[FAR_RATE / 50], agent[FAR_RATE / 50], back[FAR_RATE / 50];
    unsigned char payload[1500];
    int codec_frame = call->codec_rate / 50, agent_frame = call->rate / 50;
    for (int n = 0; n < seconds * FRAMES_PER_SECOND; n++) {
        int i = n % FRAMES_PER_SECOND;
        check(opus_decode(call->decoder, packets[i], lengths[i], decoded, codec_frame, 0) == codec_frame, "opus_decode");
        const opus_int16 *toward_agent = decoded;
        if (call->down) {
            spx_uint32_t in = (spx_uint32_t)codec_frame, out = (spx_uint32_t)agent_frame;
            speex_resampler_process_int(call->down, 0, decoded, &in, agent, &out);
            toward_agent = agent;
        }
        /* The agent echoes: its frame comes back as it went. */
        const opus_int16 *from_agent = toward_agent;
        if (call->up) {
            spx_uint32_t in = (spx_uint32_t)agent_frame, out = (spx_uint32_t)codec_frame;
            speex_resampler_process_int(call->up, 0, toward_agent, &in, back, &out);
            from_agent = back;
        }
        check(opus_encode(call->encoder, from_agent, codec_frame, payload, sizeof payload) > 0, "opus_encode");
    }
}

int main(int argc, char **argv) {
    check(argc >= 3, "arguments (before|after AGENT_RATE [CALL_SECONDS] [OPUS_COMPLEXITY])");
    int before = strcmp(argv[1], "before") == 0;
    int rate = atoi(argv[2]);
    int seconds = argc > 3 ? atoi(argv[3]) : 10;
    int complexity = argc > 4 ? atoi(argv[4]) : 9;
    check((rate == 8000 || rate == 16000 || rate == 24000) && seconds > 0 && seconds <= 600 && complexity >= 0 && complexity <= 10, "arguments");
    /* The far end: one second of a 440 Hz tone, 48 kHz Opus at 32 kb/s. */
    OpusEncoder *far = encoder_at(FAR_RATE, 9);
    opus_int16 pcm[FAR_RATE / 50];
    for (int n = 0; n < FRAMES_PER_SECOND; n++) {
        for (int i = 0; i < FAR_RATE / 50; i++) pcm[i] = (opus_int16)(8000 * sin(2 * M_PI * 440 * (double)(n * FAR_RATE / 50 + i) / FAR_RATE));
        lengths[n] = opus_encode(far, pcm, FAR_RATE / 50, packets[n], 1500);
        check(lengths[n] > 0, "opus_encode (far end)");
    }
    struct call call = {0};
    int error = 0;
    call.rate = rate;
    call.codec_rate = before ? FAR_RATE : rate;
    call.decoder = opus_decoder_create(call.codec_rate, 1, &error);
    check(error == OPUS_OK, "opus_decoder_create");
    call.encoder = encoder_at(call.codec_rate, complexity);
    if (before) {
        call.down = speex_resampler_init(1, FAR_RATE, (spx_uint32_t)rate, 3, &error);
        call.up = speex_resampler_init(1, (spx_uint32_t)rate, FAR_RATE, 3, &error);
        check(call.down && call.up, "speex_resampler_init");
    }
    struct timespec start, end;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
    agent_call_seconds(&call, seconds);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end);
    double us = ((double)(end.tv_sec - start.tv_sec) * 1e6 + (double)(end.tv_nsec - start.tv_nsec) / 1e3) / seconds;
    printf("{\"mode\":\"%s\",\"agentRate\":%d,\"callSeconds\":%d,\"opusComplexity\":%d,\"cpuUsPerCallSecond\":%.1f}\n", argv[1], rate, seconds, complexity, us);
    return 0;
}
