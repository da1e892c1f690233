/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * le.h - little-endian integers in byte buffers, as pagesim's files hold
 * them (the pagesim trace format, its pass-1 summary).
 */
#ifndef PS_LE_H
#define PS_LE_H

#include <stdint.h>

static inline uint16_t ps_le_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ps_le_get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t ps_le_get64(const uint8_t *p)
{
	return ps_le_get32(p) | (uint64_t)ps_le_get32(p + 4) << 32;
}

static inline void ps_le_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void ps_le_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void ps_le_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

#endif
