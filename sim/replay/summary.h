/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * summary.h - the pass-1 summary a pagesim file carries (summary.c builds
 * it, prepass.c reads it; docs/pagesim-format.md, "The pass-1 summary").
 */
#ifndef PS_REPLAY_SUMMARY_H
#define PS_REPLAY_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "lib/event.h"
#include "lib/machine.h"

#define PS_PASS1_BLOB "pass1"		/* the blob's name in a pagesim file */
#define PS_PASS1_MAGIC "PSP1"
#define PS_PASS1_VERSION 1
#define PS_PASS1_HDR 48			/* bytes before the zones */
#define PS_PASS1_ZONE 32		/* bytes per zone */
#define PS_PASS1_REC 24			/* bytes per kept event */

struct ps_pass1_summary;

/* A summary of a trace of @m (which must outlive it); NULL when @m has no zones or out of memory. */
struct ps_pass1_summary *ps_pass1_summary_create(const struct ps_machine *m);

/* Each event of the trace, in the order the file holds them. */
void ps_pass1_summary_event(struct ps_pass1_summary *s, const struct ps_event *ev);

/* The summary's bytes (malloc'd, *@len), or NULL out of memory: the file then carries none. */
void *ps_pass1_summary_finish(struct ps_pass1_summary *s, size_t *len);

void ps_pass1_summary_free(struct ps_pass1_summary *s);

#endif
