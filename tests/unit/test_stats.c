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
	/*
	 * Student's t, two-sided, against the tables' 5% critical values: 12.706
	 * (1 degree), 2.228 (10), 2.042 (30), 1.960 (the normal limit); each p is
	 * 0.0500 to the tables' three decimals.
	 */
	CHECK(near(ps_stat_t_p2(12.706, 1), 0.05, 2e-5));
	CHECK(near(ps_stat_t_p2(2.228, 10), 0.05, 5e-5));
	CHECK(near(ps_stat_t_p2(-2.042, 30), 0.05, 5e-5));
	CHECK(near(ps_stat_t_p2(1.96, 1e6), 0.05, 5e-5));
	CHECK(ps_stat_t_p2(0, 7) == 1);
	/* 1 degree is the Cauchy distribution: p = 1 - 2 atan(t) / pi exactly */
	CHECK(near(ps_stat_t_p2(3, 1), 1 - 2 * atan(3.0) / M_PI, 1e-12));
	/* I_x(1, 1) = x; I_x(a, 1) = x^a; symmetry I_x(a, b) = 1 - I_(1-x)(b, a) */
	CHECK(near(ps_stat_betai(1, 1, 0.3), 0.3, 1e-14));
	CHECK(near(ps_stat_betai(2.5, 1, 0.6), pow(0.6, 2.5), 1e-13));
	CHECK(near(ps_stat_betai(3.5, 0.5, 0.9), 1 - ps_stat_betai(0.5, 3.5, 0.1), 1e-13));

	/*
	 * Welch's test on the bundled repeats (testdata/numa2-repeats), worked by hand.
	 *
	 * 1. numa_miss of `pagesim stat` on w10_a..w10_g and w200_a..w200_g (7 runs each):
	 *    w10:  54837 65102 44366 59855 54908 55731 67719   sum 402518, mean 57502.571
	 *    w200: 65450 57448 59267 69159 61165 61565 62535   sum 436589, mean 62369.857
	 *    squared deviations from the mean: w10 357205693.71, w200 91558888.86
	 *    variances (/6): 59534282.29 and 15259814.81; over n (/7): 8504897.47 and 2179973.54
	 *    t  = (62369.857 - 57502.571) / sqrt(8504897.47 + 2179973.54)
	 *       = 4867.286 / 3268.771 = 1.4890
	 *    df = 10684871.01^2 / (8504897.47^2 / 6 + 2179973.54^2 / 6)
	 *       = 1.14167e14 / (1.20555e13 + 7.9205e11) = 8.886
	 *    p  = I_(df/(df+t^2))(df/2, 1/2) = I_0.8003(4.443, 0.5) = 0.171: not significant
	 *    (the spread between runs at one setting is larger than the change).
	 * 2. pageoutrun of the kernel (kernel-vmstat.tsv, after - before):
	 *    w10:  34 47 35 25 20 24 49   sum 234, mean 33.4286
	 *    w200:  9  7  5  7  6 13  8   sum  55, mean  7.8571
	 *    squared deviations: 769.714 and 40.857; variances 128.286 and 6.8095;
	 *    over n: 18.3265 and 0.97279
	 *    t  = (7.8571 - 33.4286) / sqrt(18.3265 + 0.97279) = -25.5714 / 4.3931 = -5.8208
	 *    df = 19.2993^2 / (18.3265^2 / 6 + 0.97279^2 / 6) = 372.463 / (55.977 + 0.15772) = 6.635
	 *    p  = I_(6.635/(6.635+33.882))(3.318, 0.5) = I_0.16376(3.318, 0.5) = 0.00079: significant
	 *    (p from integrating the t density numerically: 0.000789).
	 */
	{
		const int64_t w10[] = { 54837, 65102, 44366, 59855, 54908, 55731, 67719 };
		const int64_t w200[] = { 65450, 57448, 59267, 69159, 61165, 61565, 62535 };
		const int64_t o10[] = { 34, 47, 35, 25, 20, 24, 49 }, o200[] = { 9, 7, 5, 7, 6, 13, 8 };
		struct ps_stat a, b;
		struct ps_welch w;

		ps_stat_compute(w10, 7, &a);
		ps_stat_compute(w200, 7, &b);
		CHECK(ps_stat_welch(&a, &b, &w) == 0);
		CHECK(near(w.t, 1.4890, 5e-5));
		CHECK(near(w.df, 8.886, 5e-4));
		CHECK(near(w.p, 0.1711, 5e-5));
		CHECK(!(w.p < 0.05));
		ps_stat_compute(o10, 7, &a);
		ps_stat_compute(o200, 7, &b);
		CHECK(ps_stat_welch(&a, &b, &w) == 0);
		CHECK(near(w.t, -5.8208, 5e-5));
		CHECK(near(w.df, 6.635, 5e-4));
		CHECK(near(w.p, 0.000789, 5e-6));
		CHECK(w.p < 0.05);
		/* fewer than 2 repeats on a side: no test */
		ps_stat_compute(o200, 1, &b);
		CHECK(ps_stat_welch(&a, &b, &w) < 0);
	}
	/* no spread on either side: equal means p 1, different means p 0 */
	{
		const int64_t x[] = { 7, 7, 7 }, y[] = { 9, 9 };
		struct ps_stat a, b;
		struct ps_welch w;

		ps_stat_compute(x, 3, &a);
		ps_stat_compute(x, 2, &b);
		CHECK(ps_stat_welch(&a, &b, &w) == 0 && w.p == 1);
		ps_stat_compute(y, 2, &b);
		CHECK(ps_stat_welch(&a, &b, &w) == 0 && w.p == 0 && isinf(w.t));
	}
	CHECK_DONE();
}
