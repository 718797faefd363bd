#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <glib.h>
#include <nice/agent.h>

/* libnice has no version call: the path of the shared object that holds nice_agent_new is the
   most exact runtime statement of which libnice is loaded. */
static inline const char *parley_nice_library_path(void) {
    Dl_info info;
    if (dladdr((void *)&nice_agent_new, &info) != 0 && info.dli_fname != NULL) {
        return info.dli_fname;
    }
    return NULL;
}
