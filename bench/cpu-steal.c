/* A slower host of the same kind, emulated: on every CPU a SCHED_FIFO 50 thread (above every
 * Parley thread) spins for ON microseconds and sleeps for OFF, for SECONDS, so everything else
 * gets OFF / (ON + OFF) of each core, in slices short enough that no 20 ms media tick is
 * skipped whole. bench/setup-load runs it when SLOWER is set (docs/performance.md, "Setup under
 * load"). Usage: cpu-steal ON OFF SECONDS (needs root for SCHED_FIFO). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long on_us, off_us, seconds;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void *steal(void *cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((long)cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    struct sched_param parameters = { .sched_priority = 50 };
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters) != 0) {
        fprintf(stderr, "cpu-steal: SCHED_FIFO refused (needs root)\n");
        exit(1);
    }
    double end = now() + seconds;
    while (now() < end) {
        double until = now() + on_us / 1e6;
        while (now() < until) {}
        struct timespec pause = { off_us / 1000000, (off_us % 1000000) * 1000 };
        nanosleep(&pause, 0);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: cpu-steal ON_US OFF_US SECONDS\n"); return 2; }
    on_us = atol(argv[1]); off_us = atol(argv[2]); seconds = atol(argv[3]);
    if (on_us <= 0 || off_us <= 0 || seconds <= 0 || seconds > 3600) { fprintf(stderr, "cpu-steal: bad arguments\n"); return 2; }
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus > 256) cpus = 256;
    pthread_t threads[256];
    for (long cpu = 0; cpu < cpus; cpu++) pthread_create(&threads[cpu], 0, steal, (void *)cpu);
    for (long cpu = 0; cpu < cpus; cpu++) pthread_join(threads[cpu], 0);
    return 0;
}
