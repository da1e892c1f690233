/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-util.h - what the libFuzzer targets share: the input as a file
 * (a memfd opened through /proc/self/fd/N, so that the readers run their
 * real open path with no change to trace/), the input as a C string, and
 * a small hand-written machine for the parsers that need zones to fill.
 */
#ifndef PS_FUZZ_UTIL_H
#define PS_FUZZ_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sim/mm/vmstat.h"
#include "lib/machine.h"
#include "trace/reader.h"
#include "trace/sysroot.h"

/* Writes @data into a memfd (one per process, rewritten each time); returns the fd. */
static inline int fuzz_fd(const uint8_t *data, size_t size)
{
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("pagesim-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
	}
	/* written over, then cut: the memfd keeps its pages from one input to the next */
	if ((size && pwrite(fd, data, size, 0) != (ssize_t)size) || ftruncate(fd, size) < 0)
		abort();
	return fd;
}

/* The same, as a path (/proc/self/fd/N). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fuzz_fd(data, size));
	return path;
}

/* A malloc'd NUL-terminated copy of @data (the parsers take C strings). */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

/* Two nodes, DMA/DMA32/Normal on node 0 and Normal on node 1. */
static const char fuzz_zoneinfo[] =
	"Node 0, zone      DMA\n  pages free     3840\n        min      8\n        low      11\n"
	"        high     14\n        spanned  4095\n        present  3998\n        managed  3840\n"
	"        protection: (0, 1900, 7800, 7800, 7800)\n  pagesets\n    cpu: 0\n"
	"              count: 0\n              high:  0\n              batch: 1\n"
	"  start_pfn:           1\n"
	"Node 0, zone    DMA32\n  pages free     400000\n        min      700\n        low      900\n"
	"        high     1100\n        spanned  1044480\n        present  500000\n        managed  490000\n"
	"        protection: (0, 0, 5900, 5900, 5900)\n  start_pfn:           4096\n"
	"Node 0, zone   Normal\n  pages free     100000\n        min      2000\n        low      2500\n"
	"        high     3000\n        spanned  1572864\n        present  1572864\n        managed  1500000\n"
	"        protection: (0, 0, 0, 0, 0)\n  start_pfn:           1048576\n"
	"Node 1, zone   Normal\n  pages free     200000\n        min      2000\n        low      2500\n"
	"        high     3000\n        spanned  2097152\n        present  2097152\n        managed  2000000\n"
	"        protection: (0, 0, 0, 0, 0)\n  start_pfn:           2621440\n";

static inline void fuzz_machine(struct ps_machine *m)
{
	struct ps_error err;

	ps_machine_init(m);
	if (ps_parse_zoneinfo(fuzz_zoneinfo, "fuzz-zoneinfo", m, &err) < 0)
		abort();
}

/* Whether a reader may produce @ev: a known type, a task class that agrees with the task's name. */
static inline int fuzz_event_ok(const struct ps_event *ev)
{
	int8_t node;

	return ev->type < PS_EV_NR && ev->task == ps_task_of(ev->comm, &node) &&
	       (ev->task == PS_TASK_OTHER || ev->task_node == node);
}

/*
 * Reads @r's events (at most a million) into stat's counters over @m and
 * closes it; aborts on an event no reader may produce (fuzz_event_ok).
 */
static inline void fuzz_count_events(struct ps_reader *r, const struct ps_machine *m, int pageblock_order)
{
	static struct ps_counters c;
	struct ps_error err;
	struct ps_event ev;
	struct ps_kv kv;
	int n = 0;

	ps_counters_init(&c, m, pageblock_order);
	while (ps_reader_next(r, &ev, &err) > 0 && n++ < 1000000) {
		if (!fuzz_event_ok(&ev))
			abort();
		ps_counters_event(&c, &ev);
	}
	ps_kv_init(&kv);
	ps_counters_to_kv(&c, &kv);
	ps_kv_free(&kv);
	ps_reader_close(r);
}

#endif
