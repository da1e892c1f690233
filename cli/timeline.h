/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h - what stat and replay share to show more than their totals:
 * the options (--interval, --timeline, --timeline-format, --comm, --pid,
 * --cpu, --time, --by), the event filter, trace_marker names for --time,
 * the timeline file (CSV or JSON lines, with its header) and the
 * breakdowns of --by.
 */
#ifndef PS_CLI_TIMELINE_H
#define PS_CLI_TIMELINE_H

#include <stdint.h>
#include <stdio.h>

#include "lib/event.h"
#include "lib/machine.h"
#include "trace/reader.h"
#include "sim/replay/timeline.h"
#include "cli/cli.h"

/* Option codes (above the commands' own, below PS_OPT_VERSION). */
enum {
	PS_OPT_INTERVAL = 0x7f00,
	PS_OPT_TIMELINE,
	PS_OPT_TL_FORMAT,
	PS_OPT_COMM,
	PS_OPT_PID,
	PS_OPT_CPU,
	PS_OPT_TIME,
	PS_OPT_BY,
	PS_OPT_VIEW_LAST = PS_OPT_BY,
};

#define PS_VIEW_OPTIONS                                                   \
	{ "interval", required_argument, NULL, PS_OPT_INTERVAL },         \
	{ "timeline", required_argument, NULL, PS_OPT_TIMELINE },         \
	{ "timeline-format", required_argument, NULL, PS_OPT_TL_FORMAT }, \
	{ "comm", required_argument, NULL, PS_OPT_COMM },                 \
	{ "pid", required_argument, NULL, PS_OPT_PID },                   \
	{ "cpu", required_argument, NULL, PS_OPT_CPU },                   \
	{ "time", required_argument, NULL, PS_OPT_TIME },                 \
	{ "by", required_argument, NULL, PS_OPT_BY }

/* --help lines of the options above (no '%': replay's usage is a printf format). */
#define PS_VIEW_USAGE                                                                              \
	"  --timeline FILE    write a time series to FILE: one row per interval of trace time\n"      \
	"                     (counters as per-interval deltas, levels as values at the end)\n"      \
	"  --interval DUR     the timeline's interval: 10ms, 1s, 500us, 2.5s (default 1s)\n"        \
	"  --timeline-format FMT  csv (default; '#' header lines) or jsonl (JSON lines)\n"         \
	"  --by KEYS          allocations and frees per group instead of the totals: one or more\n"  \
	"                     of order, migratetype, gfp, task, cpu, zone, comma-separated\n"        \
	"                     (rows sorted by the keys in that order, as perf kmem stat --page)\n"   \
	"  --comm NAME        count only the events of tasks named NAME (repeatable, or a,b)\n"     \
	"  --pid PIDS         count only the events of these pids (1234,1240)\n"                    \
	"  --cpu CPUS         count only the events on these CPUs (a cpulist: 0-3,8)\n"              \
	"  --time START,END   count only the events from START to END after the trace's first\n"   \
	"                     event (durations as --interval; either may be left out), or\n"       \
	"                     between trace_marker writes named so (text traces)\n"

enum ps_by_key { PS_BY_ORDER, PS_BY_MT, PS_BY_GFP, PS_BY_TASK, PS_BY_CPU, PS_BY_ZONE, PS_BY_NR };

struct ps_filter {
	int on;
	const char *comm[32];
	int nr_comm;
	int32_t *pid;
	int nr_pid;
	uint64_t cpu[PS_MAX_CPUS / 64];
	int has_cpu;
	/* --time: each end a duration after the first event or a marker's name */
	int has_time, time_resolved;
	char *time_arg[2];
	int64_t time_rel[2];	/* -1: a marker (time_abs from the markers) or open */
	uint64_t time_abs[2];	/* resolved at the first event */
	int time_open[2];
	uint64_t t0;
};

struct ps_view_opts {
	const char *timeline;
	uint64_t interval_ns;
	int jsonl;
	int by[PS_BY_NR], nr_by;
	struct ps_filter f;
	char *comm_text[32];	/* the --comm arguments f.comm points into */
	int nr_comm_text;
};

/*
 * One of the options above (@opt, @arg) into @o.  Returns 0, or the exit
 * status of a usage error (printed as "pagesim @cmd: ...").
 */
int ps_view_opt(struct ps_view_opts *o, const char *cmd, int opt, const char *arg);

/* Checks the options together; 0 or a usage exit status. */
int ps_view_check(struct ps_view_opts *o, const char *cmd);

void ps_view_free(struct ps_view_opts *o);

/* "10ms", "1s", "500us", "2.5s", "100ns", "3" (seconds) -> ns; -1 on a syntax error. */
int ps_parse_duration(const char *s, uint64_t *ns);

/*
 * --time with marker names: finds them in @trace's trace_marker writes
 * (ftrace and trace-cmd report text, zstd or not; the other formats keep
 * none).  0, or -1 after printing why not.
 */
int ps_filter_load_markers(struct ps_filter *f, const char *trace);

/* Whether @ev is selected (call for every event in trace order; resolves --time at the first). */
int ps_filter_match(struct ps_filter *f, const struct ps_event *ev);

/* "--comm kswapd0 --time 1s,2s" as given, or "none", into @buf. */
void ps_filter_describe(const struct ps_filter *f, char *buf, size_t len);

/*
 * The timeline file: header (@meta: @nr_meta name/value pairs naming the
 * trace, policy, ...; the pagesim version is added), then rows.  Written
 * through ps_out: the file appears only once complete.
 */
struct ps_tl_out {
	struct ps_out out;
	int jsonl;
	int header_done;
	char **meta;
	int nr_meta;
	char *buf;
	size_t cap;
	int failed;
};

int ps_tl_out_open(struct ps_tl_out *w, const struct ps_view_opts *o, const char *const *meta, int nr_meta);
/* ps_tl_row_fn for a struct ps_tl_out */
void ps_tl_out_row(void *ctx, const struct ps_timeline *t, uint64_t start_ns, uint64_t end_ns, const int64_t *row);
/* Writes the header if no row came, commits; 0 or -1 with @err. */
int ps_tl_out_close(struct ps_tl_out *w, const struct ps_timeline *t, struct ps_error *err);
void ps_tl_out_abort(struct ps_tl_out *w);

/* --by: groups of allocations and frees (breakdown.c). */
struct ps_by;

struct ps_by *ps_by_create(const struct ps_view_opts *o, const struct ps_machine *m);
void ps_by_destroy(struct ps_by *b);
/* One event and what it counted; the event's fields name its group. */
void ps_by_count(struct ps_by *b, const struct ps_event *ev, const struct ps_counted *d);
/* The table (or JSON with @meta first) to @path; 0 or -1 (printed). */
int ps_by_write(struct ps_by *b, const char *path, int json, const char *const *meta, int nr_meta);
/* Whether the options need each event's task (PS_RD_COMM). */
int ps_view_needs_comm(const struct ps_view_opts *o);

/* A command's view: the options, the timeline file, the groups (callbacks for struct ps_replay_view). */
struct ps_view_run {
	struct ps_view_opts *o;
	struct ps_tl_out w;
	int have_w;
	struct ps_by *by;
};

/*
 * stat's loop under the view: counts @rd's events into @c, the selected
 * ones only, with the timeline's rows and the groups.  Returns the reader's
 * last result (0 at the end, -1 on an error in @err).
 */
int ps_view_count(struct ps_view_run *v, struct ps_reader *rd, struct ps_counters *c, struct ps_error *err);

int ps_view_select(void *ctx, const struct ps_event *ev);
void ps_view_counted(void *ctx, const struct ps_event *ev, const struct ps_counted *d);
void ps_view_row(void *ctx, const struct ps_timeline *t, uint64_t start_ns, uint64_t end_ns, const int64_t *row);

#endif
