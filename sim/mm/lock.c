// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * lock.c - zone->lock sections as a discrete-event queue, and the cache
 * lines of struct zone they touch.
 *
 * Notes (what this model assumes and simplifies; docs/lock-model.md has the
 * reasons and the sources of the default costs):
 *  - A section lasts lock.acquire_ns + lock.page_ns x blocks moved, whatever
 *    the CPU, the order or the buddy work (splits, merges) behind a block.
 *    The model does not slow a holder by the cache misses it suffers: it
 *    counts transfers, it does not feed them back into hold times.
 *  - A CPU reaches the lock at the trace time of the section's first event,
 *    plus the waits it had before (lock.carry=1), and never before its own
 *    previous section ended.  The lock is a FIFO ticket lock (x86 until
 *    4.1): waiters are served in order of arrival, ties in trace order.
 *  - Only zone->lock is modelled: the pcp fast path, pcp->lock (6.0+),
 *    lru_lock and the node's locks take no time here.
 *  - Cache lines (MESI without the E/S distinction that moves no data): an
 *    access transfers a line when another CPU wrote it last and the
 *    accessing CPU has no valid copy since.  A holder's store to a line
 *    others only read (an invalidation, no data) is not counted.
 *  - Accesses of a section: at arrival, allocations read the watermark line
 *    and vm_stat (zone_watermark_ok); the CPU writes the lock word (takes a
 *    ticket) and, if the lock is held, spins reading it, re-reading it after
 *    every store to that line by another CPU; under the lock, per block,
 *    it writes free_area[order].free_list[mt] (the head) and
 *    free_area[order].nr_free; at the end it writes vm_stat[NR_FREE_PAGES]
 *    once (the per-CPU diff folded) and the lock word (unlock).  zone->flags
 *    is placed but never accessed.  A list head straddling two lines counts
 *    on the line of its first byte.
 *  - Bounded queues (no allocation per event): a CPU more than
 *    PS_LOCK_RING sections behind the trace, or more than the access queue
 *    holds in flight, is served early; both are counted (zone_lock_forced).
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/mm/lock.h"
#include "lib/strtrim.h"

const char *const ps_lock_cause_names[PS_LOCK_NR_CAUSES] = {
	[PS_LOCK_REFILL] = "refill",
	[PS_LOCK_DRAIN] = "drain",
	[PS_LOCK_DIRECT_ALLOC] = "direct_alloc",
	[PS_LOCK_DIRECT_FREE] = "direct_free",
	[PS_LOCK_FALLBACK] = "fallback",
};

/* ---- layout ---- */

#define FREE_AREA_NR_ORDERS PS_NR_ORDERS
#define LIST_HEAD_SIZE 16

static int free_area_size(const struct ps_zone_layout *l)
{
	return l->nr_mt * LIST_HEAD_SIZE + 8;
}

/*
 * x86-64 with CONFIG_NUMA, CMA, MEMORY_ISOLATION (MIGRATE_TYPES = 6, so a
 * free_area is 6 x 16 + 8 = 104 bytes) and no lock debugging.  The
 * read-mostly head (watermark[], lowmem_reserve[], node, zone_pgdat,
 * pageset, spans, name, wait_table...) fills three lines, so the
 * cache-aligned allocator section starts at 192.  3.17 (3484b2de9499): lock,
 * free_area[], flags.  4.0 (a368ab67aa55): free_area[], flags, lock.  The
 * reclaim section follows; vm_stat[] starts the last aligned section.  Only
 * which fields share a line matters to the model, not the exact offsets.
 */
int ps_zone_layout_builtin(struct ps_zone_layout *l, const char *name)
{
	memset(l, 0, sizeof(*l));
	l->line_size = 64;
	l->lock_size = 4;
	l->nr_mt = 6;
	l->watermark_offset = 0;
	l->vm_stat_offset = 1664;
	if (!strcmp(name, "3.17")) {
		l->lock_offset = 192;
		l->free_area_offset = 200;
		l->flags_offset = 200 + FREE_AREA_NR_ORDERS * 104;
	} else if (!strcmp(name, "4.0")) {
		l->free_area_offset = 192;
		l->flags_offset = 192 + FREE_AREA_NR_ORDERS * 104;
		l->lock_offset = l->flags_offset + 8;
	} else {
		return -1;
	}
	snprintf(l->name, sizeof(l->name), "%s", name);
	return 0;
}

int ps_zone_layout_set(struct ps_zone_layout *l, const char *key, const char *value, const char *where,
		       struct ps_error *err)
{
	static const struct {
		const char *key;
		size_t off;
		long min, max;
	} keys[] = {
		{ "line_size", offsetof(struct ps_zone_layout, line_size), 16, 4096 },
		{ "lock.offset", offsetof(struct ps_zone_layout, lock_offset), 0, 65535 },
		{ "lock.size", offsetof(struct ps_zone_layout, lock_size), 1, 64 },
		{ "free_area.offset", offsetof(struct ps_zone_layout, free_area_offset), 0, 65535 },
		{ "free_area.nr_mt", offsetof(struct ps_zone_layout, nr_mt), 3, 8 },
		{ "watermark.offset", offsetof(struct ps_zone_layout, watermark_offset), 0, 65535 },
		{ "flags.offset", offsetof(struct ps_zone_layout, flags_offset), 0, 65535 },
		{ "vm_stat.offset", offsetof(struct ps_zone_layout, vm_stat_offset), 0, 65535 },
	};
	char *end;
	long v;

	if (!strcmp(key, "base")) {
		char name[64];

		snprintf(name, sizeof(name), "%s", l->name);
		if (ps_zone_layout_builtin(l, value) < 0) {
			ps_zone_layout_builtin(l, name[0] ? name : "4.0");
			return ps_err(err, "%s: no built-in layout '%s' (use 3.17 or 4.0)", where, value);
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strcmp(key, keys[i].key))
			continue;
		v = strtol(value, &end, 0);
		if (end == value || *end || v < keys[i].min || v > keys[i].max)
			return ps_err(err, "%s: %s must be an integer in %ld..%ld, not '%s'", where, key, keys[i].min,
				      keys[i].max, value);
		*(int *)((char *)l + keys[i].off) = (int)v;
		if (!strstr(l->name, "(modified)") && strlen(l->name) < sizeof(l->name) - 12)
			strcat(l->name, l->name[0] ? " (modified)" : "file");
		return 0;
	}
	return 1;
}

int ps_zone_layout_load(struct ps_zone_layout *l, const char *path, struct ps_error *err)
{
	FILE *f = fopen(path, "r");
	char line[512], where[600], *eq, *k, *v;
	int n = 0, r;

	if (!f)
		return ps_err(err, "cannot open layout file '%s': %m", path);
	ps_zone_layout_builtin(l, "4.0");
	while (fgets(line, sizeof(line), f)) {
		n++;
		snprintf(where, sizeof(where), "%s:%d", path, n);
		if (!strchr(line, '\n') && !feof(f)) {
			fclose(f);
			return ps_err(err, "%s: line too long (at most %zu characters)", where, sizeof(line) - 2);
		}
		k = ps_trim(line);
		if (!*k || *k == '#')
			continue;
		eq = strchr(k, '=');
		if (!eq) {
			fclose(f);
			return ps_err(err, "%s: expected 'key = value'", where);
		}
		*eq = 0;
		v = ps_trim(eq + 1);
		k = ps_trim(k);
		r = ps_zone_layout_set(l, k, v, where, err);
		if (r) {
			fclose(f);
			if (r > 0)
				return ps_err(err, "%s: unknown layout key '%s' (docs/lock-model.md lists them)", where, k);
			return -1;
		}
	}
	fclose(f);
	snprintf(l->name, sizeof(l->name), "%.40s", strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
	return ps_zone_layout_check(l, err) < 0 ? ps_err(err, "%s: %s", path, err->msg) : 0;
}

static int overlaps(int a, int alen, int b, int blen)
{
	return a < b + blen && b < a + alen;
}

int ps_zone_layout_check(const struct ps_zone_layout *l, struct ps_error *err)
{
	int fa_len = FREE_AREA_NR_ORDERS * free_area_size(l), limit = PS_CL_MAX_LINES * l->line_size;
	struct {
		const char *name;
		int off, len;
	} f[] = {
		{ "lock", l->lock_offset, l->lock_size },
		{ "free_area", l->free_area_offset, fa_len },
		{ "flags", l->flags_offset, 8 },
		{ "watermark", l->watermark_offset, 56 },
		{ "vm_stat", l->vm_stat_offset, 8 },
	};
	int n = sizeof(f) / sizeof(f[0]);

	for (int i = 0; i < n; i++) {
		if (f[i].off + f[i].len > limit)
			return ps_err(err, "%s (offset %d, %d bytes) lies beyond %d lines of %d bytes", f[i].name,
				      f[i].off, f[i].len, PS_CL_MAX_LINES, l->line_size);
		for (int j = 0; j < i; j++)
			if (overlaps(f[i].off, f[i].len, f[j].off, f[j].len))
				return ps_err(err, "%s (offset %d, %d bytes) overlaps %s (offset %d, %d bytes)",
					      f[i].name, f[i].off, f[i].len, f[j].name, f[j].off, f[j].len);
	}
	return 0;
}

int ps_zone_layout_line(const struct ps_zone_layout *l, int field, int order, int mt)
{
	int off = 0;

	if (mt < 0 || mt >= l->nr_mt)
		mt = PS_MT_MOVABLE;
	if (order < 0 || order >= FREE_AREA_NR_ORDERS)
		order = 0;
	switch (field) {
	case PS_ZF_LOCK: off = l->lock_offset; break;
	case PS_ZF_FREE_LIST: off = l->free_area_offset + order * free_area_size(l) + mt * LIST_HEAD_SIZE; break;
	case PS_ZF_NR_FREE: off = l->free_area_offset + order * free_area_size(l) + l->nr_mt * LIST_HEAD_SIZE; break;
	case PS_ZF_FLAGS: off = l->flags_offset; break;
	case PS_ZF_WATERMARK: off = l->watermark_offset; break;
	case PS_ZF_VM_STAT: off = l->vm_stat_offset; break;
	}
	off /= l->line_size;
	return off < PS_CL_MAX_LINES ? off : PS_CL_MAX_LINES - 1;
}

/* ---- cache lines ---- */

struct ps_cl {
	int nr_zones, nr_cpus, words;
	int16_t *last_writer;		/* [zone][line], -1: never written */
	uint64_t *valid;		/* [zone][line][words]: CPUs holding a valid copy */
	uint64_t *count;		/* [zone][tag] */
	/* spinners */
	int *spin_zone, *spin_line, *spin_tag, *spin_pos;	/* per CPU; spin_zone -1 when not spinning */
	int *spinners;			/* [zone][nr_cpus] */
	int *nr_spin;			/* [zone] */
};

struct ps_cl *ps_cl_create(int nr_zones, int nr_cpus)
{
	struct ps_cl *cl = calloc(1, sizeof(*cl));
	size_t lines = (size_t)nr_zones * PS_CL_MAX_LINES;

	if (!cl)
		return NULL;
	cl->nr_zones = nr_zones;
	cl->nr_cpus = nr_cpus;
	cl->words = (nr_cpus + 63) / 64;
	cl->last_writer = malloc(lines * sizeof(int16_t));
	cl->valid = calloc(lines * cl->words, sizeof(uint64_t));
	cl->count = calloc((size_t)nr_zones * PS_CL_NR_TAGS, sizeof(uint64_t));
	cl->spin_zone = malloc(nr_cpus * sizeof(int));
	cl->spin_line = calloc(nr_cpus, sizeof(int));
	cl->spin_tag = calloc(nr_cpus, sizeof(int));
	cl->spin_pos = calloc(nr_cpus, sizeof(int));
	cl->spinners = calloc((size_t)nr_zones * nr_cpus, sizeof(int));
	cl->nr_spin = calloc(nr_zones, sizeof(int));
	if (!cl->last_writer || !cl->valid || !cl->count || !cl->spin_zone || !cl->spin_line || !cl->spin_tag ||
	    !cl->spin_pos || !cl->spinners || !cl->nr_spin) {
		ps_cl_destroy(cl);
		return NULL;
	}
	for (size_t i = 0; i < lines; i++)
		cl->last_writer[i] = -1;
	for (int c = 0; c < nr_cpus; c++)
		cl->spin_zone[c] = -1;
	return cl;
}

void ps_cl_destroy(struct ps_cl *cl)
{
	if (!cl)
		return;
	free(cl->last_writer);
	free(cl->valid);
	free(cl->count);
	free(cl->spin_zone);
	free(cl->spin_line);
	free(cl->spin_tag);
	free(cl->spin_pos);
	free(cl->spinners);
	free(cl->nr_spin);
	free(cl);
}

int ps_cl_access(struct ps_cl *cl, int zone, int line, int cpu, int write, int tag)
{
	size_t li = (size_t)zone * PS_CL_MAX_LINES + line;
	uint64_t *v = cl->valid + li * cl->words, bit = 1ull << (cpu & 63);
	int lw = cl->last_writer[li], n = 0;

	if (lw >= 0 && lw != cpu && !(v[cpu >> 6] & bit)) {
		cl->count[zone * PS_CL_NR_TAGS + tag]++;
		n++;
	}
	if (!write) {
		v[cpu >> 6] |= bit;
		return n;
	}
	if (cl->words == 1)
		v[0] = 0;	/* up to 64 CPUs: no call to memset */
	else
		memset(v, 0, cl->words * sizeof(uint64_t));
	v[cpu >> 6] |= bit;
	cl->last_writer[li] = (int16_t)cpu;
	/* every CPU spinning on this line misses and fetches it again */
	for (int i = 0; i < cl->nr_spin[zone]; i++) {
		int s = cl->spinners[(size_t)zone * cl->nr_cpus + i];

		if (s == cpu || cl->spin_line[s] != line)
			continue;
		cl->count[zone * PS_CL_NR_TAGS + cl->spin_tag[s]]++;
		v[s >> 6] |= 1ull << (s & 63);
		n++;
	}
	return n;
}

void ps_cl_spin_begin(struct ps_cl *cl, int zone, int line, int cpu, int tag)
{
	if (cl->spin_zone[cpu] >= 0)
		ps_cl_spin_end(cl, cl->spin_zone[cpu], cpu);
	cl->spin_zone[cpu] = zone;
	cl->spin_line[cpu] = line;
	cl->spin_tag[cpu] = tag;
	cl->spin_pos[cpu] = cl->nr_spin[zone];
	cl->spinners[(size_t)zone * cl->nr_cpus + cl->nr_spin[zone]++] = cpu;
	/* the first read of the spin loop */
	ps_cl_access(cl, zone, line, cpu, 0, tag);
}

void ps_cl_spin_end(struct ps_cl *cl, int zone, int cpu)
{
	int *sp = cl->spinners + (size_t)zone * cl->nr_cpus, pos = cl->spin_pos[cpu], last;

	if (cl->spin_zone[cpu] != zone)
		return;
	last = sp[--cl->nr_spin[zone]];
	sp[pos] = last;
	cl->spin_pos[last] = pos;
	cl->spin_zone[cpu] = -1;
}

uint64_t ps_cl_transfers(const struct ps_cl *cl, int zone, int tag)
{
	return cl->count[zone * PS_CL_NR_TAGS + tag];
}

/* ---- the lock model ---- */

#define PS_LOCK_RING 256	/* sections a CPU may have waiting to be served */

enum { A_WM_READ, A_TICKET, A_SPIN_END, A_PAGE, A_STAT, A_UNLOCK };

struct access {
	uint64_t t, seq;
	int32_t zone, n;
	int16_t cpu, i;
	uint8_t kind, tag, order, mt, spin;
};

struct cpu_state {
	struct ps_lock_sect ring[PS_LOCK_RING];
	int head, len;
	uint64_t shift, busy_until, arrival, seq;	/* arrival and seq of the head */
};

struct zone_state {
	uint64_t free_at;
	struct ps_lock_zone_stats st;
	/* pages held on per-CPU lists */
	uint64_t pcp_first_t, pcp_last_t, pcp_cur, pcp_max;
	double pcp_area;
	int pcp_seen;
	/* lines of this zone's fields, from the layout */
};

struct ps_lock {
	struct ps_lock_params p;
	int nr_zones, nr_cpus;
	struct cpu_state *cpus;
	struct zone_state *zones;
	struct ps_cl *cl;
	int line_lock, line_wm, line_stat;
	int line_list[PS_NR_ORDERS][8], line_nr_free[PS_NR_ORDERS];
	/* CPUs with a head section waiting, a min-heap on (arrival, seq) */
	int *cheap, nr_cheap;
	/* accesses waiting to run, a min-heap on (t, seq) */
	struct access *aheap;
	int nr_aheap, cap_aheap;
	uint64_t seq, now;	/* now: no section will be submitted with an earlier t_ns */
	int manual;		/* now is set by ps_lock_advance only */
	uint64_t forced, ignored, late;
	struct ps_lock_served *rec;
	int rec_len, *rec_count;
};

void ps_lock_params_init(struct ps_lock_params *p)
{
	memset(p, 0, sizeof(*p));
	p->acquire_ns = PS_LOCK_ACQUIRE_NS;
	p->page_ns = PS_LOCK_PAGE_NS;
	p->carry = 1;
	ps_zone_layout_builtin(&p->layout, "4.0");
}

int ps_lock_params_set(struct ps_lock_params *p, const char *key, const char *value, const char *where,
		       struct ps_error *err)
{
	char *end;
	unsigned long long v;

	if (!strcmp(key, "lock.acquire_ns") || !strcmp(key, "lock.page_ns") || !strcmp(key, "lock.carry")) {
		v = strtoull(value, &end, 10);
		if (end == value || *end || value[0] == '-' || v > 1000000000ull ||
		    (!strcmp(key, "lock.carry") && v > 1))
			return ps_err(err, "%s: %s must be %s, not '%s'", where, key,
				      !strcmp(key, "lock.carry") ? "0 or 1" : "a number of ns in 0..1000000000", value);
		if (!strcmp(key, "lock.acquire_ns"))
			p->acquire_ns = v;
		else if (!strcmp(key, "lock.page_ns"))
			p->page_ns = v;
		else
			p->carry = (int)v;
		return 0;
	}
	if (!strncmp(key, "layout.", 7))
		key += 7;
	return ps_zone_layout_set(&p->layout, key, value, where, err);
}

struct ps_lock *ps_lock_create(const struct ps_lock_params *p, int nr_zones, int nr_cpus, struct ps_error *err)
{
	struct ps_lock *lk;

	if (nr_zones <= 0 || nr_cpus <= 0 || nr_cpus > PS_MAX_CPUS || nr_zones > PS_MAX_ZONES) {
		ps_err(err, "lock model: %d zones and %d CPUs are out of range", nr_zones, nr_cpus);
		return NULL;
	}
	if (ps_zone_layout_check(&p->layout, err) < 0)
		return NULL;
	lk = calloc(1, sizeof(*lk));
	if (!lk)
		goto nomem;
	lk->p = *p;
	lk->nr_zones = nr_zones;
	lk->nr_cpus = nr_cpus;
	lk->cpus = calloc(nr_cpus, sizeof(*lk->cpus));
	lk->zones = calloc(nr_zones, sizeof(*lk->zones));
	lk->cheap = calloc(nr_cpus, sizeof(int));
	lk->cap_aheap = 65536 + 64 * nr_cpus;
	lk->aheap = malloc(lk->cap_aheap * sizeof(*lk->aheap));
	lk->cl = ps_cl_create(nr_zones, nr_cpus);
	if (!lk->cpus || !lk->zones || !lk->cheap || !lk->aheap || !lk->cl)
		goto nomem;
	lk->line_lock = ps_zone_layout_line(&p->layout, PS_ZF_LOCK, 0, 0);
	lk->line_wm = ps_zone_layout_line(&p->layout, PS_ZF_WATERMARK, 0, 0);
	lk->line_stat = ps_zone_layout_line(&p->layout, PS_ZF_VM_STAT, 0, 0);
	for (int o = 0; o < PS_NR_ORDERS; o++) {
		lk->line_nr_free[o] = ps_zone_layout_line(&p->layout, PS_ZF_NR_FREE, o, 0);
		for (int mt = 0; mt < 8; mt++)
			lk->line_list[o][mt] = ps_zone_layout_line(&p->layout, PS_ZF_FREE_LIST, o, mt);
	}
	return lk;
nomem:
	ps_lock_destroy(lk);
	ps_err(err, "lock model: out of memory for %d zones and %d CPUs", nr_zones, nr_cpus);
	return NULL;
}

void ps_lock_destroy(struct ps_lock *lk)
{
	if (!lk)
		return;
	free(lk->cpus);
	free(lk->zones);
	free(lk->cheap);
	free(lk->aheap);
	ps_cl_destroy(lk->cl);
	free(lk);
}

void ps_lock_record(struct ps_lock *lk, struct ps_lock_served *buf, int len, int *count)
{
	lk->rec = buf;
	lk->rec_len = len;
	lk->rec_count = count;
	if (count)
		*count = 0;
}

/* -- the CPU heap -- */

static int cpu_before(const struct ps_lock *lk, int a, int b)
{
	const struct cpu_state *x = &lk->cpus[a], *y = &lk->cpus[b];

	return x->arrival < y->arrival || (x->arrival == y->arrival && x->seq < y->seq);
}

static void cheap_push(struct ps_lock *lk, int cpu)
{
	int i = lk->nr_cheap++;

	while (i > 0 && cpu_before(lk, cpu, lk->cheap[(i - 1) / 2])) {
		lk->cheap[i] = lk->cheap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	lk->cheap[i] = cpu;
}

static int cheap_pop(struct ps_lock *lk)
{
	int top = lk->cheap[0], last = lk->cheap[--lk->nr_cheap], i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= lk->nr_cheap)
			break;
		if (c + 1 < lk->nr_cheap && cpu_before(lk, lk->cheap[c + 1], lk->cheap[c]))
			c++;
		if (!cpu_before(lk, lk->cheap[c], last))
			break;
		lk->cheap[i] = lk->cheap[c];
		i = c;
	}
	if (lk->nr_cheap)
		lk->cheap[i] = last;
	return top;
}

/* -- the access heap -- */

static int acc_before(const struct access *a, const struct access *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct access acc_pop(struct ps_lock *lk)
{
	struct access top = lk->aheap[0], last = lk->aheap[--lk->nr_aheap];
	int i = 0;

	for (;;) {
		int c = 2 * i + 1;

		if (c >= lk->nr_aheap)
			break;
		if (c + 1 < lk->nr_aheap && acc_before(&lk->aheap[c + 1], &lk->aheap[c]))
			c++;
		if (!acc_before(&lk->aheap[c], &last))
			break;
		lk->aheap[i] = lk->aheap[c];
		i = c;
	}
	if (lk->nr_aheap)
		lk->aheap[i] = last;
	return top;
}

static void run_access(struct ps_lock *lk, struct access *a, int chain, uint64_t horizon);

static void acc_push(struct ps_lock *lk, struct access a)
{
	int i;

	if (lk->nr_aheap == lk->cap_aheap) {
		/* full: run the earliest now (early only if an unseen access would precede it) */
		struct access e = acc_pop(lk);

		lk->forced++;
		run_access(lk, &e, 0, 0);
	}
	a.seq = lk->seq++;
	i = lk->nr_aheap++;
	while (i > 0 && acc_before(&a, &lk->aheap[(i - 1) / 2])) {
		lk->aheap[i] = lk->aheap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	lk->aheap[i] = a;
}

/*
 * Runs @a.  With @chain, the page accesses of a section that would come
 * out of the heap next anyway (before its top, and by @horizon) run in a
 * loop instead of going through it: the same order, seq numbers included.
 */
static void run_access(struct ps_lock *lk, struct access *a, int chain, uint64_t horizon)
{
	struct ps_cl *cl = lk->cl;

	switch (a->kind) {
	case A_WM_READ:
		ps_cl_access(cl, a->zone, lk->line_wm, a->cpu, 0, a->tag);
		ps_cl_access(cl, a->zone, lk->line_stat, a->cpu, 0, a->tag);
		break;
	case A_TICKET:
		ps_cl_access(cl, a->zone, lk->line_lock, a->cpu, 1, a->tag);
		if (a->spin)
			ps_cl_spin_begin(cl, a->zone, lk->line_lock, a->cpu, a->tag);
		break;
	case A_SPIN_END:
		ps_cl_spin_end(cl, a->zone, a->cpu);
		break;
	case A_PAGE: {
		struct access next = *a;

		for (;;) {
			ps_cl_access(cl, next.zone, lk->line_list[next.order][next.mt], next.cpu, 1, next.tag);
			ps_cl_access(cl, next.zone, lk->line_nr_free[next.order], next.cpu, 1, next.tag);
			if (next.i + 1 >= next.n)
				break;
			next.i++;
			next.t += lk->p.page_ns;
			if (!chain || next.t > horizon || (lk->nr_aheap && next.t >= lk->aheap[0].t)) {
				acc_push(lk, next);
				break;
			}
			next.seq = lk->seq++;	/* as acc_push() would number it */
		}
		break;
	}
	case A_STAT:
		ps_cl_access(cl, a->zone, lk->line_stat, a->cpu, 1, a->tag);
		break;
	case A_UNLOCK:
		ps_cl_access(cl, a->zone, lk->line_lock, a->cpu, 1, a->tag);
		break;
	}
}

static void run_accesses_until(struct ps_lock *lk, uint64_t horizon)
{
	while (lk->nr_aheap && lk->aheap[0].t <= horizon) {
		struct access a = acc_pop(lk);

		run_access(lk, &a, 1, horizon);
	}
}

static void set_head(struct ps_lock *lk, int cpu)
{
	struct cpu_state *c = &lk->cpus[cpu];
	const struct ps_lock_sect *s = &c->ring[c->head];
	uint64_t a = s->t_ns + (lk->p.carry ? c->shift : 0);

	c->arrival = a > c->busy_until ? a : c->busy_until;
	if (lk->p.carry)
		c->shift = c->arrival - s->t_ns;
	c->seq = lk->seq++;
	cheap_push(lk, cpu);
}

/* Serves the head section of the CPU first in the queue. */
static void serve_one(struct ps_lock *lk)
{
	int cpu = cheap_pop(lk);
	struct cpu_state *c = &lk->cpus[cpu];
	struct ps_lock_sect s = c->ring[c->head];
	struct zone_state *z = &lk->zones[s.zone];
	uint64_t a = c->arrival, start = a > z->free_at ? a : z->free_at;
	uint64_t wait = start - a, d = lk->p.acquire_ns + lk->p.page_ns * (uint64_t)s.nr, end = start + d;
	struct access acc = { .zone = s.zone, .cpu = (int16_t)cpu, .tag = (uint8_t)s.cause,
			      .order = (uint8_t)(s.order < PS_NR_ORDERS ? s.order : 0),
			      .mt = (uint8_t)(s.mt >= 0 && s.mt < 8 ? s.mt : PS_MT_MOVABLE) };

	z->free_at = end;
	z->st.acquisitions[s.cause]++;
	z->st.hold_ns[s.cause] += d;
	z->st.blocks += s.nr;
	if (wait) {
		z->st.contended[s.cause]++;
		z->st.wait_ns[s.cause] += wait;
		if (lk->p.carry)
			c->shift += wait;
	}
	c->busy_until = end;
	if (lk->rec && lk->rec_count && *lk->rec_count < lk->rec_len)
		lk->rec[(*lk->rec_count)++] = (struct ps_lock_served){ a, start, end, cpu, s.zone };

	if (s.cause != PS_LOCK_DRAIN && s.cause != PS_LOCK_DIRECT_FREE) {
		acc.kind = A_WM_READ;
		acc.t = a;
		acc_push(lk, acc);
	}
	acc.kind = A_TICKET;
	acc.t = a;
	acc.spin = wait > 0;
	acc_push(lk, acc);
	acc.spin = 0;
	if (wait) {
		acc.kind = A_SPIN_END;
		acc.t = start;
		acc_push(lk, acc);
	}
	if (s.nr > 0) {
		acc.kind = A_PAGE;
		acc.t = start + lk->p.acquire_ns;
		acc.i = 0;
		acc.n = s.nr;
		acc_push(lk, acc);
	}
	acc.kind = A_STAT;
	acc.t = end;
	acc_push(lk, acc);
	acc.kind = A_UNLOCK;
	acc_push(lk, acc);

	c->head = (c->head + 1) % PS_LOCK_RING;
	c->len--;
	if (c->len)
		set_head(lk, cpu);
}

/* Serves what can no longer be preceded by a later submission, then runs the accesses likewise. */
static void advance(struct ps_lock *lk)
{
	uint64_t horizon;

	while (lk->nr_cheap && lk->cpus[lk->cheap[0]].arrival <= lk->now)
		serve_one(lk);
	horizon = lk->now;
	if (lk->nr_cheap && lk->cpus[lk->cheap[0]].arrival < horizon)
		horizon = lk->cpus[lk->cheap[0]].arrival;
	run_accesses_until(lk, horizon);
}

void ps_lock_submit(struct ps_lock *lk, const struct ps_lock_sect *s)
{
	struct cpu_state *c;
	struct ps_lock_sect late;

	if (s->zone < 0 || s->zone >= lk->nr_zones || s->cpu < 0 || s->cpu >= lk->nr_cpus || s->cause < 0 ||
	    s->cause >= PS_LOCK_NR_CAUSES || s->nr < 0) {
		lk->ignored++;
		return;
	}
	c = &lk->cpus[s->cpu];
	if (!lk->manual && s->t_ns > lk->now)
		lk->now = s->t_ns;
	if (s->t_ns < lk->now) {
		/* earlier than promised: it arrives now (the queue has moved on) */
		late = *s;
		late.t_ns = lk->now;
		lk->late++;
		s = &late;
	}
	while (c->len == PS_LOCK_RING) {
		/* this CPU is PS_LOCK_RING sections behind: serve the queue until it has room */
		lk->forced++;
		serve_one(lk);
	}
	c->ring[(c->head + c->len) % PS_LOCK_RING] = *s;
	if (!c->len++)
		set_head(lk, s->cpu);
	advance(lk);
}

void ps_lock_advance(struct ps_lock *lk, uint64_t floor)
{
	lk->manual = 1;
	if (floor > lk->now)
		lk->now = floor;
	advance(lk);
}

void ps_lock_section(struct ps_lock *lk, int zone, int cpu, uint64_t t_ns, int pages, int cause)
{
	struct ps_lock_sect s = { .t_ns = t_ns, .t_last_ns = t_ns, .zone = zone, .cpu = cpu, .nr = pages,
				  .order = 0, .mt = PS_MT_MOVABLE, .cause = cause };

	ps_lock_submit(lk, &s);
}

void ps_lock_pcp_pages(struct ps_lock *lk, int zone, uint64_t t_ns, uint64_t pages)
{
	struct zone_state *z;

	if (zone < 0 || zone >= lk->nr_zones)
		return;
	z = &lk->zones[zone];
	if (!z->pcp_seen) {
		z->pcp_seen = 1;
		z->pcp_first_t = z->pcp_last_t = t_ns;
	} else if (t_ns > z->pcp_last_t) {
		z->pcp_area += (double)z->pcp_cur * (double)(t_ns - z->pcp_last_t);
		z->pcp_last_t = t_ns;
	}
	z->pcp_cur = pages;
	if (pages > z->pcp_max)
		z->pcp_max = pages;
}

void ps_lock_finish(struct ps_lock *lk)
{
	while (lk->nr_cheap)
		serve_one(lk);
	run_accesses_until(lk, UINT64_MAX);
	for (int i = 0; i < lk->nr_zones; i++) {
		struct zone_state *z = &lk->zones[i];

		for (int t = 0; t < PS_LOCK_NR_CAUSES; t++)
			z->st.transfers[t] = ps_cl_transfers(lk->cl, i, t);
		if (z->pcp_seen)
			ps_lock_pcp_pages(lk, i, lk->now > z->pcp_last_t ? lk->now : z->pcp_last_t, z->pcp_cur);
	}
}

uint64_t ps_lock_total(const uint64_t v[PS_LOCK_NR_CAUSES])
{
	uint64_t s = 0;

	for (int i = 0; i < PS_LOCK_NR_CAUSES; i++)
		s += v[i];
	return s;
}

void ps_lock_stats(const struct ps_lock *lk, int zone, struct ps_lock_zone_stats *out)
{
	memset(out, 0, sizeof(*out));
	for (int i = 0; i < lk->nr_zones; i++) {
		const struct ps_lock_zone_stats *s = &lk->zones[i].st;

		if (zone >= 0 && i != zone)
			continue;
		for (int t = 0; t < PS_LOCK_NR_CAUSES; t++) {
			out->acquisitions[t] += s->acquisitions[t];
			out->contended[t] += s->contended[t];
			out->wait_ns[t] += s->wait_ns[t];
			out->hold_ns[t] += s->hold_ns[t];
			out->transfers[t] += ps_cl_transfers(lk->cl, i, t);
		}
		out->blocks += s->blocks;
	}
}

static int put_rows(struct ps_kv *kv, const struct ps_lock_zone_stats *s, const char *suffix)
{
	static const char *const names[] = { "zone_lock_acquisitions", "zone_lock_contended", "zone_lock_wait_ns",
					     "zone_lock_hold_ns", "zone_cacheline_transfers" };
	const uint64_t *v[] = { s->acquisitions, s->contended, s->wait_ns, s->hold_ns, s->transfers };
	char name[160];

	for (int i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "%s%s", names[i], suffix);
		if (ps_kv_set(kv, name, (int64_t)ps_lock_total(v[i])) < 0)
			return -1;
		for (int t = 0; t < PS_LOCK_NR_CAUSES; t++) {
			snprintf(name, sizeof(name), "%s_%s%s", names[i], ps_lock_cause_names[t], suffix);
			if (ps_kv_set(kv, name, (int64_t)v[i][t]) < 0)
				return -1;
		}
	}
	return 0;
}

int ps_lock_counters(const struct ps_lock *lk, const struct ps_machine *m, struct ps_kv *kv)
{
	struct ps_lock_zone_stats s;
	char suffix[64], name[160];
	double avg_all = 0;
	uint64_t max_all = 0;

	ps_lock_stats(lk, -1, &s);
	if (put_rows(kv, &s, ""))
		return -1;
	for (int i = 0; i < lk->nr_zones; i++) {
		const struct zone_state *z = &lk->zones[i];
		uint64_t span = z->pcp_last_t - z->pcp_first_t;

		if (z->pcp_seen) {
			avg_all += span ? z->pcp_area / (double)span : (double)z->pcp_cur;
			max_all += z->pcp_max;
		}
	}
	if (ps_kv_set(kv, "pcp_pages_held_avg", (int64_t)(avg_all + 0.5)) < 0 ||
	    ps_kv_set(kv, "pcp_pages_held_max_sum", (int64_t)max_all) < 0 ||
	    ps_kv_set(kv, "zone_lock_blocks_moved", (int64_t)s.blocks) < 0 ||
	    ps_kv_set(kv, "zone_lock_forced", (int64_t)lk->forced) < 0 ||
	    ps_kv_set(kv, "zone_lock_late", (int64_t)lk->late) < 0 ||
	    ps_kv_set(kv, "zone_lock_ignored", (int64_t)lk->ignored) < 0)
		return -1;
	for (int i = 0; i < lk->nr_zones; i++) {
		const struct zone_state *z = &lk->zones[i];
		uint64_t span = z->pcp_last_t - z->pcp_first_t;

		if (m && i < m->nr_zones)
			snprintf(suffix, sizeof(suffix), ".node%d.%s", m->zones[i].node, ps_zone_names[m->zones[i].type]);
		else
			snprintf(suffix, sizeof(suffix), ".zone%d", i);
		ps_lock_stats(lk, i, &s);
		if (put_rows(kv, &s, suffix))
			return -1;
		snprintf(name, sizeof(name), "pcp_pages_held_avg%s", suffix);
		if (ps_kv_set(kv, name, z->pcp_seen ? (int64_t)((span ? z->pcp_area / (double)span
								      : (double)z->pcp_cur) + 0.5) : 0) < 0)
			return -1;
		snprintf(name, sizeof(name), "pcp_pages_held_max%s", suffix);
		if (ps_kv_set(kv, name, (int64_t)z->pcp_max) < 0)
			return -1;
	}
	return 0;
}

/* ---- follow mode ---- */

enum { RUN_NONE, RUN_REFILL, RUN_DRAIN };

struct run {
	int kind;		/* RUN_NONE, RUN_REFILL or RUN_DRAIN */
	int zone, nr, order, mt, fallback;
	uint64_t t0, t1;
	/* an extfrag seen outside a run: belongs to the next zone_locked of this CPU */
	int pending_xf, xf_zone;
	uint64_t xf_t;
};

/*
 * A run with no event for this long no longer holds the model's clock back
 * (a CPU that goes idle after a refill may show no event for seconds; the
 * run ends only at its next event).  When it is submitted at last it is
 * late: the model clamps its arrival to the clock (zone_lock_late).  Runs
 * are never split: inside one section the traced QEMU guests show stalls of
 * several ms (a vCPU preempted by the host while it holds the lock).
 */
#define FOLLOW_MAX_GAP_NS 1000000

struct ps_lock_follow {
	struct ps_lock *lk;
	const struct ps_machine *m;
	const struct ps_profile *prof;
	int pageblock_order, nr_cpus;
	struct run *runs;
	int64_t *pcp;		/* [zone][cpu] estimate of pages on per-CPU lists */
	uint64_t *pcp_zone;	/* [zone] */
	struct ps_lock_follow_stats st;
};

struct ps_lock_follow *ps_lock_follow_create(struct ps_lock *lk, const struct ps_machine *m,
					     const struct ps_profile *prof, int pageblock_order)
{
	struct ps_lock_follow *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->lk = lk;
	f->m = m;
	f->prof = prof;
	f->pageblock_order = pageblock_order;
	f->nr_cpus = lk->nr_cpus;
	f->runs = calloc(f->nr_cpus, sizeof(*f->runs));
	f->pcp = calloc((size_t)lk->nr_zones * f->nr_cpus, sizeof(int64_t));
	f->pcp_zone = calloc(lk->nr_zones, sizeof(uint64_t));
	if (!f->runs || !f->pcp || !f->pcp_zone) {
		ps_lock_follow_destroy(f);
		return NULL;
	}
	return f;
}

void ps_lock_follow_destroy(struct ps_lock_follow *f)
{
	if (!f)
		return;
	free(f->runs);
	free(f->pcp);
	free(f->pcp_zone);
	free(f);
}

static int pcp_order(const struct ps_lock_follow *f, int order)
{
	if (!f->prof->pcp_high_orders)
		return order == 0;
	return order <= 3 || order == f->pageblock_order;
}

static void emit(struct ps_lock_follow *f, int cpu, int cause, int zone, int nr, int order, int mt, uint64_t t0,
		 uint64_t t1)
{
	struct ps_lock_sect s = { .t_ns = t0, .t_last_ns = t1, .zone = zone, .cpu = cpu, .nr = nr,
				  .order = order, .mt = mt, .cause = cause };

	f->st.sections[cause]++;
	if (nr > 1 && t1 > t0) {
		f->st.trace_span_ns += t1 - t0;
		f->st.trace_span_blocks += nr - 1;
	}
	ps_lock_submit(f->lk, &s);
}

static void close_run(struct ps_lock_follow *f, int cpu)
{
	struct run *r = &f->runs[cpu];
	int cause = r->kind == RUN_REFILL ? PS_LOCK_REFILL : PS_LOCK_DRAIN;

	if (!r->kind)
		return;
	if (r->fallback)
		cause = PS_LOCK_FALLBACK;
	emit(f, cpu, cause, r->zone, r->nr, r->order, r->mt, r->t0, r->t1);
	r->kind = RUN_NONE;
}

/* Pages on the per-CPU lists of @zone held by @cpu change by @delta (never below 0). */
static void pcp_add(struct ps_lock_follow *f, int zone, int cpu, int64_t delta, uint64_t t)
{
	int64_t *p = &f->pcp[(size_t)zone * f->nr_cpus + cpu];
	int64_t old = *p;

	*p += delta;
	if (*p < 0)
		*p = 0;
	f->pcp_zone[zone] += *p - old;
	ps_lock_pcp_pages(f->lk, zone, t, f->pcp_zone[zone]);
}

static void follow_event(struct ps_lock_follow *f, const struct ps_event *ev)
{
	struct run *r;
	int cpu = ev->cpu, zone = -1;

	if (cpu >= f->nr_cpus || ev->type == PS_EV_FREE_BATCHED)
		return;
	r = &f->runs[cpu];
	if (ev->pfn != PS_PFN_NONE) {
		zone = ps_machine_zone_of(f->m, ev->pfn);
		if (zone < 0 || zone >= f->lk->nr_zones) {
			f->st.outside_zones++;
			zone = -1;
		}
	}
	switch (ev->type) {
	case PS_EV_ZONE_LOCKED:
		if (zone < 0 && r->kind == RUN_REFILL)
			zone = r->zone;		/* a failed __rmqueue inside a refill (<= 5.9: page NULL) */
		if (zone < 0)
			return;
		if (ev->percpu_refill) {
			if (r->kind == RUN_REFILL && r->zone == zone) {
				r->nr++;
				r->t1 = ev->ts_ns;
			} else {
				close_run(f, cpu);
				r->kind = RUN_REFILL;
				r->zone = zone;
				r->nr = 1;
				r->order = ev->order;
				r->mt = ev->migratetype;
				r->fallback = r->pending_xf && r->xf_zone == zone;
				r->t0 = r->fallback ? r->xf_t : ev->ts_ns;
				r->t1 = ev->ts_ns;
			}
			r->pending_xf = 0;
			if (ev->pfn != PS_PFN_NONE)
				pcp_add(f, zone, cpu, (int64_t)1 << ev->order, ev->ts_ns);
			return;
		}
		close_run(f, cpu);
		{
			int fb = r->pending_xf && r->xf_zone == zone;

			emit(f, cpu, fb ? PS_LOCK_FALLBACK : PS_LOCK_DIRECT_ALLOC, zone, 1, ev->order, ev->migratetype,
			     fb ? r->xf_t : ev->ts_ns, ev->ts_ns);
			r->pending_xf = 0;
		}
		return;
	case PS_EV_EXTFRAG:
		if (zone < 0)
			return;
		if (r->kind == RUN_REFILL && r->zone == zone) {
			r->fallback = 1;
			return;
		}
		close_run(f, cpu);
		r->pending_xf = 1;
		r->xf_zone = zone;
		r->xf_t = ev->ts_ns;
		return;
	case PS_EV_PCPU_DRAIN:
		if (zone < 0)
			return;
		if (r->kind == RUN_DRAIN && r->zone == zone) {
			r->nr++;
			r->t1 = ev->ts_ns;
		} else {
			close_run(f, cpu);
			r->kind = RUN_DRAIN;
			r->zone = zone;
			r->nr = 1;
			r->order = ev->order;
			r->mt = ev->migratetype;
			r->fallback = 0;
			r->t0 = r->t1 = ev->ts_ns;
		}
		r->pending_xf = 0;
		pcp_add(f, zone, cpu, -((int64_t)1 << ev->order), ev->ts_ns);
		return;
	case PS_EV_ALLOC:
		close_run(f, cpu);
		r->pending_xf = 0;
		if (zone >= 0 && pcp_order(f, ev->order))
			pcp_add(f, zone, cpu, -((int64_t)1 << ev->order), ev->ts_ns);
		return;
	case PS_EV_FREE:
		close_run(f, cpu);
		r->pending_xf = 0;
		if (zone < 0)
			return;
		if (pcp_order(f, ev->order))
			pcp_add(f, zone, cpu, (int64_t)1 << ev->order, ev->ts_ns);
		else
			emit(f, cpu, PS_LOCK_DIRECT_FREE, zone, 1, ev->order, PS_MT_MOVABLE, ev->ts_ns, ev->ts_ns);
		return;
	}
}

void ps_lock_follow_event(struct ps_lock_follow *f, const struct ps_event *ev)
{
	uint64_t floor = ev->ts_ns;

	follow_event(f, ev);
	/* a run still open will be submitted with its first event's time */
	for (int c = 0; c < f->nr_cpus; c++) {
		const struct run *r = &f->runs[c];

		if (r->kind && r->t0 < floor && r->t1 + FOLLOW_MAX_GAP_NS >= ev->ts_ns)
			floor = r->t0;
		if (r->pending_xf && r->xf_t < floor && r->xf_t + FOLLOW_MAX_GAP_NS >= ev->ts_ns)
			floor = r->xf_t;
	}
	ps_lock_advance(f->lk, floor);
}

void ps_lock_follow_finish(struct ps_lock_follow *f)
{
	for (int c = 0; c < f->nr_cpus; c++)
		close_run(f, c);
	ps_lock_finish(f->lk);
}

void ps_lock_follow_stats(const struct ps_lock_follow *f, struct ps_lock_follow_stats *out)
{
	*out = f->st;
}
