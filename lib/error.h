/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * error.h - one error convention: functions return 0 (or a count) on
 * success and a negative value on failure, with the message in a
 * struct ps_error the caller owns.  Messages say what failed, where
 * (file:line or byte offset) and what to try next; lower case, no full stop.
 */
#ifndef PS_ERROR_H
#define PS_ERROR_H

struct ps_error {
	char msg[512];
};

/* Sets err->msg (printf format; err->msg may be an argument); returns -1 so callers can `return ps_err(...)`. */
int ps_err(struct ps_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
