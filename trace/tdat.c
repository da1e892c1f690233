// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat.c - trace.dat (v6 and v7, compressed or not).
 *
 * libtracecmd opens the file (event formats, cmdlines, uname) and finds the
 * buffer that holds the events; tdat_data.c then reads that buffer's
 * per-CPU data itself (libtracecmd 1.3's record path keeps every
 * decompressed chunk of a v7 file and walks them all per page: quadratic).
 * What tdat_data.c does not handle, and any file when
 * PAGESIM_TDAT_LIBTRACECMD=1, is read through libtracecmd's per-CPU API.
 * Either way the per-CPU streams are merged by timestamp (ties: lower CPU
 * first).  Records are decoded by
 * tep_kmem.c (fields looked up by name once, gfp_flags decoded through the
 * trace's own print format).  Missed events (ring-buffer overruns that
 * libtracecmd reports on the first record after the gap) are counted.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "lib/kver.h"
#include "trace/reader-local.h"
#include "trace/tdat-local.h"
#include "trace/tdat_data.h"
#include "trace/tep_formats.h"
#include "trace/tep_kmem.h"

/* Exported by libtracecmd 1.x but absent from its public header. */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
size_t tracecmd_get_options_offset(struct tracecmd_input *handle);
/* libtracecmd 1.x's compression buffer, exported, in no public header. */
struct tracecmd_compression;
void tracecmd_compress_reset(struct tracecmd_compression *handle);
int tracecmd_compress_buffer_write(struct tracecmd_compression *handle, const void *data, unsigned long long size);
off_t tracecmd_compress_lseek(struct tracecmd_compression *handle, off_t offset, int whence);
int tracecmd_uncompress_block(struct tracecmd_compression *handle);

/*
 * A v7 file's kallsyms section is one zstd block of 4 to 8 MB, which
 * libtracecmd decompresses before handing it to tep_parse_kallsyms() (which
 * tep_formats.c makes parse nothing): half of
 * `stat`'s instructions on a small file.  This tracecmd_uncompress_block()
 * stands in for libtracecmd's own (its section reader calls it through the
 * PLT) while ps_tdat_open() opens a file: for the block that starts the
 * kallsyms section (the 16-byte section header before it names section 19,
 * compressed, of the block's size) it leaves one decompressed length of 0,
 * through libtracecmd's own buffer calls, which the section reader takes
 * for an empty section; every other block, or any file with
 * PAGESIM_TDAT_SYMBOLS=1, goes to the real function.  A libtracecmd that
 * calls it internally merely decompresses as before.
 */
#define TDAT_SECTION_KALLSYMS 19	/* TRACECMD_OPTION_KALLSYMS */

static __thread int kallsyms_fd = -1;	/* the file ps_tdat_open() opens, or -1 */

/* Whether the block at @fd's offset opens a compressed kallsyms section. */
static int at_kallsyms_block(int fd)
{
	unsigned char h[20];
	off_t pos = lseek(fd, 0, SEEK_CUR);
	uint64_t size;

	if (pos < 16 || pread(fd, h, sizeof(h), pos - 16) != (ssize_t)sizeof(h))
		return 0;
	size = le64(h + 8);
	return (h[0] | h[1] << 8) == TDAT_SECTION_KALLSYMS && (h[2] | h[3] << 8) == 1 &&
	       size == (uint64_t)le32(h + 16) + 8;
}

__attribute__((used, visibility("default"))) int tracecmd_uncompress_block(struct tracecmd_compression *c)
{
	static int (*real)(struct tracecmd_compression *);
	static const char none[4];

	if (kallsyms_fd >= 0 && at_kallsyms_block(kallsyms_fd)) {
		tracecmd_compress_reset(c);
		if (tracecmd_compress_buffer_write(c, none, sizeof(none)) == 0 &&
		    tracecmd_compress_lseek(c, 0, SEEK_SET) == 0)
			return 0;
	}
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tracecmd_uncompress_block");
	return real ? real(c) : -1;
}

struct tdat_state {
	struct tracecmd_input *handle;
	int borrowed;			/* handle is the caller's (ps_tdat_open_with()) */
	struct tracecmd_input *data;	/* the buffer read: top level or an instance */
	char instance[64];
	struct tep_handle *tep;
	int nr_cpus;
	struct tep_record **pending;	/* next record per CPU, NULL when exhausted */
	struct ps_tep_kmem k;		/* field handles and the gfp cache (tep_kmem.h) */
	struct tep_record *last;	/* record of the last event returned */
	struct ps_tdat_data *fast;	/* the data read by tdat_data.c, or NULL */
	int need[PS_EV_NR];		/* record size the fields of each event need */
	int need_common;		/* ... the common fields */
};

static int fill(struct ps_reader *r, struct tdat_state *st, int type, struct tep_record *rec,
		struct ps_event *ev)
{
	int from_page;

	if (ps_tep_kmem_fill(&st->k, type, rec, r->kver, ev, &from_page) < 0)
		return -1;
	r->stats.pfn_from_page += from_page;
	if (r->opts.flags & PS_RD_COMM)
		ps_event_set_comm(ev, tep_data_comm_from_pid(st->tep, ev->pid));
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
	st->pending[best] = tracecmd_read_data(st->data, best);
	return rec;
}

/* Bytes a record of @e must hold for its fields (common ones or all) to lie within it. */
static int format_need(const struct tep_event *e, int common)
{
	const struct tep_format_field *f = common ? e->format.common_fields : e->format.fields;
	int need = 0;

	for (; f; f = f->next)
		if (f->offset + f->size > need)
			need = f->offset + f->size;
	return need;
}

static void init_need(struct tdat_state *st)
{
	for (int t = 0; t < PS_EV_NR; t++) {
		const struct tep_event *e = st->k.f[t].event;

		if (!e)
			continue;
		st->need[t] = format_need(e, 0);
		if (format_need(e, 1) > st->need[t])
			st->need[t] = format_need(e, 1);
		if (format_need(e, 1) > st->need_common)
			st->need_common = format_need(e, 1);
	}
}

/* One record: 1 with @ev filled, 0 when skipped (and counted), -1 on an error. */
static int take(struct ps_reader *r, struct tdat_state *st, struct tep_record *rec,
		struct ps_event *ev, struct ps_error *err)
{
	char where[64];
	int id, type;

	if (rec->missed_events) {
		r->stats.lost_markers++;
		if (rec->missed_events > 0)
			r->stats.lost_events += rec->missed_events;
		else
			r->stats.lost_unknown++;
	}
	if (rec->size < st->need_common) {
		static const char what[] = "record shorter than the common event fields";

		snprintf(where, sizeof(where), "cpu %d offset %llu", rec->cpu, rec->offset);
		return ps_reader_skip(r, PS_SKIP_MALFORMED, where, what, sizeof(what) - 1, err);
	}
	id = ps_tep_kmem_id(&st->k, rec);
	type = ps_tep_kmem_type(&st->k, id);
	if (type < 0) {
		struct tep_event *e = tep_find_event(st->tep, id);
		const char *n = e ? e->name : ps_tep_other_name(st->tep, id);

		if (!n)
			n = "unknown event id";

		/* the place is formatted only for a skip: no string work per event */
		snprintf(where, sizeof(where), "cpu %d offset %llu", rec->cpu, rec->offset);
		return ps_reader_skip(r, PS_SKIP_OTHER_EVENT, where, n, strlen(n), err);
	}
	if (rec->size < st->need[type] || fill(r, st, type, rec, ev) < 0) {
		char what[96];

		if (rec->size < st->need[type])
			snprintf(what, sizeof(what), "%s: a record of %d bytes, where its format needs %d",
				 ps_event_names[type], rec->size, st->need[type]);
		else
			snprintf(what, sizeof(what), "%s", ps_event_names[type]);
		snprintf(where, sizeof(where), "cpu %d offset %llu", rec->cpu, rec->offset);
		return ps_reader_skip(r, PS_SKIP_BAD_FIELD, where, what, strlen(what), err);
	}
	ps_reader_account(r, ev);
	return 1;
}

static int tdat_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	struct tdat_state *st = r->priv;

	for (;;) {
		struct tep_record *rec;
		int ret;

		if (st->fast) {
			ret = ps_tdat_data_next(st->fast, r, &rec, err);
			if (ret <= 0)
				return ret;
			ret = take(r, st, rec, ev, err);
		} else {
			if (st->last) {
				tracecmd_free_record(st->last);
				st->last = NULL;
			}
			rec = pop_next(st);
			if (!rec)
				return 0;
			ret = take(r, st, rec, ev, err);
			if (ret > 0)
				st->last = rec;
			else
				tracecmd_free_record(rec);
		}
		if (ret)
			return ret;
	}
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
	ps_tdat_data_close(st->fast);
	ps_tep_kmem_free(&st->k);
	if (st->data && st->data != st->handle)
		tracecmd_close(st->data);
	if (st->handle && !st->borrowed) {
		ps_tep_forget(tracecmd_get_tep(st->handle));
		tracecmd_close(st->handle);
	}
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

/*
 * The events may sit in the top-level buffer or in a tracefs instance
 * ("trace-cmd extract -B NAME", pagesim's own recordings): the first buffer
 * that holds any record is read.
 *
 * pick_fast() looks for it with tdat_data.c (libtracecmd 1.3.1 crashes
 * opening an instance whose first page is damaged): 1 found or no buffer
 * holds a record, 0 with *why set when tdat_data.c does not handle the file,
 * -1 on error.
 */
static int pick_fast(struct tdat_state *st, struct ps_reader *r, int fd, uint64_t v6_options,
		     const char **why, struct ps_error *err)
{
	int ncpu = st->nr_cpus;

	for (int b = -1; b < tracecmd_buffer_instances(st->handle); b++) {
		const char *name = b < 0 ? "" : tracecmd_buffer_instance_name(st->handle, b);
		struct ps_tdat_data *d;

		if (!name)
			continue;
		d = ps_tdat_data_open(r, fd, st->tep, v6_options, name, ncpu, why, err);
		if (!d)
			return *why ? 0 : -1;
		if (ps_tdat_data_any(d)) {
			st->fast = d;
			if (b >= 0)
				snprintf(st->instance, sizeof(st->instance), "%s", name);
			return 1;
		}
		ps_tdat_data_close(d);
	}
	return 1;
}

/* The same through libtracecmd's per-CPU API. */
static void pick_libtracecmd(struct tdat_state *st, struct ps_reader *r)
{
	st->data = st->handle;
	for (int b = -1; b < tracecmd_buffer_instances(st->handle); b++) {
		struct tracecmd_input *h = b < 0 ? st->handle : tracecmd_buffer_instance_handle(st->handle, b);
		int any = 0, ncpu;

		if (!h)
			continue;
		ncpu = tep_get_cpus(tracecmd_get_tep(h));
		if (ncpu > PS_READER_MAX_CPUS)
			ncpu = PS_READER_MAX_CPUS;
		for (int c = 0; c < ncpu; c++) {
			st->pending[c] = tracecmd_read_data(h, c);
			any |= st->pending[c] != NULL;
		}
		if (any) {
			st->data = h;
			st->nr_cpus = ncpu;
			r->nr_cpus = ncpu;
			if (b >= 0)
				snprintf(st->instance, sizeof(st->instance), "%s",
					 tracecmd_buffer_instance_name(st->handle, b));
			break;
		}
		for (int c = 0; c < ncpu; c++)
			if (st->pending[c]) {
				tracecmd_free_record(st->pending[c]);
				st->pending[c] = NULL;
			}
		if (h != st->handle)
			tracecmd_close(h);
	}
}

/* How tdat_start() reads the data. */
enum tdat_path {
	TDAT_LIBTRACECMD,	/* libtracecmd's record path only */
	TDAT_FAST,		/* tdat_data.c, else libtracecmd */
	TDAT_FAST_ONLY,		/* tdat_data.c: what it does not handle is an error */
};

/* What follows opening the header: the kmem event formats, then the buffer with the events. */
static int tdat_start(struct ps_reader *r, struct tdat_state *st, int fd, uint64_t v6_options,
		      const struct ps_tep_kmem *kmem, enum tdat_path how, struct ps_error *err)
{
	const char *why = NULL;
	char msg[256];
	int found, ret;

	st->tep = tracecmd_get_tep(st->handle);
	st->nr_cpus = tep_get_cpus(st->tep);
	if (st->nr_cpus < 0 || st->nr_cpus > PS_READER_MAX_CPUS)
		return ps_err(err, "%s: trace.dat declares %d CPUs: the header is damaged", r->path, st->nr_cpus);
	r->nr_cpus = st->nr_cpus;
	release_from_uname(tracecmd_get_uname(st->handle), r->release, sizeof(r->release));
	if (!r->opts.kver_forced && r->release[0])
		r->kver = ps_kver_parse(r->release);
	found = kmem ? ps_tep_kmem_copy(&st->k, kmem) : ps_tep_kmem_init(&st->k, st->tep);
	if (!found)
		return ps_err(err, "%s: the trace.dat has no kmem page event formats: record kmem:mm_page_alloc and friends",
			      r->path);
	if (ps_tep_kmem_check(&st->k, msg, sizeof(msg)) < 0)
		return ps_err(err, "%s: the trace.dat's %s: the event format is damaged (or from a kernel pagesim does not know)",
			      r->path, msg);
	/* every kernel's ring-buffer page header has a 64-bit timestamp */
	if (!tep_is_old_format(st->tep) && tep_get_header_timestamp_size(st->tep) != 8)
		return ps_err(err, "%s: the trace.dat's header_page format gives a %d-byte timestamp, not 8: the header is damaged",
			      r->path, tep_get_header_timestamp_size(st->tep));
	init_need(st);
	st->pending = calloc(PS_READER_MAX_CPUS, sizeof(*st->pending));
	if (!st->pending)
		return ps_err(err, "out of memory");
	st->data = st->handle;
	ret = how == TDAT_LIBTRACECMD ? 0 : pick_fast(st, r, fd, v6_options, &why, err);
	if (ret < 0)
		return -1;
	if (!ret && why && getenv("PAGESIM_TDAT_DEBUG"))
		fprintf(stderr, "pagesim: %s: read through libtracecmd: %s\n", r->path, why);
	if (!ret && how == TDAT_FAST_ONLY)
		return ps_err(err, "%s: trace.dat data not handled: %s", r->path, why);
	if (!ret)
		pick_libtracecmd(st, r);
	if (st->instance[0])
		snprintf(r->format, sizeof(r->format), "trace.dat (instance %.40s)", st->instance);
	else
		snprintf(r->format, sizeof(r->format), "trace.dat");
	return 0;
}

int ps_tdat_open(struct ps_reader *r, int fd, struct ps_error *err)
{
	struct tdat_state *st = calloc(1, sizeof(*st));
	const char *env = getenv("PAGESIM_TDAT_LIBTRACECMD");

	if (!st) {
		close(fd);
		return ps_err(err, "out of memory");
	}
	r->priv = st;
	r->ops = &tdat_ops;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	kallsyms_fd = ps_tep_symbols_wanted() ? -1 : fd;
	st->handle = tracecmd_open_fd(fd, TRACECMD_FL_LOAD_NO_PLUGINS);
	kallsyms_fd = -1;
	if (!st->handle) {
		close(fd);
		return ps_err(err, "%s: not a readable trace.dat (damaged header or unsupported version): check the file with 'trace-cmd dump --summary %s'",
			      r->path, r->path);
	}
	return tdat_start(r, st, fd, tracecmd_get_options_offset(st->handle), NULL,
			  env && *env && strcmp(env, "0") ? TDAT_LIBTRACECMD : TDAT_FAST, err);
}

int ps_tdat_open_with(struct ps_reader *r, int fd, struct tracecmd_input *handle,
		      const struct ps_tep_kmem *kmem, uint64_t v6_options, struct ps_error *err)
{
	struct tdat_state *st = calloc(1, sizeof(*st));

	if (!st)
		return ps_err(err, "out of memory");
	r->priv = st;
	r->ops = &tdat_ops;
	st->handle = handle;
	st->borrowed = 1;
	return tdat_start(r, st, fd, v6_options, kmem, TDAT_FAST_ONLY, err);
}
