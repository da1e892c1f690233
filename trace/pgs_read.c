// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pgs_read.c - pagesim's own trace files (see docs/pagesim-format.md).
 *
 * The file is mapped (or, from a pipe or a zstd wrapper, read into memory)
 * and its sections are indexed at open: blobs by name, event frames by
 * offset, the STAT section into the reader's statistics.  A file that ends
 * inside a section or without its END section was cut short: the whole
 * frames before the cut are read and stats.truncated says where it stopped.
 * Frames are decompressed one at a time and decoded column by column
 * straight into the caller's event: no allocation, no string work per
 * event.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "lib/kver.h"
#include "trace/pgs.h"
#include "trace/pgs_x.h"
#include "trace/reader-local.h"

struct blob {
	const char *name;
	int name_len;
	uint64_t raw_len;
	const uint8_t *z;
	size_t zlen;
};

struct frame {
	uint64_t off;		/* of the section header */
	uint32_t nr, raw_len;
	const uint8_t *z;
	size_t zlen;
};

#define PGS_BATCH 256
#define PGS_COMM_CACHE 64	/* pid -> comm lookups remembered */
/*
 * Zero bytes after the decompressed columns: the fast decoder reads 8 bytes
 * at a time and checks its cursors against the column ends once per batch,
 * so a damaged frame may take it up to 10 bytes per event of a batch past
 * the last column before the check catches it.
 */
#define RAW_PAD (PGS_BATCH * 10 + 64)
/* the mapped file is released behind the reader in steps of this much */
#define DROP_STEP (8u << 20)

/*
 * Frames decompressed ahead by a helper thread, when the machine has a
 * second CPU: the reader's own thread then only decodes.  A frame the
 * helper could not decompress is decompressed again by load_frame(), which
 * reports the damage as it would without the helper.
 */
#define PF_SLOTS 2

enum { PF_EMPTY, PF_BUSY, PF_READY, PF_FAILED };

struct pf_slot {
	uint8_t *buf;
	size_t cap;
	size_t got;
	int frame;
	int state;
};

struct prefetch {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stop;
	int next;		/* next frame for the helper */
	int expected;		/* next frame the reader will load in order */
	ZSTD_DCtx *dctx;
	struct pf_slot slot[PF_SLOTS];
};

struct comm_map {
	int32_t pid;
	uint8_t task;		/* enum ps_task of comm */
	int8_t task_node;
	const char *comm;
};

struct pgs_state {
	const uint8_t *map;
	size_t size;
	int mapped;
	struct blob *blobs;
	int nr_blobs;
	struct frame *frames;
	int nr_frames, cur;
	size_t dropped;		/* bytes of the mapping released behind the reader */
	struct prefetch *pf;	/* NULL: frames are decompressed in load_frame() */
	ZSTD_DCtx *dctx;
	uint8_t *raw;
	size_t raw_cap;
	int ncols;		/* columns per frame: PS_PGS_V1_COLS in a version-1 file */
	/* cursors into the frame being read */
	const uint8_t *col[PS_PGS_NR_COLS], *end[PS_PGS_NR_COLS];
	uint32_t left;
	uint64_t prev_ts;
	uint16_t prev_cpu;
	int32_t pid[PS_PGS_MAX_CPU_STATE];
	uint64_t pfn[PS_PGS_MAX_CPU_STATE];
	struct ps_pgs_xpred xpred;
	/* pid -> comm, sorted by pid; the last lookups by pid % PGS_COMM_CACHE */
	char *comm_text;
	struct comm_map *comms;
	int nr_comms;
	struct comm_map comm_cache[PGS_COMM_CACHE];
	/* events decoded ahead of the caller */
	struct ps_event batch[PGS_BATCH];
	/* the slots of the batch whose x a page-cache, LRU or reclaim event filled */
	uint16_t xslot[PGS_BATCH];
	int nxslot;
	/* decode_fast()'s tables, by control byte and by aux byte */
	uint64_t tally[256];
	uint64_t type_word[256];
	uint32_t gfp_mask[256];
	uint8_t aux[256][4];
};

static uint16_t get16(const uint8_t *p)
{
	return p[0] | p[1] << 8;
}

static uint32_t get32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Reads a varint; NULL on a varint that runs past @end or is longer than 10 bytes. */
static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	int shift = 0;

	if (__builtin_expect(end - p >= 10, 1)) {
		if (p[0] < 0x80) {
			*v = p[0];
			return p + 1;
		}
		if (p[1] < 0x80) {
			*v = (p[0] & 0x7f) | (uint64_t)p[1] << 7;
			return p + 2;
		}
		while (*p & 0x80) {
			x |= (uint64_t)(*p++ & 0x7f) << shift;
			shift += 7;
			if (shift > 63)
				return NULL;
		}
	} else {
		while (p < end && (*p & 0x80)) {
			x |= (uint64_t)(*p++ & 0x7f) << shift;
			shift += 7;
			if (shift > 63)
				return NULL;
		}
		if (p >= end)
			return NULL;
	}
	*v = x | (uint64_t)*p++ << shift;
	return p;
}

static void set_truncated(struct ps_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_truncated(struct ps_reader *r, const char *fmt, ...)
{
	va_list ap;

	r->stats.truncated = 1;
	va_start(ap, fmt);
	vsnprintf(r->stats.truncated_msg, sizeof(r->stats.truncated_msg), fmt, ap);
	va_end(ap);
}

/* Loads the file into memory: mapped when it is a plain file. */
static int load(struct ps_reader *r, struct pgs_state *st, struct ps_error *err)
{
	int fd = ps_stream_fd(r->stream);
	struct stat sb;
	size_t cap = 1 << 20, len = 0;
	uint8_t *buf;
	long n;

	if (!ps_stream_compression(r->stream) && fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode)) {
		if (sb.st_size == 0)
			return ps_err(err, "%s: the file is empty", r->path);
		st->map = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (st->map == MAP_FAILED) {
			st->map = NULL;
			return ps_err(err, "%s: cannot map the file: %s", r->path, strerror(errno));
		}
		madvise((void *)st->map, sb.st_size, MADV_SEQUENTIAL);
		st->size = sb.st_size;
		st->mapped = 1;
		return 0;
	}
	buf = malloc(cap);
	while (buf) {
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap * 2);

			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		n = ps_stream_read(r->stream, buf + len, cap - len, err);
		if (n < 0) {
			/* a cut zstd wrapper: use what came through, report the cut */
			set_truncated(r, "%s", err->msg);
			break;
		}
		if (n == 0)
			break;
		len += n;
	}
	if (!buf)
		return ps_err(err, "%s: out of memory reading the file", r->path);
	st->map = buf;
	st->size = len;
	return 0;
}

static int cmp_comm(const void *a, const void *b)
{
	const struct comm_map *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static char *blob_text(const struct pgs_state *st, const struct blob *b, size_t *len);

static void load_comms(struct pgs_state *st)
{
	size_t len;
	char *p;
	int cap = 0;

	for (int i = 0; i < PGS_COMM_CACHE; i++)	/* no task has pid INT32_MIN; one that claims it gets no name */
		st->comm_cache[i] = (struct comm_map){ .pid = INT32_MIN, .task = PS_TASK_OTHER, .task_node = -1 };
	for (int i = 0; i < st->nr_blobs; i++) {
		if (st->blobs[i].name_len != 4 || memcmp(st->blobs[i].name, "comm", 4))
			continue;
		st->comm_text = blob_text(st, &st->blobs[i], &len);
		break;
	}
	if (!st->comm_text)
		return;
	for (p = st->comm_text; *p; p++)
		cap += *p == '\n';
	st->comms = calloc(cap + 1, sizeof(*st->comms));
	if (!st->comms)
		return;
	for (p = st->comm_text; *p && st->nr_comms < cap;) {
		char *nl = strchr(p, '\n'), *sp = strchr(p, ' ');

		if (!nl)
			break;
		*nl = 0;
		if (sp && sp < nl) {
			struct comm_map *c = &st->comms[st->nr_comms++];

			c->pid = atoi(p);
			c->comm = sp + 1;
			c->task = (uint8_t)ps_task_of(c->comm, &c->task_node);
		}
		p = nl + 1;
	}
	qsort(st->comms, st->nr_comms, sizeof(*st->comms), cmp_comm);
}

/* The task of @pid (comm NULL when the file names none). */
static const struct comm_map *comm_of(struct pgs_state *st, int32_t pid)
{
	struct comm_map *c = &st->comm_cache[(uint32_t)pid % PGS_COMM_CACHE];
	int lo = 0, hi = st->nr_comms - 1;

	/* tasks interleave across CPUs, so the pid changes often; a handful are busy */
	if (c->pid == pid)
		return c;
	*c = (struct comm_map){ .pid = pid, .task = PS_TASK_OTHER, .task_node = -1 };
	while (lo <= hi) {
		int mid = (lo + hi) / 2;

		if (st->comms[mid].pid == pid) {
			*c = st->comms[mid];
			break;
		}
		if (st->comms[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return c;
}

/*
 * A STAT count: decimal digits up to 2^48 (far above any trace's losses),
 * added to a sum that must stay below 2^62 (the counters print as signed
 * 64-bit numbers, sums of them included).
 */
#define STAT_MAX_COUNT (1ull << 48)
#define STAT_MAX_SUM (1ull << 62)

static const char *stat_count(const char *p, unsigned long long *v)
{
	const char *q = p;

	while (*p == ' ')
		p++;
	q = p;
	*v = 0;
	while (*q >= '0' && *q <= '9' && *v <= STAT_MAX_COUNT)
		*v = *v * 10 + (*q++ - '0');
	return q == p || *v > STAT_MAX_COUNT || (*q && *q != ' ') ? NULL : q;
}

static int stat_add(uint64_t *sum, unsigned long long v)
{
	if (*sum + v > STAT_MAX_SUM)
		return -1;
	*sum += v;
	return 0;
}

/* STAT: "key value" lines; a count that cannot be a real one is damage. */
static int parse_stat(struct ps_reader *r, uint64_t off, const char *p, size_t len, struct ps_error *err)
{
	static const struct {
		const char *key;
		size_t field;
	} sums[] = {
		{ "lost_events", offsetof(struct ps_reader_stats, lost_events) },
		{ "lost_markers", offsetof(struct ps_reader_stats, lost_markers) },
		{ "lost_unknown", offsetof(struct ps_reader_stats, lost_unknown) },
		{ "lost_overwritten", offsetof(struct ps_reader_stats, lost_overwritten) },
		{ "pfn_from_page", offsetof(struct ps_reader_stats, pfn_from_page) },
	};
	const char *end = p + len;
	int nr = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *q;
		char line[512];
		unsigned long long a, b, c, d;
		int i, cpu, n, bad = 0, known = 0;

		if (!nl)
			nl = end;
		n = nl - p < (long)sizeof(line) - 1 ? nl - p : (int)sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = 0;
		p = nl + 1;
		nr++;
		for (size_t k = 0; k < sizeof(sums) / sizeof(sums[0]); k++) {
			size_t kl = strlen(sums[k].key);

			if (strncmp(line, sums[k].key, kl) || line[kl] != ' ')
				continue;
			known = 1;
			bad = !(q = stat_count(line + kl, &a)) || *q ||
			      stat_add((uint64_t *)((char *)&r->stats + sums[k].field), a);
			break;
		}
		if (known) {
			/* done */
		} else if (!strncmp(line, "truncated ", 10)) {
			set_truncated(r, "%s", line + 10);
		} else if (sscanf(line, "skipped.%d %n", &i, &n) == 1 && i >= 0 && i < PS_SKIP_NR) {
			bad = !(q = stat_count(line + n, &a)) || *q || stat_add(&r->stats.skipped[i], a);
		} else if (sscanf(line, "skip_first.%d %n", &i, &n) == 1 && i >= 0 && i < PS_SKIP_NR) {
			snprintf(r->stats.skip_first[i], sizeof(r->stats.skip_first[i]), "%s", line + n);
		} else if (sscanf(line, "cpu%d.lost %n", &cpu, &n) == 1) {
			/* overrun and missed-event reports count the same lost events */
			q = line + n;
			bad = !(q = stat_count(q, &a)) || !(q = stat_count(q, &b)) || !(q = stat_count(q, &c)) ||
			      !(q = stat_count(q, &d)) || *q;
			if (!bad)
				bad = stat_add(&r->stats.lost_events, a > b ? a : b) ||
				      stat_add(&r->stats.lost_markers, (a > b ? a : b) && !c ? 1 : c) ||
				      stat_add(&r->stats.lost_unknown, d);
		}
		if (bad)
			return ps_err(err, "%s: byte %llu: STAT section, line %d: '%.80s': a count past 2^48, or counts that add up past 2^62: the file is damaged",
				      r->path, (unsigned long long)off, nr, line);
	}
	return 0;
}

static int add_blob(struct pgs_state *st, const uint8_t *p, size_t len)
{
	struct blob *b;
	int nlen;

	if (len < 10)
		return -1;
	nlen = get16(p);
	if (nlen == 0 || 2 + (size_t)nlen + 8 > len)
		return -1;
	if (!(st->nr_blobs & 63)) {
		struct blob *nb = realloc(st->blobs, (st->nr_blobs + 64) * sizeof(*nb));

		if (!nb)
			return -1;
		st->blobs = nb;
	}
	b = &st->blobs[st->nr_blobs++];
	b->name = (const char *)p + 2;
	b->name_len = nlen;
	b->raw_len = get64(p + 2 + nlen);
	b->z = p + 2 + nlen + 8;
	b->zlen = len - 2 - nlen - 8;
	return 0;
}

static int add_frame(struct pgs_state *st, uint64_t off, const uint8_t *p, size_t len)
{
	struct frame *f;

	if (len < 8)
		return -1;
	if (!(st->nr_frames & 255)) {
		struct frame *nf = realloc(st->frames, (st->nr_frames + 256) * sizeof(*nf));

		if (!nf)
			return -1;
		st->frames = nf;
	}
	f = &st->frames[st->nr_frames++];
	f->off = off;
	f->nr = get32(p);
	f->raw_len = get32(p + 4);
	f->z = p + 8;
	f->zlen = len - 8;
	return 0;
}

static int index_sections(struct ps_reader *r, struct pgs_state *st, uint64_t hsize, struct ps_error *err)
{
	uint64_t off = hsize, events = 0;
	int ended = 0, fd = st->mapped ? ps_stream_fd(r->stream) : -1;

	while (off < st->size) {
		const uint8_t *h = st->map + off;
		uint8_t hb[PS_PGS_SECTION_HEADER + 8];
		uint64_t len;

		/*
		 * Section headers of a mapped file are read with pread: touching
		 * the mapping would fault in each frame's first page and its
		 * neighbours (fault-around), 64 KiB of peak memory per frame.
		 */
		if (fd >= 0 && st->size - off >= sizeof(hb) &&
		    pread(fd, hb, sizeof(hb), off) == sizeof(hb))
			h = hb;

		if (st->size - off < PS_PGS_SECTION_HEADER) {
			set_truncated(r, "%s: the file is cut short at byte %llu (inside a section header) after %d whole event frames (%llu events): it was not closed properly (crash or full disk?)",
				      r->path, (unsigned long long)off, st->nr_frames, (unsigned long long)events);
			return 0;
		}
		len = get64(h + 8);
		if (len > st->size - off - PS_PGS_SECTION_HEADER) {
			set_truncated(r, "%s: the file is cut short at byte %llu (a %.4s section of %llu bytes needs %llu more) after %d whole event frames (%llu events): it was not closed properly (crash or full disk?)",
				      r->path, (unsigned long long)st->size, (const char *)h, (unsigned long long)len,
				      (unsigned long long)(len - (st->size - off - PS_PGS_SECTION_HEADER)),
				      st->nr_frames, (unsigned long long)events);
			return 0;
		}
		if (!memcmp(h, PS_PGS_EVTS, 4)) {
			if (add_frame(st, off, h + PS_PGS_SECTION_HEADER, len) < 0)
				return ps_err(err, "%s: byte %llu: damaged event frame header", r->path,
					      (unsigned long long)off);
			st->frames[st->nr_frames - 1].z = st->map + off + PS_PGS_SECTION_HEADER + 8;
			events += st->frames[st->nr_frames - 1].nr;
		} else if (!memcmp(h, PS_PGS_BLOB, 4)) {
			if (add_blob(st, st->map + off + PS_PGS_SECTION_HEADER, len) < 0)
				return ps_err(err, "%s: byte %llu: damaged blob section", r->path, (unsigned long long)off);
		} else if (!memcmp(h, PS_PGS_STAT, 4)) {
			if (parse_stat(r, off, (const char *)st->map + off + PS_PGS_SECTION_HEADER, len, err) < 0)
				return -1;
		} else if (!memcmp(h, PS_PGS_END, 4)) {
			ended = 1;
			if (len >= 8 && get64(h + PS_PGS_SECTION_HEADER) != events)
				return ps_err(err, "%s: the END section counts %llu events but the frames hold %llu: the file is damaged",
					      r->path, (unsigned long long)get64(h + PS_PGS_SECTION_HEADER),
					      (unsigned long long)events);
		} else if (h[0] < 0x20 || h[0] > 0x7e) {
			set_truncated(r, "%s: byte %llu is not a section header (damaged or cut and overwritten); reading the %d whole event frames before it (%llu events)",
				      r->path, (unsigned long long)off, st->nr_frames, (unsigned long long)events);
			return 0;
		}
		/* other printable tags: sections of a later minor version, skipped */
		off += PS_PGS_SECTION_HEADER + len;
	}
	if (!ended)
		set_truncated(r, "%s: the file ends at byte %llu without its END section after %d whole event frames (%llu events): the recording did not finish (crash, kill or full disk?)",
			      r->path, (unsigned long long)st->size, st->nr_frames, (unsigned long long)events);
	return 0;
}

/* The frame header checks of load_frame(), for the helper. */
static int frame_sane(const struct frame *f, int ncols)
{
	return f->nr && f->nr <= PS_PGS_FRAME_EVENTS && f->raw_len >= 4u * ncols &&
	       f->raw_len <= 64u << 20;
}

static void *prefetch_main(void *arg)
{
	struct pgs_state *st = arg;
	struct prefetch *pf = st->pf;

	pthread_mutex_lock(&pf->mu);
	while (!pf->stop) {
		struct pf_slot *s = NULL;
		const struct frame *f;
		size_t got;
		int ok;

		for (int k = 0; k < PF_SLOTS && pf->next < st->nr_frames; k++)
			if (pf->slot[k].state == PF_EMPTY)
				s = &pf->slot[k];
		if (!s) {
			pthread_cond_wait(&pf->cv, &pf->mu);
			continue;
		}
		s->frame = pf->next++;
		s->state = PF_BUSY;
		pthread_mutex_unlock(&pf->mu);

		f = &st->frames[s->frame];
		ok = frame_sane(f, st->ncols);
		if (ok && f->raw_len > s->cap) {
			free(s->buf);
			s->buf = malloc(f->raw_len + RAW_PAD);
			s->cap = s->buf ? f->raw_len : 0;
			ok = s->buf != NULL;
		}
		if (ok) {
			got = ZSTD_decompressDCtx(pf->dctx, s->buf, f->raw_len, f->z, f->zlen);
			ok = !ZSTD_isError(got) && got == f->raw_len;
			if (ok) {
				memset(s->buf + got, 0, RAW_PAD);
				s->got = got;
			}
		}

		pthread_mutex_lock(&pf->mu);
		s->state = ok ? PF_READY : PF_FAILED;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

/*
 * Starts the helper for a file of several frames on a machine with more
 * than one CPU (PAGESIM_DECODE_THREADS=1 keeps the reader to one thread).
 */
static void prefetch_start(struct pgs_state *st)
{
	const char *env = getenv("PAGESIM_DECODE_THREADS");
	struct prefetch *pf;

	if (st->nr_frames < 3 || sysconf(_SC_NPROCESSORS_ONLN) < 2 || (env && atoi(env) == 1))
		return;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return;
	pf->dctx = ZSTD_createDCtx();
	if (!pf->dctx || pthread_mutex_init(&pf->mu, NULL)) {
		ZSTD_freeDCtx(pf->dctx);
		free(pf);
		return;
	}
	pthread_cond_init(&pf->cv, NULL);
	st->pf = pf;
	if (pthread_create(&pf->thread, NULL, prefetch_main, st)) {
		st->pf = NULL;
		pthread_cond_destroy(&pf->cv);
		pthread_mutex_destroy(&pf->mu);
		ZSTD_freeDCtx(pf->dctx);
		free(pf);
	}
}

static void prefetch_stop(struct pgs_state *st)
{
	struct prefetch *pf = st->pf;

	if (!pf)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->stop = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->thread, NULL);
	for (int k = 0; k < PF_SLOTS; k++)
		free(pf->slot[k].buf);
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	ZSTD_freeDCtx(pf->dctx);
	free(pf);
	st->pf = NULL;
}

/*
 * Frame @i from the helper, swapped into st->raw: 1 if it was decompressed
 * there (*got set), 0 if load_frame() must decompress it itself (no helper,
 * a frame out of order, or one the helper could not decompress).
 */
static int prefetch_take(struct pgs_state *st, int i, size_t *got)
{
	struct prefetch *pf = st->pf;
	struct pf_slot *s = NULL;
	int ok = 0;

	if (!pf || i != pf->expected)
		return 0;
	pf->expected++;
	pthread_mutex_lock(&pf->mu);
	for (int k = 0; k < PF_SLOTS; k++)
		if (pf->slot[k].state != PF_EMPTY && pf->slot[k].frame == i)
			s = &pf->slot[k];
	if (s) {
		while (s->state == PF_BUSY)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (s->state == PF_READY) {
			uint8_t *b = st->raw;
			size_t cap = st->raw_cap;

			st->raw = s->buf;
			st->raw_cap = s->cap;
			s->buf = b;
			s->cap = cap;
			*got = s->got;
			ok = 1;
		}
		s->state = PF_EMPTY;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return ok;
}

/* Decompresses frame @i and points the column cursors into it. */
static int load_frame(struct ps_reader *r, struct pgs_state *st, int i, struct ps_error *err)
{
	const struct frame *f = &st->frames[i];
	const uint8_t *p;
	size_t got, total = 4 * st->ncols;

	if (f->nr == 0 || f->nr > PS_PGS_FRAME_EVENTS || f->raw_len < total || f->raw_len > 64u << 20)
		return ps_err(err, "%s: byte %llu: event frame %d declares %u events in %u bytes: the file is damaged",
			      r->path, (unsigned long long)f->off, i, f->nr, f->raw_len);
	if (prefetch_take(st, i, &got))
		goto decompressed;
	if (f->raw_len > st->raw_cap) {
		free(st->raw);
		st->raw = malloc(f->raw_len + RAW_PAD);
		st->raw_cap = st->raw ? f->raw_len : 0;
		if (!st->raw)
			return ps_err(err, "out of memory");
	}
	got = ZSTD_decompressDCtx(st->dctx, st->raw, f->raw_len, f->z, f->zlen);
	if (!ZSTD_isError(got) && got <= f->raw_len)
		memset(st->raw + got, 0, RAW_PAD);
decompressed:
	/*
	 * A mapped file's pages count in the resident set until unmapped: give
	 * back what lies behind this frame, so that memory does not grow with
	 * the trace (blobs read later are paged in again from the file).
	 */
	if (st->mapped && f->off > st->dropped + DROP_STEP) {
		size_t pg = sysconf(_SC_PAGESIZE), upto = f->off / pg * pg;

		madvise((uint8_t *)st->map + st->dropped, upto - st->dropped, MADV_DONTNEED);
		st->dropped = upto;
	}
	if (ZSTD_isError(got) || got != f->raw_len)
		return ps_err(err, "%s: byte %llu: event frame %d does not decompress (%s): the file is damaged",
			      r->path, (unsigned long long)f->off, i,
			      ZSTD_isError(got) ? ZSTD_getErrorName(got) : "wrong size");
	p = st->raw + total;
	for (int c = 0; c < PS_PGS_NR_COLS; c++) {
		/* a version-1 frame: no page-cache, LRU or reclaim event, its columns empty */
		uint32_t len = c < st->ncols ? get32(st->raw + 4 * c) : 0;

		if (len > st->raw + got - p)
			return ps_err(err, "%s: byte %llu: event frame %d has a column longer than the frame: the file is damaged",
				      r->path, (unsigned long long)f->off, i);
		st->col[c] = p;
		st->end[c] = p + len;
		p += len;
	}
	if (st->end[PS_PGS_COL_CTRL] - st->col[PS_PGS_COL_CTRL] != f->nr ||
	    st->end[PS_PGS_COL_ORDER] - st->col[PS_PGS_COL_ORDER] != f->nr)
		return ps_err(err, "%s: byte %llu: event frame %d: column sizes do not match its %u events: the file is damaged",
			      r->path, (unsigned long long)f->off, i, f->nr);
	st->left = f->nr;
	st->prev_ts = 0;
	st->prev_cpu = 0;
	memset(st->pid, 0, sizeof(st->pid));
	memset(st->pfn, 0, sizeof(st->pfn));
	memset(&st->xpred, 0, sizeof(st->xpred));
	return 0;
}

/*
 * The batch's slots that held a page-cache, LRU or reclaim event get their
 * x zeroed again: a kmem event's is zero, and the decoders write it only
 * for those events.
 */
static inline void clear_xslots(struct pgs_state *st)
{
	for (int i = 0; i < st->nxslot; i++)
		memset(&st->batch[st->xslot[i]].x, 0, sizeof(st->batch[0].x));
	st->nxslot = 0;
}


/* A migratetype byte as the other readers give it: PS_MT_* or PS_MT_UNKNOWN. */
static inline int8_t mt_of(int v)
{
	return v >= PS_MT_UNKNOWN && v < PS_MT_NR ? (int8_t)v : PS_MT_UNKNOWN;
}

/*
 * Orders past the highest buddy order, in the event or in an extfrag's
 * fields, are bad fields as in the other readers: a shift by them is
 * undefined downstream.
 */
static inline int orders_bad(const struct ps_event *e)
{
	return e->order > PS_EV_MAX_ORDER ||
	       (e->type == PS_EV_EXTFRAG && (e->alloc_order > PS_EV_MAX_ORDER || e->fallback_order > PS_EV_MAX_ORDER));
}

/* A bad field the other readers skip too: an order out of range, a timestamp past 2^63 ns. */
static inline int fields_bad(const struct ps_event *e)
{
	return orders_bad(e) || e->ts_ns > PS_EV_MAX_TS;
}

/*
 * Decodes up to PGS_BATCH records of the current frame into st->batch.  The
 * column cursors live in locals for the whole loop (through uint8_t
 * pointers every store could alias them, so kept in the state they would be
 * reloaded after each field).  A record with a bad field is skipped (counted
 * unless @again: the batch was decoded before).  Returns the events kept,
 * or -1 on a damaged record.
 */
static int decode_batch(struct ps_reader *r, struct pgs_state *st, int again, struct ps_error *err)
{
	const uint8_t *ctrl = st->col[PS_PGS_COL_CTRL], *tsc = st->col[PS_PGS_COL_TS];
	const uint8_t *cpuc = st->col[PS_PGS_COL_CPU], *pidc = st->col[PS_PGS_COL_PID];
	const uint8_t *pfnc = st->col[PS_PGS_COL_PFN], *ordc = st->col[PS_PGS_COL_ORDER];
	const uint8_t *auxc = st->col[PS_PGS_COL_AUX], *gfpc = st->col[PS_PGS_COL_GFP];
	const uint8_t *xfc = st->col[PS_PGS_COL_XF], *extc = st->col[PS_PGS_COL_EXT];
	const uint8_t *const *end = st->end;
	uint64_t ts = st->prev_ts;
	unsigned int cpu = st->prev_cpu;
	int n = st->left < PGS_BATCH ? st->left : PGS_BATCH, i, kept = 0;

	clear_xslots(st);
	for (i = 0; i < n; i++) {
		struct ps_event *e = &st->batch[kept];
		uint64_t v;
		uint8_t c = *ctrl++;
		int x = (c & PS_PGS_C_TYPE) == PS_PGS_C_XTYPE;

		e->type = c & PS_PGS_C_TYPE;
		if (__builtin_expect(e->type >= PS_EV_KMEM_NR && !x, 0))
			goto bad;
		if (c & PS_PGS_C_CPU) {
			cpuc = get_varint(cpuc, end[PS_PGS_COL_CPU], &v);
			if (__builtin_expect(!cpuc || v > 0xffff, 0))
				goto bad;
			cpu = v;
		}
		e->cpu = cpu;
		if (c & PS_PGS_C_PID) {
			pidc = get_varint(pidc, end[PS_PGS_COL_PID], &v);
			if (__builtin_expect(!pidc, 0))
				goto bad;
			e->pid = (int32_t)ps_unzigzag(v);
			if (cpu < PS_PGS_MAX_CPU_STATE)
				st->pid[cpu] = e->pid;
		} else {
			if (__builtin_expect(cpu >= PS_PGS_MAX_CPU_STATE, 0))
				goto bad;
			e->pid = st->pid[cpu];
		}
		if (c & PS_PGS_C_NOPFN) {
			e->pfn = PS_PFN_NONE;
		} else {
			uint64_t *prev = &st->pfn[cpu < PS_PGS_MAX_CPU_STATE ? cpu : 0];

			pfnc = get_varint(pfnc, end[PS_PGS_COL_PFN], &v);
			if (__builtin_expect(!pfnc, 0))
				goto bad;
			*prev += (uint64_t)ps_unzigzag(v);
			e->pfn = *prev;
		}
		tsc = get_varint(tsc, end[PS_PGS_COL_TS], &v);
		if (__builtin_expect(!tsc, 0))
			goto bad;
		ts += (uint64_t)ps_unzigzag(v);
		e->ts_ns = ts;
		e->order = *ordc++;
		e->gfp = 0;
		if (__builtin_expect(c & PS_PGS_C_EXT, 0)) {
			if (end[PS_PGS_COL_EXT] - extc < 8)
				goto bad;
			e->flags = extc[0];
			e->percpu_refill = extc[1] != 0;
			e->migratetype = mt_of((int8_t)extc[2]);
			e->alloc_order = extc[3];
			e->fallback_order = extc[4];
			e->alloc_migratetype = mt_of((int8_t)extc[5]);
			e->fallback_migratetype = mt_of((int8_t)extc[6]);
			e->change_ownership = extc[7] != 0;
			extc += 8;
		} else {
			uint8_t a;

			if (__builtin_expect(auxc >= end[PS_PGS_COL_AUX], 0))
				goto bad;
			a = *auxc++;
			e->migratetype = mt_of((a & 0x0f) - 1);
			e->percpu_refill = (a >> 4) & 1;
			e->flags = a >> 5;
			if (e->type == PS_EV_EXTFRAG) {
				if (end[PS_PGS_COL_XF] - xfc < 5)
					goto bad;
				e->alloc_order = xfc[0];
				e->fallback_order = xfc[1];
				e->alloc_migratetype = mt_of((int8_t)xfc[2]);
				e->fallback_migratetype = mt_of((int8_t)xfc[3]);
				e->change_ownership = xfc[4] != 0;
				xfc += 5;
			} else {
				e->alloc_order = e->fallback_order = 0;
				e->alloc_migratetype = e->fallback_migratetype = PS_MT_UNKNOWN;
				e->change_ownership = 0;
			}
		}
		if (x) {
			if (ps_pgs_get_x(st->col, end, e, &st->xpred) < 0 || e->order > PS_EV_MAX_ORDER)
				goto bad;
			st->xslot[st->nxslot++] = kept;
		}
		if ((c & PS_PGS_C_EXT) || e->type == PS_EV_ALLOC || (x && ps_pgs_x_has_gfp(e->type))) {
			if (__builtin_expect(end[PS_PGS_COL_GFP] - gfpc < 4, 0))
				goto bad;
			e->gfp = get32(gfpc);
			gfpc += 4;
		}
		e->comm = NULL;
		e->task = PS_TASK_OTHER;
		if (__builtin_expect(fields_bad(e), 0)) {
			const struct frame *f = &st->frames[st->cur - 1];
			char where[96], sample[96];

			if (x)
				st->nxslot--;
			if (again)
				continue;
			snprintf(where, sizeof(where), "byte %llu: event %u of frame %d", (unsigned long long)f->off,
				 f->nr - st->left + i, st->cur - 1);
			snprintf(sample, sizeof(sample), "%s order=%u alloc_order=%u fallback_order=%u ts=%llu",
				 ps_event_names[e->type], e->order, e->alloc_order, e->fallback_order,
				 (unsigned long long)e->ts_ns);
			if (ps_reader_skip(r, PS_SKIP_BAD_FIELD, where, sample, strlen(sample), err) < 0)
				return -1;
			continue;
		}
		kept++;
	}
	st->col[PS_PGS_COL_CTRL] = ctrl;
	st->col[PS_PGS_COL_TS] = tsc;
	st->col[PS_PGS_COL_CPU] = cpuc;
	st->col[PS_PGS_COL_PID] = pidc;
	st->col[PS_PGS_COL_PFN] = pfnc;
	st->col[PS_PGS_COL_ORDER] = ordc;
	st->col[PS_PGS_COL_AUX] = auxc;
	st->col[PS_PGS_COL_GFP] = gfpc;
	st->col[PS_PGS_COL_XF] = xfc;
	st->col[PS_PGS_COL_EXT] = extc;
	st->prev_ts = ts;
	st->prev_cpu = cpu;
	st->left -= n;
	return kept;
bad:
	{
		const struct frame *f = &st->frames[st->cur - 1];

		return ps_err(err, "%s: byte %llu: event %u of frame %d runs past its column: the file is damaged",
			      r->path, (unsigned long long)f->off, f->nr - st->left + i, st->cur - 1);
	}
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

/* A varint of 9 or 10 bytes (get_varint's rules, no end check); NULL if longer. */
static const uint8_t *varint_long(const uint8_t *p, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

/*
 * A varint with no branch on its length up to 8 bytes: the first byte
 * without its continuation bit ends it, and the 7-bit groups are packed
 * together by three shift-and-mask steps.  The caller guarantees 8
 * readable bytes (RAW_PAD) and checks the cursor against the column's end.
 */
static inline const uint8_t *varint_unchecked(const uint8_t *p, uint64_t *v)
{
	uint64_t x = load64(p), stop = ~x & 0x8080808080808080ull;

	if (__builtin_expect(!stop, 0))
		return varint_long(p, v);
	x &= (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
	x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
	x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
	*v = x;
	return p + (__builtin_ctzll(stop) >> 3) + 1;
}

/*
 * varint_unchecked() for the common short varints: up to 4 bytes without a
 * branch on the length, in 32-bit steps (two packing steps instead of
 * three); a longer one goes to varint_long().  Same rules for the caller.
 */
static inline const uint8_t *varint4(const uint8_t *p, uint64_t *v)
{
	uint32_t x = load32(p), stop = ~x & 0x80808080u;

	if (__builtin_expect(!stop, 0))
		return varint_long(p, v);
	x &= (stop ^ (stop - 1)) & 0x7f7f7f7fu;
	x = (x & 0x007f007fu) | (x & 0x7f007f00u) >> 1;
	x = (x & 0x00003fffu) | (x & 0x3fff0000u) >> 2;
	*v = x;
	return p + (__builtin_ctz(stop) >> 3) + 1;
}

/*
 * The batch tally of decode_fast(): per control byte, one in the 9-bit
 * field of the event's type (bits TALLY_BITS * type) and one in the field
 * after them for a failed allocation (mm_page_alloc without a pfn); nothing
 * for a type beyond PS_EV_KMEM_NR: the page-cache, LRU and reclaim events
 * (PS_PGS_C_XTYPE) are counted apart, and a type 6, which no file holds, is
 * given away by the fields' total.
 */
#define TALLY_BITS 9
#define TALLY_FIELD ((1u << TALLY_BITS) - 1)
#define TALLY_FAILED (PS_EV_KMEM_NR * TALLY_BITS)
_Static_assert(PGS_BATCH <= TALLY_FIELD && TALLY_FAILED + TALLY_BITS <= 64, "tally fields too small");
/* decode_fast() fills migratetype..alloc_order and fallback_order..change_ownership 4 bytes at a time */
_Static_assert(offsetof(struct ps_event, alloc_order) == offsetof(struct ps_event, migratetype) + 3 &&
	       offsetof(struct ps_event, percpu_refill) == offsetof(struct ps_event, migratetype) + 1 &&
	       offsetof(struct ps_event, flags) == offsetof(struct ps_event, migratetype) + 2 &&
	       offsetof(struct ps_event, alloc_migratetype) == offsetof(struct ps_event, fallback_order) + 1 &&
	       offsetof(struct ps_event, fallback_migratetype) == offsetof(struct ps_event, fallback_order) + 2 &&
	       offsetof(struct ps_event, change_ownership) == offsetof(struct ps_event, fallback_order) + 3,
	       "struct ps_event layout");

/* The per-control-byte and per-aux-byte tables of decode_fast(). */
static void fast_tables(struct pgs_state *st)
{
	for (int c = 0; c < 256; c++) {
		int type = c & PS_PGS_C_TYPE;

		st->tally[c] = type < PS_EV_KMEM_NR ? 1ull << (TALLY_BITS * type) : 0;
		st->type_word[c] = (uint64_t)type << 48;
		if (type == PS_EV_ALLOC && (c & PS_PGS_C_NOPFN))
			st->tally[c] += 1ull << TALLY_FAILED;
		/* gfp of mm_page_alloc and of extended events */
		st->gfp_mask[c] = (c & PS_PGS_C_EXT) || type == PS_EV_ALLOC ? 0xffffffffu : 0;
		/* migratetype, percpu_refill, flags, alloc_order of a compact aux byte */
		st->aux[c][0] = (uint8_t)mt_of((c & 0x0f) - 1);
		st->aux[c][1] = (c >> 4) & 1;
		st->aux[c][2] = c >> 5;
		st->aux[c][3] = 0;
	}
}

/*
 * Adds a batch to the reader's statistics as ps_reader_account() would one
 * event at a time: @tally from decode_fast(), @xn the count of each
 * page-cache, LRU and reclaim event type (by type - PS_EV_KMEM_NR) when
 * @nx of them, @maxc the highest cpu of the batch, @tsor the OR of its
 * timestamp varints (zigzag deltas), @ts0 the timestamp before it and @ts
 * its last.
 */
static void account_fast(struct ps_reader *r, const struct pgs_state *st, int n, uint64_t tally,
			 const uint16_t *xn, int nx, unsigned int maxc, uint64_t tsor, uint64_t ts0, uint64_t ts)
{
	/* a delta of 2^55 or more, or a pfn that reads as none: one by one */
	if (__builtin_expect(tsor >> 56, 0)) {
		for (int i = 0; i < n; i++)
			ps_reader_account_inline(r, &st->batch[i]);
		return;
	}
	for (int t = 0; t < PS_EV_KMEM_NR; t++)
		r->stats.events[t] += (tally >> (TALLY_BITS * t)) & TALLY_FIELD;
	for (int t = 0; nx && t < PS_EV_NR - PS_EV_KMEM_NR; t++)
		r->stats.events[PS_EV_KMEM_NR + t] += xn[t];
	r->stats.alloc_failed += (tally >> TALLY_FAILED) & TALLY_FIELD;
	if ((int)maxc > r->stats.max_cpu)
		r->stats.max_cpu = maxc;
	/*
	 * No delta negative and each below 2^55, so that their sum cannot wrap
	 * twice, nor once when the last timestamp is not below the first: the
	 * batch is in order and only its first event can be older than the
	 * newest before it.
	 */
	if (__builtin_expect(!(tsor & 1) && ts >= ts0 &&
			     st->batch[0].ts_ns >= r->last_ts, 1)) {
		r->last_ts = ts;
		return;
	}
	for (int i = 0; i < n; i++) {
		uint64_t t = st->batch[i].ts_ns, last = r->last_ts;
		int older = t < last;

		r->stats.out_of_order += older;
		r->last_ts = older ? last : t;
	}
}

/*
 * pid, cpu, type and order lie together in struct ps_event: decode_fast()
 * keeps pid and cpu in one word (pid_cpu()), takes type from a table by
 * control byte (type << 48) and stores the four with one store.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(offsetof(struct ps_event, cpu) == offsetof(struct ps_event, pid) + 4 &&
	       offsetof(struct ps_event, type) == offsetof(struct ps_event, pid) + 6 &&
	       offsetof(struct ps_event, order) == offsetof(struct ps_event, pid) + 7,
	       "struct ps_event layout");
#endif

static inline uint64_t pid_cpu(int32_t pid, unsigned int cpu)
{
	return (uint32_t)pid | (uint64_t)cpu << 32;
}

static inline void put_pid_cpu_type_order(struct ps_event *e, uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&e->pid, &w, 8);
#else
	e->pid = (int32_t)(uint32_t)w;
	e->cpu = (uint16_t)(w >> 32);
	e->type = (uint8_t)(w >> 48);
	e->order = (uint8_t)(w >> 56);
#endif
}

/*
 * decode_fast()'s page-cache, LRU or reclaim event @e: its type and fields
 * from the x columns (checked as they are read), the gfp column's word in
 * *@gm's place when its type carries one, its count in @xn.  0, or -1 on a
 * damaged record (decode_batch() then names it).
 */
static inline int take_x(struct pgs_state *st, struct ps_event *e, uint32_t *gm, uint16_t *xn)
{
	if (ps_pgs_get_x(st->col, st->end, e, &st->xpred) < 0 || e->order > PS_EV_MAX_ORDER)
		return -1;
	if (ps_pgs_x_has_gfp(e->type))
		*gm = 0xffffffffu;
	xn[e->type - PS_EV_KMEM_NR]++;
	st->xslot[st->nxslot++] = e - st->batch;
	return 0;
}

/*
 * decode_batch() without its per-field end checks, and with the reader's
 * accounting of the batch: the cursors are checked once at the end of the
 * batch, and anything unusual (a damaged record, a cpu beyond the per-cpu
 * state) sends the batch back to decode_batch(), which knows every rule and
 * names the bad event.  The
 * predictors of the current cpu stay in registers; an event's fields are
 * stored a few bytes at a time, and its comm and task are left as they are (NULL, or
 * set by pgs_batch()).  Returns the count, or -2 when decode_batch() must
 * redo the batch.
 */
static int decode_fast(struct ps_reader *r, struct pgs_state *st)
{
	/* fallback_order, alloc_migratetype, fallback_migratetype, change_ownership */
	static const uint8_t no_xf[4] = { 0, (uint8_t)PS_MT_UNKNOWN, (uint8_t)PS_MT_UNKNOWN, 0 };
	/*
	 * The cursors of every event in locals; those of the rare columns
	 * (cpu, pid, xf, ext) stay in st->col, which leaves the registers to
	 * the rest.
	 */
	const uint8_t *ctrl = st->col[PS_PGS_COL_CTRL], *tsc = st->col[PS_PGS_COL_TS];
	const uint8_t *pfnc = st->col[PS_PGS_COL_PFN], *ordc = st->col[PS_PGS_COL_ORDER];
	const uint8_t *auxc = st->col[PS_PGS_COL_AUX], *gfpc = st->col[PS_PGS_COL_GFP];
	uint64_t ts = st->prev_ts, pfn, v, tally = 0, tsor = 0, total, pidcpu, pmax = 0, tsmax = 0;
	unsigned int cpu = st->prev_cpu, maxc = cpu, omax = 0;
	int n = st->left < PGS_BATCH ? st->left : PGS_BATCH, nx = 0;
	struct ps_event *e = st->batch, *stop = e + n;
	uint16_t xn[PS_EV_NR - PS_EV_KMEM_NR] = { 0 };
	int32_t pid;

	if (cpu >= PS_PGS_MAX_CPU_STATE)
		return -2;
	clear_xslots(st);
	pid = st->pid[cpu];
	pfn = st->pfn[cpu];
	pidcpu = pid_cpu(pid, cpu);
	for (; e < stop; e++) {
		unsigned int c = *ctrl++, type = c & PS_PGS_C_TYPE;
		uint32_t gm = st->gfp_mask[c];
		const uint8_t *p;

		tally += st->tally[c];
		if (__builtin_expect(c & PS_PGS_C_CPU, 0)) {
			p = st->col[PS_PGS_COL_CPU];
			if (__builtin_expect(*p < 0x80, 1))	/* a cpu below 128 */
				v = *p++;
			else
				p = varint_unchecked(p, &v);
			if (!p || v >= PS_PGS_MAX_CPU_STATE)
				return -2;
			st->col[PS_PGS_COL_CPU] = p;
			st->pid[cpu] = pid;
			st->pfn[cpu] = pfn;
			cpu = v;
			maxc = cpu > maxc ? cpu : maxc;
			pid = st->pid[cpu];
			pfn = st->pfn[cpu];
			pidcpu = pid_cpu(pid, cpu);
		}
		if (__builtin_expect(c & PS_PGS_C_PID, 0)) {
			p = varint_unchecked(st->col[PS_PGS_COL_PID], &v);
			if (!p)
				return -2;
			st->col[PS_PGS_COL_PID] = p;
			pid = (int32_t)ps_unzigzag(v);
			pidcpu = pid_cpu(pid, cpu);
		}
		omax = *ordc > omax ? *ordc : omax;
		put_pid_cpu_type_order(e, pidcpu | st->type_word[c] | (uint64_t)*ordc++ << 56);
		if (__builtin_expect(!(c & PS_PGS_C_NOPFN), 1)) {
			/* pfns of one cpu are often near each other: one byte */
			if (__builtin_expect(*pfnc < 0x80, 1))
				v = *pfnc++;
			else if (!(pfnc = varint4(pfnc, &v)))
				return -2;
			pfn += (uint64_t)ps_unzigzag(v);
			pmax = pfn > pmax ? pfn : pmax;
			e->pfn = pfn;
		} else {
			e->pfn = PS_PFN_NONE;
		}
		/* most timestamp deltas take two bytes: those without varint4()'s packing */
		if (__builtin_expect((tsc[0] & 0x80) && !(tsc[1] & 0x80), 1)) {
			v = (tsc[0] & 0x7fu) | (uint64_t)tsc[1] << 7;
			tsc += 2;
		} else if (!(tsc = varint4(tsc, &v))) {
			return -2;
		}
		tsor |= v;
		ts += (uint64_t)ps_unzigzag(v);
		tsmax |= ts;
		e->ts_ns = ts;
		if (__builtin_expect(c & PS_PGS_C_EXT, 0)) {
			const uint8_t *x = st->col[PS_PGS_COL_EXT];

			e->flags = x[0];
			e->percpu_refill = x[1] != 0;
			e->migratetype = mt_of((int8_t)x[2]);
			e->alloc_order = x[3];
			e->fallback_order = x[4];
			e->alloc_migratetype = mt_of((int8_t)x[5]);
			e->fallback_migratetype = mt_of((int8_t)x[6]);
			e->change_ownership = x[7] != 0;
			st->col[PS_PGS_COL_EXT] = x + 8;
			if (type == PS_EV_EXTFRAG) {
				omax = x[3] > omax ? x[3] : omax;
				omax = x[4] > omax ? x[4] : omax;
			}
			if (type == PS_PGS_C_XTYPE && take_x(st, e, &gm, xn) < 0)
				return -2;
		} else {
			/* migratetype, percpu_refill, flags and alloc_order 0 */
			memcpy(&e->migratetype, st->aux[*auxc++], 4);
			/* extfrag, and the page-cache, LRU and reclaim events: no test of their own */
			if (__builtin_expect(type >= PS_EV_EXTFRAG, 0)) {
				const uint8_t *x = st->col[PS_PGS_COL_XF];

				if (type == PS_EV_EXTFRAG) {
					e->alloc_order = x[0];
					e->fallback_order = x[1];
					e->alloc_migratetype = mt_of((int8_t)x[2]);
					e->fallback_migratetype = mt_of((int8_t)x[3]);
					e->change_ownership = x[4] != 0;
					st->col[PS_PGS_COL_XF] = x + 5;
					omax = x[0] > omax ? x[0] : omax;
					omax = x[1] > omax ? x[1] : omax;
				} else {
					memcpy(&e->fallback_order, no_xf, 4);
					if (type != PS_PGS_C_XTYPE || take_x(st, e, &gm, xn) < 0)
						return -2;
				}
			} else {
				memcpy(&e->fallback_order, no_xf, 4);
			}
		}
		/* gfp of mm_page_alloc and of extended events, without a branch */
		e->gfp = load32(gfpc) & gm;
		gfpc += gm & 4;
	}
	for (int t = 0; t < PS_EV_NR - PS_EV_KMEM_NR; t++)
		nx += xn[t];
	total = nx;
	for (int t = 0; t < PS_EV_KMEM_NR; t++)
		total += (tally >> (TALLY_BITS * t)) & TALLY_FIELD;
	if (total != (uint64_t)n || omax > PS_EV_MAX_ORDER || tsmax > PS_EV_MAX_TS || tsc > st->end[PS_PGS_COL_TS] ||
	    st->col[PS_PGS_COL_CPU] > st->end[PS_PGS_COL_CPU] ||
	    st->col[PS_PGS_COL_PID] > st->end[PS_PGS_COL_PID] ||
	    pfnc > st->end[PS_PGS_COL_PFN] || auxc > st->end[PS_PGS_COL_AUX] ||
	    gfpc > st->end[PS_PGS_COL_GFP] || st->col[PS_PGS_COL_XF] > st->end[PS_PGS_COL_XF] ||
	    st->col[PS_PGS_COL_EXT] > st->end[PS_PGS_COL_EXT])
		return -2;
	/* a pfn that reads as none (the highest there is): the batch is accounted event by event */
	tsor |= (uint64_t)(pmax == PS_PFN_NONE) << 63;
	account_fast(r, st, n, tally, xn, nx, maxc, tsor, st->prev_ts, ts);
	st->pid[cpu] = pid;
	st->pfn[cpu] = pfn;
	st->col[PS_PGS_COL_CTRL] = ctrl;
	st->col[PS_PGS_COL_TS] = tsc;
	st->col[PS_PGS_COL_PFN] = pfnc;
	st->col[PS_PGS_COL_ORDER] = ordc;
	st->col[PS_PGS_COL_AUX] = auxc;
	st->col[PS_PGS_COL_GFP] = gfpc;
	st->prev_ts = ts;
	st->prev_cpu = cpu;
	st->left -= n;
	return n;
}

/*
 * The fast decoder gave up on the batch after @done events of the current
 * frame: decode the frame again from its start with decode_batch(), which
 * reports the damaged event or, for an unusual but valid record, decodes
 * the batch.
 */
static int redo_careful(struct ps_reader *r, struct pgs_state *st, uint32_t done,
			struct ps_error *err)
{
	const struct frame *f = &st->frames[st->cur - 1];

	if (load_frame(r, st, st->cur - 1, err) < 0)
		return -1;
	while (f->nr - st->left < done)
		if (decode_batch(r, st, 1, err) < 0)
			return -1;
	return decode_batch(r, st, 0, err);
}

/*
 * Decodes and accounts the next batch into st->batch: its count, 0 at the
 * end, -1 on an error.  A batch whose every record was skipped is followed
 * by the next.
 */
static int pgs_batch(struct ps_reader *r, struct pgs_state *st, struct ps_error *err)
{
	uint32_t done;
	int n;

	do {
		if (!st->left) {
			if (st->cur >= st->nr_frames)
				return 0;
			if (load_frame(r, st, st->cur++, err) < 0)
				return -1;
		}
		done = st->frames[st->cur - 1].nr - st->left;
		n = decode_fast(r, st);
		if (__builtin_expect(n < 0, 0)) {
			n = redo_careful(r, st, done, err);
			if (n < 0)
				return -1;
			for (int i = 0; i < n; i++)
				ps_reader_account_inline(r, &st->batch[i]);
		}
	} while (__builtin_expect(!n, 0));
	if (__builtin_expect(r->opts.flags & PS_RD_COMM, 0)) {
		int32_t pid = st->batch[0].pid;
		struct comm_map t = *comm_of(st, pid);

		/* runs of one task are the rule: look up only when the pid changes */
		for (int i = 0; i < n; i++) {
			if (st->batch[i].pid != pid) {
				pid = st->batch[i].pid;
				t = *comm_of(st, pid);
			}
			st->batch[i].comm = t.comm;
			st->batch[i].task = t.task;
			st->batch[i].task_node = t.task_node;
		}
	}
	return n;
}

static int pgs_next_batch(struct ps_reader *r, const struct ps_event **evs, struct ps_error *err)
{
	struct pgs_state *st = r->priv;
	int n = pgs_batch(r, st, err);

	if (n > 0)
		*evs = st->batch;
	return n;
}

static int pgs_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	struct pgs_state *st = r->priv;
	int n = pgs_batch(r, st, err);

	if (n <= 0)
		return n;
	/* ps_reader_next() hands out the rest of the batch itself */
	r->ahead = st->batch + 1;
	r->ahead_end = st->batch + n;
	*ev = st->batch[0];
	return 1;
}

static char *blob_text(const struct pgs_state *st, const struct blob *b, size_t *len)
{
	char *out;
	size_t got;

	if (b->raw_len > (256u << 20))
		return NULL;
	out = malloc(b->raw_len + 1);
	if (!out)
		return NULL;
	got = ZSTD_decompress(out, b->raw_len, b->z, b->zlen);
	if (ZSTD_isError(got) || got != b->raw_len) {
		free(out);
		return NULL;
	}
	out[got] = 0;
	if (len)
		*len = got;
	return out;
}

static char *pgs_snapshot(const struct ps_reader *r, const char *rel, size_t *len)
{
	const struct pgs_state *st = r->priv;
	int n = strlen(rel);

	/* the last blob of a name wins */
	for (int i = st->nr_blobs - 1; i >= 0; i--)
		if (st->blobs[i].name_len == n && !memcmp(st->blobs[i].name, rel, n))
			return blob_text(st, &st->blobs[i], len);
	return NULL;
}

static void pgs_close(struct ps_reader *r)
{
	struct pgs_state *st = r->priv;

	if (!st)
		return;
	prefetch_stop(st);
	if (st->mapped)
		munmap((void *)st->map, st->size);
	else
		free((void *)st->map);
	free(st->blobs);
	free(st->frames);
	free(st->raw);
	free(st->comm_text);
	free(st->comms);
	ZSTD_freeDCtx(st->dctx);
	free(st);
	r->priv = NULL;
}

static const struct ps_reader_ops pgs_ops = {
	.name = "pagesim",
	.next = pgs_next,
	.next_batch = pgs_next_batch,
	.close = pgs_close,
	.snapshot = pgs_snapshot,
};

int ps_pgs_open(struct ps_reader *r, struct ps_error *err)
{
	struct pgs_state *st = calloc(1, sizeof(*st));
	unsigned int version, hsize;
	const uint8_t *h;
	int32_t pb;

	if (!st)
		return ps_err(err, "out of memory");
	r->priv = st;
	r->ops = &pgs_ops;
	fast_tables(st);
	st->dctx = ZSTD_createDCtx();
	if (!st->dctx)
		return ps_err(err, "out of memory");
	if (load(r, st, err) < 0)
		return -1;
	h = st->map;
	if (st->size < 12 || memcmp(h, PS_PGS_MAGIC, PS_PGS_MAGIC_LEN))
		return ps_err(err, "%s: starts with PAGESIM but is not a pagesim trace file (bad magic)", r->path);
	version = get16(h + PS_PGS_H_VERSION);
	hsize = get16(h + PS_PGS_H_HSIZE);
	if (version < PS_PGS_VERSION_MIN || version > PS_PGS_VERSION)
		return ps_err(err, "%s: pagesim file format version %u; this pagesim (%s) reads versions %d to %d: use a newer pagesim",
			      r->path, version, PAGESIM_VERSION, PS_PGS_VERSION_MIN, PS_PGS_VERSION);
	st->ncols = version == 1 ? PS_PGS_V1_COLS : PS_PGS_NR_COLS;
	if (hsize < PS_PGS_HEADER_SIZE || st->size < hsize)
		return ps_err(err, "%s: the header is cut short (%zu of %u bytes): the file is damaged", r->path,
			      st->size, hsize);
	snprintf(r->release, sizeof(r->release), "%.127s", (const char *)h + PS_PGS_H_RELEASE);
	if (!r->opts.kver_forced && r->release[0] && ps_kver_parse(r->release) != PS_KVER_UNKNOWN)
		r->kver = ps_kver_parse(r->release);
	pb = (int32_t)get32(h + PS_PGS_H_PAGEBLOCK);
	/* x86-64: HUGETLB_PAGE_ORDER (9), or MAX_PAGE_ORDER without hugetlb */
	if (pb != -1 && (pb < 1 || pb > PS_EV_MAX_ORDER))
		return ps_err(err, "%s: byte %d: the header's pageblock order %d is out of range (1 to %d on x86-64, -1 for unknown): the file is damaged",
			      r->path, PS_PGS_H_PAGEBLOCK, pb, PS_EV_MAX_ORDER);
	r->pageblock_order = pb;
	r->nr_cpus = get32(h + PS_PGS_H_NR_CPUS) <= PS_READER_MAX_CPUS ? get32(h + PS_PGS_H_NR_CPUS) : 0;
	snprintf(r->format, sizeof(r->format), "pagesim v%u", version);
	if (index_sections(r, st, hsize, err) < 0)
		return -1;
	load_comms(st);
	/*
	 * Walking the section headers faulted in a page and its neighbours
	 * (fault-around) for every frame: about 64 KiB of resident set per
	 * 65536 events.  Give them back; what is read later pages in again.
	 */
	if (st->mapped)
		madvise((void *)st->map, st->size, MADV_DONTNEED);
	prefetch_start(st);
	return 0;
}
