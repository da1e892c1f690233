// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_sysroot.c - libFuzzer targets for the sysroot parsers, one per
 * file kind, chosen at build time by FUZZ_ZONEINFO, FUZZ_PAGETYPEINFO,
 * FUZZ_BUDDYINFO or FUZZ_CPULIST.  pagetypeinfo and buddyinfo fill the
 * zones of a fixed machine (fuzz-util.h), as they do after zoneinfo.
 *
 * FUZZ_SYSROOT: a whole sysroot through ps_sysroot_load_machine_src(), so
 * that the checks across its files run (a CPU in two nodes' cpulists,
 * distance rows against zoneinfo's nodes, free counts against the zones'
 * spans): the input is files, each after a line "@@ RELATIVE/PATH"
 * ("@@ proc/zoneinfo", "@@ sys/devices/system/node/node1/distance").  An
 * accepted machine must hold what the checks promise.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace/sysroot.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#ifdef FUZZ_SYSROOT
/* The file @rel of the input (the text after its "@@ REL" line, up to the next such line), or NULL. */
static const char *file_at(const char *text, const char *rel, size_t *len)
{
	size_t n = strlen(rel);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		const char *body, *end;

		if (strncmp(p, "@@ ", 3) || strncmp(p + 3, rel, n) || (p[3 + n] != '\n' && p[3 + n]))
			continue;
		body = p[3 + n] ? p + 4 + n : p + 3 + n;
		for (end = body; *end && !(end[0] == '@' && end[1] == '@' && (end == body || end[-1] == '\n')); end++)
			;
		*len = end - body;
		return body;
	}
	return NULL;
}

static char *files_read(void *ctx, const char *rel, size_t *len, struct ps_error *err)
{
	size_t n;
	const char *body = file_at(ctx, rel, &n);
	char *copy;

	if (!body) {
		ps_err(err, "fuzz: no %s", rel);
		return NULL;
	}
	copy = malloc(n + 1);
	if (!copy)
		abort();
	memcpy(copy, body, n);
	copy[n] = 0;
	if (len)
		*len = n;
	return copy;
}

static int files_exists(void *ctx, const char *rel)
{
	size_t n;

	return file_at(ctx, rel, &n) != NULL;
}

/* What an accepted sysroot promises: each CPU in one node, distances 10..255, ordered watermarks. */
static void check_machine(const struct ps_machine *m)
{
	if (m->nr_zones < 1 || m->nr_nodes > PS_MAX_NODES || m->nr_cpus > PS_MAX_CPUS ||
	    m->pageblock_order < 1 || m->pageblock_order > PS_NR_PAGE_ORDERS - 1)
		abort();
	for (int i = 0; i < m->nr_nodes; i++)
		for (int j = 0; j < m->nr_nodes; j++)
			if (m->distance[i][j] < 10 || m->distance[i][j] > 255 || (i == j) != (m->distance[i][j] == 10))
				abort();
	for (int i = 0; i < m->nr_zones; i++) {
		const struct ps_zone_desc *z = &m->zones[i];
		uint64_t free_pages = 0;

		if (z->wmark_min > z->wmark_low || z->wmark_low > z->wmark_high || z->managed > z->present ||
		    z->present > z->spanned)
			abort();
		for (int o = 0; o < PS_NR_PAGE_ORDERS; o++)
			free_pages += z->buddy[o] << o;
		if (free_pages > z->spanned)
			abort();
	}
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_machine m;
	struct ps_error err __attribute__((unused));
	char *s = fuzz_str(data, size);

#if defined(FUZZ_ZONEINFO)
	ps_machine_init(&m);
	if (ps_parse_zoneinfo(s, "fuzz", &m, &err) == 0) {
		if (m.nr_zones < 1 || m.nr_zones > PS_MAX_ZONES || m.nr_nodes > PS_MAX_NODES)
			abort();
		for (int i = 0; i < m.nr_zones; i++)
			ps_machine_zone_of(&m, m.zones[i].start_pfn);
	}
#elif defined(FUZZ_PAGETYPEINFO)
	fuzz_machine(&m);
	ps_parse_pagetypeinfo(s, "fuzz", &m, &err);
#elif defined(FUZZ_BUDDYINFO)
	fuzz_machine(&m);
	ps_parse_buddyinfo(s, "fuzz", &m, &err);
#elif defined(FUZZ_CPULIST)
	{
		int max_cpu = 0;

		for (int i = 0; i < PS_MAX_CPUS; i++)
			m.cpu_node[i] = -1;
		if (ps_parse_cpulist(s, m.cpu_node, 1, &max_cpu) == 0 && (max_cpu < 0 || max_cpu > PS_MAX_CPUS))
			abort();
	}
#elif defined(FUZZ_SYSROOT)
	{
		struct ps_fsrc src = { .read = files_read, .exists = files_exists, .ctx = s, .name = "fuzz" };

		if (ps_sysroot_load_machine_src(&src, &m, &err) == 0)
			check_machine(&m);
	}
#else
#error "define one of FUZZ_ZONEINFO FUZZ_PAGETYPEINFO FUZZ_BUDDYINFO FUZZ_CPULIST FUZZ_SYSROOT"
#endif
	free(s);
	return 0;
}
