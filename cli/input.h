/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * input.h - open a trace together with the machine it was recorded on:
 * the layout comes from --sysroot, else from a `before/` directory beside
 * the trace, else an assumed single-node x86-64 layout (with a warning);
 * the kernel release from --kernel, else the trace, else the sysroot.
 */
#ifndef PS_INPUT_H
#define PS_INPUT_H

#include "lib/machine.h"
#include "trace/reader.h"

struct ps_input {
	struct ps_reader *reader;
	const char *trace;
	struct ps_machine machine;
	char sysroot[4096];	/* "" when none; the trace's path when embedded */
	int embedded;		/* the layout came from snapshots inside the trace */
	int pageblock_order;
	int verbose;
};

struct ps_input_opts {
	const char *trace;
	const char *sysroot;	/* may be NULL */
	const char *kernel;	/* may be NULL */
	unsigned int reader_flags;
	int quiet;
	int verbose;		/* also the layout used and the events of other kinds skipped */
};

/* Returns 0, or prints the error and returns -1. */
int ps_input_open(struct ps_input *in, const struct ps_input_opts *o);
void ps_input_close(struct ps_input *in);

/* The sibling after/ of a sysroot named .../before, into @out; 1 if it is a directory. */
int ps_input_default_after(const char *sysroot, char *out, size_t len);

/*
 * A number from the recorded machine's proc/sys (e.g. "vm/min_free_kbytes"):
 * 0, 1 if the sysroot has none, -1 with @err if it has one that is not a
 * number or cannot be read.
 */
int ps_input_sysctl(struct ps_input *in, const char *name, long *value, struct ps_error *err);

/*
 * Prints what the reader skipped or lost (stderr); events of other kinds
 * (sched, print, ...) only when verbose: the counters never see them.  Returns -1 if the input
 * was truncated or held no kmem page event at all (the caller exits 1).
 */
int ps_input_report(struct ps_input *in, int quiet, int allow_truncated);

#endif
