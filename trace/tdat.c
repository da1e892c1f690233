// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat.c - trace.dat (v6 and v7, compressed or not) through libtracecmd.
 *
 * The per-CPU streams are merged here by timestamp (ties: lower CPU first),
 * using only libtracecmd's public per-CPU API.  Fields are looked up by name
 * once per event type and read per record with libtraceevent; nothing
 * assumes an offset.  Missed events (ring-buffer overruns that libtracecmd
 * reports on the first record after the gap) are counted.
 *
 * gfp_flags are stored as the kernel's raw bits, whose values changed
 * between releases; each distinct raw value is rendered once through the
 * trace's own print format (libtraceevent) and its symbolic names decoded,
 * then cached.  The rendered `fragmenting=` is never used.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "gfp.h"
#include "kver.h"
#include "reader-local.h"

/* Exported by libtracecmd 1.x but absent from its public header. */
const char *tracecmd_get_uname(struct tracecmd_input *handle);

struct ev_fields {
	int id;			/* tep event id, -1 when the trace lacks the event */
	struct tep_event *event;
	struct tep_format_field *pfn, *page, *order, *gfp, *mt, *percpu_refill;
	struct tep_format_field *alloc_order, *fallback_order, *alloc_mt, *fallback_mt, *change_ownership;
};

#define GFP_CACHE 256

struct tdat_state {
	struct tracecmd_input *handle;
	struct tep_handle *tep;
	int nr_cpus;
	struct tep_record **pending;	/* next record per CPU, NULL when exhausted */
	struct ev_fields f[PS_EV_NR];
	struct tep_record *last;	/* record of the last event returned */
	uint64_t gfp_raw[GFP_CACHE];
	uint32_t gfp_ps[GFP_CACHE];
	int gfp_used;
	struct trace_seq seq;
};

static struct tep_format_field *field(struct tep_event *e, const char *name)
{
	return e ? tep_find_field(e, name) : NULL;
}

static void resolve(struct tdat_state *st)
{
	for (int t = 0; t < PS_EV_NR; t++) {
		struct ev_fields *f = &st->f[t];
		struct tep_event *e = tep_find_event_by_name(st->tep, "kmem", ps_event_names[t]);

		memset(f, 0, sizeof(*f));
		f->id = e ? e->id : -1;
		f->event = e;
		f->pfn = field(e, "pfn");
		f->page = field(e, "page");
		f->order = field(e, "order");
		f->gfp = field(e, "gfp_flags");
		f->mt = field(e, "migratetype");
		f->percpu_refill = field(e, "percpu_refill");
		f->alloc_order = field(e, "alloc_order");
		f->fallback_order = field(e, "fallback_order");
		f->alloc_mt = field(e, "alloc_migratetype");
		f->fallback_mt = field(e, "fallback_migratetype");
		f->change_ownership = field(e, "change_ownership");
	}
}

static int read_num(struct tep_format_field *fl, struct tep_record *rec, unsigned long long *v)
{
	if (!fl)
		return -1;
	return tep_read_number_field(fl, rec->data, v);
}

/* Raw kernel gfp -> PS_GFP_*, via the trace's own print format. */
static uint32_t decode_gfp(struct tdat_state *st, struct tep_record *rec, uint64_t raw)
{
	const char *p, *e;
	uint32_t bits;

	for (int i = 0; i < st->gfp_used; i++)
		if (st->gfp_raw[i] == raw)
			return st->gfp_ps[i];
	trace_seq_reset(&st->seq);
	tep_print_event(st->tep, &st->seq, rec, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&st->seq);
	p = strstr(st->seq.buffer, "gfp_flags=");
	if (!p) {
		bits = PS_GFP_UNKNOWN;
	} else {
		p += strlen("gfp_flags=");
		e = p;
		while (*e && *e != ' ')
			e++;
		bits = ps_gfp_parse(p, e - p);
	}
	if (st->gfp_used < GFP_CACHE) {
		st->gfp_raw[st->gfp_used] = raw;
		st->gfp_ps[st->gfp_used++] = bits;
	}
	return bits;
}

static int fill(struct ps_reader *r, struct tdat_state *st, int type, struct tep_record *rec,
		struct ps_event *ev)
{
	struct ev_fields *f = &st->f[type];
	unsigned long long v;

	memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->ts_ns = rec->ts;
	ev->cpu = rec->cpu;
	ev->pid = tep_data_pid(st->tep, rec);
	ev->migratetype = ev->alloc_migratetype = ev->fallback_migratetype = PS_MT_UNKNOWN;
	if (r->opts.flags & PS_RD_COMM)
		ev->comm = tep_data_comm_from_pid(st->tep, ev->pid);
	if (f->pfn) {
		if (read_num(f->pfn, rec, &v) < 0)
			return -1;
		ev->pfn = v == (unsigned long long)-1 || (f->pfn->size == 4 && v == 0xffffffffull) ? PS_PFN_NONE : v;
	} else if (f->page) {
		if (read_num(f->page, rec, &v) < 0)
			return -1;
		if (v == 0) {
			ev->pfn = PS_PFN_NONE;
		} else {
			ev->pfn = ps_pfn_from_page_addr(v);
			if (ev->pfn == PS_PFN_NONE)
				return -1;
			r->stats.pfn_from_page++;
		}
	} else {
		return -1;
	}
	if (ev->pfn == PS_PFN_NONE && type != PS_EV_ALLOC)
		return -1;
	if (f->order) {
		if (read_num(f->order, rec, &v) < 0 || v > 63)
			return -1;
		ev->order = v;
	} else if (type != PS_EV_FREE_BATCHED && type != PS_EV_EXTFRAG) {
		return -1;
	}
	if (f->mt) {
		if (read_num(f->mt, rec, &v) < 0)
			return -1;
		ev->migratetype = ps_mt_from_kernel((int)v, r->kver);
	}
	switch (type) {
	case PS_EV_ALLOC:
		if (f->gfp && read_num(f->gfp, rec, &v) == 0)
			ev->gfp = decode_gfp(st, rec, v);
		break;
	case PS_EV_ZONE_LOCKED:
		if (f->percpu_refill && read_num(f->percpu_refill, rec, &v) == 0) {
			ev->percpu_refill = v != 0;
			ev->flags |= PS_EVF_PCPU_REFILL_KNOWN;
		} else {
			ev->percpu_refill = ev->order == 0;
		}
		break;
	case PS_EV_EXTFRAG:
		if (read_num(f->alloc_order, rec, &v) < 0)
			return -1;
		ev->alloc_order = v;
		ev->order = v;
		if (read_num(f->fallback_order, rec, &v) < 0)
			return -1;
		ev->fallback_order = v;
		if (read_num(f->alloc_mt, rec, &v) < 0)
			return -1;
		ev->alloc_migratetype = ps_mt_from_kernel((int)v, r->kver);
		if (read_num(f->fallback_mt, rec, &v) < 0)
			return -1;
		ev->fallback_migratetype = ps_mt_from_kernel((int)v, r->kver);
		if (read_num(f->change_ownership, rec, &v) < 0)
			return -1;
		ev->change_ownership = v != 0;
		break;
	}
	return 0;
}

static struct tep_record *pop_next(struct tdat_state *st)
{
	int best = -1;
	struct tep_record *rec;

	for (int c = 0; c < st->nr_cpus; c++)
		if (st->pending[c] && (best < 0 || st->pending[c]->ts < st->pending[best]->ts))
			best = c;
	if (best < 0)
		return NULL;
	rec = st->pending[best];
	st->pending[best] = tracecmd_read_data(st->handle, best);
	return rec;
}

static int tdat_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	struct tdat_state *st = r->priv;
	struct tep_record *rec;
	char where[64];

	if (st->last) {
		tracecmd_free_record(st->last);
		st->last = NULL;
	}
	while ((rec = pop_next(st))) {
		int id, type = -1;

		if (rec->missed_events) {
			r->stats.lost_markers++;
			if (rec->missed_events > 0)
				r->stats.lost_events += rec->missed_events;
			else
				r->stats.lost_unknown++;
		}
		id = tep_data_type(st->tep, rec);
		for (int t = 0; t < PS_EV_NR; t++)
			if (st->f[t].id == id) {
				type = t;
				break;
			}
		snprintf(where, sizeof(where), "cpu %d offset %llu", rec->cpu, rec->offset);
		if (type < 0) {
			struct tep_event *e = tep_find_event(st->tep, id);
			const char *n = e ? e->name : "unknown event id";

			if (ps_reader_skip(r, PS_SKIP_OTHER_EVENT, where, n, strlen(n), err) < 0) {
				tracecmd_free_record(rec);
				return -1;
			}
			tracecmd_free_record(rec);
			continue;
		}
		if (fill(r, st, type, rec, ev) < 0) {
			const char *n = ps_event_names[type];

			if (ps_reader_skip(r, PS_SKIP_BAD_FIELD, where, n, strlen(n), err) < 0) {
				tracecmd_free_record(rec);
				return -1;
			}
			tracecmd_free_record(rec);
			continue;
		}
		st->last = rec;
		ps_reader_account(r, ev);
		return 1;
	}
	return 0;
}

static void tdat_close(struct ps_reader *r)
{
	struct tdat_state *st = r->priv;

	if (!st)
		return;
	if (st->last)
		tracecmd_free_record(st->last);
	for (int c = 0; st->pending && c < st->nr_cpus; c++)
		if (st->pending[c])
			tracecmd_free_record(st->pending[c]);
	free(st->pending);
	trace_seq_destroy(&st->seq);
	if (st->handle)
		tracecmd_close(st->handle);
	free(st);
	r->priv = NULL;
}

static const struct ps_reader_ops tdat_ops = {
	.name = "trace.dat",
	.next = tdat_next,
	.close = tdat_close,
};

/* "Linux host 6.1.0-57-amd64 #1 SMP ..." -> "6.1.0-57-amd64" */
static void release_from_uname(const char *uname, char *out, size_t len)
{
	char a[64], b[128], c[128];

	out[0] = 0;
	if (!uname)
		return;
	if (sscanf(uname, "%63s %127s %127s", a, b, c) == 3 && ps_kver_parse(c) != PS_KVER_UNKNOWN)
		snprintf(out, len, "%s", c);
	else if (sscanf(uname, "%127s", c) == 1 && ps_kver_parse(c) != PS_KVER_UNKNOWN)
		snprintf(out, len, "%s", c);
}

int ps_tdat_open(struct ps_reader *r, int fd, struct ps_error *err)
{
	struct tdat_state *st = calloc(1, sizeof(*st));
	int found = 0;

	if (!st) {
		close(fd);
		return ps_err(err, "out of memory");
	}
	r->priv = st;
	r->ops = &tdat_ops;
	trace_seq_init(&st->seq);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	st->handle = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!st->handle) {
		close(fd);
		return ps_err(err, "%s: not a readable trace.dat (damaged header or unsupported version): check the file with 'trace-cmd dump --summary %s'",
			      r->path, r->path);
	}
	st->tep = tracecmd_get_tep(st->handle);
	st->nr_cpus = tep_get_cpus(st->tep);
	if (st->nr_cpus <= 0 || st->nr_cpus > PS_READER_MAX_CPUS)
		return ps_err(err, "%s: trace.dat declares %d CPUs: the header is damaged", r->path, st->nr_cpus);
	r->nr_cpus = st->nr_cpus;
	release_from_uname(tracecmd_get_uname(st->handle), r->release, sizeof(r->release));
	if (!r->opts.kver_forced && r->release[0])
		r->kver = ps_kver_parse(r->release);
	resolve(st);
	for (int t = 0; t < PS_EV_NR; t++)
		found += st->f[t].id >= 0;
	if (!found)
		return ps_err(err, "%s: the trace.dat has no kmem page event formats: record kmem:mm_page_alloc and friends",
			      r->path);
	st->pending = calloc(st->nr_cpus, sizeof(*st->pending));
	if (!st->pending)
		return ps_err(err, "out of memory");
	for (int c = 0; c < st->nr_cpus; c++)
		st->pending[c] = tracecmd_read_data(st->handle, c);
	snprintf(r->format, sizeof(r->format), "trace.dat");
	return 0;
}
