/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * perf_tracing.h - the tracing data a perf.data carries (its
 * HEADER_TRACING_DATA feature section, or a pipe's
 * PERF_RECORD_HEADER_TRACING_DATA): the event formats of the tracepoints
 * recorded, in the layout trace-cmd's files begin with, parsed by
 * libtraceevent.
 */
#ifndef PS_PERF_TRACING_H
#define PS_PERF_TRACING_H

#include <stddef.h>
#include <stdint.h>

#include "lib/error.h"

struct tep_handle;

/*
 * Parses the @len bytes at @buf into a new tep_handle (the caller frees it
 * with tep_free()); NULL with @err filled (naming @path) when the data is
 * damaged or from a big-endian machine.  With @lent, the data is checked
 * the same way but its formats are not parsed: @lent is returned, holding
 * formats parsed before (for fuzz/fuzz_perf.c: pagesim's reading without
 * libtraceevent's parser).
 */
struct tep_handle *ps_perf_tracing_parse(const uint8_t *buf, size_t len, const char *path,
					 struct tep_handle *lent, struct ps_error *err);

#endif
