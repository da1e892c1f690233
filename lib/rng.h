/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * rng.h - a small deterministic random number generator (xorshift64*), for
 * what must vary from run to run the same way each time: the same seed
 * gives the same sequence on every machine.
 */
#ifndef PS_RNG_H
#define PS_RNG_H

#include <stdint.h>

struct ps_rng {
	uint64_t s;
};

/* Seeds @g (any seed; 0 is taken as another fixed value). */
static inline void ps_rng_seed(struct ps_rng *g, uint64_t seed)
{
	g->s = (seed + 1) * 0x9e3779b97f4a7c15ull;
	if (!g->s)
		g->s = 0x2545f4914f6cdd1dull;
}

static inline uint64_t ps_rng_next(struct ps_rng *g)
{
	g->s ^= g->s >> 12;
	g->s ^= g->s << 25;
	g->s ^= g->s >> 27;
	return g->s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n) (n > 0). */
static inline uint64_t ps_rng_below(struct ps_rng *g, uint64_t n)
{
	return (ps_rng_next(g) >> 11) % n;
}

#endif
