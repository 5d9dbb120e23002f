/* One Philox4x32-10 evaluation on a raw counter and key, compiled once by the
 * C compiler (philox_ref.c): the reference the tests hold rng_draw, as each
 * compiler inlines it, and cuRAND's device generator against. */
#ifndef OFDMSIM_PHILOX_REF_H
#define OFDMSIM_PHILOX_REF_H

#include <stdint.h>

#include "core/draws.h"

#ifdef __cplusplus
extern "C" {
#endif
rng_words philox4x32_10(const uint32_t ctr[4], const uint32_t key[2]);
#ifdef __cplusplus
}
#endif
#endif
