// glibc's malloc statistics (mallinfo2), for the live heap in `clock` events.
#include <malloc.h>
