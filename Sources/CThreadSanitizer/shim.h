// ThreadSanitizer's annotation entry points, exported by its runtime (linked only into
// `--sanitize=thread` builds). Sources/Locking calls them only when built with
// -DPARLEY_THREAD_SANITIZER (scripts/sanitize), so normal builds never reference them.
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
