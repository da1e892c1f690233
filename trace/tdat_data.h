/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tdat_data.h - the per-CPU event data of a trace.dat, read without
 * libtracecmd's record path.
 *
 * libtracecmd still opens the file (event formats, cmdlines, uname, which
 * buffer holds the events); this reads that buffer's per-CPU data sections
 * itself: v7 options sections (compressed or not) give the data offsets and
 * sizes, v6 the flyrecord table; zstd chunks are decompressed one at a time
 * into one buffer per CPU, so memory is bounded by CPUs x chunk size.
 * Ring-buffer pages are parsed here (the layout libtraceevent's kbuffer
 * reads, checked against the page bounds), records are merged by timestamp
 * (ties: lower CPU first) and carry the timestamps and offsets
 * libtracecmd 1.3 would give them.
 */
#ifndef PS_TDAT_DATA_H
#define PS_TDAT_DATA_H

#include <stdint.h>

#include <trace-cmd/trace-cmd.h>
#include <traceevent/event-parse.h>

#include "lib/error.h"

struct ps_reader;
struct ps_tdat_data;

/*
 * Prepares reading the buffer @instance ("" for the top-level one) of the
 * trace.dat on @fd, @ncpu CPUs (as libtracecmd counts them), @tep its event
 * formats, @v6_options where a v6 file's options start (libtracecmd's
 * tracecmd_get_options_offset(); v7 files give it in their header).
 * Everything else is read from @fd.  Returns the reader; NULL with *why set
 * when the file holds something this does not handle (the caller then reads
 * through libtracecmd), or NULL with @err filled and *why NULL on a fatal
 * error (damage found in the first pages, with --strict).
 */
struct ps_tdat_data *ps_tdat_data_open(struct ps_reader *r, int fd, struct tep_handle *tep,
				       uint64_t v6_options, const char *instance, int ncpu,
				       const char **why, struct ps_error *err);

/*
 * The next record by time in *rec (valid until the next call): 1, 0 at
 * the end, -1 on a fatal error (@err filled).  Damaged pages are skipped
 * and counted on @r.
 */
int ps_tdat_data_next(struct ps_tdat_data *d, struct ps_reader *r, struct tep_record **rec,
		      struct ps_error *err);

/* Whether the buffer holds any record. */
int ps_tdat_data_any(const struct ps_tdat_data *d);

void ps_tdat_data_close(struct ps_tdat_data *d);

#endif
