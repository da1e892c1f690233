// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * machfile.c - machine files: `key = value` lines into struct ps_machine.
 * Lines are read first, then checked key by key, then the machine as a
 * whole (CPUs, distances, zone overlaps); what the file leaves out is
 * derived with the kernel's rules (sim/watermark.c for watermarks and
 * lowmem_reserve, zone_batchsize/zone_highsize here).  The format and the
 * derivation rules are in docs/configs.md.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kver.h"
#include "lib/cpulist.h"
#include "lib/file.h"
#include "sim/config/machfile.h"
#include "lib/strtrim.h"
#include "sim/mm/watermark.h"

#define PFN_16M (1ull << 12)	/* end of ZONE_DMA (MAX_DMA_PFN) */
#define PFN_3G (3ull << 18)	/* start of the PCI hole of the derived layout */
#define PFN_4G (1ull << 20)	/* end of ZONE_DMA32 (MAX_DMA32_PFN) */
#define PFN_MAX (1ull << 38)	/* 1 PiB: keeps the watermark products in 64 bits */

/*
 * The derived layout's constants (docs/configs.md, "memory_mb"): DMA as
 * every recorded x86-64 zoneinfo here prints it (pfn 1-4095, the BIOS hole
 * 0x9f000-0xfffff absent, the first MiB reserved since 5.13); the boot
 * reserve of the first node (kernel image, early page tables and
 * allocations), between the 37 MiB (6.18) and 48 MiB (Debian 6.1) the
 * recorded DMA32 zones lose; 1 MiB per node for pg_data_t, per-CPU areas
 * and the like; 64 bytes of struct page per page.
 */
#define DMA_START 1
#define DMA_SPANNED 4095
#define DMA_PRESENT 3998
#define DMA_MANAGED 3840
#define BOOT_RESERVE_PAGES 10240	/* 40 MiB */
#define NODE_RESERVE_PAGES 256		/* 1 MiB */
#define STRUCT_PAGE_SIZE 64

struct ent {
	char *key, *val;
	int line;
	int used;
};

struct zspec {
	int given;			/* zone line seen */
	int line;
	uint64_t start, spanned, present, managed;
	int wmark_line, pcp_line;	/* 0 when absent */
	long wmark[3];
	long pcp[2];
};

struct nspec {
	int cpus_line, distance_line, memory_line;
	long memory_mb;			/* -1: not given */
	int has_cpu;
	int nr_node_cpus;
	struct zspec zone[PS_ZONE_NR];
};

struct ctx {
	const char *name;
	struct ps_error *err;
	struct ent *ents;
	int nr_ents;
	int nodes, nodes_line;
	struct nspec *ns;		/* [PS_MAX_NODES] */
	long min_free_kbytes;		/* -1: the boot default */
	long wsf;			/* -1: 10 */
	long ratios[PS_ZONE_NR];
	int nr_ratios, ratios_line;
	int kernel_line;
};

static const char *const known_keys =
	"name, description, page_size, pageblock_order, kernel, vm.min_free_kbytes, "
	"vm.watermark_scale_factor, vm.lowmem_reserve_ratio, nodes, node<N>.cpus, "
	"node<N>.distance, node<N>.memory_mb, node<N>.zone.<Z>, node<N>.zone.<Z>.wmark, "
	"node<N>.zone.<Z>.pcp with <Z> one of DMA DMA32 Normal Movable";

static int ent_err(struct ctx *c, const struct ent *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int ent_err(struct ctx *c, const struct ent *e, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ps_err(c->err, "%s:%d: %s: %s", c->name, e->line, e->key, msg);
}

/* Splits @text (modified) into entries; syntax errors and duplicate keys. */
static int split_lines(struct ctx *c, char *text)
{
	int cap = 0, n = 0;

	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n'), *l, *eq, *k, *v, *hash;

		if (nl)
			*nl = 0;
		n++;
		l = line;
		line = nl ? nl + 1 : NULL;
		/* '#' starts a comment anywhere: no value needs one */
		hash = strchr(l, '#');
		if (hash)
			*hash = 0;
		l = ps_trim(l);
		if (!*l)
			continue;
		eq = strchr(l, '=');
		if (!eq)
			return ps_err(c->err, "%s:%d: expected 'key = value', got '%.60s'", c->name, n, l);
		*eq = 0;
		k = ps_trim(l);
		v = ps_trim(eq + 1);
		if (!*k)
			return ps_err(c->err, "%s:%d: expected 'key = value': the key is missing", c->name, n);
		if (!*v)
			return ps_err(c->err, "%s:%d: %s: the value is missing", c->name, n, k);
		for (int i = 0; i < c->nr_ents; i++)
			if (!strcmp(c->ents[i].key, k))
				return ps_err(c->err, "%s:%d: %s: key given twice (first at line %d)",
					      c->name, n, k, c->ents[i].line);
		if (c->nr_ents == cap) {
			struct ent *p;

			cap = cap ? 2 * cap : 64;
			p = realloc(c->ents, cap * sizeof(*p));
			if (!p)
				return ps_err(c->err, "%s: out of memory", c->name);
			c->ents = p;
		}
		c->ents[c->nr_ents++] = (struct ent){ k, v, n, 0 };
	}
	return 0;
}

/* A whole-string integer in [lo, hi]. */
static int get_long(struct ctx *c, const struct ent *e, const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno == ERANGE || end == s || *end) {
		ent_err(c, e, "expected an integer, not '%s'", s);
		return -1;
	}
	if (v < lo || v > hi) {
		ent_err(c, e, "%ld is out of range [%ld, %ld]", v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

/* Up to @max blank-separated integers in [lo, hi]; returns the count or -1. */
static int get_longs(struct ctx *c, const struct ent *e, long lo, long hi, long *out, int max)
{
	const char *p = e->val;
	int n = 0;

	while (*p) {
		char *end;
		long v;

		while (isspace((unsigned char)*p) || *p == ',')
			p++;
		if (!*p)
			break;
		errno = 0;
		v = strtol(p, &end, 10);
		if (errno == ERANGE || end == p ||
		    (*end && !isspace((unsigned char)*end) && *end != ','))
			return ent_err(c, e, "expected integers separated by blanks, not '%s'", e->val);
		if (v < lo || v > hi)
			return ent_err(c, e, "%ld is out of range [%ld, %ld]", v, lo, hi);
		if (n == max)
			return ent_err(c, e, "more than %d values", max);
		out[n++] = v;
		p = end;
	}
	return n;
}

static int zone_type_of(const char *s, size_t len)
{
	static const int types[] = { PS_ZONE_DMA, PS_ZONE_DMA32, PS_ZONE_NORMAL, PS_ZONE_MOVABLE };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		const char *name = ps_zone_names[types[i]];

		if (strlen(name) == len && !strncmp(s, name, len))
			return types[i];
	}
	return -1;
}

/* `start_pfn=1 spanned=4095 present=3998 managed=3840` */
static int parse_zone_value(struct ctx *c, const struct ent *e, struct zspec *z)
{
	static const char *const names[] = { "start_pfn", "spanned", "present", "managed" };
	uint64_t *fields[] = { &z->start, &z->spanned, &z->present, &z->managed };
	char buf[512], *save = NULL, *tok;
	int seen = 0;

	snprintf(buf, sizeof(buf), "%s", e->val);
	for (tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(tok, '='), *end;
		unsigned long long v;
		int i;

		if (!eq)
			return ent_err(c, e, "expected name=value fields (start_pfn= spanned= present= managed=), got '%s'",
				       tok);
		*eq = 0;
		for (i = 0; i < 4 && strcmp(tok, names[i]); i++)
			;
		if (i == 4)
			return ent_err(c, e, "unknown field '%s' (start_pfn, spanned, present, managed)", tok);
		if (seen & (1 << i))
			return ent_err(c, e, "field %s given twice", tok);
		errno = 0;
		v = strtoull(eq + 1, &end, 10);
		if (errno || end == eq + 1 || *end || eq[1] == '-')
			return ent_err(c, e, "%s wants a page count, not '%s'", tok, eq + 1);
		if (v > PFN_MAX)
			return ent_err(c, e, "%s = %llu is out of range [0, %llu]", tok, v, PFN_MAX);
		*fields[i] = v;
		seen |= 1 << i;
	}
	for (int i = 0; i < 4; i++)
		if (!(seen & (1 << i)))
			return ent_err(c, e, "field %s missing (give start_pfn= spanned= present= managed=)",
				       names[i]);
	if (!z->spanned)
		return ent_err(c, e, "spanned is 0: leave out zones the node does not have");
	if (z->present > z->spanned || z->managed > z->present)
		return ent_err(c, e, "expected managed <= present <= spanned");
	if (z->start + z->spanned > PFN_MAX)
		return ent_err(c, e, "the zone ends beyond pfn %llu", PFN_MAX);
	return 0;
}

static int check_zone_bounds(struct ctx *c, const struct ent *e, int type, const struct zspec *z)
{
	uint64_t end = z->start + z->spanned;

	switch (type) {
	case PS_ZONE_DMA:
		if (end > PFN_16M)
			return ent_err(c, e, "ZONE_DMA ends at pfn %llu on x86-64, this one at %llu", PFN_16M,
				       (unsigned long long)end);
		break;
	case PS_ZONE_DMA32:
		if (z->start < PFN_16M || end > PFN_4G)
			return ent_err(c, e, "ZONE_DMA32 lies in pfn [%llu, %llu) on x86-64, this one in [%llu, %llu)",
				       PFN_16M, PFN_4G, (unsigned long long)z->start,
				       (unsigned long long)end);
		break;
	case PS_ZONE_NORMAL:
		if (z->start < PFN_4G)
			return ent_err(c, e, "ZONE_NORMAL starts at or above pfn %llu (4 GiB) on x86-64, not %llu",
				       PFN_4G, (unsigned long long)z->start);
		break;
	case PS_ZONE_MOVABLE:
		if (z->start < PFN_16M)
			return ent_err(c, e, "ZONE_MOVABLE starts at or above pfn %llu, not %llu", PFN_16M,
				       (unsigned long long)z->start);
		break;
	}
	return 0;
}

/* node<N>.REST: returns N and points *rest after the dot, or -1 */
static int node_key(const char *key, const char **rest)
{
	const char *p = key + 4;
	long n = 0;

	if (strncmp(key, "node", 4) || !isdigit((unsigned char)*p))
		return -1;
	if (*p == '0' && isdigit((unsigned char)p[1]))
		return -1;	/* node01: one spelling per key */
	while (isdigit((unsigned char)*p)) {
		n = n * 10 + (*p++ - '0');
		if (n > 100000)
			return -1;
	}
	if (*p != '.')
		return -1;
	*rest = p + 1;
	return (int)n;
}

static int do_global(struct ctx *c, struct ent *e, struct ps_machine *m)
{
	long v;

	if (!strcmp(e->key, "name") || !strcmp(e->key, "description"))
		return 0;
	if (!strcmp(e->key, "page_size")) {
		if (get_long(c, e, e->val, 1, 1L << 30, &v) < 0)
			return -1;
		if (v != 4096)
			return ent_err(c, e, "page size %ld is not supported: pagesim models x86-64 with 4096-byte pages",
				       v);
		return 0;
	}
	if (!strcmp(e->key, "pageblock_order")) {
		if (get_long(c, e, e->val, 1, PS_NR_PAGE_ORDERS - 1, &v) < 0)
			return -1;
		m->pageblock_order = (int)v;
		return 0;
	}
	if (!strcmp(e->key, "kernel")) {
		m->kver = ps_kver_parse(e->val);
		if (m->kver == PS_KVER_UNKNOWN || m->kver < PS_KVER(3, 0, 0))
			return ent_err(c, e, "'%s' is not a kernel release (e.g. 4.4, 6.1, 6.1.0-57-amd64)",
				       e->val);
		snprintf(m->release, sizeof(m->release), "%s", e->val);
		c->kernel_line = e->line;
		return 0;
	}
	if (!strcmp(e->key, "vm.min_free_kbytes"))
		return get_long(c, e, e->val, 0, 67108864, &c->min_free_kbytes);
	if (!strcmp(e->key, "vm.watermark_scale_factor"))
		return get_long(c, e, e->val, 1, 3000, &c->wsf);
	if (!strcmp(e->key, "vm.lowmem_reserve_ratio")) {
		int n = get_longs(c, e, 0, 1L << 30, c->ratios, PS_ZONE_NR);

		if (n < 0)
			return -1;
		c->nr_ratios = n;
		c->ratios_line = e->line;
		return 0;
	}
	return 1;		/* not a global key */
}

static int do_node(struct ctx *c, struct ent *e, int node, const char *rest)
{
	struct nspec *n = &c->ns[node];
	const char *zn, *dot;
	int type;

	if (node >= c->nodes)
		return ent_err(c, e, "node %d does not exist: nodes = %d (line %d) numbers them 0-%d", node,
			       c->nodes, c->nodes_line, c->nodes - 1);
	if (!strcmp(rest, "cpus")) {
		n->cpus_line = e->line;
		return 0;	/* parsed in check_cpus, all nodes at once */
	}
	if (!strcmp(rest, "distance")) {
		n->distance_line = e->line;
		return 0;	/* parsed in check_distances */
	}
	if (!strcmp(rest, "memory_mb")) {
		n->memory_line = e->line;
		return get_long(c, e, e->val, 0, 1L << 28, &n->memory_mb);
	}
	if (strncmp(rest, "zone.", 5))
		return 1;
	zn = rest + 5;
	dot = strchr(zn, '.');
	type = zone_type_of(zn, dot ? (size_t)(dot - zn) : strlen(zn));
	if (type < 0)
		return ent_err(c, e, "unknown zone: x86-64 zones are DMA, DMA32, Normal and Movable");
	if (!dot) {
		struct zspec *z = &n->zone[type];

		z->given = 1;
		z->line = e->line;
		if (parse_zone_value(c, e, z) < 0)
			return -1;
		return check_zone_bounds(c, e, type, z);
	}
	if (!strcmp(dot, ".wmark")) {
		struct zspec *z = &n->zone[type];
		int nv = get_longs(c, e, 0, 1L << 40, z->wmark, 3);

		if (nv < 0)
			return -1;
		if (nv != 3)
			return ent_err(c, e, "expected three watermarks: MIN LOW HIGH");
		if (z->wmark[0] > z->wmark[1] || z->wmark[1] > z->wmark[2])
			return ent_err(c, e, "expected MIN <= LOW <= HIGH");
		z->wmark_line = e->line;
		return 0;
	}
	if (!strcmp(dot, ".pcp")) {
		struct zspec *z = &n->zone[type];
		int nv = get_longs(c, e, 0, 1L << 24, z->pcp, 2);

		if (nv < 0)
			return -1;
		if (nv != 2)
			return ent_err(c, e, "expected two values: HIGH BATCH");
		if (z->pcp[1] < 1)
			return ent_err(c, e, "batch %ld: the kernel's batch is at least 1", z->pcp[1]);
		z->pcp_line = e->line;
		return 0;
	}
	return 1;
}

/* CPU lists: every CPU in exactly one node, no holes in the numbering. */
static int check_cpus(struct ctx *c, struct ps_machine *m)
{
	int owner_line[PS_MAX_CPUS];

	memset(owner_line, 0, sizeof(owner_line));
	for (int i = 0; i < c->nr_ents; i++) {
		struct ent *e = &c->ents[i];
		const char *rest;
		int node = node_key(e->key, &rest);
		int16_t tmp[PS_MAX_CPUS];
		int max = 0;

		if (node < 0 || node >= c->nodes || strcmp(rest, "cpus"))
			continue;
		for (int k = 0; k < PS_MAX_CPUS; k++)
			tmp[k] = -1;
		if (ps_parse_cpulist(e->val, tmp, node, &max) < 0)
			return ent_err(c, e, "'%s' is not a CPU list (e.g. 0-11,24-35; CPUs 0-%d)", e->val,
				       PS_MAX_CPUS - 1);
		for (int cpu = 0; cpu < max; cpu++) {
			if (tmp[cpu] < 0)
				continue;
			if (m->cpu_node[cpu] >= 0)
				return ent_err(c, e, "CPU %d is already in node %d (line %d): a CPU belongs to one node",
					       cpu, m->cpu_node[cpu], owner_line[cpu]);
			m->cpu_node[cpu] = (int16_t)node;
			owner_line[cpu] = e->line;
			c->ns[node].has_cpu = 1;
			c->ns[node].nr_node_cpus++;
		}
		if (max > m->nr_cpus)
			m->nr_cpus = max;
	}
	if (!m->nr_cpus)
		return ps_err(c->err, "%s:%d: nodes: no node lists a CPU: give node<N>.cpus (e.g. node0.cpus = 0-3)",
			      c->name, c->nodes_line);
	for (int cpu = 0; cpu < m->nr_cpus; cpu++)
		if (m->cpu_node[cpu] < 0)
			return ps_err(c->err, "%s:%d: nodes: CPU %d is in no node (CPUs up to %d are listed): number CPUs from 0 without holes",
				      c->name, c->nodes_line, cpu, m->nr_cpus - 1);
	return 0;
}

static struct ent *find_ent(struct ctx *c, const char *key)
{
	for (int i = 0; i < c->nr_ents; i++)
		if (!strcmp(c->ents[i].key, key))
			return &c->ents[i];
	return NULL;
}

/* Rows of exactly `nodes` values; own distance 10, others 11-255, symmetric. */
static int check_distances(struct ctx *c, struct ps_machine *m)
{
	char key[64];

	for (int i = 0; i < c->nodes; i++) {
		struct ent *e;
		long row[PS_MAX_NODES];
		int n;

		snprintf(key, sizeof(key), "node%d.distance", i);
		e = find_ent(c, key);
		if (!e) {
			if (c->nodes == 1) {
				m->distance[0][0] = 10;
				continue;
			}
			return ps_err(c->err, "%s:%d: nodes: %s missing (a row of %d distances, 10 for the node itself)",
				      c->name, c->nodes_line, key, c->nodes);
		}
		n = get_longs(c, e, 0, 255, row, PS_MAX_NODES);
		if (n < 0)
			return -1;
		if (n != c->nodes)
			return ent_err(c, e, "%d distances for %d nodes: give one per node", n, c->nodes);
		for (int j = 0; j < n; j++) {
			if (i == j && row[j] != 10)
				return ent_err(c, e, "the distance of node %d to itself is %ld, must be 10", i,
					       row[j]);
			if (i != j && row[j] <= 10)
				return ent_err(c, e, "distance %ld to node %d: remote distances are 11-255 (the kernel rejects the table otherwise)",
					       row[j], j);
			m->distance[i][j] = (int)row[j];
		}
	}
	for (int i = 0; i < c->nodes; i++)
		for (int j = 0; j < i; j++)
			if (m->distance[i][j] != m->distance[j][i]) {
				snprintf(key, sizeof(key), "node%d.distance", i);
				return ent_err(c, find_ent(c, key),
					       "distance to node %d is %d but node%d.distance (line %d) gives %d: the table must be symmetric",
					       j, m->distance[i][j], j, c->ns[j].distance_line,
					       m->distance[j][i]);
			}
	return 0;
}

static struct ps_zone_desc *add_zone(struct ps_machine *m, int node, int type, uint64_t start,
				     uint64_t spanned, uint64_t present, uint64_t managed)
{
	struct ps_zone_desc *d = &m->zones[m->nr_zones++];

	memset(d, 0, sizeof(*d));
	d->node = node;
	d->type = type;
	d->start_pfn = start;
	d->spanned = spanned;
	d->present = present;
	d->managed = managed;
	d->pcp_high = d->pcp_batch = -1;
	return d;
}

/*
 * Zones of a memory_mb node (docs/configs.md): @low says the node holds
 * the low memory (DMA, DMA32); *cursor is where the next node's memory
 * starts (moved past this node's).
 */
static int derive_zones(struct ctx *c, struct ps_machine *m, int node, int low, uint64_t *cursor)
{
	struct nspec *n = &c->ns[node];
	uint64_t pages = (uint64_t)n->memory_mb << 8, present = 0, memmap, reserve;
	struct ps_zone_desc *top, *dma32 = NULL;
	struct ent *e;
	char key[64];

	snprintf(key, sizeof(key), "node%d.memory_mb", node);
	e = find_ent(c, key);
	if (low) {
		uint64_t below3g = PFN_3G - PFN_16M, rest;

		if (n->memory_mb < 64)
			return ent_err(c, e, "%ld MiB: the node holding DMA and DMA32 needs at least 64 MiB",
				       n->memory_mb);
		add_zone(m, node, PS_ZONE_DMA, DMA_START, DMA_SPANNED, DMA_PRESENT, DMA_MANAGED);
		present += DMA_PRESENT;
		rest = pages - PFN_16M;
		if (rest <= below3g) {
			dma32 = add_zone(m, node, PS_ZONE_DMA32, PFN_16M, rest, rest, rest);
			present += rest;
			*cursor = PFN_4G;
		} else {
			/* RAM up to 3 GiB, then the PCI hole: the zone still spans to 4 GiB */
			dma32 = add_zone(m, node, PS_ZONE_DMA32, PFN_16M, PFN_4G - PFN_16M, below3g,
					 below3g);
			present += below3g;
			rest -= below3g;
			add_zone(m, node, PS_ZONE_NORMAL, PFN_4G, rest, rest, rest);
			present += rest;
			*cursor = PFN_4G + rest;
		}
	} else {
		if (n->memory_mb < 16)
			return ent_err(c, e, "%ld MiB: a node needs at least 16 MiB (or 0: no memory)",
				       n->memory_mb);
		if (*cursor < PFN_4G)
			*cursor = PFN_4G;
		if (*cursor + pages > PFN_MAX)
			return ent_err(c, e, "the node would end beyond pfn %llu", PFN_MAX);
		add_zone(m, node, PS_ZONE_NORMAL, *cursor, pages, pages, pages);
		present = pages;
		*cursor += pages;
	}
	/* memmap and the node's reserve from its highest zone, the boot reserve from DMA32 */
	top = &m->zones[m->nr_zones - 1];
	memmap = (present * STRUCT_PAGE_SIZE + (1u << 12) - 1) >> 12;
	reserve = memmap + NODE_RESERVE_PAGES;
	if (dma32 && dma32 != top) {
		if (dma32->managed <= BOOT_RESERVE_PAGES || top->managed <= reserve)
			return ent_err(c, e, "%ld MiB is too small for the boot reserve", n->memory_mb);
		dma32->managed -= BOOT_RESERVE_PAGES;
	} else if (dma32) {
		reserve += BOOT_RESERVE_PAGES;
	}
	if (top->managed <= reserve)
		return ent_err(c, e, "%ld MiB is too small: the memmap and boot reserve take %llu pages",
			       n->memory_mb, (unsigned long long)reserve);
	top->managed -= reserve;
	return 0;
}

static int build_zones(struct ctx *c, struct ps_machine *m)
{
	uint64_t cursor = 0;
	int low_done = 0;

	for (int node = 0; node < c->nodes; node++) {
		struct nspec *n = &c->ns[node];
		int explicit = 0;

		for (int t = 0; t < PS_ZONE_NR; t++) {
			struct zspec *z = &n->zone[t];

			if (!z->given)
				continue;
			if (n->memory_line) {
				char key[64];

				snprintf(key, sizeof(key), "node%d.zone.%s", node, ps_zone_names[t]);
				return ent_err(c, find_ent(c, key),
					       "node%d.memory_mb (line %d) already gives the node's memory: use one or the other",
					       node, n->memory_line);
			}
			add_zone(m, node, t, z->start, z->spanned, z->present, z->managed);
			if (z->start + z->spanned > cursor)
				cursor = z->start + z->spanned;
			explicit = 1;
			low_done = 1;
		}
		if (!explicit && !n->memory_line)
			return ps_err(c->err, "%s:%d: nodes: node %d has neither node%d.memory_mb nor node%d.zone.<Z> lines (memory_mb = 0 for a node without memory)",
				      c->name, c->nodes_line, node, node, node);
		if (n->memory_line && n->memory_mb > 0) {
			if (derive_zones(c, m, node, !low_done, &cursor) < 0)
				return -1;
			low_done = 1;
		}
		if (!explicit && n->memory_mb == 0 && !n->has_cpu) {
			char key[64];

			snprintf(key, sizeof(key), "node%d.memory_mb", node);
			return ent_err(c, find_ent(c, key),
				       "node %d has neither memory nor CPUs: such a node does not exist", node);
		}
	}
	if (!m->nr_zones)
		return ps_err(c->err, "%s:%d: nodes: no node has memory", c->name, c->nodes_line);
	ps_machine_finish(m);
	for (int i = 1; i < m->nr_zones; i++) {
		const struct ps_zone_desc *a = &m->zones[i - 1], *b = &m->zones[i];

		if (a->start_pfn + a->spanned > b->start_pfn) {
			char key[64];
			const struct zspec *zb = &c->ns[b->node].zone[b->type];

			snprintf(key, sizeof(key), "node%d.zone.%s", b->node, ps_zone_names[b->type]);
			if (zb->given)
				return ent_err(c, find_ent(c, key),
					       "pfn %llu-%llu overlaps node %d's %s zone (pfn %llu-%llu)",
					       (unsigned long long)b->start_pfn,
					       (unsigned long long)(b->start_pfn + b->spanned - 1),
					       a->node, ps_zone_names[a->type],
					       (unsigned long long)a->start_pfn,
					       (unsigned long long)(a->start_pfn + a->spanned - 1));
			return ps_err(c->err, "%s: node %d's %s zone (pfn %llu-%llu) overlaps node %d's %s zone (pfn %llu-%llu): zones must not overlap",
				      c->name, b->node, ps_zone_names[b->type],
				      (unsigned long long)b->start_pfn,
				      (unsigned long long)(b->start_pfn + b->spanned - 1), a->node,
				      ps_zone_names[a->type], (unsigned long long)a->start_pfn,
				      (unsigned long long)(a->start_pfn + a->spanned - 1));
		}
	}
	return 0;
}

/* Watermark, pcp lines must name zones the node has. */
static int check_zone_refs(struct ctx *c, struct ps_machine *m)
{
	for (int node = 0; node < c->nodes; node++)
		for (int t = 0; t < PS_ZONE_NR; t++) {
			const struct zspec *z = &c->ns[node].zone[t];
			char key[64];

			if (!z->wmark_line && !z->pcp_line)
				continue;
			if (ps_machine_zone_index(m, node, t) >= 0)
				continue;
			snprintf(key, sizeof(key), "node%d.zone.%s.%s", node, ps_zone_names[t],
				 z->wmark_line ? "wmark" : "pcp");
			return ent_err(c, find_ent(c, key), "node %d has no %s zone", node,
				       ps_zone_names[t]);
		}
	return 0;
}

static int fill_marks(struct ctx *c, struct ps_machine *m)
{
	struct ps_wmark_tunables t;
	struct ps_wmarks *w;

	ps_wmark_tunables_default(&t, m->kver);
	if (c->min_free_kbytes >= 0)
		t.min_free_kbytes = c->min_free_kbytes;
	if (c->wsf >= 0)
		t.watermark_scale_factor = (int)c->wsf;
	if (c->ratios_line && ps_wmark_set_ratios(&t, c->ratios, c->nr_ratios) < 0) {
		struct ent *e = find_ent(c, "vm.lowmem_reserve_ratio");

		return ent_err(c, e, "%d values: /proc/sys/vm/lowmem_reserve_ratio lists 5 values on x86-64 (DMA DMA32 Normal Movable Device), 4 up to 4.18",
			       c->nr_ratios);
	}
	w = malloc(sizeof(*w));
	if (!w)
		return ps_err(c->err, "%s: out of memory", c->name);
	if (ps_wmark_setup(w, m, &t) < 0) {
		free(w);
		return ps_err(c->err, "%s:%d: nodes: no managed page below ZONE_MOVABLE: the kernel would not boot",
			      c->name, c->nodes_line);
	}
	for (int i = 0; i < m->nr_zones; i++) {
		struct ps_zone_desc *d = &m->zones[i];
		const struct zspec *z = &c->ns[d->node].zone[d->type];
		const struct ps_wmark_zone *wz = &w->zone[d->node][d->type];
		int j = 0;

		if (z->wmark_line) {
			d->wmark_min = z->wmark[0];
			d->wmark_low = z->wmark[1];
			d->wmark_high = z->wmark[2];
		} else {
			d->wmark_min = wz->mark[PS_WMARK_MIN];
			d->wmark_low = wz->mark[PS_WMARK_LOW];
			d->wmark_high = wz->mark[PS_WMARK_HIGH];
		}
		if (d->managed && (uint64_t)d->wmark_min >= d->managed) {
			struct ent *e = z->wmark_line ? NULL : find_ent(c, "vm.min_free_kbytes");

			free(w);
			if (e)
				return ent_err(c, e, "the min watermark of node %d's %s zone would be %ld pages, not below its %llu managed pages: nothing could be allocated there",
					       d->node, ps_zone_names[d->type], d->wmark_min, (unsigned long long)d->managed);
			return ps_err(c->err, "%s:%d: node %d's %s zone: min watermark %ld, not below its %llu managed pages",
				      c->name, z->wmark_line ? z->wmark_line : c->nodes_line, d->node, ps_zone_names[d->type],
				      d->wmark_min, (unsigned long long)d->managed);
		}
		if (d->managed && (uint64_t)d->wmark_high > d->managed)
			ps_machine_warn(m, "%s: node %d's %s zone: the high watermark (%ld pages) lies above its %llu managed pages: kswapd can never balance it",
					c->name, d->node, ps_zone_names[d->type], d->wmark_high,
					(unsigned long long)d->managed);
		/* protection[] as zoneinfo prints it: one per zone type the kernel has */
		for (int type = 0; type < PS_ZONE_NR; type++) {
			if (!(t.zone_types & (1u << type)))
				continue;
			d->lowmem_reserve[type] = wz->lowmem_reserve[type];
			d->protection[j++] = wz->lowmem_reserve[type];
		}
		d->nr_protection = j;
		if (z->pcp_line) {
			d->pcp_high = (int)z->pcp[0];
			d->pcp_batch = (int)z->pcp[1];
		} else {
			ps_pcp_zone_default(m->kver, d->managed, d->wmark_low,
					    c->ns[d->node].nr_node_cpus, m->nr_cpus, &d->pcp_high,
					    &d->pcp_batch);
		}
	}
	free(w);
	return 0;
}

int ps_pcp_zone_batchsize(int kver, uint64_t managed)
{
	int v = kver == PS_KVER_UNKNOWN ? PS_KVER(255, 0, 0) : kver;
	uint64_t cap = v >= PS_KVER(4, 19, 0) ? (1u << 20) >> 12 : (512u << 10) >> 12;
	uint64_t b = managed >> 10;
	uint64_t x, p = 1;

	if (b > cap)
		b = cap;
	b /= 4;
	if (b < 1)
		b = 1;
	x = b + b / 2;
	while (p * 2 <= x)
		p *= 2;
	return (int)(p - 1);
}

void ps_pcp_zone_default(int kver, uint64_t managed, long low_wmark, int node_cpus, int nr_cpus,
			 int *high, int *batch)
{
	int v = kver == PS_KVER_UNKNOWN ? PS_KVER(255, 0, 0) : kver;
	int b = ps_pcp_zone_batchsize(kver, managed);
	int split = node_cpus > 0 ? node_cpus : nr_cpus > 0 ? nr_cpus : 1;

	*batch = b > 1 ? b : 1;
	if (v < PS_KVER(5, 14, 0)) {
		/* pageset_set_batch(): high from the unclamped batch */
		*high = 6 * b;
		return;
	}
	*high = (int)(low_wmark / split);
	if (*high < 4 * *batch)
		*high = 4 * *batch;
}

/* m->source must outlive the machine: one copy per distinct name, kept to the end. */
static const char *intern(const char *name)
{
	static struct iname {
		struct iname *next;
		char s[];
	} *head;
	static __thread char fallback[4096];
	struct iname *p;

	for (p = head; p; p = p->next)
		if (!strcmp(p->s, name))
			return p->s;
	p = malloc(sizeof(*p) + strlen(name) + 1);
	if (!p) {
		snprintf(fallback, sizeof(fallback), "%s", name);
		return fallback;
	}
	strcpy(p->s, name);
	p->next = head;
	head = p;
	return p->s;
}

int ps_machine_parse(const char *text, const char *name, struct ps_machine *m,
		     struct ps_error *err)
{
	struct ctx c = { .name = name, .err = err, .min_free_kbytes = -1, .wsf = -1 };
	char *buf = strdup(text);
	int ret = -1;

	ps_machine_init(m);
	err->msg[0] = 0;
	c.ns = calloc(PS_MAX_NODES, sizeof(*c.ns));
	if (!buf || !c.ns) {
		ps_err(err, "%s: out of memory", name);
		goto out;
	}
	if (split_lines(&c, buf) < 0)
		goto out;
	/* nodes first: node keys are checked against it wherever it stands */
	for (int i = 0; i < c.nr_ents; i++) {
		struct ent *e = &c.ents[i];
		long v;

		if (strcmp(e->key, "nodes"))
			continue;
		if (get_long(&c, e, e->val, 1, PS_MAX_NODES, &v) < 0)
			goto out;
		c.nodes = (int)v;
		c.nodes_line = e->line;
		e->used = 1;
	}
	if (!c.nodes) {
		ps_err(err, "%s: no 'nodes = N' line: a machine file gives its node count", name);
		goto out;
	}
	for (int i = 0; i < c.nr_ents; i++) {
		struct ent *e = &c.ents[i];
		const char *rest;
		int node, r;

		if (e->used)
			continue;
		node = node_key(e->key, &rest);
		if (node >= 0)
			r = node < PS_MAX_NODES ? do_node(&c, e, node, rest) :
						  ent_err(&c, e, "node %d does not exist: nodes = %d (line %d)",
							  node, c.nodes, c.nodes_line);
		else
			r = do_global(&c, e, m);
		if (r < 0)
			goto out;
		if (r > 0) {
			ps_err(err, "%s:%d: %s: unknown key (known: %s)", name, e->line, e->key,
			       known_keys);
			goto out;
		}
	}
	m->nr_nodes = c.nodes;
	m->node_online = c.nodes >= 64 ? ~0ull : (1ull << c.nodes) - 1;
	if (check_cpus(&c, m) < 0 || check_distances(&c, m) < 0 || build_zones(&c, m) < 0 ||
	    check_zone_refs(&c, m) < 0 || fill_marks(&c, m) < 0)
		goto out;
	m->source = intern(name);
	ret = 0;
out:
	free(c.ents);
	free(c.ns);
	free(buf);
	return ret;
}

int ps_machine_load(const char *path, struct ps_machine *m, struct ps_error *err)
{
	char *text = ps_read_file(path, NULL, err);
	int ret;

	if (!text) {
		ps_machine_init(m);
		return -1;
	}
	ret = ps_machine_parse(text, path, m, err);
	free(text);
	return ret;
}
