/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cpulist.h - the kernel's CPU list format, as in nodeN/cpulist. */
#ifndef PS_CPULIST_H
#define PS_CPULIST_H

#include <stdint.h>

/*
 * "0-3,8,10-11": sets cpu_node[cpu] = @node for each CPU listed and raises
 * *@max_cpu to the highest CPU + 1; -1 on a syntax error, -2 for a CPU at
 * or above PS_MAX_CPUS (nothing set from that range on).
 */
int ps_parse_cpulist(const char *text, int16_t *cpu_node, int node, int *max_cpu);

#endif
