/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * gfp.h - decode the kernel's printed gfp flags ("GFP_KERNEL|__GFP_ZERO")
 * into pagesim's stable PS_GFP_* bits (event.h).  The kernel's numeric bit
 * values changed between releases, its symbolic names did not, so names are
 * the contract.  Composite names (GFP_KERNEL, GFP_HIGHUSER_MOVABLE, ...) expand
 * to their parts as defined in include/linux/gfp_types.h (gfp.h before 6.0).
 */
#ifndef PS_GFP_H
#define PS_GFP_H

#include <stdint.h>

/*
 * Parses @len bytes at @s.  Unknown names and numeric remainders
 * ("GFP_KERNEL|0x1000000") set PS_GFP_UNKNOWN; "none" and an empty string
 * give 0.  Returns the bits.
 */
uint32_t ps_gfp_parse(const char *s, int len);

/* Writes the names of @gfp joined with '|' into buf. */
void ps_gfp_format(uint32_t gfp, char *buf, int len);

#endif
