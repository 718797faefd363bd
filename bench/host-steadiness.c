// How steady this host's CPUs are, measured with nothing of Parley running: one thread per core
// (pinned, SCHED_FIFO 10 where allowed, as the media clocks run) repeats a fixed unit of
// arithmetic of about half a millisecond every 5 ms, and times each unit. On a quiet machine every
// unit takes the same time; on a virtual machine whose host lends its cores elsewhere, units take
// several times longer in windows that no process in the guest can see (no steal time shows).
// A media clock whose tick work is W ms stays on time only while W times that slowdown fits in a
// 20 ms tick, so the lateness figures of bench/agents and bench/setup-load are read against this
// (docs/performance.md, "The host under the figures").
//   host-steadiness SECONDS  -> one JSON line on stdout
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

enum { maximumUnits = 20000, maximumCores = 64 };

struct core {
    int index;
    int seconds;
    int units;
    double start[maximumUnits];
    double duration[maximumUnits];
};

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *measure(void *argument) {
    struct core *core = argument;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(core->index, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    struct sched_param param = { .sched_priority = 10 };
    pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);  // best effort: normal when refused
    volatile double x = 1;
    double begin = now();
    while (core->units < maximumUnits && now() - begin < core->seconds) {
        double a = now();
        for (int i = 0; i < 120000; i++) x = x * 1.0000001 + 0.0000001;
        core->start[core->units] = a - begin;
        core->duration[core->units] = now() - a;
        core->units++;
        struct timespec pause = { 0, 5000000 };
        nanosleep(&pause, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 5;
    if (seconds < 1 || seconds > 600) {
        fprintf(stderr, "host-steadiness: SECONDS between 1 and 600\n");
        return 64;
    }
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    int cores = online < 1 ? 1 : online > maximumCores ? maximumCores : (int)online;
    struct core *all = calloc(cores, sizeof *all);
    pthread_t threads[maximumCores];
    if (!all) return 1;
    int started = 0;
    for (int c = 0; c < cores; c++) {
        all[c].index = c;
        all[c].seconds = seconds;
        if (pthread_create(&threads[c], NULL, measure, &all[c]) != 0) break;
        started++;
    }
    for (int c = 0; c < started; c++) pthread_join(threads[c], NULL);
    if (started == 0) {
        fprintf(stderr, "host-steadiness: could not start a thread\n");
        free(all);
        return 1;
    }
    cores = started;
    // The fastest unit of any core is the machine's own speed; a unit at twice that or more ran
    // on a core the host had lent elsewhere. Slow units less than 50 ms apart make one window.
    double fastest = 1e9;
    for (int c = 0; c < cores; c++)
        for (int u = 0; u < all[c].units; u++)
            if (all[c].duration[u] < fastest) fastest = all[c].duration[u];
    int units = 0, slow = 0, windows = 0;
    double slowest = 0, longestWindow = 0;
    for (int c = 0; c < cores; c++) {
        double windowStart = -1, windowEnd = -1;
        for (int u = 0; u < all[c].units; u++) {
            double ratio = all[c].duration[u] / fastest;
            units++;
            if (ratio > slowest) slowest = ratio;
            if (ratio < 2) continue;
            slow++;
            double s = all[c].start[u], e = s + all[c].duration[u];
            if (windowEnd < 0 || s - windowEnd > 0.05) {
                if (windowEnd >= 0 && windowEnd - windowStart > longestWindow) longestWindow = windowEnd - windowStart;
                windowStart = s;
                windows++;
            }
            windowEnd = e;
        }
        if (windowEnd >= 0 && windowEnd - windowStart > longestWindow) longestWindow = windowEnd - windowStart;
    }
    printf("{\"seconds\":%d,\"cores\":%d,\"units\":%d,\"unitMs\":%.3f,\"slowUnitsPercent\":%.2f,\"slowestRatio\":%.1f,"
           "\"slowWindowsPerCorePerMinute\":%.1f,\"longestSlowWindowMs\":%.0f}\n",
           seconds, cores, units, fastest * 1000, units ? 100.0 * slow / units : 0, slowest,
           windows * 60.0 / seconds / cores, longestWindow * 1000);
    free(all);
    return 0;
}
