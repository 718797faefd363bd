/* bench/agents' load peer (docs/performance.md "Agent calls"): an echo agent of the protocol in
 * docs/agents.md, in C on libwebsockets' one event loop, so that the program side of 100 agent
 * calls costs little next to Parley's and the figures measure Parley, not the peer. It answers
 * every `incoming`, and sends back every binary frame it gets (the caller's audio, played back).
 *
 *   agent-echo PORT          serves ws://127.0.0.1:PORT until SIGINT or SIGTERM, then prints one
 *                            JSON line: connections, frames echoed, frames it had to drop (its
 *                            queue full), and how long a frame waited in it (mean, worst, ms)
 * Built by bench/agents: cc -O2 bench/agent-echo.c $(pkg-config --cflags --libs libwebsockets)
 */
#define _GNU_SOURCE /* memmem */
#include <libwebsockets.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { SLOTS = 32, LARGEST = 4096 };

struct pending {
    size_t length;
    int binary;
    struct timespec arrived;
    unsigned char bytes[LWS_PRE + LARGEST];
};

struct session {
    struct pending queue[SLOTS];
    int head, count;
    /* A binary frame split into fragments is put together in the slot it will be sent from. */
    int assembling;
};

static volatile sig_atomic_t stopping;
static long connections, echoed, dropped;
static double waited_total_ms, waited_max_ms;

static double since_ms(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1e3 + (now.tv_nsec - start->tv_nsec) / 1e6;
}

static struct pending *slot_to_fill(struct session *s) {
    if (s->count == SLOTS) { /* full: drop the oldest, like Parley's own queues */
        s->head = (s->head + 1) % SLOTS;
        s->count--;
        dropped++;
    }
    struct pending *p = &s->queue[(s->head + s->count) % SLOTS];
    p->length = 0;
    return p;
}

static void queue_text(struct lws *wsi, struct session *s, const char *text) {
    struct pending *p = slot_to_fill(s);
    p->length = strlen(text);
    p->binary = 0;
    memcpy(p->bytes + LWS_PRE, text, p->length);
    clock_gettime(CLOCK_MONOTONIC, &p->arrived);
    s->count++;
    lws_callback_on_writable(wsi);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    struct session *s = user;
    switch (reason) {
    case LWS_CALLBACK_ESTABLISHED:
        memset(s, 0, sizeof *s);
        connections++;
        queue_text(wsi, s, "{\"event\":\"hello\",\"version\":1,\"sampleRate\":16000}");
        break;
    case LWS_CALLBACK_RECEIVE:
        if (lws_frame_is_binary(wsi)) {
            if (!s->assembling) {
                struct pending *p = slot_to_fill(s);
                p->binary = 1;
                s->assembling = 1;
            }
            struct pending *p = &s->queue[(s->head + s->count) % SLOTS];
            size_t room = LARGEST - p->length;
            memcpy(p->bytes + LWS_PRE + p->length, in, len < room ? len : room);
            p->length += len < room ? len : room;
            if (lws_is_final_fragment(wsi)) {
                s->assembling = 0;
                clock_gettime(CLOCK_MONOTONIC, &p->arrived);
                s->count++;
                lws_callback_on_writable(wsi);
            }
        } else if (len < LARGEST && memmem(in, len, "\"incoming\"", 10)) {
            queue_text(wsi, s, "{\"event\":\"answer\"}");
        }
        break;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (s->count > 0) {
            struct pending *p = &s->queue[s->head];
            if (lws_write(wsi, p->bytes + LWS_PRE, p->length, p->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT) < (int)p->length) return -1;
            if (p->binary) {
                double waited = since_ms(&p->arrived);
                echoed++;
                waited_total_ms += waited;
                if (waited > waited_max_ms) waited_max_ms = waited;
            }
            s->head = (s->head + 1) % SLOTS;
            s->count--;
            if (s->count > 0) lws_callback_on_writable(wsi);
        }
        break;
    default:
        break;
    }
    return 0;
}

static void stop(int signal_number) {
    (void)signal_number;
    stopping = 1;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: agent-echo PORT\n");
        return 64;
    }
    static const struct lws_protocols protocols[] = {
        {"agent", callback, sizeof(struct session), LARGEST, 0, NULL, 0},
        {NULL, NULL, 0, 0, 0, NULL, 0},
    };
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = atoi(argv[1]);
    info.iface = "127.0.0.1";
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_DISABLE_IPV6;
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context *context = lws_create_context(&info);
    if (!context) {
        fprintf(stderr, "agent-echo: cannot listen on port %s\n", argv[1]);
        return 1;
    }
    signal(SIGINT, stop);
    signal(SIGTERM, stop);
    printf("{\"listening\":%d}\n", info.port);
    fflush(stdout);
    while (!stopping && lws_service(context, 0) >= 0) {}
    lws_context_destroy(context);
    printf("{\"connections\":%ld,\"framesEchoed\":%ld,\"dropped\":%ld,\"waitMeanMs\":%.3f,\"waitMaxMs\":%.3f}\n", connections, echoed, dropped,
           echoed ? waited_total_ms / echoed : 0.0, waited_max_ms);
    return 0;
}
