// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_tdat_with.c - ps_tdat_open_with(), the way fuzz_tdat reads a
 * trace.dat's data with the header of another file, on the seeds in
 * fuzz/corpus/tdat: what each gives (events, skips, lost markers, buffer).
 * The header is testdata/uma-small/trace.dat's, the CPU count 4, as in
 * fuzz/fuzz_tdat.c.  argv[1]: the source root.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <trace-cmd/trace-cmd.h>

#include "trace/reader-local.h"
#include "trace/tep_kmem.h"
#include "check.h"

static struct tracecmd_input *handle;
static struct ps_tep_kmem kmem;
static const char *root;

struct want {
	const char *seed;
	int events, malformed, other, bad_field, lost_markers, instance;
};

static void read_seed(const struct want *w)
{
	char path[512], head[64];
	struct ps_error err;
	struct ps_event ev;
	struct ps_reader *r;
	const struct ps_reader_stats *st;
	uint64_t v6_options = 0;
	const char *z;
	ssize_t got;
	int fd, ret, n = 0;

	snprintf(path, sizeof(path), "%s/fuzz/corpus/tdat/%s", root, w->seed);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	/* as fuzz_tdat: a v6 file's options follow its header at once */
	got = pread(fd, head, sizeof(head), 0);
	z = got > 10 ? memchr(head + 10, 0, got - 10) : NULL;
	if (z)
		v6_options = z + 1 + 6 - head;
	r = ps_reader_alloc(path, NULL);
	CHECK(r != NULL);
	ret = ps_tdat_open_with(r, fd, handle, &kmem, v6_options, &err);
	CHECK_EQ(ret, 0);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", w->seed, err.msg);
	} else {
		while ((ret = ps_reader_next(r, &ev, &err)) > 0)
			n++;
		CHECK_EQ(ret, 0);
		st = ps_reader_stats(r);
		CHECK_EQ(n, w->events);
		CHECK_EQ(st->skipped[PS_SKIP_MALFORMED], w->malformed);
		CHECK_EQ(st->skipped[PS_SKIP_OTHER_EVENT], w->other);
		CHECK_EQ(st->skipped[PS_SKIP_BAD_FIELD], w->bad_field);
		CHECK_EQ(st->lost_markers, w->lost_markers);
		CHECK_EQ(strstr(ps_reader_format(r), "instance pagesim") != NULL, w->instance);
		if (n != w->events)
			fprintf(stderr, "%s: %d events\n", w->seed, n);
	}
	ps_reader_close(r);
	close(fd);
}

/* Data the buffer does not describe: an error naming the file, not a crash or a fall-back. */
static void test_not_handled(void)
{
	static const char big_endian[] = "\x17\x08\x44tracing7\0\1\x08\0\x10\0\0none\0\0";
	struct ps_error err;
	struct ps_reader *r = ps_reader_alloc("be.dat", NULL);
	int fd = memfd_create("be", 0);

	CHECK(fd >= 0 && write(fd, big_endian, sizeof(big_endian)) == sizeof(big_endian));
	CHECK_EQ(ps_tdat_open_with(r, fd, handle, &kmem, 0, &err), -1);
	CHECK(strstr(err.msg, "be.dat: trace.dat data not handled: big-endian file") != NULL);
	ps_reader_close(r);
	close(fd);
}

int main(int argc, char **argv)
{
	static const struct want seeds[] = {
		{ "v7-zstd-instance", 48, 2, 2, 4, 2, 1 },
		{ "v7-zstd-top-chunk1", 48, 0, 0, 0, 0, 0 },
		{ "v7-zstd-zopts-chain", 32, 0, 0, 0, 0, 1 },
		{ "v7-none-top", 40, 1, 1, 2, 1, 0 },
		{ "v7-none-instance-chain", 24, 1, 1, 2, 1, 1 },
		{ "v7-none-real-pages", 224, 0, 0, 0, 0, 0 },
		{ "v6-top", 24, 1, 1, 2, 1, 0 },
		{ "v6-instance", 24, 1, 1, 2, 1, 1 },
		{ "regress-date-overflow", 8, 1, 1, 2, 1, 0 },
		/* a record of event id 0 is no kmem event (the ids of the other kinds were all 0) */
		{ "regress-event-id-0", 181, 1, 1, 0, 0, 0 },
	};
	char path[512];

	if (argc < 2) {
		fprintf(stderr, "usage: test_tdat_with SOURCE-ROOT\n");
		return 2;
	}
	root = argv[1];
	snprintf(path, sizeof(path), "%s/testdata/uma-small/trace.dat", root);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	handle = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	CHECK(handle != NULL);
	if (!handle)
		CHECK_DONE();
	tep_set_cpus(tracecmd_get_tep(handle), 4);
	/* its header has the formats of every event of this kind of machine: all of lib/event.h's */
	CHECK_EQ(ps_tep_kmem_init(&kmem, tracecmd_get_tep(handle)), PS_EV_NR);
	for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		read_seed(&seeds[i]);
	test_not_handled();
	ps_tep_kmem_free(&kmem);
	tracecmd_close(handle);
	CHECK_DONE();
}
