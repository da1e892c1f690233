// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * breakdown.c - --by: allocations and frees per group (order,
 * migratetype, gfp, task, cpu, zone), with their pages and NUMA outcome, as
 * perf kmem stat --page groups and sorts them.
 *
 * An allocation's group is its request's (order, migratetype, gfp, the
 * task and CPU asking) and the zone that served it.  A free carries its
 * order, task, CPU and zone; its migratetype and gfp are those of the
 * allocation that handed the block out, when the trace showed it ("-"
 * otherwise).  Groups are made when first seen (a table that grows); the
 * events of a group add numbers.  With task, each event's name is compared
 * (at most 15 bytes).
 */
#include <stdlib.h>
#include <string.h>

#include "trace/gfp.h"
#include "cli/timeline.h"

struct group {
	int64_t key[PS_BY_NR];
	uint64_t allocs, alloc_pages, frees, free_pages, failed, hit, miss, local, other;
	int used;
};

struct comm_ent {
	char name[16];
	int used;
};

/* What the trace's allocation of a block asked for, by its head pfn. */
struct alloc_rec {
	uint32_t *gfp;
	int8_t *mt;	/* migratetype + 2; 0: no allocation seen */
};

struct ps_by {
	int by[PS_BY_NR], nr_by;
	struct group *g;
	uint32_t cap, nr;
	struct comm_ent *comm;
	uint32_t comm_cap, nr_comm;
	const struct ps_machine *m;
	struct ps_zone_table zt;
	struct alloc_rec *rec;	/* [zone], with migratetype or gfp */
	int failed;
};

#define UNKNOWN (-1)

static uint64_t hash_key(const int64_t *k)
{
	uint64_t h = 1469598103934665603ull;

	for (int i = 0; i < PS_BY_NR; i++) {
		h ^= (uint64_t)k[i];
		h *= 1099511628211ull;
		h ^= h >> 29;
	}
	return h;
}

struct ps_by *ps_by_create(const struct ps_view_opts *o, const struct ps_machine *m)
{
	struct ps_by *b = calloc(1, sizeof(*b));
	int rec = 0;

	if (!b)
		return NULL;
	memcpy(b->by, o->by, sizeof(b->by));
	b->nr_by = o->nr_by;
	b->m = m;
	b->cap = 1024;
	b->g = calloc(b->cap, sizeof(*b->g));
	for (int i = 0; i < b->nr_by; i++)
		rec |= b->by[i] == PS_BY_MT || b->by[i] == PS_BY_GFP;
	if (rec) {
		ps_zone_table_init(&b->zt, m);
		b->rec = calloc(m->nr_zones ? m->nr_zones : 1, sizeof(*b->rec));
	}
	if (!b->g || (rec && !b->rec)) {
		ps_by_destroy(b);
		return NULL;
	}
	return b;
}

void ps_by_destroy(struct ps_by *b)
{
	if (!b)
		return;
	for (int zi = 0; b->rec && zi < b->m->nr_zones; zi++) {
		free(b->rec[zi].gfp);
		free(b->rec[zi].mt);
	}
	free(b->rec);
	free(b->g);
	free(b->comm);
	free(b);
}

/* The record of head pfn @pfn (allocated when first needed, if @make), or NULL. */
static int rec_slot(struct ps_by *b, uint64_t pfn, int make, struct alloc_rec **r, uint64_t *i)
{
	int zi = pfn == PS_PFN_NONE ? -1 : ps_zone_table_lookup(&b->zt, pfn);
	const struct ps_zone_desc *d;

	if (zi < 0)
		return 0;
	d = &b->m->zones[zi];
	if (pfn < d->start_pfn || pfn - d->start_pfn >= d->spanned)
		return 0;
	*r = &b->rec[zi];
	*i = pfn - d->start_pfn;
	if (!(*r)->mt) {
		if (!make)
			return 0;
		/* calloc'd: pages of the table the trace never touches cost nothing */
		(*r)->mt = calloc(d->spanned, 1);
		(*r)->gfp = calloc(d->spanned, sizeof(uint32_t));
		if (!(*r)->mt || !(*r)->gfp) {
			free((*r)->mt);
			free((*r)->gfp);
			(*r)->mt = NULL;
			(*r)->gfp = NULL;
			b->failed = 1;
			return 0;
		}
	}
	return 1;
}

static int64_t comm_id(struct ps_by *b, const char *comm)
{
	uint32_t h = 2166136261u, i;

	if (!comm)
		return UNKNOWN;
	for (const char *p = comm; *p && p < comm + 15; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	if (2 * (b->nr_comm + 1) > b->comm_cap) {
		uint32_t cap = b->comm_cap ? 2 * b->comm_cap : 256;
		struct comm_ent *n = calloc(cap, sizeof(*n));

		if (!n) {
			b->failed = 1;
			return UNKNOWN;
		}
		for (uint32_t k = 0; k < b->comm_cap; k++) {
			uint32_t hh = 2166136261u, j;

			if (!b->comm[k].used)
				continue;
			for (const char *p = b->comm[k].name; *p; p++)
				hh = (hh ^ (uint8_t)*p) * 16777619u;
			for (j = hh & (cap - 1); n[j].used; j = (j + 1) & (cap - 1))
				;
			n[j] = b->comm[k];
		}
		free(b->comm);
		b->comm = n;
		b->comm_cap = cap;
	}
	for (i = h & (b->comm_cap - 1); b->comm[i].used; i = (i + 1) & (b->comm_cap - 1))
		if (!strncmp(b->comm[i].name, comm, 15))
			return i;
	b->comm[i].used = 1;
	snprintf(b->comm[i].name, sizeof(b->comm[i].name), "%.15s", comm);
	b->nr_comm++;
	return i;
}

static struct group *group_of(struct ps_by *b, const int64_t *k)
{
	uint32_t i;

	if (2 * (b->nr + 1) > b->cap) {
		uint32_t cap = 2 * b->cap;
		struct group *n = calloc(cap, sizeof(*n));

		if (!n) {
			b->failed = 1;
			return NULL;
		}
		for (uint32_t j = 0; j < b->cap; j++) {
			uint32_t s;

			if (!b->g[j].used)
				continue;
			for (s = (uint32_t)hash_key(b->g[j].key) & (cap - 1); n[s].used; s = (s + 1) & (cap - 1))
				;
			n[s] = b->g[j];
		}
		free(b->g);
		b->g = n;
		b->cap = cap;
	}
	for (i = (uint32_t)hash_key(k) & (b->cap - 1); b->g[i].used; i = (i + 1) & (b->cap - 1))
		if (!memcmp(b->g[i].key, k, sizeof(b->g[i].key)))
			return &b->g[i];
	b->g[i].used = 1;
	memcpy(b->g[i].key, k, sizeof(b->g[i].key));
	b->nr++;
	return &b->g[i];
}

void ps_by_count(struct ps_by *b, const struct ps_event *ev, const struct ps_counted *d)
{
	int64_t k[PS_BY_NR] = { 0 };
	struct alloc_rec *r;
	uint64_t i;
	struct group *g;
	int alloc = ev->type == PS_EV_ALLOC, mt = UNKNOWN;
	int64_t gfp = UNKNOWN;

	if (ev->type != PS_EV_ALLOC && ev->type != PS_EV_FREE)
		return;
	if (b->rec) {
		if (alloc && rec_slot(b, ev->pfn, 1, &r, &i)) {
			r->mt[i] = (int8_t)(ev->migratetype + 2);
			r->gfp[i] = ev->gfp;
		} else if (!alloc && rec_slot(b, ev->pfn, 0, &r, &i) && r->mt[i]) {
			mt = r->mt[i] - 2;
			gfp = r->gfp[i];
			r->mt[i] = 0;
		}
	}
	if (alloc) {
		mt = ev->migratetype;
		gfp = ev->gfp;
	}
	if (!d->allocs && !d->frees && !d->failed)
		return;		/* nothing counted (outside the zones, a CPU of no node, ...) */
	for (int j = 0; j < b->nr_by; j++) {
		int key = b->by[j];

		switch (key) {
		case PS_BY_ORDER: k[key] = ev->order; break;
		case PS_BY_MT: k[key] = mt < 0 ? UNKNOWN : mt; break;
		case PS_BY_GFP: k[key] = gfp; break;
		case PS_BY_TASK: k[key] = comm_id(b, ev->comm); break;
		case PS_BY_CPU: k[key] = d->cpu >= 0 ? d->cpu : ev->cpu; break;
		case PS_BY_ZONE: k[key] = d->node >= 0 && d->zone_type >= 0 ? d->node * PS_ZONE_NR + d->zone_type : UNKNOWN; break;
		}
	}
	g = group_of(b, k);
	if (!g)
		return;
	g->allocs += d->allocs;
	g->alloc_pages += d->alloc_pages;
	g->frees += d->frees;
	g->free_pages += d->free_pages;
	g->failed += d->failed;
	g->hit += d->numa_hit;
	g->miss += d->numa_miss;
	g->local += d->numa_local;
	g->other += d->numa_other;
}

/*
 * The gfp flags as the kernel prints them: the composite names first, in
 * the kernel's order (mmflags.h), then the single flags left.
 */
static void gfp_label(uint32_t gfp, char *buf, int len)
{
	static const char *const composite[] = {
		"GFP_TRANSHUGE", "GFP_TRANSHUGE_LIGHT", "GFP_HIGHUSER_MOVABLE", "GFP_HIGHUSER", "GFP_USER",
		"GFP_KERNEL_ACCOUNT", "GFP_KERNEL", "GFP_NOFS", "GFP_ATOMIC", "GFP_NOIO", "GFP_NOWAIT",
	};
	int n = 0;
	uint32_t unknown = gfp & PS_GFP_UNKNOWN;

	gfp &= ~PS_GFP_UNKNOWN;
	buf[0] = 0;
	for (size_t i = 0; i < sizeof(composite) / sizeof(composite[0]) && gfp; i++) {
		uint32_t m = ps_gfp_parse(composite[i], (int)strlen(composite[i]));

		if (m && !(m & PS_GFP_UNKNOWN) && (gfp & m) == m) {
			n += snprintf(buf + n, len - n, "%s%s", n ? "|" : "", composite[i]);
			gfp &= ~m;
		}
	}
	if (gfp || !n) {
		char rest[512];

		ps_gfp_format(gfp, rest, sizeof(rest));
		snprintf(buf + n, len - n, "%s%s", n ? "|" : "", rest);
	}
	if (unknown)
		snprintf(buf + strlen(buf), len - strlen(buf), "|unknown");
}

/* A group's key @key as text. */
static void key_text(const struct ps_by *b, int key, int64_t v, char *buf, int len)
{
	if (v == UNKNOWN && key != PS_BY_ORDER && key != PS_BY_CPU) {
		snprintf(buf, len, "-");
		return;
	}
	switch (key) {
	case PS_BY_ORDER:
	case PS_BY_CPU:
		snprintf(buf, len, "%lld", (long long)v);
		break;
	case PS_BY_MT:
		snprintf(buf, len, "%s", v < PS_MIGRATETYPE_NAMES ? ps_migratetype_names[v] : "?");
		break;
	case PS_BY_GFP:
		gfp_label((uint32_t)v, buf, len);
		break;
	case PS_BY_TASK:
		snprintf(buf, len, "%s", b->comm[v].name);
		break;
	case PS_BY_ZONE:
		snprintf(buf, len, "node%lld.%s", (long long)(v / PS_ZONE_NR), ps_zone_names[v % PS_ZONE_NR]);
		break;
	}
}

static const struct ps_by *sort_by;

static int cmp_group(const void *pa, const void *pb)
{
	const struct group *x = *(const struct group *const *)pa, *y = *(const struct group *const *)pb;
	char a[512], c[512];

	for (int j = 0; j < sort_by->nr_by; j++) {
		int key = sort_by->by[j];
		int64_t u = x->key[key], v = y->key[key];

		if (u == v)
			continue;
		/* "-" after the others */
		if (u == UNKNOWN || v == UNKNOWN)
			return u == UNKNOWN ? 1 : -1;
		if (key == PS_BY_GFP || key == PS_BY_TASK) {
			int r;

			key_text(sort_by, key, u, a, sizeof(a));
			key_text(sort_by, key, v, c, sizeof(c));
			r = strcmp(a, c);
			if (r)
				return r;
			continue;
		}
		return u < v ? -1 : 1;
	}
	return 0;
}

static const char *const value_names[] = {
	"allocs", "alloc_pages", "frees", "free_pages", "failed", "numa_hit", "numa_miss", "numa_local", "numa_other",
};
#define NR_VALUES 9

static void values(const struct group *g, uint64_t *v)
{
	v[0] = g->allocs;
	v[1] = g->alloc_pages;
	v[2] = g->frees;
	v[3] = g->free_pages;
	v[4] = g->failed;
	v[5] = g->hit;
	v[6] = g->miss;
	v[7] = g->local;
	v[8] = g->other;
}

static const char *const key_names[PS_BY_NR] = {
	[PS_BY_ORDER] = "order", [PS_BY_MT] = "migratetype", [PS_BY_GFP] = "gfp",
	[PS_BY_TASK] = "task", [PS_BY_CPU] = "cpu", [PS_BY_ZONE] = "zone",
};

int ps_by_write(struct ps_by *b, const char *path, int json, const char *const *meta, int nr_meta)
{
	struct ps_error err = { { 0 } };
	struct ps_out out;
	struct group **rows, total = { 0 };
	int width[PS_BY_NR] = { 0 };
	char text[512];
	uint32_t n = 0;
	FILE *f;

	if (b->failed) {
		ps_error("--by: out of memory");
		return -1;
	}
	rows = malloc((b->nr ? b->nr : 1) * sizeof(*rows));
	if (!rows) {
		ps_error("out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < b->cap; i++)
		if (b->g[i].used) {
			rows[n++] = &b->g[i];
			total.allocs += b->g[i].allocs;
			total.alloc_pages += b->g[i].alloc_pages;
			total.frees += b->g[i].frees;
			total.free_pages += b->g[i].free_pages;
			total.failed += b->g[i].failed;
			total.hit += b->g[i].hit;
			total.miss += b->g[i].miss;
			total.local += b->g[i].local;
			total.other += b->g[i].other;
		}
	sort_by = b;
	qsort(rows, n, sizeof(*rows), cmp_group);
	if (ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", err.msg);
		free(rows);
		return -1;
	}
	f = out.f;
	if (json) {
		uint64_t v[NR_VALUES];

		fputs("{\n", f);
		for (int i = 0; i < nr_meta; i++) {
			fputs("  ", f);
			ps_print_json_str(f, meta[2 * i]);
			fputs(": ", f);
			ps_print_json_str(f, meta[2 * i + 1] ? meta[2 * i + 1] : "");
			fputs(",\n", f);
		}
		fputs("  \"by\": [", f);
		for (int j = 0; j < b->nr_by; j++)
			fprintf(f, "%s\"%s\"", j ? ", " : "", key_names[b->by[j]]);
		fputs("],\n  \"groups\": [\n", f);
		for (uint32_t r = 0; r < n; r++) {
			fputs("    {", f);
			for (int j = 0; j < b->nr_by; j++) {
				int key = b->by[j];

				fprintf(f, "%s\"%s\": ", j ? ", " : "", key_names[key]);
				key_text(b, key, rows[r]->key[key], text, sizeof(text));
				if (key == PS_BY_ORDER || key == PS_BY_CPU)
					fputs(text, f);
				else
					ps_print_json_str(f, text);
			}
			values(rows[r], v);
			for (int i = 0; i < NR_VALUES; i++)
				fprintf(f, ", \"%s\": %llu", value_names[i], (unsigned long long)v[i]);
			fprintf(f, "}%s\n", r + 1 < n ? "," : "");
		}
		fputs("  ],\n  \"total\": {", f);
		values(&total, v);
		for (int i = 0; i < NR_VALUES; i++)
			fprintf(f, "%s\"%s\": %llu", i ? ", " : "", value_names[i], (unsigned long long)v[i]);
		fputs("}\n}\n", f);
	} else {
		uint64_t v[NR_VALUES];

		for (int i = 0; i < nr_meta; i++)
			fprintf(f, "# %s: %s\n", meta[2 * i], meta[2 * i + 1] ? meta[2 * i + 1] : "");
		for (int j = 0; j < b->nr_by; j++) {
			int key = b->by[j];

			width[j] = (int)strlen(key_names[key]);
			for (uint32_t r = 0; r < n; r++) {
				key_text(b, key, rows[r]->key[key], text, sizeof(text));
				if ((int)strlen(text) > width[j])
					width[j] = (int)strlen(text);
			}
			if (j == 0 && width[j] < 5)
				width[j] = 5;	/* "total" */
		}
		for (int j = 0; j < b->nr_by; j++)
			fprintf(f, "%-*s  ", width[j], key_names[b->by[j]]);
		for (int i = 0; i < NR_VALUES; i++)
			fprintf(f, "%12s", value_names[i]);
		fputc('\n', f);
		for (uint32_t r = 0; r < n; r++) {
			for (int j = 0; j < b->nr_by; j++) {
				key_text(b, b->by[j], rows[r]->key[b->by[j]], text, sizeof(text));
				fprintf(f, "%-*s  ", width[j], text);
			}
			values(rows[r], v);
			for (int i = 0; i < NR_VALUES; i++)
				fprintf(f, "%12llu", (unsigned long long)v[i]);
			fputc('\n', f);
		}
		for (int j = 0; j < b->nr_by; j++)
			fprintf(f, "%-*s  ", width[j], j ? "" : "total");
		values(&total, v);
		for (int i = 0; i < NR_VALUES; i++)
			fprintf(f, "%12llu", (unsigned long long)v[i]);
		fputc('\n', f);
	}
	free(rows);
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	return 0;
}
