#include <glib.h>
#include <nice/agent.h>

/* libnice has no version call. The address of one of its functions lets Parley find, in the
   process's memory map, the shared object that was actually loaded. */
static inline const void *parley_nice_function_address(void) {
    return (const void *)&nice_agent_new;
}
