// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_sysroot.c - libFuzzer targets for the sysroot parsers, one per
 * file kind, chosen at build time by FUZZ_ZONEINFO, FUZZ_PAGETYPEINFO,
 * FUZZ_BUDDYINFO or FUZZ_CPULIST.  pagetypeinfo and buddyinfo fill the
 * zones of a fixed machine (fuzz-util.h), as they do after zoneinfo.
 */
#include <stdint.h>
#include <stdlib.h>

#include "trace/sysroot.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
#else
#error "define one of FUZZ_ZONEINFO FUZZ_PAGETYPEINFO FUZZ_BUDDYINFO FUZZ_CPULIST"
#endif
	free(s);
	return 0;
}
