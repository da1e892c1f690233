// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pgs_write.c - writes pagesim trace files (docs/pagesim-format.md).
 *
 * Events are buffered column by column (pgs.h, enum ps_pgs_col) and every
 * PS_PGS_FRAME_EVENTS events (or on ps_pgs_flush()) the columns are
 * compressed as one independent zstd frame and written as an EVTS section,
 * then the stdio buffer is flushed, so that a crash loses at most the
 * frame being filled.  The predictor state (previous ts, per-cpu pid and
 * pfn) restarts with each frame.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>

#include "lib/le.h"
#include "trace/pgs.h"
#include "trace/pgs_x.h"
#include "trace/sysroot.h"

/* worst-case bytes per event in each column */
static const int col_max[PS_PGS_NR_COLS] = { 1, 10, 3, 5, 10, 1, 1, 4, 5, 8, PS_PGS_XMAX_TYPE, PS_PGS_XMAX_PC,
					     PS_PGS_XMAX_LRU, PS_PGS_XMAX_KS, PS_PGS_XMAX_RC };

struct comm_ent {
	int32_t pid;
	char comm[20];
};

struct cpu_lost {
	uint64_t overrun, missed, markers, unknown;
	int set;
};

struct ps_pgs_writer {
	FILE *f;
	char *name;
	uint8_t header[PS_PGS_HEADER_SIZE];
	uint8_t written[PS_PGS_HEADER_SIZE];	/* the header as first written */
	ZSTD_CCtx *cctx;
	int level;
	uint8_t *col[PS_PGS_NR_COLS];
	size_t col_len[PS_PGS_NR_COLS];
	uint32_t nr;			/* events in the frame being filled */
	uint8_t *raw, *zbuf;
	size_t zcap;
	/* predictor state, reset per frame */
	uint64_t prev_ts;
	int prev_cpu;
	int32_t pid[PS_PGS_MAX_CPU_STATE];
	uint64_t pfn[PS_PGS_MAX_CPU_STATE];
	struct ps_pgs_xpred xpred;
	uint64_t events, frames, bytes, event_bytes;
	/* pid -> comm (open addressing) */
	struct comm_ent *comms;
	size_t comm_cap, comm_nr;
	struct ps_reader_stats src;
	int have_src;
	struct cpu_lost *lost;
	int lost_cpus;
	int failed;
	void (*observe)(void *ctx, const struct ps_event *ev);
	void *observe_ctx;
};

static inline uint8_t *put_varint(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)v | 0x80;
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

static int wr(struct ps_pgs_writer *w, const void *p, size_t n, struct ps_error *err)
{
	if (n && fwrite(p, 1, n, w->f) != n) {
		w->failed = 1;
		return ps_err(err, "cannot write '%s': %s (is the disk full?)", w->name, strerror(errno));
	}
	w->bytes += n;
	return 0;
}

static int section(struct ps_pgs_writer *w, const char *tag, const void *a, size_t alen, const void *b,
		   size_t blen, struct ps_error *err)
{
	uint8_t h[PS_PGS_SECTION_HEADER] = { 0 };

	memcpy(h, tag, 4);
	ps_le_put64(h + 8, alen + blen);
	if (wr(w, h, sizeof(h), err) < 0 || wr(w, a, alen, err) < 0 || wr(w, b, blen, err) < 0)
		return -1;
	return 0;
}

static void reset_state(struct ps_pgs_writer *w)
{
	w->prev_ts = 0;
	w->prev_cpu = 0;
	memset(w->pid, 0, sizeof(w->pid));
	memset(w->pfn, 0, sizeof(w->pfn));
	memset(&w->xpred, 0, sizeof(w->xpred));
}

static int ensure_zbuf(struct ps_pgs_writer *w, size_t raw_len, struct ps_error *err)
{
	size_t need = ZSTD_compressBound(raw_len);

	if (need <= w->zcap)
		return 0;
	free(w->zbuf);
	w->zbuf = malloc(need);
	w->zcap = w->zbuf ? need : 0;
	return w->zbuf ? 0 : ps_err(err, "out of memory");
}

static long compress(struct ps_pgs_writer *w, const void *src, size_t len, struct ps_error *err)
{
	size_t z;

	if (ensure_zbuf(w, len, err) < 0)
		return -1;
	z = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, src, len);
	if (ZSTD_isError(z))
		return ps_err(err, "%s: zstd compression failed: %s", w->name, ZSTD_getErrorName(z));
	return (long)z;
}

struct ps_pgs_writer *ps_pgs_writer_open(FILE *f, const char *name, const struct ps_pgs_meta *m,
					 struct ps_error *err)
{
	struct ps_pgs_writer *w = calloc(1, sizeof(*w));
	size_t raw = 4 * PS_PGS_NR_COLS;

	if (!w) {
		ps_err(err, "out of memory");
		return NULL;
	}
	w->f = f;
	w->name = strdup(name ? name : "output");
	w->cctx = ZSTD_createCCtx();
	w->level = m->level ? m->level : 6;
	if (!w->name || !w->cctx)
		goto oom;
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, w->level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	for (int c = 0; c < PS_PGS_NR_COLS; c++) {
		w->col[c] = malloc((size_t)col_max[c] * PS_PGS_FRAME_EVENTS);
		if (!w->col[c])
			goto oom;
		raw += (size_t)col_max[c] * PS_PGS_FRAME_EVENTS;
	}
	w->raw = malloc(raw);
	if (!w->raw)
		goto oom;
	reset_state(w);

	memcpy(w->header, PS_PGS_MAGIC, PS_PGS_MAGIC_LEN);
	ps_le_put16(w->header + PS_PGS_H_VERSION, PS_PGS_VERSION);
	ps_le_put16(w->header + PS_PGS_H_HSIZE, PS_PGS_HEADER_SIZE);
	ps_le_put32(w->header + PS_PGS_H_PAGE_SIZE, m->page_size > 0 ? m->page_size : 4096);
	ps_le_put32(w->header + PS_PGS_H_PAGEBLOCK, (uint32_t)m->pageblock_order);
	ps_le_put32(w->header + PS_PGS_H_NR_CPUS, m->nr_cpus > 0 ? m->nr_cpus : 0);
	ps_le_put64(w->header + PS_PGS_H_CREATED, (uint64_t)time(NULL));
	ps_le_put32(w->header + PS_PGS_H_FLAGS, m->flags);
	snprintf((char *)w->header + PS_PGS_H_TOOL, 28, "%s", PAGESIM_VERSION);
	snprintf((char *)w->header + PS_PGS_H_RELEASE, 128, "%s", m->kernel_release ? m->kernel_release : "");
	snprintf((char *)w->header + PS_PGS_H_SOURCE, 64, "%s", m->source ? m->source : "");
	memcpy(w->written, w->header, sizeof(w->header));
	if (wr(w, w->header, sizeof(w->header), err) < 0) {
		ps_pgs_writer_free(w);
		return NULL;
	}
	return w;
oom:
	ps_err(err, "out of memory");
	ps_pgs_writer_free(w);
	return NULL;
}

int ps_pgs_write_blob(struct ps_pgs_writer *w, const char *name, const void *data, size_t len,
		      struct ps_error *err)
{
	size_t nlen = strlen(name);
	uint8_t pre[2 + 1024 + 8];
	long z;

	if (nlen == 0 || nlen > 1024)
		return ps_err(err, "%s: blob name '%s' is empty or too long", w->name, name);
	ps_le_put16(pre, nlen);
	memcpy(pre + 2, name, nlen);
	ps_le_put64(pre + 2 + nlen, len);
	z = compress(w, data, len, err);
	if (z < 0)
		return -1;
	return section(w, PS_PGS_BLOB, pre, 2 + nlen + 8, w->zbuf, z, err);
}

static int write_dir_rec(struct ps_pgs_writer *w, const char *prefix, const char *dir, const char *rel,
			 struct ps_error *err)
{
	char path[4096], sub[2048];
	struct dirent **list;
	int n, stored = 0;

	snprintf(path, sizeof(path), "%s%s%s", dir, rel[0] ? "/" : "", rel);
	n = scandir(path, &list, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		struct dirent *d = list[i];
		struct stat st;
		char file[4096], name[4096];

		if (stored < 0 || d->d_name[0] == '.') {
			free(d);
			continue;
		}
		snprintf(sub, sizeof(sub), "%s%s%s", rel, rel[0] ? "/" : "", d->d_name);
		snprintf(file, sizeof(file), "%s/%s", dir, sub);
		if (lstat(file, &st) < 0) {
			free(d);
			continue;
		}
		/* a link to a file is read as the sysroot reader reads it; links to directories are not walked */
		if (S_ISLNK(st.st_mode) && (stat(file, &st) < 0 || !S_ISREG(st.st_mode))) {
			free(d);
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			int r = write_dir_rec(w, prefix, dir, sub, err);

			stored = r < 0 ? -1 : stored + r;
		} else if (S_ISREG(st.st_mode)) {
			size_t len;
			char *text = ps_read_file(file, &len, NULL);

			if (text) {
				snprintf(name, sizeof(name), "%s/%s", prefix, sub);
				stored = ps_pgs_write_blob(w, name, text, len, err) < 0 ? -1 : stored + 1;
				free(text);
			}
		}
		free(d);
	}
	free(list);
	return stored;
}

int ps_pgs_write_dir(struct ps_pgs_writer *w, const char *prefix, const char *dir, struct ps_error *err)
{
	return write_dir_rec(w, prefix, dir, "", err);
}

int ps_pgs_flush(struct ps_pgs_writer *w, struct ps_error *err)
{
	uint8_t pre[8], *p = w->raw;
	long z;

	if (!w->nr) {
		/* nothing buffered here, but the blobs written so far reach the file */
		if (fflush(w->f) != 0) {
			w->failed = 1;
			return ps_err(err, "cannot write '%s': %s (is the disk full?)", w->name, strerror(errno));
		}
		return 0;
	}
	for (int c = 0; c < PS_PGS_NR_COLS; c++) {
		ps_le_put32(p, w->col_len[c]);
		p += 4;
	}
	for (int c = 0; c < PS_PGS_NR_COLS; c++) {
		memcpy(p, w->col[c], w->col_len[c]);
		p += w->col_len[c];
	}
	z = compress(w, w->raw, p - w->raw, err);
	if (z < 0)
		return -1;
	ps_le_put32(pre, w->nr);
	ps_le_put32(pre + 4, p - w->raw);
	if (section(w, PS_PGS_EVTS, pre, sizeof(pre), w->zbuf, z, err) < 0)
		return -1;
	w->event_bytes += PS_PGS_SECTION_HEADER + sizeof(pre) + z;
	if (fflush(w->f) != 0) {
		w->failed = 1;
		return ps_err(err, "cannot write '%s': %s (is the disk full?)", w->name, strerror(errno));
	}
	w->frames++;
	w->nr = 0;
	memset(w->col_len, 0, sizeof(w->col_len));
	reset_state(w);
	return 0;
}

int ps_pgs_write_event(struct ps_pgs_writer *w, const struct ps_event *ev, struct ps_error *err)
{
	uint8_t c, aux, *p;
	int cpu = ev->cpu, ext;
	int mt = ev->migratetype;
	int default_xf = ev->alloc_order == 0 && ev->fallback_order == 0 && ev->alloc_migratetype == PS_MT_UNKNOWN &&
			 ev->fallback_migratetype == PS_MT_UNKNOWN && ev->change_ownership == 0;
	int kmem = ps_event_is_kmem(ev->type), gfp_col;

	if (ev->type >= PS_EV_NR)
		return ps_err(err, "%s: event type %d is not one pagesim knows", w->name, ev->type);
	c = kmem ? ev->type : PS_PGS_C_XTYPE;
	gfp_col = kmem ? ev->type == PS_EV_ALLOC : ps_pgs_x_has_gfp(ev->type);
	ext = mt < -1 || mt > 14 || ev->percpu_refill > 1 || ev->flags > 7 ||
	      (ev->type != PS_EV_EXTFRAG && !default_xf) || (!gfp_col && ev->gfp);
	aux = (uint8_t)(mt + 1) | ev->percpu_refill << 4 | ev->flags << 5;
	if (ext)
		c |= PS_PGS_C_EXT;
	if (cpu != w->prev_cpu) {
		c |= PS_PGS_C_CPU;
		p = w->col[PS_PGS_COL_CPU] + w->col_len[PS_PGS_COL_CPU];
		w->col_len[PS_PGS_COL_CPU] = put_varint(p, cpu) - w->col[PS_PGS_COL_CPU];
		w->prev_cpu = cpu;
	}
	if (cpu >= PS_PGS_MAX_CPU_STATE || ev->pid != w->pid[cpu]) {
		c |= PS_PGS_C_PID;
		p = w->col[PS_PGS_COL_PID] + w->col_len[PS_PGS_COL_PID];
		w->col_len[PS_PGS_COL_PID] = put_varint(p, ps_zigzag(ev->pid)) - w->col[PS_PGS_COL_PID];
		if (cpu < PS_PGS_MAX_CPU_STATE)
			w->pid[cpu] = ev->pid;
	}
	if (ev->pfn == PS_PFN_NONE) {
		c |= PS_PGS_C_NOPFN;
	} else {
		uint64_t *prev = cpu < PS_PGS_MAX_CPU_STATE ? &w->pfn[cpu] : &w->pfn[0];

		p = w->col[PS_PGS_COL_PFN] + w->col_len[PS_PGS_COL_PFN];
		w->col_len[PS_PGS_COL_PFN] = put_varint(p, ps_zigzag((int64_t)(ev->pfn - *prev))) - w->col[PS_PGS_COL_PFN];
		*prev = ev->pfn;
	}
	p = w->col[PS_PGS_COL_TS] + w->col_len[PS_PGS_COL_TS];
	w->col_len[PS_PGS_COL_TS] = put_varint(p, ps_zigzag((int64_t)(ev->ts_ns - w->prev_ts))) - w->col[PS_PGS_COL_TS];
	w->prev_ts = ev->ts_ns;
	w->col[PS_PGS_COL_CTRL][w->col_len[PS_PGS_COL_CTRL]++] = c;
	w->col[PS_PGS_COL_ORDER][w->col_len[PS_PGS_COL_ORDER]++] = ev->order;
	if (ext) {
		p = w->col[PS_PGS_COL_EXT] + w->col_len[PS_PGS_COL_EXT];
		p[0] = ev->flags;
		p[1] = ev->percpu_refill;
		p[2] = (uint8_t)ev->migratetype;
		p[3] = ev->alloc_order;
		p[4] = ev->fallback_order;
		p[5] = (uint8_t)ev->alloc_migratetype;
		p[6] = (uint8_t)ev->fallback_migratetype;
		p[7] = ev->change_ownership;
		w->col_len[PS_PGS_COL_EXT] += 8;
	} else {
		w->col[PS_PGS_COL_AUX][w->col_len[PS_PGS_COL_AUX]++] = aux;
		if (ev->type == PS_EV_EXTFRAG) {
			p = w->col[PS_PGS_COL_XF] + w->col_len[PS_PGS_COL_XF];
			p[0] = ev->alloc_order;
			p[1] = ev->fallback_order;
			p[2] = (uint8_t)ev->alloc_migratetype;
			p[3] = (uint8_t)ev->fallback_migratetype;
			p[4] = ev->change_ownership;
			w->col_len[PS_PGS_COL_XF] += 5;
		}
	}
	if (ext || gfp_col) {
		ps_le_put32(w->col[PS_PGS_COL_GFP] + w->col_len[PS_PGS_COL_GFP], ev->gfp);
		w->col_len[PS_PGS_COL_GFP] += 4;
	}
	if (!kmem)
		ps_pgs_put_x(w->col, w->col_len, ev, &w->xpred);
	w->events++;
	if (w->observe)
		w->observe(w->observe_ctx, ev);
	if (++w->nr == PS_PGS_FRAME_EVENTS)
		return ps_pgs_flush(w, err);
	return 0;
}

void ps_pgs_set_observer(struct ps_pgs_writer *w, void (*fn)(void *ctx, const struct ps_event *ev), void *ctx)
{
	w->observe = fn;
	w->observe_ctx = ctx;
}

void ps_pgs_note_comm(struct ps_pgs_writer *w, int32_t pid, const char *comm)
{
	size_t i;

	if (!comm || !comm[0] || pid < 0)
		return;
	if (w->comm_nr * 2 >= w->comm_cap) {
		size_t cap = w->comm_cap ? w->comm_cap * 2 : 1024;
		struct comm_ent *n = calloc(cap, sizeof(*n));

		if (!n)
			return;
		for (size_t j = 0; j < w->comm_cap; j++) {
			if (!w->comms[j].comm[0])
				continue;
			i = (uint32_t)w->comms[j].pid * 2654435761u % cap;
			while (n[i].comm[0])
				i = (i + 1) % cap;
			n[i] = w->comms[j];
		}
		free(w->comms);
		w->comms = n;
		w->comm_cap = cap;
	}
	i = (uint32_t)pid * 2654435761u % w->comm_cap;
	while (w->comms[i].comm[0] && w->comms[i].pid != pid)
		i = (i + 1) % w->comm_cap;
	if (!w->comms[i].comm[0])
		w->comm_nr++;
	else if (!strncmp(w->comms[i].comm, comm, sizeof(w->comms[i].comm) - 1))
		return;
	w->comms[i].pid = pid;
	snprintf(w->comms[i].comm, sizeof(w->comms[i].comm), "%s", comm);
}

void ps_pgs_set_source_stats(struct ps_pgs_writer *w, const struct ps_reader_stats *s)
{
	w->src = *s;
	w->have_src = 1;
}

void ps_pgs_set_cpu_lost(struct ps_pgs_writer *w, int cpu, uint64_t overrun, uint64_t missed,
			 uint64_t markers, uint64_t unknown)
{
	if (cpu < 0 || cpu >= PS_READER_MAX_CPUS)
		return;
	if (cpu >= w->lost_cpus) {
		struct cpu_lost *n = realloc(w->lost, (cpu + 1) * sizeof(*n));

		if (!n)
			return;
		memset(n + w->lost_cpus, 0, (cpu + 1 - w->lost_cpus) * sizeof(*n));
		w->lost = n;
		w->lost_cpus = cpu + 1;
	}
	w->lost[cpu] = (struct cpu_lost){ overrun, missed, markers, unknown, 1 };
}

void ps_pgs_set_pageblock_order(struct ps_pgs_writer *w, int order)
{
	ps_le_put32(w->header + PS_PGS_H_PAGEBLOCK, (uint32_t)order);
}

void ps_pgs_set_nr_cpus(struct ps_pgs_writer *w, int nr_cpus)
{
	ps_le_put32(w->header + PS_PGS_H_NR_CPUS, nr_cpus);
}

uint64_t ps_pgs_events(const struct ps_pgs_writer *w)
{
	return w->events;
}

uint64_t ps_pgs_bytes(const struct ps_pgs_writer *w)
{
	return w->bytes;
}

uint64_t ps_pgs_event_bytes(const struct ps_pgs_writer *w)
{
	return w->event_bytes;
}

/* The STAT section: "key value" lines (docs/pagesim-format.md). */
static char *stat_text(struct ps_pgs_writer *w, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *m = open_memstream(&buf, &sz);

	if (!m)
		return NULL;
	if (w->have_src) {
		const struct ps_reader_stats *s = &w->src;

		fprintf(m, "lost_events %llu\nlost_markers %llu\nlost_unknown %llu\nlost_overwritten %llu\n",
			(unsigned long long)s->lost_events, (unsigned long long)s->lost_markers,
			(unsigned long long)s->lost_unknown, (unsigned long long)s->lost_overwritten);
		fprintf(m, "pfn_from_page %llu\n", (unsigned long long)s->pfn_from_page);
		if (s->truncated) {
			fputs("truncated ", m);
			for (const char *q = s->truncated_msg; *q; q++)
				fputc(*q == '\n' ? ' ' : *q, m);
			fputc('\n', m);
		}
		for (int i = 0; i < PS_SKIP_NR; i++) {
			if (!s->skipped[i])
				continue;
			fprintf(m, "skipped.%d %llu\n", i, (unsigned long long)s->skipped[i]);
			fprintf(m, "skip_first.%d ", i);
			for (const char *q = s->skip_first[i]; *q; q++)
				fputc(*q == '\n' ? ' ' : *q, m);
			fputc('\n', m);
		}
	}
	for (int c = 0; c < w->lost_cpus; c++)
		if (w->lost[c].set)
			fprintf(m, "cpu%d.lost %llu %llu %llu %llu\n", c, (unsigned long long)w->lost[c].overrun,
				(unsigned long long)w->lost[c].missed, (unsigned long long)w->lost[c].markers,
				(unsigned long long)w->lost[c].unknown);
	fclose(m);
	*len = sz;
	return buf;
}

static char *comm_text(struct ps_pgs_writer *w, size_t *len)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *m = open_memstream(&buf, &sz);

	if (!m)
		return NULL;
	for (size_t i = 0; i < w->comm_cap; i++)
		if (w->comms[i].comm[0])
			fprintf(m, "%d %s\n", w->comms[i].pid, w->comms[i].comm);
	fclose(m);
	*len = sz;
	return buf;
}

int ps_pgs_writer_finish(struct ps_pgs_writer *w, struct ps_error *err)
{
	uint8_t end[16];
	size_t len;
	char *text;
	int ret;

	if (w->failed)
		return ps_err(err, "cannot write '%s': an earlier write failed", w->name);
	if (ps_pgs_flush(w, err) < 0)
		return -1;
	if (w->comm_nr) {
		text = comm_text(w, &len);
		if (!text)
			return ps_err(err, "out of memory");
		ret = ps_pgs_write_blob(w, "comm", text, len, err);
		free(text);
		if (ret < 0)
			return -1;
	}
	text = stat_text(w, &len);
	if (!text)
		return ps_err(err, "out of memory");
	ret = section(w, PS_PGS_STAT, text, len, NULL, 0, err);
	free(text);
	if (ret < 0)
		return -1;
	ps_le_put64(end, w->events);
	ps_le_put64(end + 8, w->frames);
	if (section(w, PS_PGS_END, end, sizeof(end), NULL, 0, err) < 0)
		return -1;
	if (fflush(w->f) != 0)
		return ps_err(err, "cannot write '%s': %s (is the disk full?)", w->name, strerror(errno));
	/* values learnt while writing: the header is patched in place (needs a seekable output) */
	if (memcmp(w->written, w->header, sizeof(w->header)) &&
	    pwrite(fileno(w->f), w->header, sizeof(w->header), 0) != sizeof(w->header))
		return ps_err(err, "cannot update the header of '%s': %s (write to a file, not a pipe)", w->name,
			      strerror(errno));
	return 0;
}

void ps_pgs_writer_free(struct ps_pgs_writer *w)
{
	if (!w)
		return;
	for (int c = 0; c < PS_PGS_NR_COLS; c++)
		free(w->col[c]);
	free(w->raw);
	free(w->zbuf);
	free(w->comms);
	free(w->lost);
	ZSTD_freeCCtx(w->cctx);
	free(w->name);
	free(w);
}
