// glibc malloc: statistics (mallinfo2) for the live heap in `clock` events, and malloc_trim for
// MemoryTrimmer (Sources/Parley/Memory).
#include <malloc.h>
