#include <libwebsockets.h>

// LWS_PRE and the option bits are macros Swift cannot import; these expose their values.
static inline size_t parley_lws_pre(void) { return LWS_PRE; }
static inline uint64_t parley_lws_option_explicit_vhosts(void) { return LWS_SERVER_OPTION_EXPLICIT_VHOSTS; }
static inline uint64_t parley_lws_option_ssl_global_init(void) { return LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT; }
static inline uint64_t parley_lws_option_disable_ipv6(void) { return LWS_SERVER_OPTION_DISABLE_IPV6; }

// The last TLS alert a client connection received (RFC 8446 §6), which libwebsockets reports
// only as "read failed": an info callback, set when the server's certificate is verified,
// keeps its code in the session's own ex_data slot for the connection error to read.
static inline int parley_alert_index(void) {
    static int index = -1;
    if (index < 0) index = SSL_get_ex_new_index(0, NULL, NULL, NULL, NULL);
    return index;
}
static inline void parley_record_alert(const SSL *ssl, int where, int value) {
    if ((where & SSL_CB_READ_ALERT) == SSL_CB_READ_ALERT) SSL_set_ex_data((SSL *)ssl, parley_alert_index(), (void *)(intptr_t)(value & 0xff));
}
static inline void parley_watch_alerts(void *store) {
    SSL *ssl = X509_STORE_CTX_get_ex_data((X509_STORE_CTX *)store, SSL_get_ex_data_X509_STORE_CTX_idx());
    if (ssl) SSL_set_info_callback(ssl, parley_record_alert);
}
static inline int parley_received_alert(struct lws *wsi) {
    SSL *ssl = (SSL *)lws_get_ssl(wsi);
    return ssl ? (int)(intptr_t)SSL_get_ex_data(ssl, parley_alert_index()) : 0;
}
