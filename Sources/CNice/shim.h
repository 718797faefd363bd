#include <glib.h>
#include <nice/agent.h>
/* NICE_VERSION_MAJOR/MINOR/MICRO: the release the headers (and pkg-config) belong to. */
#include <nice/nice-version.h>

/* libnice has no version call. The address of one of its functions lets Parley find, in the
   process's memory map, the shared object that was actually loaded. */
static inline const void *parley_nice_function_address(void) {
    return (const void *)&nice_agent_new;
}
