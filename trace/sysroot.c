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

int ps_parse_zoneinfo(const char *text, const char *name, struct ps_machine *m, struct ps_error *err)
{
	struct ps_zone_desc cur;
	int have = 0, line = 0, in_pagesets = 0, pcp_done = 0, cur_index = 0, node_prev = -1, in_node_stats = 0;
	int node_types[PS_MAX_NODES][8];
	int node_nz[PS_MAX_NODES];
	int have_start = 0, seed_cpu = -1;
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
		} else if (sscanf(buf, " low %ld", &lv) == 1 && !in_pagesets) {
			if (!page_count_ok(lv))
				return bad_page_count(err, name, line, buf);
			cur.wmark_low = lv;
		} else if (sscanf(buf, " high %ld", &lv) == 1 && !in_pagesets) {
			if (!page_count_ok(lv))
				return bad_page_count(err, name, line, buf);
			cur.wmark_high = lv;
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
			if (pb < 0 || pb > 20)
				return ps_err(err, "%s:%d: pageblock order %d out of range", name, line, pb);
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

			zname[strcspn(zname, ",")] = 0;
			z = find_zone(m, node, zname);
			if (!z || mt < 0 || mt >= PS_NR_MT)
				continue;	/* empty zone or a type we do not keep */
			for (int o = 0; o < PS_NR_ORDERS; o++) {
				char *end;
				unsigned long long v = strtoull(q, &end, 10);

				if (end == q)
					return ps_err(err, "%s:%d: expected %d free counts, one per order", name, line, PS_NR_ORDERS);
				z->nr_free[o][mt] = v;
				q = end;
			}
			z->have_pagetypeinfo = 1;
		} else if (ncols && sscanf(buf, "Node %d, zone %31s%n", &node, zname, &n) == 2) {
			struct ps_zone_desc *z = find_zone(m, node, zname);
			const char *q = buf + n;

			if (!z)
				continue;
			for (int c = 0; c < ncols; c++) {
				char *end;
				unsigned long long v = strtoull(q, &end, 10);

				if (end == q)
					return ps_err(err, "%s:%d: expected %d block counts", name, line, ncols);
				if (cols[c] >= 0 && cols[c] < PS_NR_MT)
					z->nr_blocks[cols[c]] = v;
				q = end;
			}
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

		line++;
		if (sscanf(buf, "Node %d, zone %31s%n", &node, zname, &n) != 2)
			return ps_err(err, "%s:%d: expected 'Node N, zone NAME counts...'", name, line);
		z = find_zone(m, node, zname);
		if (!z)
			continue;
		q = buf + n;
		for (int o = 0; o < PS_NR_ORDERS; o++) {
			char *end;
			unsigned long long v = strtoull(q, &end, 10);

			if (end == q)
				return ps_err(err, "%s:%d: expected %d free counts, one per order", name, line, PS_NR_ORDERS);
			z->buddy[o] = v;
			q = end;
		}
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

void ps_fsrc_dir(struct ps_fsrc *src, const char *dir)
{
	src->read = dir_read;
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

void ps_fsrc_reader(struct ps_fsrc *src, struct ps_reader *r, const char *prefix, const char *name)
{
	static __thread struct reader_src rs[2];
	static __thread char names[2][4096];
	int i = strcmp(prefix, "before") != 0;

	rs[i].r = r;
	snprintf(rs[i].prefix, sizeof(rs[i].prefix), "%s", prefix);
	snprintf(names[i], sizeof(names[i]), "%s (%s)", name, prefix);
	src->read = reader_read;
	src->ctx = &rs[i];
	src->name = names[i];
}

static int load_nodes(const struct ps_fsrc *src, struct ps_machine *m, struct ps_error *err)
{
	char rel[256];

	for (int node = 0; node < m->nr_nodes; node++) {
		char *text;

		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/cpulist", node);
		text = src->read(src->ctx, rel, NULL, NULL);
		if (text) {
			if (ps_parse_cpulist(text, m->cpu_node, node, &m->nr_cpus) < 0) {
				free(text);
				return ps_err(err, "%s/%s: not a CPU list (expected e.g. '0-3,8')", src->name, rel);
			}
			free(text);
		}
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/distance", node);
		text = src->read(src->ctx, rel, NULL, NULL);
		if (text) {
			const char *q = text;

			for (int j = 0; j < m->nr_nodes; j++) {
				char *end;
				long d = strtol(q, &end, 10);

				if (end == q) {
					free(text);
					return ps_err(err, "%s/%s: expected %d distances", src->name, rel, m->nr_nodes);
				}
				m->distance[node][j] = d;
				q = end;
			}
			free(text);
		} else {
			for (int j = 0; j < m->nr_nodes; j++)
				m->distance[node][j] = node == j ? 10 : 20;
		}
	}
	return 0;
}

static int load_one(const struct ps_fsrc *src, const char *rel, int required,
		    int (*parse)(const char *, const char *, struct ps_machine *, struct ps_error *),
		    struct ps_machine *m, struct ps_error *err)
{
	char name[4096];
	char *text;
	int ret;

	snprintf(name, sizeof(name), "%s/%s", src->name, rel);
	text = src->read(src->ctx, rel, NULL, err);
	if (!text) {
		if (!required)
			return 0;
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
	int ret = 0;

	for (int node = 0; node < m->nr_nodes && node < PS_MAX_NODES && !ret; node++) {
		snprintf(rel, sizeof(rel), "sys/devices/system/node/node%d/vmstat", node);
		text = src->read(src->ctx, rel, NULL, NULL);
		if (!text)
			continue;
		snprintf(name, sizeof(name), "%s/%s", src->name, rel);
		ret = parse_node_vmstat(text, name, m->page_shift, &m->node[node], err);
		free(text);
	}
	if (ret)
		return -1;
	text = src->read(src->ctx, "proc/meminfo", NULL, NULL);
	if (text) {
		snprintf(name, sizeof(name), "%s/proc/meminfo", src->name);
		ret = parse_swap(text, name, m, err);
		free(text);
		if (ret)
			return -1;
	}
	text = src->read(src->ctx, "sys/kernel/mm/lru_gen/enabled", NULL, NULL);
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
	text = src->read(src->ctx, "proc/sys/kernel/osrelease", NULL, NULL);
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
		text = src->read(src->ctx, rel, NULL, NULL);
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
