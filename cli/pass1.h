/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pass1.h - the pass-1 summary between the writers of pagesim files
 * (convert, record) and replay, which then reads such a file once.
 */
#ifndef PS_CLI_PASS1_H
#define PS_CLI_PASS1_H

#include <stdint.h>

#include "lib/machine.h"
#include "sim/replay/replay.h"
#include "sim/replay/summary.h"
#include "trace/pgs.h"
#include "cli/input.h"

/*
 * A summary of what @w is given from here on, for a trace of @m (which
 * must outlive it); NULL when there can be none (no zones, out of memory):
 * the file then carries none and replay reads it twice.
 */
struct ps_pass1_summary *ps_pass1_attach(struct ps_pgs_writer *w, const struct ps_machine *m);

/* Stores @s in @w (before ps_pgs_writer_finish()) and frees it: 0, or -1 with @err. */
int ps_pass1_store(struct ps_pgs_writer *w, struct ps_pass1_summary *s, struct ps_error *err);

/*
 * Pass 1 of @r from the summary @in carries, if it has one that fits @r
 * (pass 1 would have read tasks when @with_comm): 1, and @in then names
 * tasks for pass 2 and must yield *@events events; 0 when pass 1 must read
 * the trace.
 */
int ps_pass1_from_summary(struct ps_input *in, struct ps_replay *r, int with_comm, uint64_t *events);

#endif
