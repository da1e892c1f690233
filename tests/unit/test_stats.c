// SPDX-License-Identifier: GPL-2.0-or-later
/* test_stats.c - mean, sample stddev, relative stddev and %change of pagesim diff. */
#include <math.h>

#include "lib/stats.h"
#include "check.h"

static int near(double a, double b, double eps)
{
	return fabs(a - b) <= eps;
}

int main(void)
{
	struct ps_stat s;

	/* mean and sample stddev (n - 1): 2,4,4,4,5,5,7,9 -> mean 5, sum of squares 32, sd sqrt(32/7) */
	{
		const int64_t v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };

		ps_stat_compute(v, 8, &s);
		CHECK_EQ(s.n, 8);
		CHECK(near(s.mean, 5.0, 1e-12));
		CHECK(near(s.sd, sqrt(32.0 / 7.0), 1e-12));
		CHECK(near(ps_stat_rel_sd(&s), 100.0 * sqrt(32.0 / 7.0) / 5.0, 1e-9));
	}
	/* a single repeat: no stddev, so no "± N%" */
	{
		const int64_t v[] = { 52957 };

		ps_stat_compute(v, 1, &s);
		CHECK_EQ(s.n, 1);
		CHECK(s.mean == 52957.0);
		CHECK(s.sd < 0);
		CHECK(ps_stat_rel_sd(&s) == 0);
	}
	/* no repeat has it */
	ps_stat_compute(NULL, 0, &s);
	CHECK_EQ(s.n, 0);
	CHECK(s.sd < 0);
	/* equal repeats: sd 0, relative 0 */
	{
		const int64_t v[] = { 7, 7, 7 };

		ps_stat_compute(v, 3, &s);
		CHECK(s.sd == 0);
		CHECK(ps_stat_rel_sd(&s) == 0);
	}
	/* big close counters: the two-pass sum keeps the spread exact */
	{
		const int64_t v[] = { 4000000000000001, 4000000000000003 };

		ps_stat_compute(v, 2, &s);
		CHECK(near(s.sd, sqrt(2.0), 1e-6));
	}
	/* negative deltas (after - before of a gauge) */
	{
		const int64_t v[] = { -10, -30 };

		ps_stat_compute(v, 2, &s);
		CHECK(s.mean == -20.0);
		CHECK(near(s.sd, sqrt(200.0), 1e-12));
		CHECK(near(ps_stat_rel_sd(&s), 100.0 * sqrt(200.0) / 20.0, 1e-9));
	}
	/* mean 0 with a spread: relative stddev is infinite */
	{
		const int64_t v[] = { -1, 1 };

		ps_stat_compute(v, 2, &s);
		CHECK(isinf(ps_stat_rel_sd(&s)));
	}

	/* %change = 100 * (new - base) / |base| */
	CHECK(near(ps_stat_change(52957, 44905), 100.0 * (44905 - 52957) / 52957.0, 1e-12));
	CHECK(near(ps_stat_change(100, 150), 50.0, 1e-12));
	CHECK(near(ps_stat_change(100, 0), -100.0, 1e-12));
	CHECK(ps_stat_change(5, 5) == 0);
	/* negative base: the sign follows new - base */
	CHECK(near(ps_stat_change(-100, -50), 50.0, 1e-12));
	CHECK(near(ps_stat_change(-100, -150), -50.0, 1e-12));
	CHECK(near(ps_stat_change(-40, 40), 200.0, 1e-12));
	/* base 0 */
	CHECK(ps_stat_change(0, 0) == 0);
	CHECK(isinf(ps_stat_change(0, 3)) && ps_stat_change(0, 3) > 0);
	CHECK(isinf(ps_stat_change(0, -3)) && ps_stat_change(0, -3) < 0);
	CHECK_DONE();
}
