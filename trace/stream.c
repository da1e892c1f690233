// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stream.c - buffered reading with transparent decompression: zstd
 * (libzstd), gzip (zlib) and xz (liblzma), told apart by their magic bytes.
 * Input is read in 1 MiB chunks; decompressed data lands in a 1 MiB window
 * from which lines and blocks are served without further copies.
 *
 * Concatenated streams (several zstd frames, gzip members or xz streams)
 * read as one, as zstdcat, zcat and xzcat do.  An input that ends inside a
 * frame, member or stream is reported as truncated, with the compressed
 * byte offset where it stopped.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "trace/stream.h"

#define IN_SIZE (1u << 20)
#define OUT_MIN (1u << 20)
#define SNIFF 6			/* bytes that tell the compressions apart */
/*
 * The first read asks for no more than this: enough for the head that
 * decides the format, without faulting in and copying a whole input
 * buffer (a trace.dat is then read by libtracecmd, not through here).
 */
#define HEAD_READ (16u << 10)

enum comp { COMP_NONE, COMP_ZSTD, COMP_GZIP, COMP_XZ };

static const char *const comp_names[] = { NULL, "zstd", "gzip", "xz" };

struct ps_stream {
	int fd;
	char *path;
	enum comp comp;
	int eof_in;		/* no more input bytes */
	int inside;		/* inside a zstd frame or gzip member */
	int ended;		/* the xz decoder saw the end */
	uint64_t in_consumed;	/* bytes of the file consumed */
	ZSTD_DStream *zds;
	z_stream *gz;
	lzma_stream *xz;
	uint8_t *in;
	size_t in_pos, in_len;
	uint8_t *out;		/* decompressed (or raw) window */
	size_t out_cap, out_pos, out_len;
	struct ps_error failed;	/* an error after the bytes ps_stream_read() returned, "" if none */
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

/*
 * One step of each decoder: from s->in[in_pos..in_len) into the window
 * past out_len.  *used is set to the input bytes consumed; 0 on progress
 * (or none yet), 1 at a clean end of the input (xz), -1 on an error.
 */
static int decode_zstd(struct ps_stream *s, size_t *used, struct ps_error *err)
{
	ZSTD_inBuffer in = { s->in, s->in_len, s->in_pos };
	ZSTD_outBuffer out = { s->out, s->out_cap, s->out_len };
	size_t ret = ZSTD_decompressStream(s->zds, &out, &in);

	*used = in.pos - s->in_pos;
	if (ZSTD_isError(ret))
		return ps_err(err, "%s: corrupt zstd data near byte %llu: %s", s->path,
			      (unsigned long long)(s->in_consumed + *used), ZSTD_getErrorName(ret));
	s->inside = ret != 0;
	s->out_len = out.pos;
	return 0;
}

static int decode_gzip(struct ps_stream *s, size_t *used, struct ps_error *err)
{
	z_stream *z = s->gz;
	int ret;

	if (!s->inside) {
		/* the next member of a concatenated file, or something else after the last one */
		if (s->in[s->in_pos] != 0x1f) {
			*used = 0;
			return ps_err(err, "%s: data that is not gzip after the end of the gzip data at byte %llu: is the file damaged?",
				      s->path, (unsigned long long)s->in_consumed);
		}
		inflateReset(z);
		s->inside = 1;
	}
	z->next_in = s->in + s->in_pos;
	z->avail_in = s->in_len - s->in_pos;
	z->next_out = s->out + s->out_len;
	z->avail_out = s->out_cap - s->out_len;
	ret = inflate(z, Z_NO_FLUSH);
	*used = (s->in_len - s->in_pos) - z->avail_in;
	s->out_len = s->out_cap - z->avail_out;
	if (ret == Z_STREAM_END)
		s->inside = 0;
	else if (ret != Z_OK && ret != Z_BUF_ERROR)
		return ps_err(err, "%s: corrupt gzip data near byte %llu: %s", s->path,
			      (unsigned long long)(s->in_consumed + *used), z->msg ? z->msg : "inflate failed");
	return 0;
}

static int decode_xz(struct ps_stream *s, size_t *used, struct ps_error *err)
{
	lzma_stream *x = s->xz;
	int at_end = s->in_pos == s->in_len;
	lzma_ret ret;

	x->next_in = s->in + s->in_pos;
	x->avail_in = s->in_len - s->in_pos;
	x->next_out = s->out + s->out_len;
	x->avail_out = s->out_cap - s->out_len;
	ret = lzma_code(x, at_end ? LZMA_FINISH : LZMA_RUN);
	*used = (s->in_len - s->in_pos) - x->avail_in;
	s->out_len = s->out_cap - x->avail_out;
	if (ret == LZMA_STREAM_END)
		return 1;
	if (ret == LZMA_OK)
		return 0;
	if (at_end && ret == LZMA_BUF_ERROR)
		return ps_err(err, "%s: xz stream truncated at byte %llu (inside a stream): the file was cut short; the data before it was read",
			      s->path, (unsigned long long)s->in_consumed);
	return ps_err(err, "%s: corrupt xz data near byte %llu: %s", s->path,
		      (unsigned long long)(s->in_consumed + *used),
		      ret == LZMA_FORMAT_ERROR ? "not xz" : ret == LZMA_DATA_ERROR ? "damaged data" :
		      ret == LZMA_MEM_ERROR ? "out of memory" : ret == LZMA_OPTIONS_ERROR ? "unsupported options" :
		      "lzma_code failed");
}

/* Which compression the first bytes announce. */
static enum comp sniff_comp(const uint8_t *b, size_t n)
{
	static const uint8_t zstd[4] = { 0x28, 0xb5, 0x2f, 0xfd }, xz[6] = { 0xfd, '7', 'z', 'X', 'Z', 0 };

	if (n >= 4 && !memcmp(b, zstd, 4))
		return COMP_ZSTD;
	if (n >= 6 && !memcmp(b, xz, 6))
		return COMP_XZ;
	/* gzip: magic, then deflate, the only method gzip defines */
	if (n >= 3 && b[0] == 0x1f && b[1] == 0x8b && b[2] == 8)
		return COMP_GZIP;
	return COMP_NONE;
}

/* Sets up the decoder of s->comp; -1 when the library refuses (no memory). */
static int start_decoder(struct ps_stream *s)
{
	switch (s->comp) {
	case COMP_ZSTD:
		s->zds = ZSTD_createDStream();
		if (!s->zds)
			return -1;
		ZSTD_initDStream(s->zds);
		return 0;
	case COMP_GZIP:
		s->gz = calloc(1, sizeof(*s->gz));
		/* 15 + 16: the largest window, gzip wrapper only */
		if (!s->gz || inflateInit2(s->gz, 15 + 16) != Z_OK) {
			free(s->gz);
			s->gz = NULL;
			return -1;
		}
		return 0;
	case COMP_XZ: {
		lzma_stream init = LZMA_STREAM_INIT;

		s->xz = malloc(sizeof(*s->xz));
		if (!s->xz)
			return -1;
		*s->xz = init;
		if (lzma_stream_decoder(s->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
			free(s->xz);
			s->xz = NULL;
			return -1;
		}
		return 0;
	}
	default:
		return 0;
	}
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
	if (s->ended)
		return 0;
	if (s->comp == COMP_NONE) {
		long r = raw_read(s, s->out + s->out_len, s->out_cap - s->out_len, err);

		if (r > 0) {
			s->out_len += r;
			s->in_consumed += r;
		}
		return r;
	}
	for (;;) {
		size_t before = s->out_len, used;
		int ret, drained;

		if (fill_in(s, err) < 0)
			return -1;
		/*
		 * At the end of the input (xz says so itself) a member or frame is
		 * either over or cut short, unless the decoder took the last input
		 * and kept output back for want of room: one more step gives it.
		 */
		drained = s->in_pos == s->in_len && s->comp != COMP_XZ;
		if (drained && !s->inside)
			return 0;
		switch (s->comp) {
		case COMP_ZSTD:
			ret = decode_zstd(s, &used, err);
			break;
		case COMP_GZIP:
			ret = decode_gzip(s, &used, err);
			break;
		default:
			ret = decode_xz(s, &used, err);
			break;
		}
		s->in_consumed += used;
		s->in_pos += used;
		if (ret < 0)
			return -1;
		if (ret > 0) {
			s->ended = 1;	/* an xz input ended cleanly */
			return s->out_len - before;
		}
		if (s->out_len > before)
			return s->out_len - before;
		if (drained)
			return ps_err(err, "%s: %s stream truncated at byte %llu (inside a %s): the file was cut short; the data before it was read",
				      s->path, comp_names[s->comp], (unsigned long long)s->in_consumed,
				      s->comp == COMP_ZSTD ? "frame" : "member");
	}
}

struct ps_stream *ps_stream_open(const char *path, struct ps_error *err)
{
	struct ps_stream *s = calloc(1, sizeof(*s));
	struct stat sb;
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
	if (fstat(s->fd, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		/* perf record --threads writes its perf.data as a directory */
		ps_err(err, "%s: is a directory, not a trace: give the trace file in it (a perf.data directory of 'perf record --threads': give the text of 'perf script -i %s')",
		       path, path);
		goto fail;
	}
	/* Read the head into the input buffer to decide the format. */
	while (have < SNIFF) {
		long r = raw_read(s, s->in + have, HEAD_READ - have, err);

		if (r < 0)
			goto fail;
		if (r == 0) {
			s->eof_in = 1;
			break;
		}
		have += r;
	}
	s->in_len = have;
	s->comp = sniff_comp(s->in, have);
	if (s->comp != COMP_NONE) {
		if (start_decoder(s) < 0) {
			ps_err(err, "%s: cannot start the %s decoder: out of memory", path, comp_names[s->comp]);
			goto fail;
		}
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
	if (s->gz) {
		inflateEnd(s->gz);
		free(s->gz);
	}
	if (s->xz) {
		lzma_end(s->xz);
		free(s->xz);
	}
	free(s->path);
	free(s->in);
	free(s->out);
	free(s);
}

const char *ps_stream_compression(const struct ps_stream *s)
{
	return comp_names[s->comp];
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

	if (s->failed.msg[0]) {
		*err = s->failed;
		return -1;
	}
	while (done < n) {
		size_t avail = s->out_len - s->out_pos;

		if (!avail) {
			long r = fill_out(s, err);

			if (r < 0 && done) {
				/* the bytes before the error first; the error on the next call */
				s->failed = *err;
				break;
			}
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
