// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/event.h"
#include "lib/kver.h"

int ps_kver_parse(const char *s)
{
	long v[3] = { 0, 0, 0 };
	int n = 0;
	char *end;

	if (!s)
		return PS_KVER_UNKNOWN;
	while (isspace((unsigned char)*s))
		s++;
	if (*s == 'v')
		s++;
	while (n < 3 && isdigit((unsigned char)*s)) {
		v[n++] = strtol(s, &end, 10);
		s = end;
		if (*s != '.')
			break;
		s++;
	}
	if (n < 2 || v[0] < 2 || v[0] > 255 || v[1] > 255)
		return PS_KVER_UNKNOWN;
	if (v[2] > 255)
		v[2] = 255;
	return PS_KVER(v[0], v[1], v[2]);
}

void ps_kver_format(int kver, char *buf, int len)
{
	if (kver == PS_KVER_UNKNOWN)
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%d.%d.%d", kver >> 16, (kver >> 8) & 0xff, kver & 0xff);
}

int ps_mt_from_kernel(int raw, int kver)
{
	if (raw < 0)
		return PS_MT_UNKNOWN;
	if (ps_kver_old_mt(kver)) {
		static const int old[] = { PS_MT_UNMOVABLE, PS_MT_RECLAIMABLE, PS_MT_MOVABLE,
					   PS_MT_RESERVE, PS_MT_CMA, PS_MT_ISOLATE };
		return raw < 6 ? old[raw] : PS_MT_UNKNOWN;
	}
	return raw <= PS_MT_ISOLATE ? raw : PS_MT_UNKNOWN;
}
