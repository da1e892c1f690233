// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tdat_options.c - a trace.dat's header, options and sections: where the
 * per-CPU data of the buffer read lies, its page size, compression and
 * clock (see tdat_data.h and the layout notes at the top of tdat_data.c).
 * Anything unusual is refused (left to libtracecmd) or, if it is damage,
 * an error.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

#include "trace/tdat-local.h"


enum {
	OPT_DONE = 0,
	OPT_DATE = 1,
	OPT_BUFFER = 3,
	OPT_OFFSET = 7,
	OPT_TIME_SHIFT = 12,
	OPT_TSC2NSEC = 14,
	OPT_BUFFER_TEXT = 22,
};

#define SEC_FL_COMPRESS		1

/* Damage in the data layout: an error, not a fall-back (libtracecmd may crash on it). */
int ps_tdat_damage(struct layout *l, const char *why, int cpu, uint64_t off)
{
	if (!l->unsupported) {
		snprintf(l->damage, sizeof(l->damage), "cpu %d: %s (file offset %llu)", cpu, why,
			 (unsigned long long)off);
		l->unsupported = 1;
		l->why = l->damage;
		l->damaged = 1;
	}
	return -1;
}

int ps_tdat_refuse(struct layout *l, const char *why)
{
	if (!l->unsupported) {
		l->unsupported = 1;
		l->why = why;
	}
	return -1;
}

/* A NUL-terminated string at @p within @end, or NULL. */
static const char *str_at(const uint8_t *p, const uint8_t *end)
{
	const uint8_t *z = memchr(p, 0, end - p);

	return z ? (const char *)p : NULL;
}

static long long opt_number(const uint8_t *p, uint32_t size)
{
	char tmp[64];

	if (size > sizeof(tmp) - 1)
		size = sizeof(tmp) - 1;
	memcpy(tmp, p, size);
	tmp[size] = 0;
	return strtoll(tmp, NULL, 0);
}

static int set_regions(struct layout *l, int top, struct region *reg, int nreg, uint64_t sec_off)
{
	if (top) {
		free(l->top_reg);
		l->top_reg = reg;
		l->top_nreg = nreg;
		l->top_sec_off = sec_off;
		l->top_found = 1;
	} else {
		free(l->reg);
		l->reg = reg;
		l->nreg = nreg;
		l->sec_off = sec_off;
		l->found = 1;
	}
	return 0;
}

/* v7 BUFFER option: offset, name, clock, page size, CPU count, per CPU [cpu][offset][size]. */
static int opt_buffer_v7(struct layout *l, const uint8_t *p, uint32_t size)
{
	const uint8_t *end = p + size, *q;
	const char *name, *clock;
	uint64_t sec_off;
	uint32_t page, cpus;
	struct region *reg;
	int nreg = 0, top, want;

	if (size < 8)
		return ps_tdat_refuse(l, "short BUFFER option");
	sec_off = le64(p);
	q = p + 8;
	name = str_at(q, end);
	if (!name)
		return ps_tdat_refuse(l, "bad BUFFER option");
	q += strlen(name) + 1;
	clock = str_at(q, end);
	if (!clock)
		return ps_tdat_refuse(l, "bad BUFFER option");
	q += strlen(clock) + 1;
	top = !*name;
	want = !strcmp(name, l->want);
	if (!top && !want)
		return 0;
	if (end - q < 8)
		return ps_tdat_refuse(l, "short BUFFER option");
	page = le32(q);
	cpus = le32(q + 4);
	q += 8;
	if ((uint64_t)(end - q) < (uint64_t)cpus * 20)
		return ps_tdat_refuse(l, "short BUFFER option");
	if (want && !top)
		l->buf_page = page;
	reg = calloc(PS_READER_MAX_CPUS, sizeof(*reg));
	if (!reg)
		return ps_tdat_refuse(l, "out of memory");
	for (uint32_t i = 0; i < cpus; i++, q += 20) {
		uint32_t cpu = le32(q);

		if (cpu >= PS_READER_MAX_CPUS || reg[cpu].used) {
			free(reg);
			return ps_tdat_refuse(l, "BUFFER option with an odd CPU list");
		}
		reg[cpu].used = 1;
		reg[cpu].off = le64(q + 4);
		reg[cpu].size = le64(q + 12);
		if (cpu + 1 > (uint32_t)nreg)
			nreg = cpu + 1;
	}
	return set_regions(l, !want, reg, nreg, sec_off);
}

/* One option; v6 and v7 share the numbering.  @v6_buf: a v6 BUFFER option offset for the instance. */
static int option(struct layout *l, uint16_t id, const uint8_t *p, uint32_t size, uint64_t *v6_buf)
{
	switch (id) {
	case OPT_DATE:
		/* microseconds; libtracecmd's sum in long long wraps the same way in practice */
		l->ts_offset += (uint64_t)opt_number(p, size) * 1000;
		break;
	case OPT_OFFSET:
		l->ts_offset += (uint64_t)opt_number(p, size);
		break;
	case OPT_TIME_SHIFT:
		if (size >= 16)
			return ps_tdat_refuse(l, "guest trace (TIME_SHIFT option)");
		break;
	case OPT_TSC2NSEC:
		if (size >= 16) {
			l->mult = le32(p);
			l->shift = le32(p + 4);
			if (l->shift > 32)
				return ps_tdat_refuse(l, "TSC2NSEC shift out of range");
		}
		break;
	case OPT_BUFFER:
		if (l->version >= 7)
			return opt_buffer_v7(l, p, size);
		if (v6_buf && size > 8 && str_at(p + 8, p + size) && !strcmp((const char *)p + 8, l->want))
			*v6_buf = le64(p);
		break;
	case OPT_BUFFER_TEXT:
		if (size > 8 && str_at(p + 8, p + size) && !strcmp((const char *)p + 8, l->want))
			return ps_tdat_refuse(l, "latency buffer");
		break;
	}
	return 0;
}

/* Reads and, when compressed, decompresses an options section's body. */
static uint8_t *section_body(struct layout *l, struct ps_tdat_data *d, uint64_t off, uint32_t *len)
{
	uint8_t hdr[16], *body, *zbody;
	uint64_t size;
	uint32_t zsize, usize;
	size_t ret;

	if (off + 16 > l->file_size || pread_full(d->fd, hdr, 16, off) < 0) {
		ps_tdat_refuse(l, "options section out of the file");
		return NULL;
	}
	if (le32(hdr) & 0xffff) {	/* the section id of an options section is DONE (0) */
		ps_tdat_refuse(l, "options section with an odd id");
		return NULL;
	}
	size = le64(hdr + 8);
	if (!((le32(hdr) >> 16) & SEC_FL_COMPRESS)) {
		if (size > MAX_CHUNK || off + 16 + size > l->file_size) {
			ps_tdat_refuse(l, "options section too large");
			return NULL;
		}
		body = malloc(size + 1);
		if (!body || pread_full(d->fd, body, size, off + 16) < 0) {
			free(body);
			ps_tdat_refuse(l, "options section unreadable");
			return NULL;
		}
		*len = size;
		return body;
	}
	if (!l->zstd || off + 24 > l->file_size || pread_full(d->fd, hdr, 8, off + 16) < 0) {
		ps_tdat_refuse(l, "compressed options section");
		return NULL;
	}
	zsize = le32(hdr);
	usize = le32(hdr + 4);
	if (usize > MAX_CHUNK || zsize > MAX_CHUNK || off + 24 + zsize > l->file_size) {
		ps_tdat_refuse(l, "compressed options section too large");
		return NULL;
	}
	zbody = malloc(zsize + 1);
	body = malloc(usize + 1);
	if (!zbody || !body || pread_full(d->fd, zbody, zsize, off + 24) < 0) {
		free(zbody);
		free(body);
		ps_tdat_refuse(l, "compressed options section unreadable");
		return NULL;
	}
	ret = ZSTD_decompressDCtx(d->z, body, usize, zbody, zsize);
	free(zbody);
	if (ZSTD_isError(ret) || ret != usize) {
		free(body);
		ps_tdat_refuse(l, "compressed options section damaged");
		return NULL;
	}
	*len = usize;
	return body;
}

static int options_v7(struct layout *l, struct ps_tdat_data *d)
{
	uint64_t off = l->options_start, total = 0;

	for (int n = 0; off; n++) {
		uint32_t len, pos = 0;
		uint8_t *body;
		uint64_t next = 0;
		int done = 0;

		if (n == MAX_SECTIONS)
			return ps_tdat_refuse(l, "options sections loop");
		body = section_body(l, d, off, &len);
		if (!body)
			return -1;
		/* a chain that loops back over large sections: bounded work, not MAX_SECTIONS of them */
		total += len;
		if (total > MAX_CHUNK) {
			free(body);
			return ps_tdat_refuse(l, "options sections too large");
		}
		while (pos + 6 <= len) {
			uint16_t id = le32(body + pos) & 0xffff;
			uint32_t size = le32(body + pos + 2);

			pos += 6;
			if (size > len - pos) {
				free(body);
				return ps_tdat_refuse(l, "option out of its section");
			}
			if (id == OPT_DONE) {
				next = size >= 8 ? le64(body + pos) : 0;
				done = 1;
				break;
			}
			if (option(l, id, body + pos, size, NULL) < 0) {
				free(body);
				return -1;
			}
			pos += size;
		}
		free(body);
		if (!done)
			return ps_tdat_refuse(l, "options section without DONE");
		off = next;
	}
	return 0;
}

/* v6 options from @off up to the two-byte DONE; *end is set past it. */
static int options_v6(struct layout *l, struct ps_tdat_data *d, uint64_t off, uint64_t *v6_buf,
		      uint64_t *end)
{
	for (int n = 0;; n++) {
		uint8_t hdr[6], *body;
		uint32_t size;
		int ret;

		if (n == 100000 || off + 2 > l->file_size || pread_full(d->fd, hdr, 2, off) < 0)
			return ps_tdat_refuse(l, "v6 options out of the file");
		if (!(hdr[0] | hdr[1])) {
			*end = off + 2;
			return 0;
		}
		if (off + 6 > l->file_size || pread_full(d->fd, hdr, 6, off) < 0)
			return ps_tdat_refuse(l, "v6 options out of the file");
		size = le32(hdr + 2);
		if (size > MAX_CHUNK || off + 6 + size > l->file_size)
			return ps_tdat_refuse(l, "v6 option out of the file");
		body = malloc(size + 1);
		if (!body || pread_full(d->fd, body, size, off + 6) < 0) {
			free(body);
			return ps_tdat_refuse(l, "v6 option unreadable");
		}
		ret = option(l, hdr[0] | hdr[1] << 8, body, size, v6_buf);
		free(body);
		if (ret < 0)
			return -1;
		off += 6 + size;
	}
}

/* v6: "flyrecord" at @off, then @ncpu x [offset][size]. */
static int flyrecord_v6(struct layout *l, struct ps_tdat_data *d, uint64_t off, int ncpu)
{
	uint8_t mark[10], e[16];
	struct region *reg;

	if (off + 10 > l->file_size || pread_full(d->fd, mark, 10, off) < 0 ||
	    memcmp(mark, "flyrecord", 10))
		return ps_tdat_refuse(l, "v6 buffer without flyrecord data");
	reg = calloc(PS_READER_MAX_CPUS, sizeof(*reg));
	if (!reg)
		return ps_tdat_refuse(l, "out of memory");
	for (int c = 0; c < ncpu; c++) {
		if (pread_full(d->fd, e, 16, off + 10 + 16 * c) < 0) {
			free(reg);
			return ps_tdat_refuse(l, "v6 flyrecord table out of the file");
		}
		reg[c].used = 1;
		reg[c].off = le64(e);
		reg[c].size = le64(e + 8);
	}
	return set_regions(l, 0, reg, ncpu, 0);
}

static int layout_v6(struct layout *l, struct ps_tdat_data *d, uint64_t off, int ncpu)
{
	uint64_t buf = 0, end;
	uint8_t mark[10];

	if (!off)
		return ps_tdat_refuse(l, "v6 file without options");
	if (options_v6(l, d, off, *l->want ? &buf : NULL, &end) < 0)
		return -1;
	if (!*l->want)
		return flyrecord_v6(l, d, end, ncpu);
	if (!buf)
		return ps_tdat_refuse(l, "v6 instance not found");
	if (buf + 10 > l->file_size || pread_full(d->fd, mark, 10, buf) < 0)
		return ps_tdat_refuse(l, "v6 instance out of the file");
	if (!memcmp(mark, "options  ", 10)) {
		if (options_v6(l, d, buf + 10, NULL, &end) < 0)
			return -1;
		buf = end;
	}
	return flyrecord_v6(l, d, buf, ncpu);
}

int ps_tdat_header(struct layout *l, struct ps_tdat_data *d)
{
	uint8_t h[256];
	const uint8_t *p, *end;
	const char *ver, *zname, *zver;
	struct stat stb;
	size_t got;

	if (fstat(d->fd, &stb) < 0)
		return ps_tdat_refuse(l, "fstat failed");
	l->file_size = stb.st_size;
	got = l->file_size < sizeof(h) ? l->file_size : sizeof(h);
	if (got < 20 || pread_full(d->fd, h, got, 0) < 0)
		return ps_tdat_refuse(l, "short header");
	end = h + got;
	ver = str_at(h + 10, end);
	if (!ver)
		return ps_tdat_refuse(l, "bad header");
	l->version = atoi(ver);
	p = h + 10 + strlen(ver) + 1;
	if (end - p < 6)
		return ps_tdat_refuse(l, "short header");
	if (p[0] != 0)
		return ps_tdat_refuse(l, "big-endian file");
	l->long_size = p[1];
	l->page_size = le32(p + 2);
	p += 6;
	if (l->version == 6)
		return 0;
	if (l->version != 7)
		return ps_tdat_refuse(l, "file version other than 6 and 7");
	zname = str_at(p, end);
	if (!zname)
		return ps_tdat_refuse(l, "bad header");
	p += strlen(zname) + 1;
	zver = str_at(p, end);
	if (!zver)
		return ps_tdat_refuse(l, "bad header");
	p += strlen(zver) + 1;
	if (end - p < 8)
		return ps_tdat_refuse(l, "short header");
	l->options_start = le64(p);
	if (!strcmp(zname, "zstd"))
		l->zstd = 1;
	else if (*zname && strcmp(zname, "none"))
		return ps_tdat_refuse(l, "compression other than zstd");
	return 0;
}

/* Section flags of a v7 flyrecord section: compressed or not. */
int ps_tdat_section_compressed(struct layout *l, struct ps_tdat_data *d, uint64_t off, int *compressed)
{
	uint8_t hdr[16];

	if (off + 16 > l->file_size || pread_full(d->fd, hdr, 16, off) < 0)
		return ps_tdat_refuse(l, "flyrecord section out of the file");
	*compressed = (le32(hdr) >> 16) & SEC_FL_COMPRESS;
	if (*compressed && !l->zstd)
		return ps_tdat_refuse(l, "compressed data in a file without compression");
	return 0;
}

/*
 * Walks the chunk headers of a compressed CPU data: chunk count, total and
 * largest uncompressed size; all chunks must lie within the region.
 */
int ps_tdat_walk_chunks(struct layout *l, struct ps_tdat_data *d, const struct region *g, int cpu,
			uint32_t *count, uint64_t *total, uint32_t *largest)
{
	/* the size written for compressed data leaves out the chunk count */
	uint64_t pos = g->off + 4, end = g->off + 4 + g->size;
	uint8_t b[8];

	*total = 0;
	*largest = 0;
	if (end > l->file_size || pread_full(d->fd, b, 4, g->off) < 0)
		return ps_tdat_damage(l, "compressed CPU data out of the file", cpu, g->off);
	*count = le32(b);
	if (*count > g->size / 8)
		return ps_tdat_damage(l, "compressed CPU data with too many chunks", cpu, g->off);
	for (uint32_t i = 0; i < *count; i++) {
		uint32_t zsize, usize;

		if (pos + 8 > end || pread_full(d->fd, b, 8, pos) < 0)
			return ps_tdat_damage(l, "chunk header out of its CPU data", cpu, pos);
		zsize = le32(b);
		usize = le32(b + 4);
		if (usize > MAX_CHUNK || zsize > ZSTD_compressBound(MAX_CHUNK) || pos + 8 + zsize > end)
			return ps_tdat_damage(l, "chunk out of its CPU data", cpu, pos);
		*total += usize;
		if (usize > *largest)
			*largest = usize;
		pos += 8 + zsize;
	}
	return 0;
}


int ps_tdat_options(struct layout *l, struct ps_tdat_data *d, uint64_t v6_options, int ncpu)
{
	return l->version == 6 ? layout_v6(l, d, v6_options, ncpu) : options_v7(l, d);
}
