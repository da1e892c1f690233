// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pgs_read_speed.c - events per second through what 'pagesim stat' does per
 * event (ps_reader_next + ps_counters_event), with no process start-up or
 * snapshot parsing in the figure: reads TRACE again and again for about
 * SECONDS and prints "<events/s> <events per pass>".  Built by
 * bench/pgs-bench.sh against build/libpagesim.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sim/mm/vmstat.h"
#include "trace/reader.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static struct ps_counters c;
	struct ps_machine m;
	struct ps_error err;
	struct ps_event ev;
	double secs = argc > 2 ? atof(argv[2]) : 2.0, t0, busy = 0;
	uint64_t total = 0, per_pass = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: pgs_read_speed TRACE [SECONDS]\n");
		return 2;
	}
	ps_machine_assume_x86_64(&m, PS_MAX_CPUS);
	t0 = now();
	do {
		struct ps_reader *r = ps_reader_open(argv[1], NULL, &err);
		double t;
		int ret;

		if (!r) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		ps_counters_init(&c, &m, 9);
		per_pass = 0;
		t = now();
		while ((ret = ps_reader_next(r, &ev, &err)) > 0) {
			ps_counters_event(&c, &ev);
			per_pass++;
		}
		busy += now() - t;
		ps_reader_close(r);
		if (ret < 0) {
			fprintf(stderr, "%s\n", err.msg);
			return 1;
		}
		total += per_pass;
	} while (now() - t0 < secs);
	printf("%.0f %llu\n", total / busy, (unsigned long long)per_pass);
	return 0;
}
