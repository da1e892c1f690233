// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * perf.c - perf.data with kmem tracepoints, as 'perf record -e kmem:...'
 * and 'perf kmem record --page' write it, read directly.
 *
 * Layout (tools/perf/Documentation/perf.data-file-format.txt,
 * tools/perf/util/header.c and session.c): a file header ("PERFILE2", its
 * size, the size of an attribute entry, the attrs, data and event_types
 * sections, a 256-bit feature bitmap); the attributes, each a
 * perf_event_attr and the file section of its sample ids; the data, a
 * stream of records (u32 type, u16 misc, u16 size); after the data one
 * file section per feature bit set, in bit order.  A pipe's perf.data
 * ('perf record -o -') has a 16-byte header and carries the attributes,
 * the tracing data and the features as records of their own.
 *
 * Which tracepoint a sample is comes from its attribute (found by the
 * sample's id): the attribute's config is the tracepoint's id.  The
 * sample's PERF_SAMPLE_RAW data is the tracepoint's record, whose fields
 * tep_kmem.c reads by name from the formats of the HEADER_TRACING_DATA
 * feature (perf_tracing.c), as for a trace.dat.  Time, CPU and task come
 * from the sample as its sample_type lays them out.  Task names come from
 * PERF_RECORD_COMM (a forked task keeps its parent's, PERF_RECORD_FORK).
 * PERF_RECORD_LOST and PERF_RECORD_LOST_SAMPLES count as lost events,
 * PERF_RECORD_THROTTLE of a kmem event as a loss of unknown size.
 * PERF_RECORD_COMPRESSED and COMPRESSED2 ('perf record -z') are zstd.
 *
 * perf writes each CPU's buffer in turn: the records are not in time
 * order.  As perf does, the events are held until a FINISHED_ROUND, then
 * those no later than the latest time seen before the previous round are
 * sorted (by time, then file order) and handed out; task names and forks
 * go through the same order.
 *
 * Only little-endian files are read; a big-endian one is refused by name.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <traceevent/event-parse.h>
#include <zstd.h>

#include "lib/kver.h"
#include "trace/perf_tracing.h"
#include "trace/reader-local.h"
#include "trace/tep_formats.h"
#include "trace/tep_kmem.h"

/* record types (include/uapi/linux/perf_event.h, tools/lib/perf/include/perf/event.h) */
enum {
	REC_LOST = 2,
	REC_COMM = 3,
	REC_THROTTLE = 5,
	REC_FORK = 7,
	REC_SAMPLE = 9,
	REC_LOST_SAMPLES = 13,
	REC_HEADER_ATTR = 64,
	REC_HEADER_TRACING_DATA = 66,
	REC_FINISHED_ROUND = 68,
	REC_AUXTRACE = 71,
	REC_HEADER_FEATURE = 80,
	REC_COMPRESSED = 81,
	REC_COMPRESSED2 = 83,
};

/* sample_type bits */
#define S_IP		(1ull << 0)
#define S_TID		(1ull << 1)
#define S_TIME		(1ull << 2)
#define S_ADDR		(1ull << 3)
#define S_READ		(1ull << 4)
#define S_CALLCHAIN	(1ull << 5)
#define S_ID		(1ull << 6)
#define S_CPU		(1ull << 7)
#define S_PERIOD	(1ull << 8)
#define S_STREAM_ID	(1ull << 9)
#define S_RAW		(1ull << 10)
#define S_IDENTIFIER	(1ull << 16)

/* read_format bits */
#define RF_TOTAL_TIME_ENABLED	(1ull << 0)
#define RF_TOTAL_TIME_RUNNING	(1ull << 1)
#define RF_ID			(1ull << 2)
#define RF_GROUP		(1ull << 3)
#define RF_LOST			(1ull << 4)

#define ATTR_FLAG_SAMPLE_ID_ALL	(1ull << 18)
#define MISC_LOST_SAMPLES_BPF	(1u << 15)
#define PERF_TYPE_TRACEPOINT	2

/* features */
#define FEAT_TRACING_DATA	1
#define FEAT_OSRELEASE		4
#define FEAT_NRCPUS		7

#define FILE_HEADER_SIZE	104	/* magic, size, attr_size, 3 sections, 256 feature bits */
#define ATTR_MIN		64	/* PERF_ATTR_SIZE_VER0 */
#define MAX_ATTRS		4096
#define MAX_IDS			(1u << 20)
#define MAX_SECTION		(256u << 20)	/* a larger tracing data or feature section is damage */
#define WINDOW			(1u << 20)	/* file data is read this much at a time */
#define COMM_LEN		16
#define MAX_DECOMPRESSED	(64u << 20)	/* records a COMPRESSED one may leave undelivered */

struct attr {
	uint32_t type;
	uint64_t config, sample_type, read_format;
	int sample_id_all;
	int kmem;		/* PS_EV_* of a kmem tracepoint, else -1 */
	uint64_t lost;		/* samples lost, from PERF_RECORD_LOST_SAMPLES */
};

/* What a sample or a record's sample_id trailer says. */
struct sample {
	uint32_t tid, cpu;
	uint64_t time, id;
	const uint8_t *raw;
	uint32_t raw_size;
};

/* An event, task name or fork held until its round is sorted. */
enum { Q_EVENT, Q_COMM, Q_FORK };

struct qent {
	struct ps_event ev;	/* Q_COMM, Q_FORK: ts_ns and pid (the task) only */
	uint8_t kind;
	int32_t ptid;		/* Q_FORK: the parent task */
	char comm[COMM_LEN];	/* Q_COMM */
};

struct qkey {
	uint64_t ts;
	uint32_t idx;		/* into pending: file order breaks ties */
};

struct task {
	int32_t tid;		/* 0 in an empty slot, -1 - tid for tid 0 */
	char comm[COMM_LEN];
	uint8_t task;
	int8_t task_node;
};

/* Bytes from the file (pread) or, for a pipe's perf.data, the stream. */
struct src {
	int fd;
	struct ps_stream *stream;
	uint64_t base;		/* file offset of buf[0] */
	uint64_t end;		/* file: end of the data section */
	uint8_t *buf;
	size_t pos, len, cap;
	int eof;
};

struct perf_state {
	struct src in;
	int pipe;
	/* decompressed records of COMPRESSED ones */
	ZSTD_DStream *zds;
	uint8_t *dbuf;
	size_t dpos, dlen, dcap;
	uint64_t zrec_off;	/* file offset of the last COMPRESSED record */
	/* attributes and their sample ids */
	struct attr *attrs;
	int nattrs;
	uint64_t *id_key;	/* open addressing: id -> attrs index (id_val) */
	int *id_val;
	size_t id_cap, nids;
	int id_pos;		/* u64s before the ID of a sample without IDENTIFIER, -1: none */
	int identifier;		/* every attribute has PERF_SAMPLE_IDENTIFIER */
	/* event formats */
	struct tep_handle *tep;
	struct tep_handle *tep_lent;	/* ps_perf_open_with(): formats parsed before, not ours */
	int tracing_seen;		/* the first tracing data was read */
	struct ps_tep_kmem k;
	int have_kmem;
	int ready;		/* setup_attrs() done: samples can be read */
	int need[PS_EV_NR];	/* raw bytes each event's fields need */
	int need_common;
	/* ordering */
	struct qent *pend;
	size_t npend, cap_pend;
	struct qkey *keys;
	size_t nkeys, kpos, cap_keys;
	uint64_t limit;		/* the sorted ones are those no later than this */
	uint64_t next_flush;	/* latest time seen before the last FINISHED_ROUND */
	uint64_t max_ts;
	int done;		/* the data ended: the last events are sorted */
	/* losses (do_lost()) */
	uint64_t lost_records, lost_in_records, lost_sample_records, throttled;
	uint64_t lost_samples;	/* ... of no known event */
	/* task names */
	struct task *tasks;
	size_t task_cap, ntasks;
	struct tep_record rec;
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static int grow(void **p, size_t *cap, size_t want, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* ---- reading ------------------------------------------------------------ */

static int pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	size_t done = 0;

	while (done < n) {
		ssize_t r = pread(fd, (uint8_t *)buf + done, n - done, off + done);

		if (r < 0)
			return -1;
		if (r == 0)
			break;
		done += r;
	}
	return (int)(done == n);
}

/*
 * Makes @n bytes available at in.buf + in.pos.  Returns 1, 0 when the data
 * ends before them (in.eof set), -1 on a read error (@err filled).
 */
static int src_need(struct ps_reader *r, struct src *s, size_t n, struct ps_error *err)
{
	while (s->len - s->pos < n) {
		size_t want;
		long got;

		if (s->eof)
			return 0;
		if (s->pos) {
			memmove(s->buf, s->buf + s->pos, s->len - s->pos);
			s->base += s->pos;
			s->len -= s->pos;
			s->pos = 0;
		}
		if (grow((void **)&s->buf, &s->cap, n > WINDOW ? n : WINDOW, 1) < 0)
			return ps_err(err, "out of memory");
		want = s->cap - s->len;
		if (s->stream) {
			got = ps_stream_read(s->stream, s->buf + s->len, want, err);
			if (got < 0) {
				/* a cut or damaged compressed pipe: the events before it are used */
				if (!r->stats.truncated) {
					r->stats.truncated = 1;
					snprintf(r->stats.truncated_msg, sizeof(r->stats.truncated_msg), "%s", err->msg);
				}
				got = 0;
			}
		} else {
			uint64_t at = s->base + s->len;
			ssize_t g;

			if (at >= s->end) {
				got = 0;
			} else {
				if (want > s->end - at)
					want = s->end - at;
				g = pread(s->fd, s->buf + s->len, want, at);
				if (g < 0)
					return ps_err(err, "%s: read failed at byte %llu", r->path,
						      (unsigned long long)at);
				got = g;
			}
		}
		if (got == 0)
			s->eof = 1;
		s->len += got;
	}
	return 1;
}

/* ---- attributes and ids ------------------------------------------------- */

static size_t id_slot(const struct perf_state *st, uint64_t id)
{
	return (size_t)((id * 0x9e3779b97f4a7c15ull) >> 32) & (st->id_cap - 1);
}

static int id_add(struct perf_state *st, uint64_t id, int attr)
{
	size_t i;

	if (st->nids * 2 >= st->id_cap) {
		size_t old = st->id_cap, cap = old ? old * 2 : 64;
		uint64_t *ok = st->id_key, *nk = calloc(cap, sizeof(*nk));
		int *ov = st->id_val, *nv = malloc(cap * sizeof(*nv));

		if (!nk || !nv) {
			free(nk);
			free(nv);
			return -1;
		}
		st->id_key = nk;
		st->id_val = nv;
		st->id_cap = cap;
		st->nids = 0;
		for (i = 0; i < old; i++)
			if (ok[i])
				id_add(st, ok[i], ov[i]);
		free(ok);
		free(ov);
	}
	/* id 0 marks a free slot: perf's synthesized records carry it, never an event */
	if (!id)
		return 0;
	for (i = id_slot(st, id); st->id_key[i]; i = (i + 1) & (st->id_cap - 1))
		if (st->id_key[i] == id)
			return 0;
	st->id_key[i] = id;
	st->id_val[i] = attr;
	st->nids++;
	return 0;
}

static const struct attr *id_attr(const struct perf_state *st, uint64_t id)
{
	if (st->nattrs == 1)
		return &st->attrs[0];
	if (st->id_cap && id)
		for (size_t i = id_slot(st, id); st->id_key[i]; i = (i + 1) & (st->id_cap - 1))
			if (st->id_key[i] == id)
				return &st->attrs[st->id_val[i]];
	return NULL;
}

/* One perf_event_attr of @size bytes at @p. */
static int add_attr(struct ps_reader *r, struct perf_state *st, const uint8_t *p, size_t size,
		    struct ps_error *err)
{
	struct attr *a;

	if (size < ATTR_MIN)
		return ps_err(err, "%s: a perf.data attribute of %zu bytes (at least %d): the file is damaged",
			      r->path, size, ATTR_MIN);
	if (st->nattrs >= MAX_ATTRS)
		return ps_err(err, "%s: more than %d perf.data attributes: the file is damaged", r->path, MAX_ATTRS);
	st->attrs = realloc(st->attrs, (st->nattrs + 1) * sizeof(*st->attrs));
	if (!st->attrs)
		return ps_err(err, "out of memory");
	a = &st->attrs[st->nattrs++];
	a->type = rd32(p);
	a->config = rd64(p + 8);
	a->sample_type = rd64(p + 24);
	a->read_format = rd64(p + 32);
	a->sample_id_all = (rd64(p + 40) & ATTR_FLAG_SAMPLE_ID_ALL) != 0;
	a->kmem = -1;
	a->lost = 0;
	return 0;
}

/* u64s before the ID in a sample of @type, or -1 without one. */
static int id_pos_of(uint64_t type)
{
	if (!(type & S_ID))
		return -1;
	return !!(type & S_IP) + !!(type & S_TID) + !!(type & S_TIME) + !!(type & S_ADDR);
}

/*
 * Once the attributes and formats are known: which attributes are kmem
 * events, how a sample's attribute is found, what each event needs.
 */
static int setup_attrs(struct ps_reader *r, struct perf_state *st, struct ps_error *err)
{
	int kmem = 0;

	if (!st->nattrs)
		return ps_err(err, "%s: the perf.data describes no event: the file is damaged", r->path);
	st->identifier = 1;
	st->id_pos = id_pos_of(st->attrs[0].sample_type);
	for (int i = 0; i < st->nattrs; i++) {
		struct attr *a = &st->attrs[i];

		st->identifier &= (a->sample_type & S_IDENTIFIER) != 0;
		if (id_pos_of(a->sample_type) != st->id_pos)
			st->id_pos = -1;
		if (a->type == PERF_TYPE_TRACEPOINT && st->have_kmem)
			a->kmem = ps_tep_kmem_type(&st->k, (int)a->config);
		if (a->kmem < 0)
			continue;
		kmem++;
		if (!(a->sample_type & S_RAW))
			return ps_err(err, "%s: kmem:%s was recorded without its raw data (PERF_SAMPLE_RAW): record with 'perf record -e kmem:...', which adds it, or -R",
				      r->path, ps_event_names[a->kmem]);
		if (!(a->sample_type & S_CPU))
			return ps_err(err, "%s: kmem:%s was recorded without each sample's CPU (PERF_SAMPLE_CPU): record with 'perf record -a' or --sample-cpu",
				      r->path, ps_event_names[a->kmem]);
	}
	if (st->nattrs > 1 && !st->identifier && st->id_pos < 0)
		return ps_err(err, "%s: the perf.data's events carry no sample id to tell them apart: record them with a perf that sets PERF_SAMPLE_IDENTIFIER",
			      r->path);
	if (!kmem)
		return ps_err(err, "%s: the perf.data holds no kmem page event: record with 'perf record -e kmem:mm_page_alloc -e kmem:mm_page_free ...' or 'perf kmem record --page'",
			      r->path);
	st->need_common = 0;
	for (int t = 0; t < PS_EV_NR; t++) {
		const struct tep_event *e = st->k.f[t].event;

		st->need[t] = 0;
		if (!e)
			continue;
		for (int common = 0; common < 2; common++)
			for (const struct tep_format_field *f = common ? e->format.common_fields : e->format.fields;
			     f; f = f->next) {
				if (f->offset + f->size > st->need[t])
					st->need[t] = f->offset + f->size;
				if (common && f->offset + f->size > st->need_common)
					st->need_common = f->offset + f->size;
			}
	}
	st->ready = 1;
	return 0;
}

static int set_tracing(struct ps_reader *r, struct perf_state *st, const uint8_t *buf, size_t len,
		       struct ps_error *err)
{
	if (st->tracing_seen)
		return 0;	/* a pipe repeats it after perf inject: the first one holds */
	st->tracing_seen = 1;
	st->tep = ps_perf_tracing_parse(buf, len, r->path, st->tep_lent, err);
	if (!st->tep)
		return -1;
	st->have_kmem = ps_tep_kmem_init(&st->k, st->tep) > 0;
	return 0;
}

/* A feature's data: the release and the CPU count. */
static void set_feature(struct ps_reader *r, int feat, const uint8_t *p, size_t len)
{
	if (feat == FEAT_OSRELEASE && len > 4) {
		/* perf_header_string: u32 length (padded), the string */
		uint32_t n = rd32(p);
		const uint8_t *z;

		if (n > len - 4)
			n = len - 4;
		z = memchr(p + 4, 0, n);
		if (z && z - (p + 4) < (long)sizeof(r->release)) {
			memcpy(r->release, p + 4, z - (p + 4) + 1);
			if (ps_kver_parse(r->release) == PS_KVER_UNKNOWN)
				r->release[0] = 0;
			else if (!r->opts.kver_forced)
				r->kver = ps_kver_parse(r->release);
		}
	} else if (feat == FEAT_NRCPUS && len >= 8) {
		/* nr_cpus_available, nr_cpus_online */
		uint32_t n = rd32(p);

		if (n > 0 && n <= PS_READER_MAX_CPUS)
			r->nr_cpus = (int)n;
	}
}

/* ---- the file header ---------------------------------------------------- */

static int read_section(struct ps_reader *r, struct perf_state *st, uint64_t off, uint64_t size,
			uint64_t file_size, const char *what, uint8_t **out, struct ps_error *err)
{
	uint8_t *buf;

	if (off > file_size || size > file_size - off || size > MAX_SECTION)
		return ps_err(err, "%s: the perf.data's %s (%llu bytes at %llu) lies past the end of the file (%llu bytes): was it cut short?",
			      r->path, what, (unsigned long long)size, (unsigned long long)off,
			      (unsigned long long)file_size);
	buf = malloc(size ? size : 1);
	if (!buf)
		return ps_err(err, "out of memory");
	if (pread_all(st->in.fd, buf, size, off) != 1) {
		free(buf);
		return ps_err(err, "%s: cannot read the perf.data's %s", r->path, what);
	}
	*out = buf;
	return 0;
}

static int open_file(struct ps_reader *r, struct perf_state *st, struct ps_error *err)
{
	uint8_t h[FILE_HEADER_SIZE], *attrs = NULL, *feats = NULL, *buf = NULL;
	uint64_t attr_size, attrs_off, attrs_size, data_off, data_size, file_size, feat_off;
	int nfeat = 0, ret = -1;
	struct stat sb;

	if (fstat(st->in.fd, &sb) < 0 || pread_all(st->in.fd, h, sizeof(h), 0) != 1)
		return ps_err(err, "%s: the perf.data ends inside its header: was it cut short?", r->path);
	file_size = sb.st_size;
	if (rd64(h + 8) < FILE_HEADER_SIZE)
		return ps_err(err, "%s: a perf.data header of %llu bytes: the file is damaged", r->path,
			      (unsigned long long)rd64(h + 8));
	attr_size = rd64(h + 16);
	attrs_off = rd64(h + 24);
	attrs_size = rd64(h + 32);
	data_off = rd64(h + 40);
	data_size = rd64(h + 48);
	if (attr_size < ATTR_MIN + 16 || attr_size > 4096 || attrs_size % attr_size)
		return ps_err(err, "%s: perf.data attributes of %llu bytes each in %llu: the file is damaged", r->path,
			      (unsigned long long)attr_size, (unsigned long long)attrs_size);
	if (data_size == 0)
		return ps_err(err, "%s: the perf.data's data section is empty: was 'perf record' stopped before it could finish the file (killed)?",
			      r->path);
	if (data_off > file_size || data_size > file_size - data_off)
		return ps_err(err, "%s: the perf.data's data (%llu bytes at %llu) lies past the end of the file (%llu bytes): was it cut short?",
			      r->path, (unsigned long long)data_size, (unsigned long long)data_off,
			      (unsigned long long)file_size);
	if (read_section(r, st, attrs_off, attrs_size, file_size, "attributes", &attrs, err) < 0)
		return -1;
	for (uint64_t o = 0; o < attrs_size; o += attr_size) {
		const uint8_t *a = attrs + o;
		uint64_t ids_off = rd64(a + attr_size - 16), ids_size = rd64(a + attr_size - 8);
		uint32_t size = rd32(a + 4);

		/* attr.size 0: the first version's 64 bytes */
		if (add_attr(r, st, a, size ? (size < attr_size - 16 ? size : attr_size - 16) : ATTR_MIN, err) < 0)
			goto out;
		if (ids_size % 8 || ids_size / 8 > MAX_IDS) {
			ps_err(err, "%s: perf.data sample ids of %llu bytes: the file is damaged", r->path,
			       (unsigned long long)ids_size);
			goto out;
		}
		if (read_section(r, st, ids_off, ids_size, file_size, "sample ids", &buf, err) < 0)
			goto out;
		for (uint64_t i = 0; i < ids_size / 8; i++)
			if (id_add(st, rd64(buf + 8 * i), st->nattrs - 1) < 0) {
				ps_err(err, "out of memory");
				goto out;
			}
		free(buf);
		buf = NULL;
	}
	/* one section per feature bit, in bit order, right after the data */
	for (int b = 0; b < 256; b++)
		nfeat += (h[72 + b / 8] >> (b % 8)) & 1;
	feat_off = data_off + data_size;
	if (read_section(r, st, feat_off, (uint64_t)nfeat * 16, file_size, "feature sections", &feats, err) < 0)
		goto out;
	for (int b = 0, i = 0; b < 256; b++) {
		uint64_t off, size;

		if (!((h[72 + b / 8] >> (b % 8)) & 1))
			continue;
		off = rd64(feats + 16 * i);
		size = rd64(feats + 16 * i + 8);
		i++;
		if (b != FEAT_TRACING_DATA && b != FEAT_OSRELEASE && b != FEAT_NRCPUS)
			continue;
		if (read_section(r, st, off, size, file_size, b == FEAT_TRACING_DATA ? "tracing data" : "header",
				 &buf, err) < 0)
			goto out;
		if (b == FEAT_TRACING_DATA) {
			if (set_tracing(r, st, buf, size, err) < 0)
				goto out;
		} else {
			set_feature(r, b, buf, size);
		}
		free(buf);
		buf = NULL;
	}
	if (!st->tep) {
		ps_err(err, "%s: the perf.data has no tracing data (event formats): it holds no tracepoint events; record with 'perf record -e kmem:mm_page_alloc -e kmem:mm_page_free ...'",
		       r->path);
		goto out;
	}
	if (setup_attrs(r, st, err) < 0)
		goto out;
	st->in.base = data_off;
	st->in.end = data_off + data_size;
	ret = 0;
out:
	free(attrs);
	free(feats);
	free(buf);
	return ret;
}

/* ---- records -------------------------------------------------------------- */

/* Reads a sample of attribute @a from @p (@n bytes after the record header). */
static int parse_sample(const struct attr *a, const uint8_t *p, size_t n, struct sample *s)
{
	const uint8_t *end = p + n;
	uint64_t t = a->sample_type;

#define NEED(k) do { if ((size_t)(end - p) < (k)) return -1; } while (0)
	memset(s, 0, sizeof(*s));
	if (t & S_IDENTIFIER) {
		NEED(8);
		s->id = rd64(p);
		p += 8;
	}
	if (t & S_IP) {
		NEED(8);
		p += 8;
	}
	if (t & S_TID) {
		NEED(8);
		s->tid = rd32(p + 4);
		p += 8;
	}
	if (t & S_TIME) {
		NEED(8);
		s->time = rd64(p);
		p += 8;
	}
	if (t & S_ADDR) {
		NEED(8);
		p += 8;
	}
	if (t & S_ID) {
		NEED(8);
		s->id = rd64(p);
		p += 8;
	}
	if (t & S_STREAM_ID) {
		NEED(8);
		p += 8;
	}
	if (t & S_CPU) {
		NEED(8);
		s->cpu = rd32(p);
		p += 8;
	}
	if (t & S_PERIOD) {
		NEED(8);
		p += 8;
	}
	if (t & S_READ) {
		uint64_t f = a->read_format, per = 1 + !!(f & RF_ID) + !!(f & RF_LOST), nr = 1;

		if (f & RF_GROUP) {
			NEED(8);
			nr = rd64(p);
			p += 8;
		} else {
			per += !!(f & RF_TOTAL_TIME_ENABLED) + !!(f & RF_TOTAL_TIME_RUNNING);
		}
		if (f & RF_GROUP) {
			uint64_t times = !!(f & RF_TOTAL_TIME_ENABLED) + !!(f & RF_TOTAL_TIME_RUNNING);

			NEED(8 * times);
			p += 8 * times;
		}
		if (nr > (uint64_t)(end - p) / 8 / per)
			return -1;
		p += 8 * per * nr;
	}
	if (t & S_CALLCHAIN) {
		uint64_t nr;

		NEED(8);
		nr = rd64(p);
		p += 8;
		if (nr > (uint64_t)(end - p) / 8)
			return -1;
		p += 8 * nr;
	}
	if (t & S_RAW) {
		NEED(4);
		s->raw_size = rd32(p);
		p += 4;
		if (s->raw_size > (size_t)(end - p))
			return -1;
		s->raw = p;
	}
#undef NEED
	return 0;
}

/*
 * The sample_id trailer of a record other than a sample (@p, @n: the record
 * after its header): task, time (0 without one) and id.  Returns 0, or -1
 * when the record has none.
 */
static int parse_trailer(const struct perf_state *st, const uint8_t *p, size_t n, struct sample *s)
{
	const struct attr *a;
	const uint8_t *q;
	uint64_t t;
	size_t size;

	if (!st->nattrs)
		return -1;	/* a pipe's task records before its attributes */
	a = &st->attrs[0];
	if (st->identifier && n >= 8) {
		/* IDENTIFIER is the trailer's last u64 */
		const struct attr *b = id_attr(st, rd64(p + n - 8));

		if (b)
			a = b;
	}
	t = a->sample_type;
	if (!a->sample_id_all)
		return -1;
	size = 8 * (!!(t & S_TID) + !!(t & S_TIME) + !!(t & S_ID) + !!(t & S_STREAM_ID) + !!(t & S_CPU) +
		    !!(t & S_IDENTIFIER));
	if (n < size)
		return -1;
	q = p + n - size;
	memset(s, 0, sizeof(*s));
	if (t & S_TID) {
		s->tid = rd32(q + 4);
		q += 8;
	}
	if (t & S_TIME) {
		s->time = rd64(q);
		q += 8;
	}
	if (t & S_ID) {
		s->id = rd64(q);
		q += 8;
	}
	q += 8 * !!(t & S_STREAM_ID);
	if (t & S_CPU) {
		s->cpu = rd32(q);
		q += 8;
	}
	if (t & S_IDENTIFIER)
		s->id = rd64(q);
	return 0;
}

static int queue(struct ps_reader *r, struct perf_state *st, const struct qent *e, struct ps_error *err)
{
	if (grow((void **)&st->pend, &st->cap_pend, st->npend + 1, sizeof(*st->pend)) < 0)
		return ps_err(err, "%s: out of memory holding %zu events to sort", r->path, st->npend);
	st->pend[st->npend++] = *e;
	if (e->ev.ts_ns > st->max_ts)
		st->max_ts = e->ev.ts_ns;
	return 0;
}

static void where_of(const struct perf_state *st, uint64_t off, int packed, char *buf, size_t len)
{
	if (packed)
		snprintf(buf, len, "record in the compressed one at byte %llu", (unsigned long long)st->zrec_off);
	else
		snprintf(buf, len, "record at byte %llu", (unsigned long long)off);
}

static int do_sample(struct ps_reader *r, struct perf_state *st, const uint8_t *p, size_t n,
		     uint64_t off, int packed, struct ps_error *err)
{
	const struct attr *a;
	struct sample s;
	struct qent e;
	char where[96];
	uint64_t id = 0;
	int from_page;

	if (!st->ready)
		return ps_err(err, "%s: a sample before the perf.data's event formats (record at byte %llu): the file is damaged",
			      r->path, (unsigned long long)off);
	if (st->identifier && n >= 8)
		id = rd64(p);
	else if (st->nattrs > 1 && st->id_pos >= 0 && n >= 8u * (st->id_pos + 1))
		id = rd64(p + 8 * st->id_pos);
	a = id_attr(st, id);
	if (!a || parse_sample(a, p, n, &s) < 0) {
		static const char what[] = "damaged sample record";

		where_of(st, off, packed, where, sizeof(where));
		return ps_reader_skip(r, PS_SKIP_MALFORMED, where, what, sizeof(what) - 1, err);
	}
	if (a->kmem < 0) {
		char name[80];

		if (a->type == PERF_TYPE_TRACEPOINT)
			snprintf(name, sizeof(name), "tracepoint %llu (not kmem)", (unsigned long long)a->config);
		else
			snprintf(name, sizeof(name), "perf event type %u config %llu", a->type,
				 (unsigned long long)a->config);
		where_of(st, off, packed, where, sizeof(where));
		return ps_reader_skip(r, PS_SKIP_OTHER_EVENT, where, name, strlen(name), err);
	}
	st->rec.ts = s.time;
	st->rec.cpu = (int)s.cpu;
	st->rec.data = (void *)s.raw;
	st->rec.size = (int)s.raw_size;
	if ((int)s.raw_size < st->need_common || (int)s.raw_size < st->need[a->kmem] || s.cpu >= PS_READER_MAX_CPUS ||
	    ps_tep_kmem_id(&st->k, &st->rec) != (int)a->config ||
	    ps_tep_kmem_fill(&st->k, a->kmem, &st->rec, r->kver, &e.ev, &from_page) < 0) {
		const char *name = ps_event_names[a->kmem];

		where_of(st, off, packed, where, sizeof(where));
		return ps_reader_skip(r, PS_SKIP_BAD_FIELD, where, name, strlen(name), err);
	}
	r->stats.pfn_from_page += from_page;
	e.kind = Q_EVENT;
	return queue(r, st, &e, err);
}

/* COMM and FORK: their time orders them among the events. */
static int do_task(struct ps_reader *r, struct perf_state *st, uint32_t type, const uint8_t *p, size_t n,
		   struct ps_error *err)
{
	struct sample s;
	struct qent e;

	if (!(r->opts.flags & PS_RD_COMM))
		return 0;
	memset(&e, 0, sizeof(e));
	if (parse_trailer(st, p, n, &s) < 0)
		s.time = 0;	/* no time (no sample_id_all): it holds from the start */
	e.ev.ts_ns = s.time;
	if (type == REC_COMM) {
		const uint8_t *c = p + 8, *z;

		if (n < 9 || !(z = memchr(c, 0, n - 8)))
			return 0;
		e.kind = Q_COMM;
		e.ev.pid = (int32_t)rd32(p + 4);
		memcpy(e.comm, c, z - c < COMM_LEN ? z - c : COMM_LEN - 1);
	} else {
		if (n < 16)
			return 0;
		e.kind = Q_FORK;
		e.ev.pid = (int32_t)rd32(p + 8);
		e.ptid = (int32_t)rd32(p + 12);
	}
	return queue(r, st, &e, err);
}

/*
 * Losses.  PERF_RECORD_LOST is the kernel's: records a full ring buffer
 * dropped since the last one.  perf record (6.0 on) also writes, at the
 * end, a PERF_RECORD_LOST_SAMPLES per event and CPU with the event's own
 * count of dropped samples: the same losses, per event.  Where those are
 * present they give the count (of the kmem events only); else the
 * kernel's records do.  Samples a BPF filter dropped on purpose are no
 * loss.  Settled when the data ends (finish_lost()).
 */
static void do_lost(struct perf_state *st, uint32_t type, uint16_t misc, const uint8_t *p, size_t n)
{
	const struct attr *a;
	struct sample s;

	if (type == REC_LOST && n >= 16) {
		st->lost_records++;
		st->lost_in_records += rd64(p + 8);
	} else if (type == REC_LOST_SAMPLES && n >= 8 && !(misc & MISC_LOST_SAMPLES_BPF)) {
		a = parse_trailer(st, p, n, &s) == 0 ? id_attr(st, s.id) : NULL;
		st->lost_sample_records++;
		/* by event: which are kmem ones may be known only later (a pipe) */
		if (a)
			st->attrs[a - st->attrs].lost += rd64(p);
		else
			st->lost_samples += rd64(p);
	} else if (type == REC_THROTTLE && n >= 24) {
		a = id_attr(st, rd64(p + 8));
		if (a && a->kmem >= 0)
			st->throttled++;
	}
}

static void finish_lost(struct ps_reader *r, struct perf_state *st)
{
	uint64_t samples = st->lost_samples;

	for (int i = 0; i < st->nattrs; i++)
		if (st->attrs[i].kmem >= 0)
			samples += st->attrs[i].lost;
	r->stats.lost_markers = (st->lost_records ? st->lost_records : st->lost_sample_records) + st->throttled;
	r->stats.lost_events = st->lost_sample_records ? samples : st->lost_in_records;
	r->stats.lost_unknown = st->throttled;
}

/* Appends the decompressed payload of a COMPRESSED record to dbuf. */
static int do_compressed(struct ps_reader *r, struct perf_state *st, uint32_t type, const uint8_t *p, size_t n,
			 uint64_t off, struct ps_error *err)
{
	ZSTD_inBuffer in = { p, n, 0 };

	if (type == REC_COMPRESSED2) {
		/* u64 data_size, the data, padding to 8 bytes */
		uint64_t size = n >= 8 ? rd64(p) : ~0ull;

		if (size > n - 8)
			return ps_err(err, "%s: damaged compressed record at byte %llu", r->path, (unsigned long long)off);
		in.src = p + 8;
		in.size = size;
	}
	if (!st->zds) {
		st->zds = ZSTD_createDStream();
		if (!st->zds)
			return ps_err(err, "out of memory");
		ZSTD_initDStream(st->zds);
	}
	st->zrec_off = off;
	if (st->dpos) {
		memmove(st->dbuf, st->dbuf + st->dpos, st->dlen - st->dpos);
		st->dlen -= st->dpos;
		st->dpos = 0;
	}
	/*
	 * Until the input is used up and the decoder leaves room in the
	 * output: a full output may hold back decoded bytes.
	 */
	for (int full = 0; in.pos < in.size || full;) {
		size_t in_before = in.pos, ret;
		ZSTD_outBuffer out;

		if (st->dlen > MAX_DECOMPRESSED)
			return ps_err(err, "%s: the compressed record at byte %llu expands past %u MiB: the file is damaged",
				      r->path, (unsigned long long)off, MAX_DECOMPRESSED >> 20);
		if (grow((void **)&st->dbuf, &st->dcap, st->dlen + (256u << 10), 1) < 0)
			return ps_err(err, "out of memory");
		out.dst = st->dbuf;
		out.size = st->dcap;
		out.pos = st->dlen;
		ret = ZSTD_decompressStream(st->zds, &out, &in);
		if (ZSTD_isError(ret))
			return ps_err(err, "%s: corrupt zstd data in the compressed record at byte %llu: %s", r->path,
				      (unsigned long long)off, ZSTD_getErrorName(ret));
		if (out.pos == st->dlen && in.pos == in_before) {
			if (in.pos == in.size)
				break;	/* nothing was held back */
			return ps_err(err, "%s: corrupt zstd data in the compressed record at byte %llu", r->path,
				      (unsigned long long)off);
		}
		st->dlen = out.pos;
		full = out.pos == out.size;
	}
	return 0;
}

/* Copies the next @n bytes of a pipe into a new buffer (trailing data of a record). */
static int pipe_bytes(struct ps_reader *r, struct perf_state *st, size_t n, uint8_t **out, struct ps_error *err)
{
	int ret = src_need(r, &st->in, n, err);

	if (ret <= 0 && r->stats.truncated)
		return ps_err(err, "%s (inside the tracing data)", r->stats.truncated_msg);
	if (ret <= 0)
		return ret < 0 ? -1 : ps_err(err, "%s: the perf.data ends inside its tracing data: was it cut short?", r->path);
	*out = malloc(n ? n : 1);
	if (!*out)
		return ps_err(err, "out of memory");
	memcpy(*out, st->in.buf + st->in.pos, n);
	st->in.pos += n;
	return 0;
}

/* Reading ended early: the events so far are used, the caller reports the cut. */
__attribute__((format(printf, 2, 3)))
static void cut(struct ps_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (r->stats.truncated)
		return;
	r->stats.truncated = 1;
	n = snprintf(r->stats.truncated_msg, sizeof(r->stats.truncated_msg), "%s: ", r->path);
	if (n < 0 || n >= (int)sizeof(r->stats.truncated_msg))
		return;
	va_start(ap, fmt);
	vsnprintf(r->stats.truncated_msg + n, sizeof(r->stats.truncated_msg) - n, fmt, ap);
	va_end(ap);
}

/*
 * One record from the decompressed data if it holds a whole one, else from
 * the input.  Returns 1 after a record, 2 after a FINISHED_ROUND, 0 at the
 * end of the data, -1 on an error.
 */
static int read_record(struct ps_reader *r, struct perf_state *st, struct ps_error *err)
{
	const uint8_t *p;
	uint32_t type, size;
	uint64_t off;
	int packed = 0, ret;

	if (st->dlen - st->dpos >= 8 &&
	    st->dlen - st->dpos >= ((uint32_t)st->dbuf[st->dpos + 6] | (uint32_t)st->dbuf[st->dpos + 7] << 8)) {
		p = st->dbuf + st->dpos;
		size = (uint32_t)p[6] | (uint32_t)p[7] << 8;
		if (size < 8) {
			cut(r, "a damaged record (%u bytes) in the compressed record at byte %llu: the events before it were read",
			    size, (unsigned long long)st->zrec_off);
			return 0;
		}
		st->dpos += size;
		off = 0;
		packed = 1;
	} else {
		ret = src_need(r, &st->in, 8, err);
		if (ret < 0)
			return -1;
		if (!ret) {
			if (st->in.len - st->in.pos)
				cut(r, "the perf.data ends inside a record header at byte %llu: was it cut short? The events before it were read",
				    (unsigned long long)(st->in.base + st->in.pos));
			else if (st->dlen - st->dpos)
				cut(r, "the compressed records end inside a record (%zu bytes left, from the one at byte %llu): the events before it were read",
				    st->dlen - st->dpos, (unsigned long long)st->zrec_off);
			return 0;
		}
		p = st->in.buf + st->in.pos;
		size = (uint32_t)p[6] | (uint32_t)p[7] << 8;
		off = st->in.base + st->in.pos;
		if (size < 8) {
			cut(r, "a damaged record (%u bytes) at byte %llu of the perf.data: the events before it were read",
			    size, (unsigned long long)off);
			return 0;
		}
		ret = src_need(r, &st->in, size, err);
		if (ret < 0)
			return -1;
		if (!ret) {
			cut(r, "the perf.data ends inside the record at byte %llu (%u bytes): was it cut short? The events before it were read",
			    (unsigned long long)off, size);
			return 0;
		}
		p = st->in.buf + st->in.pos;
		st->in.pos += size;
	}
	type = rd32(p);
	/* from here the record is at p, its payload p + 8 .. p + size */
	switch (type) {
	case REC_SAMPLE:
		return do_sample(r, st, p + 8, size - 8, off, packed, err) < 0 ? -1 : 1;
	case REC_COMM:
	case REC_FORK:
		return do_task(r, st, type, p + 8, size - 8, err) < 0 ? -1 : 1;
	case REC_LOST:
	case REC_LOST_SAMPLES:
	case REC_THROTTLE:
		do_lost(st, type, (uint16_t)(p[4] | p[5] << 8), p + 8, size - 8);
		break;
	case REC_FINISHED_ROUND:
		return 2;
	case REC_COMPRESSED:
	case REC_COMPRESSED2:
		if (packed)
			break;
		return do_compressed(r, st, type, p + 8, size - 8, off, err) < 0 ? -1 : 1;
	case REC_AUXTRACE:
		/* followed by its u64 size of trace data */
		if (!packed && size >= 16) {
			uint64_t skip = rd64(p + 8);

			while (skip) {
				size_t chunk = skip > WINDOW ? WINDOW : skip;

				ret = src_need(r, &st->in, chunk, err);
				if (ret <= 0) {
					if (!ret)
						cut(r, "the perf.data ends inside the AUX data of the record at byte %llu: the events before it were read",
						    (unsigned long long)off);
					return ret;
				}
				st->in.pos += chunk;
				skip -= chunk;
			}
		}
		break;
	case REC_HEADER_ATTR:
		if (st->pipe && !packed) {
			uint32_t asize = size >= 8 + ATTR_MIN ? rd32(p + 12) : 0;

			if (!asize && size >= 8 + ATTR_MIN)
				asize = ATTR_MIN;
			if (asize < ATTR_MIN || asize > size - 8)
				return ps_err(err, "%s: a damaged attribute record at byte %llu", r->path,
					      (unsigned long long)off);
			if (add_attr(r, st, p + 8, asize, err) < 0)
				return -1;
			for (uint32_t o = 8 + asize; o + 8 <= size; o += 8)
				if (id_add(st, rd64(p + o), st->nattrs - 1) < 0)
					return ps_err(err, "out of memory");
			/* an attribute after the samples began (perf inject): its events from now on */
			if (st->ready && setup_attrs(r, st, err) < 0)
				return -1;
		}
		break;
	case REC_HEADER_TRACING_DATA:
		if (st->pipe && !packed && size >= 12) {
			uint32_t n = rd32(p + 8);
			uint8_t *buf;

			if (n > MAX_SECTION)
				return ps_err(err, "%s: tracing data of %u bytes: the file is damaged", r->path, n);
			if (pipe_bytes(r, st, n, &buf, err) < 0)
				return -1;
			ret = set_tracing(r, st, buf, n, err);
			free(buf);
			if (ret < 0)
				return -1;
		}
		break;
	case REC_HEADER_FEATURE:
		if (st->pipe && !packed && size >= 16)
			set_feature(r, (int)rd64(p + 8), p + 16, size - 16);
		break;
	}
	return 1;
}

/* ---- ordering ----------------------------------------------------------- */

static int cmp_key(const void *a, const void *b)
{
	const struct qkey *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts the pending entries no later than @limit into keys. */
static int sort_ready(struct ps_reader *r, struct perf_state *st, uint64_t limit, struct ps_error *err)
{
	if (grow((void **)&st->keys, &st->cap_keys, st->npend, sizeof(*st->keys)) < 0)
		return ps_err(err, "%s: out of memory sorting %zu events", r->path, st->npend);
	st->nkeys = st->kpos = 0;
	for (size_t i = 0; i < st->npend; i++)
		if (st->pend[i].ev.ts_ns <= limit) {
			st->keys[st->nkeys].ts = st->pend[i].ev.ts_ns;
			st->keys[st->nkeys++].idx = (uint32_t)i;
		}
	if (st->nkeys > 1)
		qsort(st->keys, st->nkeys, sizeof(*st->keys), cmp_key);
	st->limit = limit;
	return 0;
}

/* Drops the entries handed out (those no later than the limit). */
static void compact(struct perf_state *st)
{
	size_t n = 0;

	for (size_t i = 0; i < st->npend; i++)
		if (st->pend[i].ev.ts_ns > st->limit)
			st->pend[n++] = st->pend[i];
	st->npend = n;
	st->nkeys = st->kpos = 0;
}

static struct task *task_find(struct perf_state *st, int32_t tid, int add)
{
	int32_t key = tid ? tid : -1;
	size_t i;

	if (!st->task_cap && !add)
		return NULL;
	if (add && st->ntasks * 2 >= st->task_cap) {
		size_t old = st->task_cap, cap = old ? old * 2 : 256;
		struct task *ot = st->tasks, *nt = calloc(cap, sizeof(*nt));

		if (!nt)
			return NULL;
		st->tasks = nt;
		st->task_cap = cap;
		for (size_t j = 0; j < old; j++)
			if (ot[j].tid) {
				for (i = ((uint32_t)ot[j].tid * 2654435761u) & (cap - 1); nt[i].tid; i = (i + 1) & (cap - 1))
					;
				nt[i] = ot[j];
			}
		free(ot);
	}
	for (i = ((uint32_t)key * 2654435761u) & (st->task_cap - 1); st->tasks[i].tid; i = (i + 1) & (st->task_cap - 1))
		if (st->tasks[i].tid == key)
			return &st->tasks[i];
	if (!add)
		return NULL;
	st->tasks[i].tid = key;
	st->ntasks++;
	return &st->tasks[i];
}

static void task_set(struct perf_state *st, int32_t tid, const char *comm)
{
	struct task *t = task_find(st, tid, 1);

	if (!t)
		return;	/* out of memory: the task stays unnamed */
	memcpy(t->comm, comm, COMM_LEN);
	t->comm[COMM_LEN - 1] = 0;
	t->task = (uint8_t)ps_task_of(t->comm, &t->task_node);
}

static int perf_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	struct perf_state *st = r->priv;

	for (;;) {
		while (st->kpos < st->nkeys) {
			struct qent *e = &st->pend[st->keys[st->kpos++].idx];
			const struct task *t;

			if (e->kind == Q_COMM) {
				task_set(st, e->ev.pid, e->comm);
				continue;
			}
			if (e->kind == Q_FORK) {
				char comm[COMM_LEN];

				/* a copy: adding the child may move the table */
				t = task_find(st, e->ptid, 0);
				if (t) {
					memcpy(comm, t->comm, COMM_LEN);
					task_set(st, e->ev.pid, comm);
				}
				continue;
			}
			*ev = e->ev;
			if (r->opts.flags & PS_RD_COMM) {
				t = task_find(st, ev->pid, 0);
				ev->comm = t ? t->comm : NULL;
				ev->task = t ? t->task : PS_TASK_OTHER;
				ev->task_node = t ? t->task_node : -1;
			}
			ps_reader_account_inline(r, ev);
			return 1;
		}
		if (st->nkeys)
			compact(st);
		if (st->done)
			return 0;
		for (;;) {
			int ret = read_record(r, st, err);

			if (ret < 0)
				return -1;
			if (ret == 2) {
				/* perf's rule: what is no later than the latest time of the round before */
				uint64_t limit = st->next_flush;

				st->next_flush = st->max_ts;
				if (sort_ready(r, st, limit, err) < 0)
					return -1;
				break;
			}
			if (ret == 0) {
				st->done = 1;
				finish_lost(r, st);
				if (sort_ready(r, st, UINT64_MAX, err) < 0)
					return -1;
				break;
			}
		}
	}
}

static void perf_close(struct ps_reader *r)
{
	struct perf_state *st = r->priv;

	if (!st)
		return;
	if (st->in.fd >= 0)
		close(st->in.fd);
	free(st->in.buf);
	if (st->zds)
		ZSTD_freeDStream(st->zds);
	free(st->dbuf);
	free(st->attrs);
	free(st->id_key);
	free(st->id_val);
	if (st->tep) {
		ps_tep_kmem_free(&st->k);
		if (!st->tep_lent) {
			ps_tep_forget(st->tep);
			tep_free(st->tep);
		}
	}
	free(st->pend);
	free(st->keys);
	free(st->tasks);
	free(st);
	r->priv = NULL;
}

static const struct ps_reader_ops perf_ops = {
	.name = "perf.data",
	.next = perf_next,
	.close = perf_close,
};

/*
 * A pipe: the attributes, the tracing data and the features come as
 * records; they are read up to the first sample (or compressed records),
 * so that the events and the kernel release are known once open.
 */
static int open_pipe(struct ps_reader *r, struct perf_state *st, struct ps_error *err)
{
	uint8_t skip[16];

	if (ps_stream_read(r->stream, skip, sizeof(skip), err) != (long)sizeof(skip))
		return ps_err(err, "%s: the perf.data ends inside its header", r->path);
	st->in.stream = r->stream;
	for (;;) {
		uint32_t type;
		int ret = src_need(r, &st->in, 8, err);

		if (ret < 0)
			return -1;
		if (!ret)
			break;
		type = rd32(st->in.buf + st->in.pos);
		if (type == REC_SAMPLE || type == REC_COMPRESSED || type == REC_COMPRESSED2 || type == REC_FINISHED_ROUND)
			break;
		ret = read_record(r, st, err);
		if (ret < 0)
			return -1;
		if (ret == 0)
			break;
	}
	if (!st->tep && r->stats.truncated)
		return ps_err(err, "%s (before the event formats)", r->stats.truncated_msg);
	if (!st->tep)
		return ps_err(err, "%s: the piped perf.data has no tracing data (event formats) before its first sample: record with 'perf record -e kmem:mm_page_alloc -e kmem:mm_page_free ... -o -'",
			      r->path);
	return setup_attrs(r, st, err);
}

int ps_perf_open(struct ps_reader *r, int fd, struct ps_error *err)
{
	return ps_perf_open_with(r, fd, NULL, err);
}

int ps_perf_open_with(struct ps_reader *r, int fd, struct tep_handle *lent, struct ps_error *err)
{
	struct perf_state *st = calloc(1, sizeof(*st));
	const char *comp;
	int ret;

	if (!st) {
		if (fd >= 0)
			close(fd);
		return ps_err(err, "out of memory");
	}
	r->priv = st;
	r->ops = &perf_ops;
	st->tep_lent = lent;
	st->in.fd = fd;
	st->pipe = fd < 0;
	/* perf names the idle task "swapper" from the start */
	if (r->opts.flags & PS_RD_COMM)
		task_set(st, 0, "swapper\0\0\0\0\0\0\0\0");
	ret = st->pipe ? open_pipe(r, st, err) : open_file(r, st, err);
	if (ret < 0)
		return -1;
	comp = r->stream ? ps_stream_compression(r->stream) : NULL;
	snprintf(r->format, sizeof(r->format), "perf.data%s%s%s%s", st->pipe ? " (pipe)" : "",
		 comp ? " (" : "", comp ? comp : "", comp ? ")" : "");
	return 0;
}
