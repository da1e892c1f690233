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
 * (pgs_cols.c) straight into the caller's event: no allocation, no string work per
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
#include "trace/pgs-local.h"


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
	nlen = ps_le_get16(p);
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
	b->raw_len = ps_le_get64(p + 2 + nlen);
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
	f->nr = ps_le_get32(p);
	f->raw_len = ps_le_get32(p + 4);
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
		len = ps_le_get64(h + 8);
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
			if (len >= 8 && ps_le_get64(h + PS_PGS_SECTION_HEADER) != events)
				return ps_err(err, "%s: the END section counts %llu events but the frames hold %llu: the file is damaged",
					      r->path, (unsigned long long)ps_le_get64(h + PS_PGS_SECTION_HEADER),
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
		uint32_t len = c < st->ncols ? ps_le_get32(st->raw + 4 * c) : 0;

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
 * The fast decoder gave up on the batch after @done events of the current
 * frame: decode the frame again from its start with ps_pgs_decode_batch(), which
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
		if (ps_pgs_decode_batch(r, st, 1, err) < 0)
			return -1;
	return ps_pgs_decode_batch(r, st, 0, err);
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
		n = ps_pgs_decode_fast(r, st);
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

static int pgs_task_of(struct ps_reader *r, int32_t pid, const char **comm)
{
	const struct comm_map *c = comm_of(r->priv, pid);

	*comm = c->comm;
	return c->task;
}

static const struct ps_reader_ops pgs_ops;

int ps_pgs_copy_blobs(struct ps_reader *r, struct ps_pgs_writer *w, const char *const *skip, struct ps_error *err)
{
	const struct pgs_state *st = r->priv;
	int n = 0;

	if (r->ops != &pgs_ops)
		return ps_err(err, "%s: not a pagesim file", r->path);
	for (int i = 0; i < st->nr_blobs; i++) {
		const struct blob *b = &st->blobs[i];
		char name[4096];
		int skipped = 0;
		size_t len;
		char *text;

		if (b->name_len <= 0 || b->name_len >= (int)sizeof(name))
			continue;
		memcpy(name, b->name, b->name_len);
		name[b->name_len] = 0;
		for (int k = 0; skip && skip[k]; k++)
			skipped |= !strncmp(name, skip[k], strlen(skip[k]));
		if (skipped)
			continue;
		if (!(text = blob_text(st, b, &len)))
			return ps_err(err, "%s: the stored file %s is damaged", r->path, name);
		if (ps_pgs_write_blob(w, name, text, len, err) < 0) {
			free(text);
			return -1;
		}
		free(text);
		n++;
	}
	return n;
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
	.task_of = pgs_task_of,
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
	ps_pgs_fast_tables(st);
	st->dctx = ZSTD_createDCtx();
	if (!st->dctx)
		return ps_err(err, "out of memory");
	if (load(r, st, err) < 0)
		return -1;
	h = st->map;
	if (st->size < 12 || memcmp(h, PS_PGS_MAGIC, PS_PGS_MAGIC_LEN))
		return ps_err(err, "%s: starts with PAGESIM but is not a pagesim trace file (bad magic)", r->path);
	version = ps_le_get16(h + PS_PGS_H_VERSION);
	hsize = ps_le_get16(h + PS_PGS_H_HSIZE);
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
	pb = (int32_t)ps_le_get32(h + PS_PGS_H_PAGEBLOCK);
	/* x86-64: HUGETLB_PAGE_ORDER (9), or MAX_PAGE_ORDER without hugetlb */
	if (pb != -1 && (pb < 1 || pb > PS_MAX_PAGE_ORDER))
		return ps_err(err, "%s: byte %d: the header's pageblock order %d is out of range (1 to %d on x86-64, -1 for unknown): the file is damaged",
			      r->path, PS_PGS_H_PAGEBLOCK, pb, PS_MAX_PAGE_ORDER);
	r->pageblock_order = pb;
	r->nr_cpus = ps_le_get32(h + PS_PGS_H_NR_CPUS) <= PS_READER_MAX_CPUS ? ps_le_get32(h + PS_PGS_H_NR_CPUS) : 0;
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
