/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bytescan.h - the first byte of a run that differs from a value, eight
 * bytes at a time: the model's per-page arrays are mostly long runs of one
 * state (a zone's span is mostly allocated order-0 pages or holes, and most
 * pages of a trace are never touched), which the walks over them skip so.
 */
#ifndef PS_BYTESCAN_H
#define PS_BYTESCAN_H

#include <stdint.h>
#include <string.h>

/* The first index in [@i, @end) whose byte is not @v, or @end. */
static inline uint32_t ps_bytes_skip(const uint8_t *a, uint32_t i, uint32_t end, uint8_t v)
{
	const uint64_t pat = 0x0101010101010101ull * v;

	while (i < end && (i & 7))
		if (a[i] != v)
			return i;
		else
			i++;
	for (; i + 8 <= end; i += 8) {
		uint64_t w;

		memcpy(&w, a + i, 8);
		if (w != pat)
			break;
	}
	while (i < end && a[i] == v)
		i++;
	return i;
}

#endif
