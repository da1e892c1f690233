// SPDX-License-Identifier: GPL-2.0-or-later
#include <stdio.h>
#include <string.h>

#include "lib/event.h"
#include "trace/gfp.h"

#define RECLAIM (PS_GFP_DIRECT_RECLAIM | PS_GFP_KSWAPD_RECLAIM)
#define KERNEL (RECLAIM | PS_GFP_IO | PS_GFP_FS)
#define USER (KERNEL | PS_GFP_HARDWALL)
#define HIGHUSER_MOVABLE (USER | PS_GFP_HIGHMEM | PS_GFP_MOVABLE)
#define TRANSHUGE_LIGHT ((HIGHUSER_MOVABLE | PS_GFP_COMP | PS_GFP_NOMEMALLOC | PS_GFP_NOWARN) & ~RECLAIM)

struct gfp_name {
	const char *name;
	uint32_t bits;
};

/* Single flags, then the composites the kernel prints. */
static const struct gfp_name gfp_names[] = {
	{ "__GFP_DMA", PS_GFP_DMA },
	{ "__GFP_HIGHMEM", PS_GFP_HIGHMEM },
	{ "__GFP_DMA32", PS_GFP_DMA32 },
	{ "__GFP_MOVABLE", PS_GFP_MOVABLE },
	{ "__GFP_RECLAIMABLE", PS_GFP_RECLAIMABLE },
	{ "__GFP_HIGH", PS_GFP_HIGH },
	{ "__GFP_IO", PS_GFP_IO },
	{ "__GFP_FS", PS_GFP_FS },
	{ "__GFP_ZERO", PS_GFP_ZERO },
	{ "__GFP_ATOMIC", PS_GFP_ATOMIC },
	{ "__GFP_DIRECT_RECLAIM", PS_GFP_DIRECT_RECLAIM },
	{ "__GFP_KSWAPD_RECLAIM", PS_GFP_KSWAPD_RECLAIM },
	{ "__GFP_RECLAIM", RECLAIM },
	{ "__GFP_WAIT", PS_GFP_DIRECT_RECLAIM },	/* <= v4.3 */
	{ "__GFP_WRITE", PS_GFP_WRITE },
	{ "__GFP_NOWARN", PS_GFP_NOWARN },
	{ "__GFP_RETRY_MAYFAIL", PS_GFP_RETRY_MAYFAIL },
	{ "__GFP_REPEAT", PS_GFP_RETRY_MAYFAIL },	/* <= v4.12 */
	{ "__GFP_NOFAIL", PS_GFP_NOFAIL },
	{ "__GFP_NORETRY", PS_GFP_NORETRY },
	{ "__GFP_MEMALLOC", PS_GFP_MEMALLOC },
	{ "__GFP_COMP", PS_GFP_COMP },
	{ "__GFP_NOMEMALLOC", PS_GFP_NOMEMALLOC },
	{ "__GFP_HARDWALL", PS_GFP_HARDWALL },
	{ "__GFP_THISNODE", PS_GFP_THISNODE },
	{ "__GFP_ACCOUNT", PS_GFP_ACCOUNT },
	{ "__GFP_ZEROTAGS", PS_GFP_ZEROTAGS },
	{ "__GFP_COLD", PS_GFP_COLD },
	{ "__GFP_OTHER_NODE", PS_GFP_OTHER_NODE },
	{ "__GFP_NOLOCKDEP", PS_GFP_NOLOCKDEP },
	{ "__GFP_NO_OBJ_EXT", PS_GFP_NO_OBJ_EXT },
	{ "__GFP_SKIP_KASAN", PS_GFP_SKIP_KASAN },
	{ "__GFP_SKIP_KASAN_POISON", PS_GFP_SKIP_KASAN },
	{ "__GFP_SKIP_KASAN_UNPOISON", PS_GFP_SKIP_KASAN },
	{ "__GFP_SKIP_ZERO", 0 },
	{ "__GFP_NOTRACK", PS_GFP_NOTRACK },
	{ "__GFP_NOACCOUNT", 0 },
	{ "__GFP_NO_KSWAPD", 0 },
	{ "GFP_ATOMIC", PS_GFP_HIGH | PS_GFP_ATOMIC | PS_GFP_KSWAPD_RECLAIM },
	{ "GFP_KERNEL", KERNEL },
	{ "GFP_KERNEL_ACCOUNT", KERNEL | PS_GFP_ACCOUNT },
	{ "GFP_NOWAIT", PS_GFP_KSWAPD_RECLAIM },
	{ "GFP_NOIO", RECLAIM },
	{ "GFP_NOFS", RECLAIM | PS_GFP_IO },
	{ "GFP_TEMPORARY", KERNEL | PS_GFP_RECLAIMABLE },
	{ "GFP_USER", USER },
	{ "GFP_DMA", PS_GFP_DMA },
	{ "GFP_DMA32", PS_GFP_DMA32 },
	{ "GFP_HIGHUSER", USER | PS_GFP_HIGHMEM },
	{ "GFP_HIGHUSER_MOVABLE", HIGHUSER_MOVABLE },
	{ "GFP_TRANSHUGE_LIGHT", TRANSHUGE_LIGHT },
	{ "GFP_TRANSHUGE", TRANSHUGE_LIGHT | PS_GFP_DIRECT_RECLAIM },
	{ "GFP_IOFS", PS_GFP_IO | PS_GFP_FS },
	{ "GFP_NOTRACK", PS_GFP_NOTRACK },
};

static uint32_t gfp_lookup(const char *s, int len)
{
	for (size_t i = 0; i < sizeof(gfp_names) / sizeof(gfp_names[0]); i++)
		if ((int)strlen(gfp_names[i].name) == len && !memcmp(gfp_names[i].name, s, len))
			return gfp_names[i].bits;
	if (len == 4 && !memcmp(s, "none", 4))
		return 0;
	if (len == 3 && !memcmp(s, "0x0", 3))
		return 0;
	return PS_GFP_UNKNOWN;
}

uint32_t ps_gfp_parse(const char *s, int len)
{
	uint32_t bits = 0;
	int start = 0;

	for (int i = 0; i <= len; i++) {
		if (i == len || s[i] == '|') {
			if (i > start)
				bits |= gfp_lookup(s + start, i - start);
			start = i + 1;
		}
	}
	return bits;
}

void ps_gfp_format(uint32_t gfp, char *buf, int len)
{
	int n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(gfp_names) / sizeof(gfp_names[0]) && n < len; i++) {
		uint32_t b = gfp_names[i].bits;

		if (strncmp(gfp_names[i].name, "__GFP_", 6) || !b || (b & (b - 1)) || !(gfp & b))
			continue;
		n += snprintf(buf + n, len - n, "%s%s", n ? "|" : "", gfp_names[i].name);
		gfp &= ~b;
	}
	if (!n && len > 0)
		snprintf(buf, len, "none");
}
