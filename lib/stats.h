/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stats.h - the arithmetic of pagesim diff: mean and sample standard
 * deviation over a group of repeats, relative stddev and %change.
 * Pure functions over plain numbers; nothing here knows a file format.
 *
 * Conventions (the kernel test robot's, with two stated departures):
 *  - stddev is the sample standard deviation (divide by n - 1); a single
 *    repeat has none (sd = -1), so no "± N%" is shown for it.
 *  - %change = 100 * (new - base) / |base|.  The robot divides by base
 *    itself; dividing by |base| keeps the sign of the change equal to the
 *    sign of new - base when a delta counter (after - before) is negative.
 *  - base 0: the change is 0 when new is 0 too, otherwise +inf or -inf
 *    (the robot divides by 1e-100 and prints a huge number instead).
 */
#ifndef PS_STATS_H
#define PS_STATS_H

#include <stdint.h>

struct ps_stat {
	int n;		/* repeats that have the counter */
	double mean;
	double sd;	/* sample stddev; -1 when n < 2 */
};

/* Mean and sample stddev of @v[0..n); n == 0 gives n 0, mean 0, sd -1. */
void ps_stat_compute(const int64_t *v, int n, struct ps_stat *s);

/* 100 * sd / |mean|: 0 without a stddev, +inf when mean is 0 and sd is not. */
double ps_stat_rel_sd(const struct ps_stat *s);

/* The percent change from @base to @new, as described at the top. */
double ps_stat_change(double base, double new);

/*
 * Welch's t-test of @b against @a (unequal variances): t = (mean_b -
 * mean_a) / sqrt(va/na + vb/nb), the Welch-Satterthwaite degrees of freedom
 * df = (va/na + vb/nb)^2 / ((va/na)^2/(na-1) + (vb/nb)^2/(nb-1)) and the
 * two-sided p from Student's t distribution with df (non-integer) degrees.
 * Returns 0, or -1 when either group has fewer than 2 repeats (no test).
 * Both variances 0: p = 1 for equal means, else p = 0 and t = +-inf, df = na + nb - 2.
 */
struct ps_welch {
	double t, df, p;
};
int ps_stat_welch(const struct ps_stat *a, const struct ps_stat *b, struct ps_welch *w);

/* Two-sided p of Student's t: P(|T| >= |t|) with @df degrees, I_{df/(df+t^2)}(df/2, 1/2). */
double ps_stat_t_p2(double t, double df);

/* The regularized incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1. */
double ps_stat_betai(double a, double b, double x);

#endif
