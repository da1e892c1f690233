// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pgs_concat.c - builds a large trace out of a real one for the benchmarks:
 * the events of TRACE (any format pagesim reads) repeated COPIES times, each
 * copy shifted in time past the end of the one before it, CPUs and pids
 * kept, pfns kept (copy k starts from the state copy k-1 left; see
 * docs/performance.md, "Large traces", for when that holds and how bench/run.sh
 * checks it).
 *
 * Writes a pagesim file (-o) carrying the sysroot's before/ files (and the
 * source's format/ directory when there is one) and the source's task names
 * (so that simulate mode's kswapd takeover and compaction targets run as on
 * the source), and optionally the same
 * events as ftrace text (-t FILE, '-' for stdout, meant for a pipe into
 * zstd) in the layout of the kernel's trace file.
 *
 * With -c, every copy is closed: the blocks it allocated and did not free
 * are freed (mm_page_free on the allocating CPU, 1 us after its last
 * event), so that a trace that allocates more than it frees does not pile
 * its leftovers onto the next copy's allocations of the same pfns.
 *
 * usage: pgs_concat -o OUT.pgs [-c] [-t TEXT] [-n COPIES | -e EVENTS] [-s SYSROOT] TRACE
 * Built and run by bench/run.sh; not part of the test suite.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace/gfp.h"
#include "lib/kver.h"
#include "trace/pgs.h"
#include "trace/reader.h"
#include "trace/sysroot.h"
#include "cli/pass1.h"

#define PID_LIMIT (1 << 22)	/* the kernel's PID_MAX_LIMIT on 64-bit */

static int is_dir(const char *p)
{
	struct stat sb;

	return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* One event as the kernel's trace file prints it (v6.1 field layout). */
static void put_text(FILE *f, const struct ps_event *e, int pageblock_order)
{
	char gfp[512];
	uint64_t us = e->ts_ns / 1000;

	/* page= as a struct page address: a zero one would read as a failed allocation */
	fprintf(f, "%16s-%-7d [%03u] .....%6" PRIu64 ".%06" PRIu64 ": %s: page=%016" PRIx64 " pfn=0x%" PRIx64,
		e->comm ? e->comm : "bench", e->pid, e->cpu, us / 1000000, us % 1000000, ps_event_names[e->type],
		(uint64_t)0xffffea0000000000ull + e->pfn * 64, e->pfn);
	switch (e->type) {
	case PS_EV_ALLOC:
		ps_gfp_format(e->gfp, gfp, sizeof(gfp));
		fprintf(f, " order=%u migratetype=%d gfp_flags=%s\n", e->order, e->migratetype, gfp);
		break;
	case PS_EV_FREE:
	case PS_EV_FREE_BATCHED:
		fprintf(f, " order=%u\n", e->order);
		break;
	case PS_EV_ZONE_LOCKED:
		fprintf(f, " order=%u migratetype=%d percpu_refill=%u\n", e->order, e->migratetype,
			e->percpu_refill);
		break;
	case PS_EV_PCPU_DRAIN:
		fprintf(f, " order=%u migratetype=%d\n", e->order, e->migratetype);
		break;
	case PS_EV_EXTFRAG:
		fprintf(f, " alloc_order=%u fallback_order=%u pageblock_order=%d alloc_migratetype=%d fallback_migratetype=%d fragmenting=%d change_ownership=%u\n",
			e->alloc_order, e->fallback_order, pageblock_order, e->alloc_migratetype,
			e->fallback_migratetype, e->fallback_order < pageblock_order,
			e->change_ownership);
		break;
	}
}

/* live blocks of one copy: open addressing on pfn, tombstones on free */
struct live {
	uint64_t pfn;		/* 0 empty, 1 tombstone (pfns 0 and 1 are never allocated) */
	struct ps_event ev;
};

static struct live *live_tab;
static size_t live_mask;

static struct live *live_slot(uint64_t pfn, int insert)
{
	size_t i = (pfn * 0x9e3779b97f4a7c15ull) >> 20 & live_mask;
	struct live *tomb = NULL;

	for (;; i = (i + 1) & live_mask) {
		struct live *l = &live_tab[i];

		if (l->pfn == pfn)
			return l;
		if (l->pfn == 1 && !tomb)
			tomb = l;
		if (l->pfn == 0)
			return insert ? (tomb ? tomb : l) : NULL;
	}
}

int main(int argc, char **argv)
{
	const char *out = NULL, *text = NULL, *sysroot = NULL;
	long copies = 0, want = 0;
	struct ps_error err = { { 0 } };
	struct ps_pgs_meta meta = { 0 };
	struct ps_reader_opts ropts = { .flags = PS_RD_COMM, .kver = PS_KVER_UNKNOWN };
	char **comm_of = calloc(PID_LIMIT, sizeof(*comm_of));	/* task names, by pid */
	static struct ps_machine machine;
	struct ps_pass1_summary *sum = NULL;
	struct ps_pgs_writer *w;
	struct ps_reader *r;
	struct ps_event *ev = NULL, e;
	size_t n = 0, cap = 0;
	uint64_t lo = UINT64_MAX, hi = 0, span;
	FILE *of, *tf = NULL;
	char dir[4096], *slash;
	int opt, ret, pb, close_copies = 0;
	uint64_t closed = 0;

	while ((opt = getopt(argc, argv, "o:t:n:e:s:c")) != -1) {
		switch (opt) {
		case 'o': out = optarg; break;
		case 't': text = optarg; break;
		case 'n': copies = atol(optarg); break;
		case 'e': want = atol(optarg); break;
		case 's': sysroot = optarg; break;
		case 'c': close_copies = 1; break;
		default: goto usage;
		}
	}
	if (optind != argc - 1 || !out)
		goto usage;
	r = ps_reader_open(argv[optind], &ropts, &err);
	if (!r) {
		fprintf(stderr, "pgs_concat: %s\n", err.msg);
		return 1;
	}
	while ((ret = ps_reader_next(r, &e, &err)) > 0) {
		if (n == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			ev = realloc(ev, cap * sizeof(*ev));
			if (!ev) {
				fprintf(stderr, "pgs_concat: out of memory\n");
				return 1;
			}
		}
		/* the name dies with the next event: kept by pid for the file's pid table */
		if (e.comm && e.pid >= 0 && e.pid < PID_LIMIT && comm_of && !comm_of[e.pid])
			comm_of[e.pid] = strdup(e.comm);
		e.comm = NULL;
		ev[n++] = e;
		lo = e.ts_ns < lo ? e.ts_ns : lo;
		hi = e.ts_ns > hi ? e.ts_ns : hi;
	}
	if (ret < 0 || !n) {
		fprintf(stderr, "pgs_concat: %s: %s\n", argv[optind], ret < 0 ? err.msg : "no events");
		return 1;
	}
	if (!copies)
		copies = want > 0 ? (want + n - 1) / n : 1;
	/* the next copy starts 1 ms after the last event of this one */
	span = hi - lo + 1000000;

	snprintf(dir, sizeof(dir), "%s", argv[optind]);
	slash = strrchr(dir, '/');
	if (slash)
		slash[1] = 0;
	else
		strcpy(dir, "./");
	of = fopen(out, "w+");
	if (!of) {
		perror(out);
		return 1;
	}
	pb = ps_reader_pageblock_order(r);
	meta.kernel_release = ps_reader_kernel_release(r);
	meta.page_size = 4096;
	meta.pageblock_order = pb;
	meta.nr_cpus = ps_reader_nr_cpus(r);
	meta.source = "bench/pgs_concat";
	meta.flags = PS_PGS_F_CONVERTED;
	w = ps_pgs_writer_open(of, out, &meta, &err);
	if (!w)
		goto fail;
	for (int32_t pid = 0; comm_of && pid < PID_LIMIT; pid++)
		if (comm_of[pid])
			ps_pgs_note_comm(w, pid, comm_of[pid]);
	{
		char p[4200];

		if (!sysroot) {
			snprintf(p, sizeof(p), "%sbefore", dir);
			sysroot = p;
		}
		if (!is_dir(sysroot)) {
			fprintf(stderr, "pgs_concat: no sysroot '%s' (give -s DIR)\n", sysroot);
			return 1;
		}
		if (ps_pgs_write_dir(w, "before", sysroot, &err) < 0)
			goto fail;
		/* the pass-1 summary, as pagesim convert writes it, so that replay reads the file once */
		if (ps_sysroot_load_machine(sysroot, &machine, &err) < 0)
			goto fail;
		sum = ps_pass1_attach(w, &machine);
		snprintf(p, sizeof(p), "%sformat", dir);
		if (is_dir(p) && ps_pgs_write_dir(w, "format/kmem", p, &err) < 0)
			goto fail;
	}
	if (text) {
		tf = strcmp(text, "-") ? fopen(text, "w") : stdout;
		if (!tf) {
			perror(text);
			return 1;
		}
		fputs("# tracer: nop\n#\n", tf);
	}
	if (close_copies) {
		size_t sz = 1;

		while (sz < 4 * n)
			sz <<= 1;
		live_tab = calloc(sz, sizeof(*live_tab));
		live_mask = sz - 1;
		if (!live_tab) {
			fprintf(stderr, "pgs_concat: out of memory\n");
			return 1;
		}
	}
	for (long k = 0; k < copies; k++) {
		for (size_t i = 0; i < n; i++) {
			e = ev[i];
			e.ts_ns += k * span;
			e.comm = e.pid >= 0 && e.pid < PID_LIMIT && comm_of ? comm_of[e.pid] : NULL;
			if (ps_pgs_write_event(w, &e, &err) < 0)
				goto fail;
			if (tf)
				put_text(tf, &e, pb >= 0 ? pb : 9);
			if (!close_copies || e.pfn == PS_PFN_NONE || e.pfn < 2)
				continue;
			if (e.type == PS_EV_ALLOC) {
				struct live *l = live_slot(e.pfn, 1);

				l->pfn = e.pfn;
				l->ev = e;
			} else if (e.type == PS_EV_FREE) {
				struct live *l = live_slot(e.pfn, 0);

				if (l)
					l->pfn = 1;
			}
		}
		if (!close_copies)
			continue;
		for (size_t i = 0; i <= live_mask; i++) {
			struct live *l = &live_tab[i];

			if (l->pfn > 1) {
				e = l->ev;
				e.type = PS_EV_FREE;
				e.ts_ns = hi + k * span + 1000;
				e.gfp = 0;
				if (ps_pgs_write_event(w, &e, &err) < 0)
					goto fail;
				if (tf)
					put_text(tf, &e, pb >= 0 ? pb : 9);
				closed++;
			}
			l->pfn = 0;
		}
	}
	if (ps_pass1_store(w, sum, &err) < 0 || ps_pgs_writer_finish(w, &err) < 0)
		goto fail;
	ps_pgs_writer_free(w);
	if (fclose(of) || (tf && fclose(tf))) {
		perror("pgs_concat: write");
		return 1;
	}
	fprintf(stderr, "pgs_concat: %s: %ld copies of %zu events + %llu closing frees = %llu events\n", out,
		copies, n, (unsigned long long)closed, (unsigned long long)(n * copies + closed));
	ps_reader_close(r);
	free(ev);
	for (int32_t pid = 0; comm_of && pid < PID_LIMIT; pid++)
		free(comm_of[pid]);
	free(comm_of);
	return 0;
fail:
	fprintf(stderr, "pgs_concat: %s\n", err.msg);
	return 1;
usage:
	fprintf(stderr, "usage: pgs_concat -o OUT.pgs [-c] [-t TEXT] [-n COPIES | -e EVENTS] [-s SYSROOT] TRACE\n");
	return 2;
}
