#include <pocketsphinx.h>
#include <sphinxbase/err.h>

/* cmd_ln_init is variadic, which Swift cannot call: the decoder's configuration from the
   model's three files, with its own log silenced (Sources/Parley/Recognition/SpeechDecoder.swift). */
static inline cmd_ln_t *parley_ps_config(const char *hmm, const char *lm, const char *dict) {
    return cmd_ln_init(NULL, ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict,
                       "-logfn", "/dev/null", "-samprate", "16000", NULL);
}
