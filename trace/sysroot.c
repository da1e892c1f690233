// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sysroot.c - the kernel's own text files about memory layout and counters.
 * Each parser is line based, names the file and line of anything it cannot
 * read, and ignores lines it does not need (their sets differ by version).
 */
#include <ctype.h>
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/machine.h"
#include "lib/event.h"
#include "lib/kver.h"
#include "trace/reader.h"
#include "trace/sysroot.h"

static int zone_type_from_name(const char *s)
{
	for (int i = 0; i < PS_ZONE_NR; i++)
		if (!strcasecmp(s, ps_zone_names[i]))
			return i;
	return -1;
}

/* Iterates lines: returns the next line in buf (truncated to len-1 bytes). */
static const char *next_line(const char *p, char *buf, size_t len)
{
	const char *eol;
	size_t n;

	if (!*p)
		return NULL;
	eol = strchr(p, '\n');
	n = eol ? (size_t)(eol - p) : strlen(p);
	if (n >= len)
		n = len - 1;
	memcpy(buf, p, n);
	buf[n] = 0;
	return eol ? eol + 1 : p + strlen(p);
}

/*
 * A page counter zoneinfo prints (nr_zone_*_file, nr_zone_write_pending,
 * nr_mapped) is added up per zone; 2^48 pages (1 EiB of 4 KiB pages) is far
 * above any machine, and keeps every later sum of them from overflowing.
 */
#define ZONEINFO_MAX_PAGES (1l << 48)

/* @v is a page count zoneinfo may print (an unsigned one above LLONG_MAX reads negative) */
static int page_count_ok(long long v)
{
	return v >= 0 && v <= ZONEINFO_MAX_PAGES;
}

static int add_page_count(long *acc, long v)
{
	if (!page_count_ok(v) || !page_count_ok(*acc + v))
		return -1;
	*acc += v;
	return 0;
}

static int bad_page_count(struct ps_error *err, const char *name, int line, const char *buf)
{
	return ps_err(err, "%s:%d: page count out of range (0 to 2^48 pages per zone): '%s'", name, line, buf);
}

/* pcp high/batch: the bounds the policy's pcp.high and pcp.batch take */
#define ZONEINFO_MAX_PCP (1l << 24)

static int pcp_value_ok(long v)
{
	return v >= 0 && v <= ZONEINFO_MAX_PCP;
}

static int bad_pcp(struct ps_error *err, const char *name, int line, const char *buf)
{
	return ps_err(err, "%s:%d: pcp value out of range (0 to 2^24): '%s'", name, line, buf);
}

/*
 * What the kernel cannot print for one zone is an error naming the zone's
 * line: managed <= present <= spanned, min <= low <= high (boost, which
 * zoneinfo adds to all three, keeps the order).  What it can print but that
 * makes a replay meaningless is a warning: watermarks or free pages above
 * the managed pages (a vm.min_free_kbytes larger than the memory).
 */
static int zone_consistent(const struct ps_zone_desc *z, const char *name, int zline, int wline,
			   struct ps_machine *m, struct ps_error *err)
{
	const char *zn = ps_zone_names[z->type];

	if (z->present > z->spanned || z->managed > z->present)
		return ps_err(err, "%s:%d: zone %s of node %d: spanned %llu, present %llu, managed %llu: the kernel has managed <= present <= spanned",
			      name, zline, zn, z->node, (unsigned long long)z->spanned, (unsigned long long)z->present,
			      (unsigned long long)z->managed);
	if (z->wmark_min > z->wmark_low || z->wmark_low > z->wmark_high)
		return ps_err(err, "%s:%d: zone %s of node %d: watermarks min %ld, low %ld, high %ld: the kernel has min <= low <= high",
			      name, wline ? wline : zline, zn, z->node, z->wmark_min, z->wmark_low, z->wmark_high);
	if (z->managed && (uint64_t)z->wmark_high > z->managed)
		ps_machine_warn(m, "%s:%d: zone %s of node %d: the %s watermark (%ld pages) lies above its %llu managed pages (vm.min_free_kbytes larger than the memory?): %s",
				name, zline, zn, z->node, (uint64_t)z->wmark_min > z->managed ? "min" : "high",
				(uint64_t)z->wmark_min > z->managed ? z->wmark_min : z->wmark_high,
				(unsigned long long)z->managed,
				(uint64_t)z->wmark_min > z->managed ? "no allocation there passes its watermarks"
								    : "kswapd can never balance it");
	{
		uint64_t seeded = 0;

		for (int i = 0; i < m->nr_pcp_seed; i++)
			if (m->pcp_seed[i].node == z->node && m->pcp_seed[i].type == z->type)
				seeded += (uint64_t)m->pcp_seed[i].count;
		if (seeded > z->managed)
			return ps_err(err, "%s:%d: zone %s of node %d: its per-CPU lists hold %llu pages (pagesets' count lines), more than its %llu managed pages",
				      name, zline, zn, z->node, (unsigned long long)seeded, (unsigned long long)z->managed);
	}
	if (z->free_pages > z->managed)
		ps_machine_warn(m, "%s:%d: zone %s of node %d: %llu pages free but %llu managed",
				name, zline, zn, z->node, (unsigned long long)z->free_pages,
				(unsigned long long)z->managed);
	return 0;
}

int ps_parse_zoneinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err)
{
	struct ps_zone_desc cur;
	int have = 0, line = 0, in_pagesets = 0, pcp_done = 0, cur_index = 0, node_prev = -1, in_node_stats = 0;
	int node_types[PS_MAX_NODES][8];
	int node_nz[PS_MAX_NODES];
	int have_start = 0, seed_cpu = -1, zone_line = 0, wm_line = 0;
	char buf[512];
	const char *p = text;

	memset(node_nz, 0, sizeof(node_nz));
	memset(&cur, 0, sizeof(cur));
#define FLUSH()                                                                                        \
	do {                                                                                           \
		if (have && cur.spanned > 0) {                                                         \
			if (!have_start)                                                               \
				return ps_err(err, "%s: zone %s of node %d has no start_pfn line (kernel older than 4.9?): give a newer zoneinfo or a machine file", \
					      name, ps_zone_names[cur.type], cur.node);               \
			if (m->nr_zones >= PS_MAX_ZONES)                                               \
				return ps_err(err, "%s: more than %d zones", name, PS_MAX_ZONES);      \
			if (zone_consistent(&cur, name, zone_line, wm_line, m, err) < 0)               \
				return -1;                                                             \
			m->zones[m->nr_zones++] = cur;                                                 \
		}                                                                                      \
	} while (0)

	while ((p = next_line(p, buf, sizeof(buf)))) {
		int node, pcpu;
		char zname[32];
		unsigned long long v;
		long lv;

		line++;
		if (sscanf(buf, "Node %d, zone %31s", &node, zname) == 2) {
			int type = zone_type_from_name(zname);

			FLUSH();
			zone_line = line;
			wm_line = 0;
			if (node < 0 || node >= PS_MAX_NODES)
				return ps_err(err, "%s:%d: node %d out of range (at most %d nodes)", name, line, node, PS_MAX_NODES);
			if (type < 0)
				return ps_err(err, "%s:%d: unknown zone '%s'", name, line, zname);
			if (node != node_prev)
				cur_index = 0;
			node_prev = node;
			if (node_nz[node] < 8)
				node_types[node][node_nz[node]++] = type;
			memset(&cur, 0, sizeof(cur));
			cur.node = node;
			cur.type = type;
			cur.pcp_high = cur.pcp_batch = -1;
			have = 1;
			have_start = 0;
			in_pagesets = 0;
			in_node_stats = 0;
			pcp_done = 0;
			seed_cpu = -1;
			cur_index++;
			if (node + 1 > m->nr_nodes)
				m->nr_nodes = node + 1;
			m->node_online |= 1ull << node;
			continue;
		}
		if (!have)
			continue;
		if (strstr(buf, "per-node stats")) {
			in_node_stats = 1;	/* 4.8+: the node's LRU counters, printed in its first zone */
		} else if (sscanf(buf, " pages free %llu", &v) == 1) {
			if (!page_count_ok((long long)v))
				return bad_page_count(err, name, line, buf);
			cur.free_pages = v;
			in_node_stats = 0;
		} else if (sscanf(buf, " nr_zone_inactive_file %ld", &lv) == 1 ||
			   sscanf(buf, " nr_zone_active_file %ld", &lv) == 1) {
			/* 4.8+ (older zoneinfo has no start_pfn and is refused) */
			if (add_page_count(&cur.nr_file, lv))
				return bad_page_count(err, name, line, buf);
		} else if (sscanf(buf, " nr_zone_write_pending %ld", &lv) == 1) {
			if (add_page_count(&cur.nr_dirty, lv))
				return bad_page_count(err, name, line, buf);
		} else if (in_node_stats && sscanf(buf, " nr_mapped %ld", &lv) == 1) {
			if (add_page_count(&cur.nr_mapped, lv))
				return bad_page_count(err, name, line, buf);
		} else if (sscanf(buf, " min %ld", &lv) == 1 && !in_pagesets) {
			if (!page_count_ok(lv))
				return bad_page_count(err, name, line, buf);
			cur.wmark_min = lv;
			wm_line = line;
		} else if (sscanf(buf, " low %ld", &lv) == 1 && !in_pagesets) {
			if (!page_count_ok(lv))
				return bad_page_count(err, name, line, buf);
			cur.wmark_low = lv;
			wm_line = line;
		} else if (sscanf(buf, " high %ld", &lv) == 1 && !in_pagesets) {
			if (!page_count_ok(lv))
				return bad_page_count(err, name, line, buf);
			cur.wmark_high = lv;
			wm_line = line;
		} else if (sscanf(buf, " boost %ld", &lv) == 1) {
			if (!page_count_ok(lv))
				return bad_page_count(err, name, line, buf);
			cur.wmark_boost = lv;
		} else if (sscanf(buf, " spanned %llu", &v) == 1) {
			if (!page_count_ok((long long)v))
				return bad_page_count(err, name, line, buf);
			cur.spanned = v;
		} else if (sscanf(buf, " present %llu", &v) == 1) {
			if (!page_count_ok((long long)v))
				return bad_page_count(err, name, line, buf);
			cur.present = v;
		} else if (sscanf(buf, " managed %llu", &v) == 1) {
			if (!page_count_ok((long long)v))
				return bad_page_count(err, name, line, buf);
			cur.managed = v;
		} else if (strstr(buf, "protection: (")) {
			const char *q = strchr(buf, '(') + 1;

			cur.nr_protection = 0;
			while (*q && *q != ')' && cur.nr_protection < PS_ZONE_NR) {
				char *end;
				long x = strtol(q, &end, 10);

				if (end == q || !page_count_ok(x))
					return ps_err(err, "%s:%d: bad protection list (0 to 2^48 pages each): '%s'", name, line, buf);
				cur.protection[cur.nr_protection++] = x;
				q = end;
				while (*q == ',' || *q == ' ')
					q++;
			}
		} else if (strstr(buf, "pagesets")) {
			in_pagesets = 1;
		} else if (in_pagesets && sscanf(buf, " cpu: %d", &pcpu) == 1) {
			if (cur.pcp_batch >= 0)
				pcp_done = 1;
			seed_cpu = pcpu;
		} else if (in_pagesets && sscanf(buf, " count: %ld", &lv) == 1) {
			if (lv > 0 && cur.spanned > 0 && seed_cpu >= 0 && seed_cpu < PS_MAX_CPUS && lv <= INT32_MAX) {
				if (m->nr_pcp_seed < PS_MAX_PCP_SEED)
					m->pcp_seed[m->nr_pcp_seed++] = (struct ps_pcp_seed){ (int8_t)cur.node, (int8_t)cur.type,
											    (int16_t)seed_cpu, (int32_t)lv, -1 };
				else
					m->pcp_seed_dropped++;
			}
		} else if (in_pagesets && sscanf(buf, " high: %ld", &lv) == 1) {
			struct ps_pcp_seed *sd = m->nr_pcp_seed ? &m->pcp_seed[m->nr_pcp_seed - 1] : NULL;

			if (!pcp_value_ok(lv))
				return bad_pcp(err, name, line, buf);
			if (!pcp_done)
				cur.pcp_high = (int)lv;
			if (sd && sd->node == cur.node && sd->type == cur.type && sd->cpu == seed_cpu)
				sd->high = (int32_t)lv;
		} else if (in_pagesets && !pcp_done && sscanf(buf, " high_min: %ld", &lv) == 1) {
			if (!pcp_value_ok(lv))
				return bad_pcp(err, name, line, buf);
			cur.pcp_high_min = (int)lv;
		} else if (in_pagesets && !pcp_done && sscanf(buf, " high_max: %ld", &lv) == 1) {
			if (!pcp_value_ok(lv))
				return bad_pcp(err, name, line, buf);
			cur.pcp_high_max = (int)lv;
		} else if (in_pagesets && !pcp_done && sscanf(buf, " batch: %ld", &lv) == 1) {
			if (!pcp_value_ok(lv))
				return bad_pcp(err, name, line, buf);
			cur.pcp_batch = (int)lv;
		} else if (sscanf(buf, " start_pfn: %llu", &v) == 1) {
			if (!page_count_ok((long long)v))
				return ps_err(err, "%s:%d: start_pfn out of range (at most 2^48): '%s'", name, line, buf);
			cur.start_pfn = v;
			have_start = 1;
			in_pagesets = 0;
		}
	}
	FLUSH();
#undef FLUSH
	/* protection[i] is for the i-th zone the kernel prints per node */
	for (int i = 0; i < m->nr_zones; i++) {
		struct ps_zone_desc *z = &m->zones[i];
		int n = z->node;

		for (int j = 0; j < z->nr_protection && j < node_nz[n]; j++)
			z->lowmem_reserve[node_types[n][j]] = z->protection[j];
	}
	if (!m->nr_zones)
		return ps_err(err, "%s: no populated zone found: is this /proc/zoneinfo?", name);
	ps_machine_finish(m);
	return 0;
}

/* Column index -> PS_MT_* for the names pagetypeinfo prints. */
static int mt_from_name(const char *s)
{
	static const struct {
		const char *n;
		int mt;
	} t[] = {
		{ "Unmovable", PS_MT_UNMOVABLE }, { "Movable", PS_MT_MOVABLE },
		{ "Reclaimable", PS_MT_RECLAIMABLE }, { "HighAtomic", PS_MT_HIGHATOMIC },
		{ "Reserve", PS_MT_HIGHATOMIC }, /* 4.0-4.3 MIGRATE_RESERVE shares the slot */
		{ "CMA", PS_MT_CMA }, { "Isolate", PS_MT_ISOLATE },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(s, t[i].n))
			return t[i].mt;
	return -1;
}

static struct ps_zone_desc *find_zone(struct ps_machine *m, int node, const char *zname)
{
	int type = zone_type_from_name(zname);

	for (int i = 0; i < m->nr_zones; i++)
		if (m->zones[i].node == node && m->zones[i].type == type)
			return &m->zones[i];
	return NULL;
}

/* A count the kernel prints (free blocks, pageblocks): digits, at most 2^48. */
static int count_at(const char **q, uint64_t *v)
{
	const char *p = *q;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return -1;
	for (*v = 0; *p >= '0' && *p <= '9'; p++) {
		*v = *v * 10 + (*p - '0');
		if (*v > ZONEINFO_MAX_PAGES)
			return -1;
	}
	*q = p;
	return 0;
}

/* Free pages of @z by order counts: @counts[o] blocks of order o; -1 if they exceed the zone's span. */
static int free_fits(const struct ps_zone_desc *z, const uint64_t *counts, uint64_t *pages)
{
	for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
		*pages += counts[o] << o;	/* counts <= 2^48, o <= 10: no overflow */
	return *pages > z->spanned ? -1 : 0;
}

int ps_parse_pagetypeinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err)
{
	char buf[1024];
	const char *p = text;
	int line = 0, cols[8], ncols = 0, pb;

	while ((p = next_line(p, buf, sizeof(buf)))) {
		int node, n;
		char zname[32], tname[32];

		line++;
		if (sscanf(buf, "Page block order: %d", &pb) == 1) {
			/* x86-64: HUGETLB_PAGE_ORDER (9), or MAX_PAGE_ORDER without hugetlb */
			if (pb < 1 || pb > PS_NR_PAGE_ORDERS - 1)
				return ps_err(err, "%s:%d: pageblock order %d out of range (1 to %d on x86-64)", name, line,
					      pb, PS_NR_PAGE_ORDERS - 1);
			m->pageblock_order = pb;
		} else if (!strncmp(buf, "Number of blocks type", 21)) {
			char *q = buf + 21, *tok, *save;

			ncols = 0;
			for (tok = strtok_r(q, " \t", &save); tok && ncols < 8; tok = strtok_r(NULL, " \t", &save))
				cols[ncols++] = mt_from_name(tok);
		} else if (sscanf(buf, "Node %d, zone %31s type %31s%n", &node, zname, tname, &n) == 3 ||
			   sscanf(buf, "Node %d, zone %31[^,], type %31s%n", &node, zname, tname, &n) == 3) {
			struct ps_zone_desc *z;
			int mt = mt_from_name(tname);
			const char *q = buf + n;
			uint64_t counts[PS_NR_PAGE_ORDERS], pages = 0;

			zname[strcspn(zname, ",")] = 0;
			z = find_zone(m, node, zname);
			if (!z || mt < 0 || mt >= PS_MIGRATE_TYPES)
				continue;	/* empty zone or a type we do not keep */
			for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
				if (count_at(&q, &counts[o]) < 0)
					return ps_err(err, "%s:%d: expected %d free counts (0 to 2^48), one per order: '%.80s'",
						      name, line, PS_NR_PAGE_ORDERS, buf);
			for (int t = 0; t < PS_MIGRATE_TYPES; t++)
				if (t != mt)
					for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
						pages += z->nr_free[o][t] << o;
			if (free_fits(z, counts, &pages) < 0)
				return ps_err(err, "%s:%d: zone %s of node %d: %llu free pages counted in its free lists, more than the %llu it spans",
					      name, line, zname, node, (unsigned long long)pages,
					      (unsigned long long)z->spanned);
			for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
				z->nr_free[o][mt] = counts[o];
			z->have_pagetypeinfo = 1;
		} else if (ncols && sscanf(buf, "Node %d, zone %31s%n", &node, zname, &n) == 2) {
			struct ps_zone_desc *z = find_zone(m, node, zname);
			const char *q = buf + n;
			uint64_t total = 0, blocks;

			if (!z)
				continue;
			for (int c = 0; c < ncols; c++) {
				uint64_t v;

				if (count_at(&q, &v) < 0)
					return ps_err(err, "%s:%d: expected %d block counts (0 to 2^48): '%.80s'", name, line,
						      ncols, buf);
				if (cols[c] >= 0 && cols[c] < PS_MIGRATE_TYPES)
					z->nr_blocks[cols[c]] = v;
				total += v;
			}
			/* the span's pageblocks, a partial one at each end included */
			blocks = (z->spanned >> m->pageblock_order) + 2;
			if (total > blocks)
				return ps_err(err, "%s:%d: zone %s of node %d: %llu pageblocks counted, more than the %llu its span holds",
					      name, line, zname, node, (unsigned long long)total, (unsigned long long)blocks);
		}
	}
	return 0;
}

int ps_parse_buddyinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err)
{
	char buf[512];
	const char *p = text;
	int line = 0;

	while ((p = next_line(p, buf, sizeof(buf)))) {
		int node, n;
		char zname[32];
		struct ps_zone_desc *z;
		const char *q;
		uint64_t counts[PS_NR_PAGE_ORDERS], pages = 0;

		line++;
		if (sscanf(buf, "Node %d, zone %31s%n", &node, zname, &n) != 2)
			return ps_err(err, "%s:%d: expected 'Node N, zone NAME counts...'", name, line);
		z = find_zone(m, node, zname);
		if (!z)
			continue;
		q = buf + n;
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
			if (count_at(&q, &counts[o]) < 0)
				return ps_err(err, "%s:%d: expected %d free counts (0 to 2^48), one per order", name, line,
					      PS_NR_PAGE_ORDERS);
		if (free_fits(z, counts, &pages) < 0)
			return ps_err(err, "%s:%d: zone %s of node %d: %llu free pages, more than the %llu it spans", name,
				      line, zname, node, (unsigned long long)pages, (unsigned long long)z->spanned);
		memcpy(z->buddy, counts, sizeof(z->buddy));
		z->have_buddyinfo = 1;
	}
	return 0;
}

static char *dir_read(void *ctx, const char *rel, size_t *len, struct ps_error *err)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", (const char *)ctx, rel);
	return ps_read_file(path, len, err);
}

static int dir_exists(void *ctx, const char *rel)
{
	char path[4096];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", (const char *)ctx, rel);
	return lstat(path, &st) == 0;
}

void ps_fsrc_dir(struct ps_fsrc *src, const char *dir)
{
	src->read = dir_read;
	src->exists = dir_exists;
	src->ctx = (void *)dir;
	src->name = dir;
}

struct reader_src {
	struct ps_reader *r;
	char prefix[32];
};

static char *reader_read(void *ctx, const char *rel, size_t *len, struct ps_error *err)
{
	struct reader_src *rs = ctx;
	char path[512];
	char *text;

	snprintf(path, sizeof(path), "%s/%s", rs->prefix, rel);
	text = ps_reader_snapshot(rs->r, path, len);
	if (!text)
		ps_err(err, "the trace holds no snapshot of %s", path);
	return text;
}

static int reader_exists(void *ctx, const char *rel)
{
	char *text = reader_read(ctx, rel, NULL, NULL);

	free(text);
	return text != NULL;
}

void ps_fsrc_reader(struct ps_fsrc *src, struct ps_reader *r, const char *prefix, const char *name)
{
	static __thread struct reader_src rs[2];
	static __thread char names[2][4096];
	int i = strcmp(prefix, "before") != 0;

	rs[i].r = r;
	snprintf(rs[i].prefix, sizeof(rs[i].prefix), "%s", prefix);
	snprintf(names[i], sizeof(names[i]), "%s (%s)", name, prefix);
	src->read = reader_read;
	src->exists = reader_exists;
	src->ctx = &rs[i];
	src->name = names[i];
}

char *ps_fsrc_read_opt(const struct ps_fsrc *src, const char *rel, size_t *len, int *absent, struct ps_error *err)
{
	char *text;

	*absent = 0;
	if (!src->exists(src->ctx, rel)) {
		*absent = 1;
		return NULL;
	}
	text = src->read(src->ctx, rel, len, err);
	if (!text)
		ps_err(err, "%s (the sysroot has it but it cannot be used: remove it or copy the traced machine's /%s)",
		       err->msg, rel);
	return text;
}

/* A node distance as the kernel prints it: 10 for the node itself, 11-255 to others (SLIT). */
static int parse_distances(const char *text, const char *name, int node, struct ps_machine *m,
			   struct ps_error *err)
{
	const char *q = text;
	int j = 0;

	for (;;) {
		char *end;
		long d;

		while (*q == ' ' || *q == '\t')
			q++;
		if (!*q || *q == '\n')
			break;
		errno = 0;
		d = strtol(q, &end, 10);
		if (end == q || (*end && *end != ' ' && *end != '\t' && *end != '\n'))
			return ps_err(err, "%s: '%.40s' is not a distance", name, q);
		if (j >= m->nr_nodes)
			return ps_err(err, "%s: more than %d distances (one per node of zoneinfo)", name, m->nr_nodes);
		if (errno || d < 10 || d > 255 || (j == node) != (d == 10))
			return ps_err(err, "%s: distance %.*s to node %d: the kernel gives 10 for the node itself and 11 to 255 to the others",
				      name, (int)(end - q), q, j);
		m->distance[node][j++] = (int)d;
		q = end;
	}
	if (j != m->nr_nodes)
		return ps_err(err, "%s: expected %d distances (one per node of zoneinfo), found %d", name, m->nr_nodes, j);
	return 0;
}

static int load_nodes(const struct ps_fsrc *src, struct ps_machine *m, struct ps_error *err)
{
	char rel[256], name[4096];
	int have_dist[PS_MAX_NODES] = { 0 };

	for (int node = 0; node < m->nr_nodes; node++) {
		int16_t cpus[PS_MAX_CPUS];
		char *text;
		int absent, max = 0, r;

		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/cpulist", node);
		snprintf(name, sizeof(name), "%s/%s", src->name, rel);
		text = ps_fsrc_read_opt(src, rel, NULL, &absent, err);
		if (!text && !absent)
			return -1;
		if (text) {
			for (int c = 0; c < PS_MAX_CPUS; c++)
				cpus[c] = -1;
			r = ps_parse_cpulist(text, cpus, node, &max);
			free(text);
			if (r == -2)
				return ps_err(err, "%s: a CPU at or above %d: pagesim models at most %d CPUs", name,
					      PS_MAX_CPUS, PS_MAX_CPUS);
			if (r < 0)
				return ps_err(err, "%s: not a CPU list (expected e.g. '0-3,8')", name);
			for (int c = 0; c < max; c++) {
				if (cpus[c] < 0)
					continue;
				if (m->cpu_node[c] >= 0)
					return ps_err(err, "%s: CPU %d is listed by node%d/cpulist too: a CPU belongs to one node",
						      name, c, m->cpu_node[c]);
				m->cpu_node[c] = (int16_t)node;
			}
			if (max > m->nr_cpus)
				m->nr_cpus = max;
		}
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/distance", node);
		snprintf(name, sizeof(name), "%s/%s", src->name, rel);
		text = ps_fsrc_read_opt(src, rel, NULL, &absent, err);
		if (!text && !absent)
			return -1;
		if (text) {
			r = parse_distances(text, name, node, m, err);
			free(text);
			if (r < 0)
				return -1;
			have_dist[node] = 1;
		} else {
			for (int j = 0; j < m->nr_nodes; j++)
				m->distance[node][j] = node == j ? 10 : 20;
		}
	}
	/* ACPI allows an asymmetric SLIT and the kernel keeps it: a warning */
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < i; j++)
			if (have_dist[i] && have_dist[j] && m->distance[i][j] != m->distance[j][i]) {
				ps_machine_warn(m, "%s/sys/devices/system/node: node %d's distance to node %d is %d but node %d's to node %d is %d: an asymmetric table (the replay orders each node's fallback zones by its own row)",
						src->name, i, j, m->distance[i][j], j, i, m->distance[j][i]);
				return 0;
			}
	return 0;
}

static int load_one(const struct ps_fsrc *src, const char *rel, int required,
		    int (*parse)(const char *, const char *, struct ps_machine *, struct ps_error *),
		    struct ps_machine *m, struct ps_error *err)
{
	char name[4096];
	char *text;
	int ret, absent = 0;

	snprintf(name, sizeof(name), "%s/%s", src->name, rel);
	if (required)
		text = src->read(src->ctx, rel, NULL, err);
	else
		text = ps_fsrc_read_opt(src, rel, NULL, &absent, err);
	if (!text) {
		if (absent)
			return 0;
		if (!required)
			return -1;
		return ps_err(err, "%s (the sysroot needs it: copy /%s of the traced machine there)", err->msg, rel);
	}
	ret = parse(text, name, m, err);
	free(text);
	return ret;
}

/*
 * nodeN/vmstat: the counts reclaim depends on (ps_node_desc).  5.9+ kernels
 * keep slab in bytes (NR_SLAB_RECLAIMABLE_B); a file that names it so is
 * converted to pages.  Counts above 2^48 pages or below 0 are refused.
 */
static int parse_node_vmstat(const char *text, const char *name, int page_shift, struct ps_node_desc *d,
			     struct ps_error *err)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
#define K(f) { #f, offsetof(struct ps_node_desc, f) }
		K(nr_inactive_anon), K(nr_active_anon), K(nr_inactive_file), K(nr_active_file),
		K(nr_unevictable), K(nr_file_pages), K(nr_mapped), K(nr_dirty), K(nr_writeback),
		K(nr_shmem), K(nr_slab_reclaimable),
#undef K
	};
	char buf[256], key[64];
	const char *p = text;
	int line = 0;

	while ((p = next_line(p, buf, sizeof(buf)))) {
		long long v;
		int bytes = 0;

		line++;
		if (sscanf(buf, "%63s %lld", key, &v) != 2)
			continue;	/* a blank or foreign line: the set differs by version */
		if (!strcasecmp(key, "nr_slab_reclaimable_b")) {
			bytes = 1;
			key[strlen("nr_slab_reclaimable")] = 0;
		}
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
			if (strcmp(key, keys[i].key))
				continue;
			if (v < 0 || (!bytes && v > ZONEINFO_MAX_PAGES) || (bytes && v >> page_shift > ZONEINFO_MAX_PAGES))
				return ps_err(err, "%s:%d: page count out of range (0 to 2^48 pages): '%s'", name, line, buf);
			*(long *)((char *)d + keys[i].off) = bytes ? (long)(v >> page_shift) : (long)v;
		}
	}
	return 0;
}

/* proc/meminfo's SwapTotal and SwapFree (kB). */
static int parse_swap(const char *text, const char *name, struct ps_machine *m, struct ps_error *err)
{
	char buf[256];
	const char *p = text;
	int line = 0;

	while ((p = next_line(p, buf, sizeof(buf)))) {
		long long v;
		long *dst = NULL;

		line++;
		if (sscanf(buf, "SwapTotal: %lld", &v) == 1)
			dst = &m->swap_total_kb;
		else if (sscanf(buf, "SwapFree: %lld", &v) == 1)
			dst = &m->swap_free_kb;
		if (!dst)
			continue;
		if (v < 0 || v > ZONEINFO_MAX_PAGES * 4)
			return ps_err(err, "%s:%d: swap size out of range: '%s'", name, line, buf);
		*dst = (long)v;
	}
	return 0;
}

/*
 * What reclaim depends on: per node nodeN/vmstat, swap from proc/meminfo,
 * multi-generational LRU from sys/kernel/mm/lru_gen/enabled ("0x0007"; the
 * file exists only in kernels built with it).  Absent files leave -1.
 */
static int load_reclaim_facts(const struct ps_fsrc *src, struct ps_machine *m, struct ps_error *err)
{
	char rel[256], name[4096];
	char *text, *end;
	int ret = 0, absent;

	for (int node = 0; node < m->nr_nodes && node < PS_MAX_NODES && !ret; node++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/vmstat", node);
		text = ps_fsrc_read_opt(src, rel, NULL, &absent, err);
		if (!text && !absent)
			return -1;
		if (!text)
			continue;
		snprintf(name, sizeof(name), "%s/%s", src->name, rel);
		ret = parse_node_vmstat(text, name, m->page_shift, &m->node[node], err);
		free(text);
	}
	if (ret)
		return -1;
	text = ps_fsrc_read_opt(src, "proc/meminfo", NULL, &absent, err);
	if (!text && !absent)
		return -1;
	if (text) {
		snprintf(name, sizeof(name), "%s/proc/meminfo", src->name);
		ret = parse_swap(text, name, m, err);
		free(text);
		if (ret)
			return -1;
	}
	text = ps_fsrc_read_opt(src, "sys/kernel/mm/lru_gen/enabled", NULL, &absent, err);
	if (!text && !absent)
		return -1;
	if (text) {
		long v = strtol(text, &end, 0);

		while (*end == ' ' || *end == '\n')
			end++;
		if (end == text || *end || v < 0 || v > 0xffff) {
			ret = ps_err(err, "%s/sys/kernel/mm/lru_gen/enabled: expected a number such as 0x0007, not '%.20s'",
				     src->name, text);
			free(text);
			return ret;
		}
		m->lru_gen_enabled = (int)v;
		free(text);
	}
	return 0;
}

int ps_sysroot_load_machine_src(const struct ps_fsrc *src, struct ps_machine *m, struct ps_error *err)
{
	static __thread char source[4096];
	char *text;
	int absent;

	ps_machine_init(m);
	if (load_one(src, "proc/zoneinfo", 1, ps_parse_zoneinfo, m, err) < 0)
		return -1;
	if (load_one(src, "proc/pagetypeinfo", 0, ps_parse_pagetypeinfo, m, err) < 0)
		return -1;
	if (load_one(src, "proc/buddyinfo", 0, ps_parse_buddyinfo, m, err) < 0)
		return -1;
	if (load_nodes(src, m, err) < 0)
		return -1;
	if (load_reclaim_facts(src, m, err) < 0)
		return -1;
	text = ps_fsrc_read_opt(src, "proc/sys/kernel/osrelease", NULL, &absent, err);
	if (!text && !absent)
		return -1;
	if (text) {
		text[strcspn(text, "\n")] = 0;
		snprintf(m->release, sizeof(m->release), "%s", text);
		m->kver = ps_kver_parse(text);
		free(text);
	}
	snprintf(source, sizeof(source), "sysroot %s", src->name);
	m->source = source;
	return 0;
}

int ps_sysroot_load_machine(const char *dir, struct ps_machine *m, struct ps_error *err)
{
	struct ps_fsrc src;
	struct stat st;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return ps_err(err, "sysroot '%s' is not a directory", dir);
	ps_fsrc_dir(&src, dir);
	return ps_sysroot_load_machine_src(&src, m, err);
}

int ps_sysroot_load_counters_src(const struct ps_fsrc *src, struct ps_kv *kv, struct ps_error *err)
{
	char rel[256], name[4096];
	char *text;
	int absent;

	text = src->read(src->ctx, "proc/vmstat", NULL, err);
	if (!text)
		return -1;
	snprintf(name, sizeof(name), "%s/proc/vmstat", src->name);
	if (ps_kv_parse(kv, text, name, NULL, err) < 0) {
		free(text);
		return -1;
	}
	free(text);
	for (int node = 0; node < PS_MAX_NODES; node++) {
		char prefix[32];

		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/numastat", node);
		text = ps_fsrc_read_opt(src, rel, NULL, &absent, err);
		if (!text && !absent)
			return -1;
		if (!text)
			continue;
		snprintf(prefix, sizeof(prefix), "node%d.", node);
		snprintf(name, sizeof(name), "%s/%s", src->name, rel);
		if (ps_kv_parse(kv, text, name, prefix, err) < 0) {
			free(text);
			return -1;
		}
		free(text);
	}
	return 0;
}

int ps_sysroot_load_counters(const char *dir, struct ps_kv *kv, struct ps_error *err)
{
	struct ps_fsrc src;

	ps_fsrc_dir(&src, dir);
	return ps_sysroot_load_counters_src(&src, kv, err);
}

int ps_sysroot_same_machine(const struct ps_machine *before, const struct ps_fsrc *bsrc, const struct ps_fsrc *asrc,
			    struct ps_error *err)
{
	struct ps_machine *b = NULL, *a = malloc(sizeof(*a));
	char what[256];
	int ret = -1;

	if (!a)
		return ps_err(err, "out of memory");
	/* snapshots without a zoneinfo (counters only) cannot be compared */
	if (!asrc->exists(asrc->ctx, "proc/zoneinfo") || (!before && !bsrc->exists(bsrc->ctx, "proc/zoneinfo"))) {
		free(a);
		return 0;
	}
	if (!before) {
		b = malloc(sizeof(*b));
		if (!b) {
			ps_err(err, "out of memory");
			goto out;
		}
		if (ps_sysroot_load_machine_src(bsrc, b, err) < 0)
			goto out;
		before = b;
	}
	if (ps_sysroot_load_machine_src(asrc, a, err) < 0)
		goto out;
	if (!ps_machine_same(before, a, what, sizeof(what))) {
		ps_err(err, "%s is not a snapshot of the machine of %s: it has %s", asrc->name, bsrc->name, what);
		goto out;
	}
	ret = 0;
out:
	free(a);
	free(b);
	return ret;
}
