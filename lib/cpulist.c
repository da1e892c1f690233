// SPDX-License-Identifier: GPL-2.0-or-later
/* cpulist.c - the kernel's list format ("0-3,8,10-11"), as in nodeN/cpulist. */
#include <stdlib.h>

#include "lib/cpulist.h"
#include "lib/machine.h"

int ps_list_ranges(const char *text, long limit, int (*range)(long a, long b, void *arg), void *arg)
{
	const char *p = text;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;
		int r;

		if (end == p || a < 0)
			return -1;
		b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || b < a)
				return -1;
			p = end;
		}
		if (*p == ',' && p[1] && p[1] != '\n')
			p++;
		else if (*p && *p != '\n')
			return -1;
		if (b >= limit)
			return -2;
		r = range(a, b, arg);
		if (r)
			return r;
	}
	return 0;
}

struct cpulist_fill {
	int16_t *cpu_node;
	int node;
	int *max_cpu;
};

static int fill_cpus(long a, long b, void *arg)
{
	struct cpulist_fill *f = arg;

	for (long c = a; c <= b; c++) {
		f->cpu_node[c] = f->node;
		if (c + 1 > *f->max_cpu)
			*f->max_cpu = c + 1;
	}
	return 0;
}

int ps_parse_cpulist(const char *text, int16_t *cpu_node, int node, int *max_cpu)
{
	struct cpulist_fill f = { cpu_node, node, max_cpu };

	return ps_list_ranges(text, PS_MAX_CPUS, fill_cpus, &f);
}
