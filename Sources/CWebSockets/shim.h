#include <libwebsockets.h>

// LWS_PRE and the option bits are macros Swift cannot import; these expose their values.
static inline size_t parley_lws_pre(void) { return LWS_PRE; }
static inline uint64_t parley_lws_option_explicit_vhosts(void) { return LWS_SERVER_OPTION_EXPLICIT_VHOSTS; }
static inline uint64_t parley_lws_option_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }
static inline uint64_t parley_lws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }
