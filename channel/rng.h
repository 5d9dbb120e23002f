/* The CPU side of the random streams (see draws.h): Random123's Philox4x32-10,
 * bit-identical to cuRAND's Philox4_32_10 for the same key and counter. */
#ifndef OFDMSIM_RNG_H
#define OFDMSIM_RNG_H

#include <math.h>
#include "channel/draws.h"

/* One Philox4x32-10 evaluation: the raw generator, exposed for tests. */
rng_words philox4x32_10(const uint32_t ctr[4], const uint32_t key[2]);

/* The four words of draw `index` of (point, purpose, frame). */
rng_words rng_draw(uint64_t seed, uint32_t point, uint32_t purpose, uint64_t frame,
                   uint64_t index);

#endif
