/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stream.h - a sequential byte stream over a file, a pipe or stdin ("-"),
 * decompressed on the fly when it starts with a zstd frame, a gzip member
 * or an xz stream.  Compressed data that ends inside a frame, member or
 * stream is reported as truncated, with the compressed byte offset where it
 * stopped.
 */
#ifndef PS_STREAM_H
#define PS_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

struct ps_stream;

/* Opens @path ("-" is stdin).  Returns NULL and fills @err on failure. */
struct ps_stream *ps_stream_open(const char *path, struct ps_error *err);
void ps_stream_close(struct ps_stream *s);

/* "zstd", "gzip" or "xz" when the stream is decompressed, else NULL. */
const char *ps_stream_compression(const struct ps_stream *s);

/*
 * Returns a pointer to the first @n decompressed bytes without consuming
 * them (n <= 4096); *got is set to how many are available (less at EOF).
 */
const uint8_t *ps_stream_peek(struct ps_stream *s, size_t n, size_t *got, struct ps_error *err);

/*
 * Reads up to @n bytes.  Returns the count, 0 at the end, or -1 on error
 * (read error, corrupt or truncated compressed data) with @err filled; the
 * bytes that came before an error are returned first, the error by the
 * next call.
 */
long ps_stream_read(struct ps_stream *s, void *buf, size_t n, struct ps_error *err);

/*
 * Returns the next line without its '\n' (NUL-terminated, in a buffer
 * owned by the stream, valid until the next call) and its length in *len;
 * NULL at the end or on error (then *len is -1 and @err is filled).
 */
char *ps_stream_getline(struct ps_stream *s, long *len, struct ps_error *err);

/* Bytes consumed from the underlying file so far (compressed offset). */
uint64_t ps_stream_file_offset(const struct ps_stream *s);

const char *ps_stream_path(const struct ps_stream *s);

/* The underlying file descriptor (for formats read by another library). */
int ps_stream_fd(const struct ps_stream *s);
#endif
