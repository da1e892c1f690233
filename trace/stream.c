// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream.c - buffered reading with transparent zstd decompression.
 * Input is read in 1 MiB chunks; decompressed data lands in a 1 MiB window
 * from which lines and blocks are served without further copies.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zstd.h>

#include "trace/stream.h"

#define IN_SIZE (1u << 20)
#define OUT_MIN (1u << 20)

struct ps_stream {
	int fd;
	char *path;
	int zstd;
	int eof_in;		/* no more input bytes */
	size_t last_ret;	/* last ZSTD_decompressStream() hint; 0 = frame complete */
	uint64_t in_consumed;	/* bytes of the file consumed */
	ZSTD_DStream *zds;
	uint8_t *in;
	size_t in_pos, in_len;
	uint8_t *out;		/* decompressed (or raw) window */
	size_t out_cap, out_pos, out_len;
};

static long raw_read(struct ps_stream *s, void *buf, size_t n, struct ps_error *err)
{
	ssize_t r;

	do {
		r = read(s->fd, buf, n);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return ps_err(err, "%s: read failed: %s", s->path, strerror(errno));
	return r;
}

static int fill_in(struct ps_stream *s, struct ps_error *err)
{
	long r;

	if (s->in_pos < s->in_len || s->eof_in)
		return 0;
	r = raw_read(s, s->in, IN_SIZE, err);
	if (r < 0)
		return -1;
	s->in_pos = 0;
	s->in_len = r;
	if (r == 0)
		s->eof_in = 1;
	return 0;
}

/* Appends more decompressed bytes to the window; returns bytes added, 0 at end, -1 error. */
static long fill_out(struct ps_stream *s, struct ps_error *err)
{
	if (s->out_pos > 0 && s->out_pos == s->out_len) {
		s->out_pos = s->out_len = 0;
	} else if (s->out_pos > s->out_cap / 2) {
		memmove(s->out, s->out + s->out_pos, s->out_len - s->out_pos);
		s->out_len -= s->out_pos;
		s->out_pos = 0;
	}
	if (s->out_len == s->out_cap) {
		size_t cap = s->out_cap * 2;
		uint8_t *p = realloc(s->out, cap);

		if (!p)
			return ps_err(err, "%s: out of memory (line longer than %zu bytes?)", s->path, s->out_cap);
		s->out = p;
		s->out_cap = cap;
	}
	if (!s->zstd) {
		long r = raw_read(s, s->out + s->out_len, s->out_cap - s->out_len, err);

		if (r > 0) {
			s->out_len += r;
			s->in_consumed += r;
		}
		return r;
	}
	for (;;) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer out = { s->out, s->out_cap, s->out_len };
		size_t ret;

		if (fill_in(s, err) < 0)
			return -1;
		if (s->in_pos == s->in_len) {
			if (s->last_ret != 0)
				return ps_err(err, "%s: zstd stream truncated at byte %llu (inside a frame): the file was cut short; the data before it was read",
					      s->path, (unsigned long long)s->in_consumed);
			return 0;
		}
		in.src = s->in;
		in.size = s->in_len;
		in.pos = s->in_pos;
		ret = ZSTD_decompressStream(s->zds, &out, &in);
		s->in_consumed += in.pos - s->in_pos;
		s->in_pos = in.pos;
		if (ZSTD_isError(ret))
			return ps_err(err, "%s: corrupt zstd data near byte %llu: %s", s->path,
				      (unsigned long long)s->in_consumed, ZSTD_getErrorName(ret));
		s->last_ret = ret;
		if (out.pos > s->out_len) {
			long added = out.pos - s->out_len;

			s->out_len = out.pos;
			return added;
		}
	}
}

struct ps_stream *ps_stream_open(const char *path, struct ps_error *err)
{
	struct ps_stream *s = calloc(1, sizeof(*s));
	uint8_t magic[4];
	size_t have = 0;

	if (!s) {
		ps_err(err, "out of memory");
		return NULL;
	}
	s->path = strdup(path);
	s->in = malloc(IN_SIZE);
	s->out_cap = OUT_MIN;
	s->out = malloc(s->out_cap);
	if (!s->path || !s->in || !s->out) {
		ps_err(err, "out of memory");
		goto fail;
	}
	if (!strcmp(path, "-")) {
		s->fd = 0;
	} else {
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			ps_err(err, "cannot open '%s': %s", path, strerror(errno));
			goto fail_nofd;
		}
	}
	/* Read the head into the input buffer to decide the format. */
	while (have < sizeof(magic)) {
		long r = raw_read(s, s->in + have, IN_SIZE - have, err);

		if (r < 0)
			goto fail;
		if (r == 0) {
			s->eof_in = 1;
			break;
		}
		have += r;
	}
	s->in_len = have;
	if (have >= 4 && s->in[0] == 0x28 && s->in[1] == 0xb5 && s->in[2] == 0x2f && s->in[3] == 0xfd) {
		s->zstd = 1;
		s->zds = ZSTD_createDStream();
		if (!s->zds) {
			ps_err(err, "out of memory");
			goto fail;
		}
		ZSTD_initDStream(s->zds);
	} else {
		memcpy(s->out, s->in, have);
		s->out_len = have;
		s->in_consumed = have;
		s->in_len = 0;
	}
	return s;
fail:
	if (s->fd > 0)
		close(s->fd);
fail_nofd:
	free(s->path);
	free(s->in);
	free(s->out);
	free(s);
	return NULL;
}

void ps_stream_close(struct ps_stream *s)
{
	if (!s)
		return;
	if (s->fd > 0)
		close(s->fd);
	if (s->zds)
		ZSTD_freeDStream(s->zds);
	free(s->path);
	free(s->in);
	free(s->out);
	free(s);
}

int ps_stream_is_zstd(const struct ps_stream *s)
{
	return s->zstd;
}

const char *ps_stream_path(const struct ps_stream *s)
{
	return s->path;
}

uint64_t ps_stream_file_offset(const struct ps_stream *s)
{
	return s->in_consumed;
}

const uint8_t *ps_stream_peek(struct ps_stream *s, size_t n, size_t *got, struct ps_error *err)
{
	while (s->out_len - s->out_pos < n) {
		long r = fill_out(s, err);

		if (r < 0)
			return NULL;
		if (r == 0)
			break;
	}
	*got = s->out_len - s->out_pos < n ? s->out_len - s->out_pos : n;
	return s->out + s->out_pos;
}

long ps_stream_read(struct ps_stream *s, void *buf, size_t n, struct ps_error *err)
{
	size_t done = 0;

	while (done < n) {
		size_t avail = s->out_len - s->out_pos;

		if (!avail) {
			long r = fill_out(s, err);

			if (r < 0)
				return -1;
			if (r == 0)
				break;
			continue;
		}
		if (avail > n - done)
			avail = n - done;
		memcpy((uint8_t *)buf + done, s->out + s->out_pos, avail);
		s->out_pos += avail;
		done += avail;
	}
	return done;
}

char *ps_stream_getline(struct ps_stream *s, long *len, struct ps_error *err)
{
	size_t scanned = 0;

	for (;;) {
		uint8_t *start = s->out + s->out_pos;
		size_t avail = s->out_len - s->out_pos;
		uint8_t *nl = avail > scanned ? memchr(start + scanned, '\n', avail - scanned) : NULL;
		long r;

		if (nl) {
			*nl = 0;
			*len = nl - start;
			s->out_pos += *len + 1;
			return (char *)start;
		}
		scanned = avail;
		r = fill_out(s, err);
		if (r < 0) {
			*len = -1;
			return NULL;
		}
		if (r == 0) {
			if (!avail) {
				*len = 0;
				return NULL;
			}
			/* Last line without '\n': terminate it in place. */
			if (s->out_len == s->out_cap) {
				uint8_t *p = realloc(s->out, s->out_cap + 1);

				if (!p) {
					*len = -1;
					ps_err(err, "out of memory");
					return NULL;
				}
				s->out = p;
				s->out_cap++;
			}
			start = s->out + s->out_pos;
			start[avail] = 0;
			*len = avail;
			s->out_pos = s->out_len;
			return (char *)start;
		}
		/* fill_out may have moved the window: rescan from the same offset. */
	}
}

int ps_stream_fd(const struct ps_stream *s)
{
	return s->fd;
}
