#include <pocketsphinx.h>
#include <sphinxbase/err.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* cmd_ln_init is variadic, which Swift cannot call: the decoder's configuration from the
   model's three files, with its own log silenced (Sources/Drivers/Recognition/SpeechDecoder.swift). */
static inline cmd_ln_t *parley_ps_config(const char *hmm, const char *lm, const char *dict) {
    return cmd_ln_init(NULL, ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict,
                       "-logfn", "/dev/null", "-samprate", "16000", NULL);
}

/* A keyword-spotting search named `name` for the phrases in `lines` (one a line). 0.8's
   ps_set_kws reads them from a file only: an anonymous memory file, never the disk. The
   search reads its beam, phone-loop penalty and threshold from the configuration when it is
   made, so they are set for it alone and the language-model search keeps its own beam
   (Sources/Drivers/Recognition/PhraseSpotter.swift says why these values). */
/* memfd_create is declared only under _GNU_SOURCE, which must not be defined here: it changes
   glibc's own structures (fd_set) against the Glibc module every Swift file imports, and the
   build fails where both meet. The symbol is in every glibc since 2.27. */
int memfd_create(const char *name, unsigned int flags);
#define PARLEY_MFD_CLOEXEC 1U

static inline int parley_ps_set_phrases(ps_decoder_t *ps, const char *name, const char *lines,
                                        double beam, double threshold) {
    int fd = memfd_create("parley-phrases", PARLEY_MFD_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(lines);
    if (write(fd, lines, length) != (ssize_t)length) { close(fd); return -1; }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    cmd_ln_t *config = ps_get_config(ps);
    double savedBeam = cmd_ln_float64_r(config, "-beam");
    double savedThreshold = cmd_ln_float64_r(config, "-kws_threshold");
    double savedPenalty = cmd_ln_float64_r(config, "-kws_plp");
    cmd_ln_set_float64_r(config, "-beam", beam);
    cmd_ln_set_float64_r(config, "-kws_threshold", threshold);
    cmd_ln_set_float64_r(config, "-kws_plp", 1.0);
    int result = ps_set_kws(ps, name, path);
    cmd_ln_set_float64_r(config, "-beam", savedBeam);
    cmd_ln_set_float64_r(config, "-kws_threshold", savedThreshold);
    cmd_ln_set_float64_r(config, "-kws_plp", savedPenalty);
    close(fd);
    return result;
}
