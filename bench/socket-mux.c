/* The send and receive paths of many calls' RTP packets, one UDP socket per call (as Parley
 * carries them today through libnice) against one shared socket with batched system calls
 * (docs/performance.md, "Past one socket per call"). A prototype of the kernel-facing part only:
 * no ICE, no SRTP, no codec.
 *
 * This process is the side measured; a forked peer process is the far end, with one socket per
 * call in every mode, sending each call's packets every 20 ms and draining what it receives.
 * The measured side has a receive thread, which hands each packet to its call's queue (a copy
 * into a per-call ring), and a clock thread, which every 20 ms sends one packet per call:
 *
 *   poll   one socket per call; the receive thread polls them all, waking at most once a
 *          millisecond, and reads each ready socket until EAGAIN (GLib with Parley's
 *          CoalescingPoll and libnice today: two recvmsg per packet); one send per packet.
 *   epoll  one socket per call; epoll_wait, one recvmsg per ready socket; one send per packet:
 *          the least a socket per call can cost.
 *   mux    one socket; recvmmsg batches (MSG_WAITFORONE, woken at most once a millisecond as
 *          `poll` is) demultiplexed by source address (an open-addressing table) into the
 *          per-call queues; sendmmsg batches per tick, each message with its destination.
 *
 * Prints one JSON line: packets sent and received in the window, the CPU (user + system,
 * getrusage) of each thread and the process, and system calls made, over the window.
 * Build: cc -O2 -pthread socket-mux.c -o socket-mux
 * Usage: socket-mux poll|epoll|mux [CALLS] [SECONDS] [BATCH]
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PACKET 172 /* RTP header + 160 bytes: one 20 ms PCMU frame, about an Opus one */
#define TICK_NS 20000000L
#define RING 8     /* packets a call's queue holds; the consumer is not modelled: slots are reused */
#define MAX_BATCH 1024

enum mode { POLL, EPOLL, MUX };

static enum mode mode;
static int calls = 500, seconds = 10, batch = 64;
static int *sockets;         /* the measured side's: one per call, or one (mux) */
static int *peer_sockets;    /* the far end's, one per call */
static struct sockaddr_in *peer_addresses;
static struct sockaddr_in mux_address;
static atomic_int running = 1, measuring = 0;
static atomic_long received = 0, sent = 0, syscalls_receive = 0, syscalls_send = 0, unknown = 0;

struct queue { uint8_t data[RING][PACKET]; uint32_t next; uint32_t count; };
static struct queue *queues;

/* Source address → call, open addressing: what a shared socket demultiplexes by. */
static uint64_t *table_keys;
static int *table_calls;
static size_t table_size;

static uint64_t key_of(const struct sockaddr_in *address) {
    return ((uint64_t)address->sin_addr.s_addr << 16) | address->sin_port;
}

static size_t slot_of(uint64_t key) {
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (table_size - 1);
}

static void table_add(const struct sockaddr_in *address, int call) {
    uint64_t key = key_of(address);
    size_t slot = slot_of(key);
    while (table_calls[slot] >= 0) slot = (slot + 1) & (table_size - 1);
    table_keys[slot] = key;
    table_calls[slot] = call;
}

static int table_find(const struct sockaddr_in *address) {
    uint64_t key = key_of(address);
    for (size_t slot = slot_of(key);; slot = (slot + 1) & (table_size - 1)) {
        if (table_calls[slot] < 0) return -1;
        if (table_keys[slot] == key) return table_calls[slot];
    }
}

static void deliver(int call, const uint8_t *packet, ssize_t length) {
    int counted = atomic_load_explicit(&measuring, memory_order_relaxed) == 1;
    if (call < 0 || length <= 0) {
        if (counted) atomic_fetch_add_explicit(&unknown, 1, memory_order_relaxed);
        return;
    }
    struct queue *queue = &queues[call];
    memcpy(queue->data[queue->next], packet, (size_t)length < PACKET ? (size_t)length : PACKET);
    queue->next = (queue->next + 1) % RING;
    queue->count++;
    if (counted) atomic_fetch_add_explicit(&received, 1, memory_order_relaxed);
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static int udp_socket(struct sockaddr_in *bound) {
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    if (fd < 0) fail("socket");
    int size = 1 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) fail("bind");
    socklen_t length = sizeof *bound;
    getsockname(fd, (struct sockaddr *)bound, &length);
    return fd;
}

static double thread_cpu(void) {
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
}

static void next_tick(struct timespec *deadline) {
    deadline->tv_nsec += TICK_NS;
    if (deadline->tv_nsec >= 1000000000L) {
        deadline->tv_nsec -= 1000000000L;
        deadline->tv_sec++;
    }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL);
}

/* CPU of a thread over the measuring window. */
struct window { double start, end; int started, ended; };

static void note_window(struct window *window) {
    int now = atomic_load(&measuring);
    if (now == 1 && !window->started) { window->start = thread_cpu(); window->started = 1; }
    if (now == 2 && window->started && !window->ended) { window->end = thread_cpu(); window->ended = 1; }
}

/* -- the measured side */

static void *clock_thread(void *argument) {
    struct window *window = argument;
    uint8_t packet[PACKET];
    memset(packet, 0x55, sizeof packet);
    packet[0] = 0x80;
    struct mmsghdr *messages = calloc((size_t)calls, sizeof *messages);
    struct iovec *vectors = calloc((size_t)calls, sizeof *vectors);
    for (int call = 0; call < calls; call++) {
        vectors[call] = (struct iovec){.iov_base = packet, .iov_len = PACKET};
        messages[call].msg_hdr = (struct msghdr){.msg_name = &peer_addresses[call], .msg_namelen = sizeof peer_addresses[call],
                                                 .msg_iov = &vectors[call], .msg_iovlen = 1};
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    while (atomic_load(&running)) {
        note_window(window);
        long calls_made = 0, packets = 0;
        if (mode == MUX) {
            for (int first = 0; first < calls; first += batch) {
                int count = calls - first < batch ? calls - first : batch;
                int done = sendmmsg(sockets[0], messages + first, (unsigned)count, 0);
                calls_made++;
                if (done > 0) packets += done;
            }
        } else {
            for (int call = 0; call < calls; call++) {
                if (send(sockets[call], packet, PACKET, 0) == PACKET) packets++;
                calls_made++;
            }
        }
        if (atomic_load(&measuring) == 1) {
            atomic_fetch_add(&sent, packets);
            atomic_fetch_add(&syscalls_send, calls_made + 1); /* + the tick's clock_nanosleep */
        }
        next_tick(&deadline);
    }
    note_window(window);
    return NULL;
}

static void *receive_thread(void *argument) {
    struct window *window = argument;
    uint8_t buffers[MAX_BATCH][PACKET + 32];
    struct sockaddr_in sources[MAX_BATCH];
    struct mmsghdr messages[MAX_BATCH];
    struct iovec vectors[MAX_BATCH];
    struct pollfd *polled = NULL;
    int epoll = -1;
    if (mode == POLL) {
        polled = calloc((size_t)calls, sizeof *polled);
        for (int call = 0; call < calls; call++) polled[call] = (struct pollfd){.fd = sockets[call], .events = POLLIN};
    } else if (mode == EPOLL) {
        epoll = epoll_create1(0);
        for (int call = 0; call < calls; call++) {
            struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)call};
            epoll_ctl(epoll, EPOLL_CTL_ADD, sockets[call], &event);
        }
    } else {
        /* Blocking reads: a batch returns as soon as one packet is there (MSG_WAITFORONE), with
         * up to `batch` that are. A timeout lets the thread see the end of the run. */
        int flags = 0;
        ioctl(sockets[0], FIONBIO, &flags);
        struct timeval timeout = {.tv_sec = 0, .tv_usec = 100000};
        setsockopt(sockets[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
    }
    struct timespec last = {0, 0};
    while (atomic_load(&running)) {
        note_window(window);
        long calls_made = 0;
        if (mode != EPOLL) {
            /* CoalescingPoll: a loop woken less than 1 ms ago waits out the rest of that ms, so
             * under load a wake-up serves a millisecond's packets, not one (the mux likewise). */
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long since = (now.tv_sec - last.tv_sec) * 1000000000L + now.tv_nsec - last.tv_nsec;
            if (since < 1000000L) {
                struct timespec rest = {0, 1000000L - since};
                nanosleep(&rest, NULL);
                calls_made++;
            }
        }
        if (mode == POLL) {
            int ready = poll(polled, (nfds_t)calls, 100);
            calls_made++;
            clock_gettime(CLOCK_MONOTONIC, &last);
            for (int call = 0; ready > 0 && call < calls; call++) {
                if (!(polled[call].revents & POLLIN)) continue;
                ready--;
                for (;;) {
                    ssize_t length = recv(sockets[call], buffers[0], sizeof buffers[0], 0);
                    calls_made++;
                    if (length < 0) break;
                    deliver(call, buffers[0], length);
                }
            }
        } else if (mode == EPOLL) {
            struct epoll_event events[MAX_BATCH];
            int ready = epoll_wait(epoll, events, batch, 100);
            calls_made++;
            for (int index = 0; index < ready; index++) {
                int call = (int)events[index].data.u32;
                ssize_t length = recv(sockets[call], buffers[0], sizeof buffers[0], 0);
                calls_made++;
                deliver(call, buffers[0], length);
            }
        } else {
            for (int index = 0; index < batch; index++) {
                vectors[index] = (struct iovec){.iov_base = buffers[index], .iov_len = sizeof buffers[index]};
                messages[index].msg_hdr = (struct msghdr){.msg_name = &sources[index], .msg_namelen = sizeof sources[index],
                                                          .msg_iov = &vectors[index], .msg_iovlen = 1};
            }
            int count = recvmmsg(sockets[0], messages, (unsigned)batch, MSG_WAITFORONE, NULL);
            calls_made++;
            clock_gettime(CLOCK_MONOTONIC, &last);
            for (int index = 0; index < count; index++) deliver(table_find(&sources[index]), buffers[index], messages[index].msg_len);
        }
        if (atomic_load(&measuring) == 1) atomic_fetch_add(&syscalls_receive, calls_made);
    }
    note_window(window);
    return NULL;
}

/* -- the far end: one socket per call; sends each call's packet every 20 ms, drains the rest */

static void far_end(int destination_count, const struct sockaddr_in *destinations) {
    uint8_t packet[PACKET], buffer[PACKET + 32];
    memset(packet, 0x33, sizeof packet);
    packet[0] = 0x80;
    int epoll = epoll_create1(0);
    for (int call = 0; call < calls; call++) {
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)call};
        epoll_ctl(epoll, EPOLL_CTL_ADD, peer_sockets[call], &event);
    }
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    for (;;) {
        for (int call = 0; call < calls; call++) {
            const struct sockaddr_in *to = &destinations[destination_count == 1 ? 0 : call];
            sendto(peer_sockets[call], packet, PACKET, 0, (const struct sockaddr *)to, sizeof *to);
        }
        /* Drain until the next tick is due. */
        for (;;) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            long left = (deadline.tv_sec - now.tv_sec) * 1000L + (deadline.tv_nsec - now.tv_nsec) / 1000000L + TICK_NS / 1000000L;
            if (left <= 0) break;
            struct epoll_event events[256];
            int ready = epoll_wait(epoll, events, 256, (int)left);
            for (int index = 0; index < ready; index++)
                while (recv(peer_sockets[events[index].data.u32], buffer, sizeof buffer, 0) > 0) {}
        }
        deadline.tv_nsec += TICK_NS;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_nsec -= 1000000000L;
            deadline.tv_sec++;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: socket-mux poll|epoll|mux [CALLS] [SECONDS] [BATCH]\n");
        return 64;
    }
    mode = strcmp(argv[1], "mux") == 0 ? MUX : strcmp(argv[1], "epoll") == 0 ? EPOLL : POLL;
    if (argc > 2) calls = atoi(argv[2]);
    if (argc > 3) seconds = atoi(argv[3]);
    if (argc > 4) batch = atoi(argv[4]);
    if (calls < 1 || calls > 4000 || seconds < 1 || batch < 1 || batch > MAX_BATCH) {
        fprintf(stderr, "socket-mux: CALLS 1-4000, SECONDS at least 1, BATCH 1-%d\n", MAX_BATCH);
        return 64;
    }
    struct rlimit files = {8192, 8192};
    setrlimit(RLIMIT_NOFILE, &files);
    queues = calloc((size_t)calls, sizeof *queues);
    peer_sockets = calloc((size_t)calls, sizeof *peer_sockets);
    peer_addresses = calloc((size_t)calls, sizeof *peer_addresses);
    int own = mode == MUX ? 1 : calls;
    sockets = calloc((size_t)own, sizeof *sockets);
    struct sockaddr_in *own_addresses = calloc((size_t)own, sizeof *own_addresses);
    for (int index = 0; index < own; index++) sockets[index] = udp_socket(&own_addresses[index]);
    for (int call = 0; call < calls; call++) peer_sockets[call] = udp_socket(&peer_addresses[call]);
    if (mode == MUX) {
        mux_address = own_addresses[0];
        for (table_size = 1; table_size < (size_t)calls * 2; table_size <<= 1) {}
        table_keys = calloc(table_size, sizeof *table_keys);
        table_calls = malloc(table_size * sizeof *table_calls);
        for (size_t slot = 0; slot < table_size; slot++) table_calls[slot] = -1;
        for (int call = 0; call < calls; call++) table_add(&peer_addresses[call], call);
    } else {
        /* Each call's socket talks to its one peer, as an ICE pair's does. */
        for (int call = 0; call < calls; call++) connect(sockets[call], (struct sockaddr *)&peer_addresses[call], sizeof peer_addresses[call]);
    }
    pid_t peer = fork();
    if (peer == 0) {
        for (int index = 0; index < own; index++) close(sockets[index]);
        far_end(own, own_addresses);
        return 0;
    }
    for (int call = 0; call < calls; call++) close(peer_sockets[call]);

    struct window clock_window = {0}, receive_window = {0};
    pthread_t clock, receiver;
    pthread_create(&receiver, NULL, receive_thread, &receive_window);
    pthread_create(&clock, NULL, clock_thread, &clock_window);
    sleep(1); /* settle: queues full, sockets warm */
    struct rusage before, after;
    struct timespec wall_start, wall_end;
    getrusage(RUSAGE_SELF, &before);
    clock_gettime(CLOCK_MONOTONIC, &wall_start);
    atomic_store(&measuring, 1);
    sleep((unsigned)seconds);
    atomic_store(&measuring, 2);
    getrusage(RUSAGE_SELF, &after);
    clock_gettime(CLOCK_MONOTONIC, &wall_end);
    usleep(100000);
    atomic_store(&running, 0);
    pthread_join(clock, NULL);
    pthread_join(receiver, NULL);
    kill(peer, SIGKILL);
    waitpid(peer, NULL, 0);
    double user = (after.ru_utime.tv_sec - before.ru_utime.tv_sec) + (after.ru_utime.tv_usec - before.ru_utime.tv_usec) / 1e6;
    double system = (after.ru_stime.tv_sec - before.ru_stime.tv_sec) + (after.ru_stime.tv_usec - before.ru_stime.tv_usec) / 1e6;
    double wall = (wall_end.tv_sec - wall_start.tv_sec) + (wall_end.tv_nsec - wall_start.tv_nsec) / 1e9;
    printf("{\"mode\":\"%s\",\"calls\":%d,\"seconds\":%.3f,\"batch\":%d,\"sent\":%ld,\"received\":%ld,\"userSeconds\":%.4f,\"systemSeconds\":%.4f,"
           "\"sendThreadSeconds\":%.4f,\"receiveThreadSeconds\":%.4f,\"sendSyscalls\":%ld,\"receiveSyscalls\":%ld,\"unknownSources\":%ld,"
           "\"voluntarySwitches\":%ld,\"involuntarySwitches\":%ld}\n",
           argv[1], calls, wall, batch, atomic_load(&sent), atomic_load(&received), user, system, clock_window.end - clock_window.start,
           receive_window.end - receive_window.start, atomic_load(&syscalls_send), atomic_load(&syscalls_receive), atomic_load(&unknown),
           after.ru_nvcsw - before.ru_nvcsw, after.ru_nivcsw - before.ru_nivcsw);
    return 0;
}
