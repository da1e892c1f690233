/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep.h - pagesim sweep: many policies over many traces.  A sweep lives
 * in a directory: manifest.json (the plan: pagesim version, each trace with
 * its sha256, each cell with its full policy) and cells/ID.vmstat, the
 * counters of one cell in stat's "name value" form after '#' header lines
 * naming the version, the trace and the policy.  ID is a hash of the
 * trace's sha256, the mode and the full policy, so the same sweep gives the
 * same files, and a cell whose file exists with this version's header is
 * not run again.
 *
 * sweep_plan.c plans a sweep and reads and writes the manifest (json-c);
 * sweep_run.c runs cells, reading each trace once per pass for all of its
 * cells; cmd_sweep.c is the command (run, --cell, --collect, --report, --emit).
 */
#ifndef PS_SWEEP_H
#define PS_SWEEP_H

#include <stdint.h>

#include "lib/error.h"

#define SWEEP_MAX_AXES 16

struct sweep_trace {
	char *path;		/* absolute: array tasks run from anywhere */
	char *name;		/* its file name, for labels and headers */
	char sha256[65];
	uint64_t bytes;
	int verified;		/* its sha256 was computed by this process */
};

struct sweep_cell {
	int trace;		/* index into sweep.traces */
	char id[17];		/* 16 hex digits of the sha256 of (trace, mode, policy) */
	char *label;		/* "wsf=200,zrm=1", a --policy name, or "recorded" */
	int baseline;		/* the recorded policy of its trace */
	char **values;		/* the full policy: one per ps_policyopt key ("-": the model's) */
	char *policy;		/* the --policy item it started from (NULL: the recorded one) */
	int nr_sets;
	char **sets;		/* its KEY=VALUE items of the --set axes */
	int nr_outputs;		/* 1, or the ensemble's members */
	char **outputs;		/* "cells/ID.vmstat", relative to the sweep directory */
};

struct sweep_axis {
	char *key;
	int nr;
	char **values;
};

struct sweep {
	char *dir;
	int simulate;		/* --mode simulate (1) or follow (0) */
	int ensemble;		/* members per cell (1: none) */
	int nr_axes;
	struct sweep_axis axes[SWEEP_MAX_AXES];
	int nr_policies;
	char **policies;	/* --policy items ("recorded" when none given) */
	int nr_traces;
	struct sweep_trace *traces;
	int nr_cells;
	struct sweep_cell *cells;
};

/* What the command line asks for (sweep_plan). */
struct sweep_args {
	int simulate, ensemble;
	int nr_axes;
	const char *axes[SWEEP_MAX_AXES];	/* "KEY=V1,V2,..." */
	const char *policies;			/* "P1,P2,..." or NULL */
	int nr_traces;
	char **traces;
};

/* Plans @a into @s (cells in order: per trace, the baseline, then the product). */
int sweep_plan(struct sweep *s, const char *dir, const struct sweep_args *a, struct ps_error *err);
/* Writes DIR/manifest.json (replaced only once complete). */
int sweep_write_manifest(const struct sweep *s, struct ps_error *err);
/* Reads DIR/manifest.json. */
int sweep_load(struct sweep *s, const char *dir, struct ps_error *err);
void sweep_free(struct sweep *s);

/* The sha256 of a file as 64 hex digits. */
int sweep_sha256_file(const char *path, char out[65], uint64_t *bytes, struct ps_error *err);

/* The full path of output @o of cell @c (caller frees). */
char *sweep_output_path(const struct sweep *s, const struct sweep_cell *c, int o);

/*
 * 1 when every output of cell @c exists with this version's header for this
 * cell; 0 when one is missing or stale; 2 when the cell failed (its .err file
 * holds why, in @why when not NULL).
 */
int sweep_cell_state(const struct sweep *s, const struct sweep_cell *c, char *why, int len);

/*
 * Runs the cells @which[0..n) of @s with up to @jobs threads: each trace is
 * read once per pass for all of its cells.  A cell that fails leaves
 * cells/ID.err.  Progress on stderr when it is a terminal and !@quiet.
 * Returns the number of cells that failed, or -1 when nothing could run.
 */
int sweep_run(struct sweep *s, const int *which, int n, int jobs, int group_size, int quiet);

#endif
