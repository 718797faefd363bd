/* The kernel floor of one Parley call: what libopus and libsrtp2 alone spend on one
 * call-second (50 frames each way: encode + decode, protect + unprotect), with the settings a
 * Parley call uses (Opus 48 kHz mono VOIP 32 kb/s, complexity 9 unless told, in-band FEC for 10 % loss;
 * SRTP AEAD_AES_256_GCM, the profile DTLS negotiates between Parley peers).
 * Prints one JSON line per run: microseconds of CPU per call-second.
 * Build: cc -O2 floor.c $(pkg-config --cflags --libs opus libsrtp2) -lm
 * Usage: floor [RUNS] [CALL_SECONDS_PER_RUN] [OPUS_COMPLEXITY]
 */
#include <math.h>
#include <opus/opus.h>
#include <srtp2/srtp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RATE 48000
#define FRAME 960
#define FRAMES_PER_SECOND 50

static double cpu_seconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "floor: %s failed\n", what);
        exit(1);
    }
}

static srtp_t make_srtp(int outbound, unsigned char *key) {
    srtp_policy_t policy;
    memset(&policy, 0, sizeof policy);
    srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtp);
    srtp_crypto_policy_set_aes_gcm_256_16_auth(&policy.rtcp);
    policy.ssrc.type = outbound ? ssrc_any_outbound : ssrc_any_inbound;
    policy.key = key;
    policy.window_size = 1024;
    srtp_t session;
    check(srtp_create(&session, &policy) == srtp_err_status_ok, "srtp_create");
    return session;
}

/* CPU microseconds to protect and unprotect `packets` RTP packets of `payload` bytes. */
static double srtp_cost(int packets, int payload) {
    unsigned char key[SRTP_AES_GCM_256_KEY_LEN_WSALT];
    for (size_t i = 0; i < sizeof key; i++) key[i] = (unsigned char)(i * 7 + 3);
    srtp_t sender = make_srtp(1, key), receiver = make_srtp(0, key);
    unsigned char packet[1500];
    double start = cpu_seconds();
    for (int n = 0; n < packets; n++) {
        memset(packet, 0, 12);
        packet[0] = 0x80;
        packet[1] = 111;
        packet[2] = (unsigned char)(n >> 8);
        packet[3] = (unsigned char)n;
        unsigned int timestamp = (unsigned int)n * FRAME;
        packet[4] = timestamp >> 24; packet[5] = timestamp >> 16; packet[6] = timestamp >> 8; packet[7] = timestamp;
        packet[8] = 0x12; packet[9] = 0x34; packet[10] = 0x56; packet[11] = 0x78;
        memset(packet + 12, n & 0xff, (size_t)payload);
        int length = 12 + payload;
        check(srtp_protect(sender, packet, &length) == srtp_err_status_ok, "srtp_protect");
        check(srtp_unprotect(receiver, packet, &length) == srtp_err_status_ok, "srtp_unprotect");
    }
    double elapsed = cpu_seconds() - start;
    srtp_dealloc(sender);
    srtp_dealloc(receiver);
    return elapsed * 1e6;
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    int seconds = argc > 2 ? atoi(argv[2]) : 20;
    /* Parley's default, libwebrtc's on desktops (docs/media.md, "Opus"). */
    int complexity = argc > 3 ? atoi(argv[3]) : 9;
    check(runs > 0 && runs <= 100 && seconds > 0 && seconds <= 600 && complexity >= 0 && complexity <= 10,
          "arguments (RUNS 1-100, CALL_SECONDS 1-600, COMPLEXITY 0-10)");
    check(srtp_init() == srtp_err_status_ok, "srtp_init");
    int error = 0;
    OpusEncoder *encoder = opus_encoder_create(RATE, 1, OPUS_APPLICATION_VOIP, &error);
    check(error == OPUS_OK, "opus_encoder_create");
    opus_encoder_ctl(encoder, OPUS_SET_BITRATE(32000));
    opus_encoder_ctl(encoder, OPUS_SET_MAX_BANDWIDTH(OPUS_BANDWIDTH_FULLBAND));
    opus_encoder_ctl(encoder, OPUS_SET_INBAND_FEC(1));
    opus_encoder_ctl(encoder, OPUS_SET_PACKET_LOSS_PERC(10));
    opus_encoder_ctl(encoder, OPUS_SET_DTX(0));
    opus_encoder_ctl(encoder, OPUS_SET_COMPLEXITY(complexity));
    opus_encoder_ctl(encoder, OPUS_SET_SIGNAL(OPUS_SIGNAL_VOICE));
    OpusDecoder *decoder = opus_decoder_create(RATE, 1, &error);
    check(error == OPUS_OK, "opus_decoder_create");

    /* The bench bot's prompt: 600 Hz for 1 s, then 200 ms of silence. */
    int frames = seconds * FRAMES_PER_SECOND;
    opus_int16 *pcm = malloc(sizeof(opus_int16) * FRAME * (size_t)frames);
    unsigned char (*packets)[1500] = malloc(1500 * (size_t)frames);
    int *lengths = malloc(sizeof(int) * (size_t)frames);
    opus_int16 out[FRAME * 6];
    check(pcm && packets && lengths, "malloc");
    for (long i = 0; i < (long)FRAME * frames; i++) {
        long inLoop = i % (RATE * 6 / 5);
        pcm[i] = inLoop < RATE ? (opus_int16)(8000 * sin(2 * M_PI * 600 * (double)i / RATE)) : 0;
    }
    int payloadBytes = 0;
    for (int run = 0; run < runs; run++) {
        double start = cpu_seconds();
        for (int n = 0; n < frames; n++) {
            lengths[n] = opus_encode(encoder, pcm + (long)n * FRAME, FRAME, packets[n], 1500);
            check(lengths[n] > 0, "opus_encode");
        }
        double encoded = cpu_seconds();
        for (int n = 0; n < frames; n++) check(opus_decode(decoder, packets[n], lengths[n], out, FRAME * 6, 0) == FRAME, "opus_decode");
        double decoded = cpu_seconds();
        long total = 0;
        for (int n = 0; n < frames; n++) total += lengths[n];
        payloadBytes = (int)(total / frames);
        double srtpOpus = srtp_cost(frames, payloadBytes);
        double srtpPCMU = srtp_cost(frames, 160);
        printf("{\"run\":%d,\"callSeconds\":%d,\"opusEncodeUs\":%.1f,\"opusDecodeUs\":%.1f,\"srtpOpusUs\":%.1f,\"srtpPCMUUs\":%.1f,\"opusPayloadBytes\":%d,\"opusComplexity\":%d}\n",
               run + 1, seconds, (encoded - start) * 1e6 / seconds, (decoded - encoded) * 1e6 / seconds, srtpOpus / seconds,
               srtpPCMU / seconds, payloadBytes, complexity);
        fflush(stdout);
    }
    opus_encoder_destroy(encoder);
    opus_decoder_destroy(decoder);
    free(pcm);
    free(packets);
    free(lengths);
    srtp_shutdown();
    return 0;
}
