#include <opus/opus.h>

// opus_encoder_ctl is variadic, which Swift cannot call; every request Parley makes takes one
// opus_int32, so one fixed-argument wrapper serves them all.
static inline int parley_opus_encoder_set(OpusEncoder *encoder, int request, opus_int32 value) {
    return opus_encoder_ctl(encoder, request, value);
}
