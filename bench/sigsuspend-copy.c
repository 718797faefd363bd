/* Preloaded into a Parley process run under valgrind 3.19 (Debian 12) by bench/callgrind-callee:
 * libdispatch parks the main thread with sigsuspend() on a mask in read-only memory, and that
 * valgrind writes to the mask it is given (fixed in later valgrind releases), which kills it.
 * This sigsuspend hands the kernel a copy on the stack instead; nothing else changes.
 * Build: cc -O2 -shared -fPIC sigsuspend-copy.c -o sigsuspend-copy.so */
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

int sigsuspend(const sigset_t *mask) {
    sigset_t copy = *mask;
    return (int)syscall(SYS_rt_sigsuspend, &copy, (long)(_NSIG / 8));
}
