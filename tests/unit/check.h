/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check.h - minimal assertions for pagesim's unit tests.  Each CHECK counts;
 * a failure prints file:line and the expression and the test goes on;
 * CHECK_DONE() prints "N passed, N failed" and returns the exit status.
 */
#ifndef PS_CHECK_H
#define PS_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static int check_pass, check_fail;

#define CHECK(expr)                                                                   \
	do {                                                                          \
		if (expr) {                                                           \
			check_pass++;                                                 \
		} else {                                                              \
			check_fail++;                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #expr); \
		}                                                                     \
	} while (0)

#define CHECK_EQ(a, b)                                                                \
	do {                                                                          \
		long long _a = (long long)(a), _b = (long long)(b);                   \
		if (_a == _b) {                                                       \
			check_pass++;                                                 \
		} else {                                                              \
			check_fail++;                                                 \
			fprintf(stderr, "%s:%d: CHECK_EQ failed: %s == %lld, %s == %lld\n", __FILE__, \
				__LINE__, #a, _a, #b, _b);                            \
		}                                                                     \
	} while (0)

#define CHECK_DONE()                                                                  \
	do {                                                                          \
		printf("%d passed, %d failed\n", check_pass, check_fail);             \
		return check_fail ? 1 : 0;                                            \
	} while (0)

#endif
