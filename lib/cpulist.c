// SPDX-License-Identifier: GPL-2.0-or-later
/* cpulist.c - the kernel's CPU list format ("0-3,8,10-11"). */
#include <stdlib.h>

#include "lib/cpulist.h"
#include "lib/machine.h"

int ps_parse_cpulist(const char *text, int16_t *cpu_node, int node, int *max_cpu)
{
	const char *p = text;

	while (*p && *p != '\n') {
		char *end;
		long a = strtol(p, &end, 10), b;

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
		if (b >= PS_MAX_CPUS)
			return -2;
		for (long c = a; c <= b; c++) {
			cpu_node[c] = node;
			if (c + 1 > *max_cpu)
				*max_cpu = c + 1;
		}
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
	}
	return 0;
}
