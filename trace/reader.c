// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * reader.c - format detection and what all readers share: skip accounting,
 * event counts, lost-event and ordering statistics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/kver.h"
#include "trace/reader-local.h"
#include "trace/sniff.h"

static const uint8_t tdat_magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

int ps_reader_skip(struct ps_reader *r, enum ps_skip_reason reason, const char *where,
		   const char *sample, int sample_len, struct ps_error *err)
{
	static const char *const what[PS_SKIP_NR] = {
		[PS_SKIP_MALFORMED] = "not an ftrace event line",
		[PS_SKIP_OTHER_EVENT] = "not a page event pagesim reads",
		[PS_SKIP_BAD_FIELD] = "page event with a missing or bad field",
	};
	char *first = r->stats.skip_first[reason];

	if (sample_len > 80)
		sample_len = 80;
	if (!r->stats.skipped[reason]++) {
		const int size = sizeof(r->stats.skip_first[0]);
		int n = snprintf(first, size, "%s:%s: ", r->path, where);

		n = n < 0 ? 0 : n >= size ? size - 1 : n;
		snprintf(first + n, size - n, "%.*s", sample_len, sample ? sample : "");
		/* binary input (random bytes, a damaged file): no control bytes on the terminal */
		for (char *c = first + n; *c; c++)
			if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
				*c = '?';
	}
	if (r->opts.flags & PS_RD_STRICT)
		return ps_err(err, "%s:%s: %s: '%.*s' (drop --strict to skip and count such input)",
			      r->path, where, what[reason], sample_len, sample ? sample : "");
	return 0;
}

void ps_reader_account(struct ps_reader *r, const struct ps_event *ev)
{
	ps_reader_account_inline(r, ev);
}

uint64_t ps_pfn_from_page_addr(uint64_t page)
{
	/* x86-64 vmemmap_base without KASLR, 64-byte struct page. */
	const uint64_t base = 0xffffea0000000000ull, end = 0xffffeb0000000000ull;

	if (page < base || page >= end || (page - base) % 64)
		return PS_PFN_NONE;
	return (page - base) / 64;
}

/* Copies the rest of @s into an anonymous memory file for libtracecmd. */
static int spill_to_memfd(struct ps_stream *s, const char *path, struct ps_error *err)
{
	char *buf = malloc(1 << 20);
	int fd = memfd_create("pagesim-trace.dat", MFD_CLOEXEC);
	long n;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return ps_err(err, "%s: cannot make a buffer to decompress into: %s", path, strerror(errno));
	}
	while ((n = ps_stream_read(s, buf, 1 << 20, err)) > 0) {
		if (write(fd, buf, n) != n) {
			ps_err(err, "%s: cannot buffer the decompressed trace.dat: %s", path, strerror(errno));
			n = -1;
			break;
		}
	}
	free(buf);
	if (n < 0) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

static int is_regular(int fd)
{
	struct stat sb;

	return fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* An fd of the whole (decompressed) input that may be read at any offset. */
static int seekable_fd(struct ps_stream *s, const char *path, struct ps_error *err)
{
	int fd;

	if (ps_stream_compression(s) || !strcmp(path, "-") || !is_regular(ps_stream_fd(s)))
		return spill_to_memfd(s, path, err);
	fd = dup(ps_stream_fd(s));
	if (fd < 0)
		return ps_err(err, "%s: %s", path, strerror(errno));
	lseek(fd, 0, SEEK_SET);
	return fd;
}

struct ps_reader *ps_reader_alloc(const char *path, const struct ps_reader_opts *opts)
{
	struct ps_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (opts)
		r->opts = *opts;
	r->path = strdup(path);
	if (!r->path) {
		free(r);
		return NULL;
	}
	r->kver = r->opts.kver;
	r->pageblock_order = -1;
	r->stats.max_cpu = -1;
	return r;
}

struct ps_reader *ps_reader_open(const char *path, const struct ps_reader_opts *opts,
				 struct ps_error *err)
{
	struct ps_reader *r = ps_reader_alloc(path, opts);
	const uint8_t *head;
	struct ps_sniff what;
	size_t got = 0;
	int ret;

	if (!r) {
		ps_err(err, "out of memory");
		return NULL;
	}
	r->stream = ps_stream_open(path, err);
	if (!r->stream)
		goto fail;
	/* enough for the magic numbers sniff.c knows and a sample of text */
	head = ps_stream_peek(r->stream, 4096, &got, err);
	if (!head)
		goto fail;
	if (got == 0) {
		ps_err(err, "%s: the file is empty%s%s%s: give a trace (" PS_TRACE_FORMATS ")", path,
		       ps_stream_compression(r->stream) ? " (once " : "",
		       ps_stream_compression(r->stream) ? ps_stream_compression(r->stream) : "",
		       ps_stream_compression(r->stream) ? "-decompressed)" : "");
		goto fail;
	}
	if (got >= sizeof(tdat_magic) && !memcmp(head, tdat_magic, sizeof(tdat_magic))) {
		/* libtracecmd seeks: a pipe (stdin, a fifo, <(cat x.dat)) goes to memory first */
		int fd = seekable_fd(r->stream, path, err);

		ps_stream_close(r->stream);
		r->stream = NULL;
		if (fd < 0)
			goto fail;
		ret = ps_tdat_open(r, fd, err);
	} else if (got >= 16 && !memcmp(head, "PERFILE2", 8)) {
		uint64_t hsize;

		/* a pipe's perf.data (16-byte header) reads in order; a file's has its features at the end */
		memcpy(&hsize, head + 8, 8);
		if (hsize == 16) {
			ret = ps_perf_open(r, -1, err);
		} else {
			int fd = seekable_fd(r->stream, path, err);

			ret = fd < 0 ? -1 : ps_perf_open(r, fd, err);
			ps_stream_close(r->stream);
			r->stream = NULL;
		}
	} else if (got >= 8 && !memcmp(head, "PAGESIM", 7)) {
		ret = ps_pgs_open(r, err);
	} else if (ps_sniff_foreign(head, got, &what)) {
		ps_err(err, "%s: this is %s%s%s%s, not a trace: %s", path, what.what,
		       ps_stream_compression(r->stream) ? " (" : "",
		       ps_stream_compression(r->stream) ? ps_stream_compression(r->stream) : "",
		       ps_stream_compression(r->stream) ? "-compressed)" : "", what.todo);
		goto fail;
	} else {
		ret = ps_text_open(r, err);
	}
	if (ret < 0)
		goto fail;
	return r;
fail:
	ps_reader_close(r);
	return NULL;
}

int ps_reader_next(struct ps_reader *r, struct ps_event *ev, struct ps_error *err)
{
	/* events decoded and accounted ahead: no call into the back-end */
	if (__builtin_expect(r->ahead < r->ahead_end, 1)) {
		*ev = *r->ahead++;
		return 1;
	}
	return r->ops->next(r, ev, err);
}

int ps_reader_next_batch(struct ps_reader *r, const struct ps_event **evs, struct ps_error *err)
{
	int ret;

	/* what ps_reader_next() left of a batch */
	if (r->ahead < r->ahead_end) {
		*evs = r->ahead;
		ret = r->ahead_end - r->ahead;
		r->ahead = r->ahead_end;
		return ret;
	}
	if (r->ops->next_batch)
		return r->ops->next_batch(r, evs, err);
	ret = r->ops->next(r, &r->one, err);
	if (ret > 0)
		*evs = &r->one;
	return ret;
}

const struct ps_reader_stats *ps_reader_stats(const struct ps_reader *r)
{
	return &r->stats;
}

const char *ps_reader_format(const struct ps_reader *r)
{
	return r->format;
}

const char *ps_reader_kernel_release(const struct ps_reader *r)
{
	return r->release[0] ? r->release : NULL;
}

int ps_reader_kver(const struct ps_reader *r)
{
	return r->kver;
}

int ps_reader_pageblock_order(const struct ps_reader *r)
{
	return r->pageblock_order;
}

int ps_reader_nr_cpus(const struct ps_reader *r)
{
	return r->nr_cpus;
}

char *ps_reader_snapshot(const struct ps_reader *r, const char *rel, size_t *len)
{
	return r->ops && r->ops->snapshot ? r->ops->snapshot(r, rel, len) : NULL;
}

int ps_reader_has_snapshots(const struct ps_reader *r)
{
	char *z = ps_reader_snapshot(r, "before/proc/zoneinfo", NULL);

	free(z);
	return z != NULL;
}

int ps_reader_task_of(struct ps_reader *r, int32_t pid, const char **comm)
{
	*comm = NULL;
	return r->ops && r->ops->task_of ? r->ops->task_of(r, pid, comm) : -1;
}

int ps_reader_add_comm(struct ps_reader *r)
{
	if (!r->ops || !r->ops->task_of)
		return -1;
	r->opts.flags |= PS_RD_COMM;
	return 0;
}

void ps_reader_close(struct ps_reader *r)
{
	if (!r)
		return;
	if (r->ops && r->ops->close)
		r->ops->close(r);
	ps_stream_close(r->stream);
	free(r->path);
	free(r);
}
