// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c - mean, sample stddev and %change for pagesim diff (see stats.h). */
#include <math.h>

#include "lib/stats.h"

void ps_stat_compute(const int64_t *v, int n, struct ps_stat *s)
{
	long double sum = 0, ss = 0, mean;

	s->n = n;
	s->mean = 0;
	s->sd = -1;
	if (n <= 0)
		return;
	for (int i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	s->mean = (double)mean;
	if (n < 2)
		return;
	/* two passes: no cancellation when the counters are large and close */
	for (int i = 0; i < n; i++) {
		long double d = v[i] - mean;

		ss += d * d;
	}
	s->sd = (double)sqrtl(ss / (n - 1));
}

double ps_stat_rel_sd(const struct ps_stat *s)
{
	if (s->sd <= 0)
		return 0;
	if (s->mean == 0)
		return INFINITY;
	return 100.0 * s->sd / fabs(s->mean);
}

double ps_stat_change(double base, double new)
{
	if (new == base)
		return 0;
	if (base == 0)
		return new > 0 ? INFINITY : -INFINITY;
	return 100.0 * (new - base) / fabs(base);
}
