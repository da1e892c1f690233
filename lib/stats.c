// SPDX-License-Identifier: GPL-2.0-or-later
/* stats.c - mean, sample stddev, %change and Welch's t-test for pagesim diff (see stats.h). */
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

/*
 * The continued fraction of I_x(a, b) (x below the mean a/(a+b), where it
 * converges fast), evaluated from the front with the modified Lentz method:
 * 1/(1+ d1/(1+ d2/(1+ ...))) with d(2m+1) = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1))
 * and d(2m) = m(b-m)x / ((a+2m-1)(a+2m)).
 */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 10000; m++) {
		double m2 = 2.0 * m, num, delta;

		num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		delta = d * c;
		h *= delta;
		if (fabs(delta - 1) < eps)
			break;
	}
	return h;
}

double ps_stat_betai(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	/* x^a (1-x)^b / B(a, b), in logs: no overflow for large a or b */
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, 1 - x) / b;
}

double ps_stat_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0;
	return ps_stat_betai(df / 2, 0.5, df / (df + t * t));
}

int ps_stat_welch(const struct ps_stat *a, const struct ps_stat *b, struct ps_welch *w)
{
	double qa, qb, se2;

	if (a->n < 2 || b->n < 2 || a->sd < 0 || b->sd < 0)
		return -1;
	qa = a->sd * a->sd / a->n;
	qb = b->sd * b->sd / b->n;
	se2 = qa + qb;
	if (se2 == 0) {
		/* no spread on either side: any difference is certain, none is none */
		w->df = a->n + b->n - 2;
		w->t = b->mean == a->mean ? 0 : b->mean > a->mean ? INFINITY : -INFINITY;
		w->p = b->mean == a->mean ? 1 : 0;
		return 0;
	}
	w->t = (b->mean - a->mean) / sqrt(se2);
	w->df = se2 * se2 / (qa * qa / (a->n - 1) + qb * qb / (b->n - 1));
	w->p = ps_stat_t_p2(w->t, w->df);
	return 0;
}
