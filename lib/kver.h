/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * kver.h - kernel releases as comparable integers, and the per-release
 * facts a trace reader needs (migratetype numbering).
 */
#ifndef PS_KVER_H
#define PS_KVER_H

#define PS_KVER(a, b, c) (((a) << 16) | ((b) << 8) | (c))
#define PS_KVER_UNKNOWN 0

/* Parses "6.1.0-57-amd64", "4.4", "v5.15.100"; returns PS_KVER_UNKNOWN if not a release. */
int ps_kver_parse(const char *release);

/* Writes "6.1.0" into buf. */
void ps_kver_format(int kver, char *buf, int len);

/*
 * Kernel migratetype number -> PS_MT_*.  v4.0-4.3 numbered
 * UNMOVABLE 0, RECLAIMABLE 1, MOVABLE 2, RESERVE 3; v4.4 reordered to
 * UNMOVABLE 0, MOVABLE 1, RECLAIMABLE 2, HIGHATOMIC 3 (CMA 4, ISOLATE 5
 * with CONFIG_CMA; pagesim assumes CONFIG_CMA).
 */
int ps_mt_from_kernel(int raw, int kver);

/* Whether the kernel uses the pre-v4.4 migratetype numbering. */
static inline int ps_kver_old_mt(int kver)
{
	return kver != PS_KVER_UNKNOWN && kver < PS_KVER(4, 4, 0);
}

#endif
