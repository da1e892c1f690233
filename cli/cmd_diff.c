// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_diff.c - pagesim diff: counters of a base and of one or more new
 * columns side by side, in the kernel test robot's %stddev/%change rows,
 * in mmtests' column tables (Amean, Stddev, CoeffVar rows over repeats),
 * as CSV, JSON or vmstat lines.  Each column is a group of repeats (mean,
 * sample stddev, Welch's t-test against the base); inputs are read by
 * cli/diffin.c.  pagesim sweep --report prints its tables through
 * ps_diff_print().
 */
#include <getopt.h>
#include <json-c/json.h>
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/stats.h"
#include "cli/cli.h"
#include "cli/diff.h"
#include "cli/diffin.h"

static const char diff_usage[] =
	"usage: pagesim diff [OPTIONS] BASE NEW [NEW...]\n"
	"       pagesim diff [OPTIONS] --label NAME=BASE --label NAME=NEW [...]\n"
	"\n"
	"Compares counters: BASE and each NEW is one column, and a column is a group of\n"
	"repeats: a glob pattern ('base/*.vmstat', expanded by pagesim when the shell did\n"
	"not) or paths joined with commas (a.vmstat,b.vmstat).  A column shows the mean\n"
	"over its repeats and the sample stddev; where BASE and a NEW both have repeats,\n"
	"Welch's t-test marks the changes significant at p < 0.05.  Inputs are\n"
	"recognised by content:\n"
	"  - 'name value' lines: pagesim stat output, a raw /proc/vmstat, a sweep's cell\n"
	"    file (its '#' lines name the trace, the policy and the pagesim version);\n"
	"  - a raw nodeN/numastat (node from the path .../nodeN/numastat, else --node N);\n"
	"  - pagesim stat --format json output;\n"
	"  - a run directory holding before/ and after/ sysroots: after - before of\n"
	"    proc/vmstat and of each node's numastat, as the test robot reduces counters;\n"
	"  - a sysroot directory (with proc/vmstat): its counters as they are.\n"
	"Node counters are named node<N>.<name>, as pagesim stat names them.\n"
	"\n"
	"Rows: by default the kernel's counters that changed: numa_* and each node's\n"
	"numastat, pgalloc_*, pgfree, extfrag_*, and reclaim and compaction (pgsteal_*,\n"
	"pgscan_*, pgrefill, pgdemote_*, pageoutrun, kswapd_*, allocstall_*,\n"
	"zone_reclaim_*, slabs_scanned, compact_*); the model's (model_*, replay_*) and\n"
	"the lock model's (zone_lock_*, ...) with --all or --include.\n"
	"\n"
	"options:\n"
	"  --format FMT       lkp (default): 'base ±sd%  %change  new ±sd%  name' rows as the\n"
	"                     kernel test robot prints them ('*' after a significant change);\n"
	"                     columns: one column per input, 'value ( +x.x%)' against the\n"
	"                     first, as mmtests compares, and with repeats its Amean, Stddev\n"
	"                     and CoeffVar rows ('*  x.xx%*' where significant); csv: one\n"
	"                     row per counter and column; json: columns, means, stddevs,\n"
	"                     changes and p; vmstat: each column's means as 'name value'\n"
	"  --all              every counter, also unchanged ones and ones some column lacks\n"
	"                     (--min-change is then ignored)\n"
	"  --include REGEX    also the counters REGEX matches (POSIX extended, anywhere\n"
	"                     in the name: --include '^model_')\n"
	"  --exclude REGEX    not the counters REGEX matches (also under --all)\n"
	"  --label NAME=PATH  call the column PATH NAME (NAME may hold '=': wsf=200); a\n"
	"                     PATH that is no BASE or NEW argument is a column of its own,\n"
	"                     after them\n"
	"  --min-change PCT   hide counters whose |%change| is below PCT in every NEW\n"
	"  --sort ORDER       input (default: the order of BASE), name, or change (largest\n"
	"                     |%change| against the first NEW first)\n"
	"  --per-node         name node counters as the test robot does:\n"
	"                     numa-numastat.node0.local_node instead of node0.local_node\n"
	"  --node N           the node of numastat files whose path does not say\n"
	"  -o, --output FILE  write to FILE (replaced only once complete) instead of stdout\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"%change = 100 * (new - base) / |base|; +inf when base is 0 and new is not.\n"
	"'± N%' (100 * stddev / mean) is shown only above 2%, as the robot does.\n"
	"Welch's t = (mean_new - mean_base) / sqrt(var_base/n_base + var_new/n_new), its\n"
	"degrees of freedom Welch-Satterthwaite's, p two-sided from Student's t.\n"
	"In json, change_pct and p are null when a column lacks the counter, the base is\n"
	"0, or a side has fewer than 2 repeats.\n"
	"\n"
	"exit status: 0 success, 1 failure (unreadable or bad input), 2 bad usage\n";

enum { OPT_FORMAT = 256, OPT_ALL, OPT_MIN_CHANGE, OPT_SORT, OPT_PER_NODE, OPT_NODE, OPT_INCLUDE, OPT_EXCLUDE,
       OPT_LABEL };

const struct option ps_diff_report_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "per-node", no_argument, NULL, OPT_PER_NODE },
	{ NULL, 0, NULL, 0 },
};

static const struct option diff_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "per-node", no_argument, NULL, OPT_PER_NODE },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

enum order { ORDER_INPUT, ORDER_NAME, ORDER_CHANGE };

/* The kernel's own counters: what a diff shows unless told otherwise. */
static const char kernel_rows[] =
	"^(numa_(hit|miss|foreign|interleave|local|other)"
	"|node[0-9]+\\.(numa_hit|numa_miss|numa_foreign|interleave_hit|local_node|other_node)"
	"|pgalloc_[a-z0-9]+|pgfree|extfrag_.*"
	"|pgsteal_.*|pgscan_.*|pgrefill|pgdemote_.*|pageoutrun|kswapd_.*|allocstall_.*|zone_reclaim_.*"
	"|slabs_scanned|compact_.*)$";

struct column {
	const char *arg;		/* as given on the command line */
	const char *label;		/* as printed */
	char **paths;
	int nr;				/* repeats */
	struct ps_kv *reps;		/* one per path */
	struct ps_kv *sds;		/* a replay --ensemble column's stddevs (reps[0] its means), in thousandths */
	enum ps_diffin_kind kind;
	struct ps_diffin_meta meta;	/* of its first repeat */
	int integral;			/* every shown mean is an integer: one number format per column */
};

struct row {
	char name[96];			/* as printed */
	char raw[64];			/* as read */
	int input;			/* position in the union of names, BASE first */
	struct ps_stat *st;		/* per column */
	double *change;			/* per column; [0] unused; NAN when a side is missing */
	double *p;			/* per column; [0] unused; NAN without a test */
	double key;			/* |change| against the first NEW, for --sort change */
};

struct diff {
	struct column *cols;
	int nr_cols;
	struct row *rows;
	int nr_rows;
};

void ps_diff_opts_init(struct ps_diff_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->node = -1;
}

int ps_diff_opts_parse(struct ps_diff_opts *o, int opt, const char *arg, const char *cmd)
{
	char *end;
	int rc;

	switch (opt) {
	case OPT_FORMAT:
		if (!strcmp(arg, "lkp"))
			o->fmt = PS_DIFF_LKP;
		else if (!strcmp(arg, "columns"))
			o->fmt = PS_DIFF_COLUMNS;
		else if (!strcmp(arg, "json"))
			o->fmt = PS_DIFF_JSON;
		else if (!strcmp(arg, "csv"))
			o->fmt = PS_DIFF_CSV;
		else if (!strcmp(arg, "vmstat"))
			o->fmt = PS_DIFF_VMSTAT;
		else
			return ps_usage_error(cmd, "--format must be lkp, columns, csv, json or vmstat, not '%s'", arg);
		return 0;
	case OPT_ALL:
		o->all = 1;
		return 0;
	case OPT_INCLUDE:
	case OPT_EXCLUDE: {
		regex_t *re = opt == OPT_INCLUDE ? &o->include : &o->exclude;
		int *has = opt == OPT_INCLUDE ? &o->has_include : &o->has_exclude;

		if (*has)
			return ps_usage_error(cmd, "--%s given twice: join the patterns with |",
					      opt == OPT_INCLUDE ? "include" : "exclude");
		rc = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
		if (rc) {
			char msg[128];

			regerror(rc, re, msg, sizeof(msg));
			return ps_usage_error(cmd, "--%s '%s': %s", opt == OPT_INCLUDE ? "include" : "exclude", arg, msg);
		}
		*has = 1;
		return 0;
	}
	case OPT_MIN_CHANGE:
		o->min_change = strtod(arg, &end);
		if (end == arg || *end || !(o->min_change >= 0) || isinf(o->min_change))
			return ps_usage_error(cmd, "--min-change takes a percentage >= 0, not '%s'", arg);
		return 0;
	case OPT_SORT:
		if (!strcmp(arg, "input"))
			o->order = ORDER_INPUT;
		else if (!strcmp(arg, "name"))
			o->order = ORDER_NAME;
		else if (!strcmp(arg, "change"))
			o->order = ORDER_CHANGE;
		else
			return ps_usage_error(cmd, "--sort must be input, name or change, not '%s'", arg);
		return 0;
	case OPT_PER_NODE:
		o->per_node = 1;
		return 0;
	}
	return -1;
}

static void diff_free(struct diff *d)
{
	for (int c = 0; c < d->nr_cols; c++) {
		struct column *col = &d->cols[c];

		for (int r = 0; r < col->nr && col->reps; r++) {
			ps_kv_free(&col->reps[r]);
			if (col->sds)
				ps_kv_free(&col->sds[r]);
		}
		free(col->reps);
		free(col->sds);
		ps_diffin_paths_free(col->paths, col->nr);
	}
	free(d->cols);
	for (int i = 0; i < d->nr_rows; i++) {
		free(d->rows[i].st);
		free(d->rows[i].change);
		free(d->rows[i].p);
	}
	free(d->rows);
}

/* Counts over a run (delta), since boot (absolute), or either (a vmstat-style file). */
static int kind_class(enum ps_diffin_kind k)
{
	switch (k) {
	case PS_DIFFIN_RUN:
	case PS_DIFFIN_JSON:
		return 1;
	case PS_DIFFIN_SNAPSHOT:
	case PS_DIFFIN_NUMASTAT:
		return 2;
	default:
		return 0;
	}
}

static int load_column(struct column *col, int node)
{
	struct ps_error err = { { 0 } };

	if (!col->paths) {
		int n = ps_diffin_expand(col->arg, &col->paths, &err);

		if (n < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
		col->nr = n;
	}
	col->reps = calloc(col->nr, sizeof(*col->reps));
	col->sds = calloc(col->nr, sizeof(*col->sds));
	if (!col->reps || !col->sds) {
		ps_error("out of memory");
		return -1;
	}
	for (int r = 0; r < col->nr; r++) {
		enum ps_diffin_kind kind;
		struct ps_diffin_meta meta;

		ps_kv_init(&col->reps[r]);
		ps_kv_init(&col->sds[r]);
		ps_note_input(col->paths[r]);
		if (ps_diffin_load_full(col->paths[r], node, &col->reps[r], &col->sds[r], &kind, &meta, &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
		if (kind == PS_DIFFIN_ENSEMBLE && col->nr > 1) {
			/* its N replays are the column's repeats already */
			ps_error("'%s' is a replay --ensemble file: give it as a column of its own, not in the group '%s'",
				 col->paths[r], col->arg);
			return -1;
		}
		if (r == 0) {
			col->kind = kind;
			col->meta = meta;
		} else if (kind != col->kind) {
			ps_error("mismatched kinds in the group '%s': '%s' is a %s but '%s' is a %s",
				 col->arg, col->paths[0], ps_diffin_kind_name(col->kind), col->paths[r],
				 ps_diffin_kind_name(kind));
			return -1;
		} else if (strcmp(meta.trace, col->meta.trace)) {
			/* repeats of several traces: the header names them all */
			size_t l = strlen(col->meta.trace);

			if (!strstr(col->meta.trace, meta.trace) && l + strlen(meta.trace) + 2 < sizeof(col->meta.trace))
				snprintf(col->meta.trace + l, sizeof(col->meta.trace) - l, ",%s", meta.trace);
		}
	}
	return 0;
}

static int shares_a_counter(const struct column *a, const struct column *b)
{
	for (int i = 0; i < a->reps[0].nr; i++)
		if (ps_kv_get(&b->reps[0], a->reps[0].items[i].name))
			return 1;
	return 0;
}

static int check_kinds(const struct diff *d)
{
	const struct column *base = &d->cols[0];

	for (int c = 1; c < d->nr_cols; c++) {
		const struct column *col = &d->cols[c];
		int a = kind_class(base->kind), b = kind_class(col->kind);

		if (a && b && a != b) {
			ps_error("mismatched kinds: '%s' is a %s (%s) but '%s' is a %s (%s)",
				 base->paths[0], ps_diffin_kind_name(base->kind),
				 a == 1 ? "counts over a run" : "counts since boot", col->paths[0],
				 ps_diffin_kind_name(col->kind),
				 b == 1 ? "counts over a run" : "counts since boot");
			return -1;
		}
		if (!shares_a_counter(base, col)) {
			ps_error("mismatched kinds: '%s' (%s) has no counter in common with '%s' (%s)",
				 col->paths[0], ps_diffin_kind_name(col->kind), base->paths[0],
				 ps_diffin_kind_name(base->kind));
			return -1;
		}
	}
	return 0;
}

static void display_name(char *out, size_t len, const char *name, int per_node)
{
	if (per_node && !strncmp(name, "node", 4) && name[4] >= '0' && name[4] <= '9' &&
	    strchr(name, '.'))
		snprintf(out, len, "numa-numastat.%s", name);
	else
		snprintf(out, len, "%s", name);
}

/* The union of names (BASE's order, then new ones as met) and their statistics. */
static int build_rows(struct diff *d, int per_node)
{
	struct ps_kv names;
	int64_t *vals = NULL;
	int maxrep = 0, ret = -1;

	ps_kv_init(&names);
	for (int c = 0; c < d->nr_cols; c++) {
		if (d->cols[c].nr > maxrep)
			maxrep = d->cols[c].nr;
		for (int r = 0; r < d->cols[c].nr; r++) {
			const struct ps_kv *kv = &d->cols[c].reps[r];

			for (int i = 0; i < kv->nr; i++) {
				const char *name = kv->items[i].name;

				if (!ps_kv_get(&names, name) && ps_kv_set(&names, name, 0) < 0)
					goto nomem;
			}
		}
	}
	vals = malloc(maxrep * sizeof(*vals));
	d->rows = calloc(names.nr ? names.nr : 1, sizeof(*d->rows));
	if (!vals || !d->rows)
		goto nomem;
	for (int i = 0; i < names.nr; i++) {
		struct row *row = &d->rows[d->nr_rows++];

		display_name(row->name, sizeof(row->name), names.items[i].name, per_node);
		snprintf(row->raw, sizeof(row->raw), "%s", names.items[i].name);
		row->input = i;
		row->st = calloc(d->nr_cols, sizeof(*row->st));
		row->change = calloc(d->nr_cols, sizeof(*row->change));
		row->p = calloc(d->nr_cols, sizeof(*row->p));
		if (!row->st || !row->change || !row->p)
			goto nomem;
		for (int c = 0; c < d->nr_cols; c++) {
			int n = 0;

			for (int r = 0; r < d->cols[c].nr; r++) {
				const struct ps_kv_item *it;

				it = ps_kv_get(&d->cols[c].reps[r], names.items[i].name);
				if (it)
					vals[n++] = it->value;
			}
			if (d->cols[c].kind == PS_DIFFIN_ENSEMBLE) {
				/* replay --ensemble: its N replays' mean and stddev, as read */
				const struct ps_kv_item *m = ps_kv_get(&d->cols[c].reps[0], names.items[i].name);
				const struct ps_kv_item *sd = ps_kv_get(&d->cols[c].sds[0], names.items[i].name);

				row->st[c].n = m ? d->cols[c].meta.ensemble : 0;
				row->st[c].mean = m ? m->value / 1000.0 : 0;
				row->st[c].sd = m && sd ? sd->value / 1000.0 : -1;
			} else {
				ps_stat_compute(vals, n, &row->st[c]);
			}
		}
		for (int c = 1; c < d->nr_cols; c++) {
			struct ps_welch w;

			row->change[c] = row->st[0].n && row->st[c].n ?
					 ps_stat_change(row->st[0].mean, row->st[c].mean) : NAN;
			row->p[c] = ps_stat_welch(&row->st[0], &row->st[c], &w) == 0 ? w.p : NAN;
		}
		row->key = d->nr_cols < 2 || isnan(row->change[1]) ? -1 : fabs(row->change[1]);
	}
	ret = 0;
	goto out;
nomem:
	ps_error("out of memory");
out:
	free(vals);
	ps_kv_free(&names);
	return ret;
}

static int significant(const struct row *row, int c)
{
	return c > 0 && !isnan(row->p[c]) && row->p[c] < 0.05;
}

static int row_shown(const struct ps_diff_opts *o, const regex_t *kernel, const struct diff *d, const struct row *row)
{
	int changed = 0;

	if (o->has_exclude && regexec(&o->exclude, row->raw, 0, NULL, 0) == 0)
		return 0;
	if (o->all)
		return 1;
	if (regexec(kernel, row->raw, 0, NULL, 0) != 0 &&
	    !(o->has_include && regexec(&o->include, row->raw, 0, NULL, 0) == 0))
		return 0;
	if (d->nr_cols == 1)
		return 1;	/* a sweep of one cell: nothing to compare */
	for (int c = 1; c < d->nr_cols; c++) {
		double ch = row->change[c];

		if (isnan(ch))
			return 0;	/* a column lacks it */
		if (ch != 0 && fabs(ch) >= o->min_change)
			changed = 1;
	}
	return changed;
}

static int cmp_name(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	return r ? r : x->input - y->input;
}

static int cmp_change(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->input - y->input;
}

/* One number format per column: integers when every shown mean is one, else two decimals. */
static void column_formats(struct diff *d, struct row *const *shown, int n)
{
	for (int c = 0; c < d->nr_cols; c++) {
		d->cols[c].integral = 1;
		for (int i = 0; i < n; i++) {
			const struct ps_stat *s = &shown[i]->st[c];

			if (s->n && !(fabs(s->mean) < 9e15 && s->mean == floor(s->mean)))
				d->cols[c].integral = 0;
		}
	}
}

static void fmt_mean(char *out, size_t len, const struct column *col, const struct ps_stat *s)
{
	if (!s->n)
		snprintf(out, len, "-");
	else if (col->integral)
		snprintf(out, len, "%lld", (long long)s->mean);
	else
		snprintf(out, len, "%.2f", s->mean);
}

/* The header every form starts with: pagesim's version, and each column's inputs, trace and policy. */
static void describe(FILE *f, const struct column *col, const char *sep)
{
	fprintf(f, "%s", ps_diffin_kind_name(col->kind));
	if (col->nr > 1)
		fprintf(f, "%s%d repeats", sep, col->nr);
	if (strcmp(col->label, col->arg))
		fprintf(f, "%s%s", sep, col->arg);
	if (col->meta.trace[0])
		fprintf(f, "%strace %s", sep, col->meta.trace);
	if (col->meta.policy[0])
		fprintf(f, "%spolicy %s", sep, col->meta.policy);
	if (col->meta.kernel[0])
		fprintf(f, "%sprofile %s", sep, col->meta.kernel);
	if (col->meta.mode[0])
		fprintf(f, "%s%s mode", sep, col->meta.mode);
	if (col->meta.version[0] && strcmp(col->meta.version, PAGESIM_VERSION))
		fprintf(f, "%swritten by pagesim %s", sep, col->meta.version);
}

static void print_header(FILE *f, const struct diff *d, const char *prefix)
{
	fprintf(f, "%spagesim %s diff\n%scolumns:\n", prefix, PAGESIM_VERSION, prefix);
	for (int c = 0; c < d->nr_cols; c++) {
		fprintf(f, "%s  %s: ", prefix, d->cols[c].label);
		describe(f, &d->cols[c], ", ");
		fputc('\n', f);
	}
}

/* ---- lkp form: the test robot's widths (value 10, change 10, stddev 6) ---- */

/* The tail of @s that fits in @w columns. */
static const char *fit(const char *s, int w)
{
	int len = strlen(s);

	return len > w ? s + len - w : s;
}

static void lkp_value(FILE *f, const struct column *col, const struct ps_stat *s)
{
	char buf[64];
	double rel;

	if (!s->n) {
		fprintf(f, "%16s", "");
		return;
	}
	fmt_mean(buf, sizeof(buf), col, s);
	fprintf(f, "%10s", buf);
	rel = ps_stat_rel_sd(s);
	if (isinf(rel))
		fputs(" \u00b1inf%", f);
	else if (rel > 2)
		fprintf(f, " \u00b1%3d%%", (int)rel);
	else
		fputs("      ", f);
}

static void print_lkp(FILE *f, const struct diff *d, struct row *const *shown, int n)
{
	print_header(f, d, "");
	fputc('\n', f);
	fprintf(f, "%16s", fit(d->cols[0].label, 16));
	for (int c = 1; c < d->nr_cols; c++)
		fprintf(f, " %27s", fit(d->cols[c].label, 27));
	fputs("\n----------------", f);
	for (int c = 1; c < d->nr_cols; c++)
		fputs(" ---------------------------", f);
	fputs("\n         %stddev", f);
	for (int c = 1; c < d->nr_cols; c++)
		fputs("     %change         %stddev", f);
	fputs("\n             \\", f);
	for (int c = 1; c < d->nr_cols; c++)
		fputs("          |                \\", f);
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		const struct row *row = shown[i];

		lkp_value(f, &d->cols[0], &row->st[0]);
		for (int c = 1; c < d->nr_cols; c++) {
			double ch = row->change[c];
			char mark = significant(row, c) ? '*' : ' ';

			if (isnan(ch))
				fprintf(f, "%12s", "");
			else if (fabs(ch) < 100000)
				fprintf(f, "%+10.1f%%%c", ch, mark);
			else
				fprintf(f, "%+10.2g%%%c", ch, mark);
			lkp_value(f, &d->cols[c], &row->st[c]);
		}
		fprintf(f, "  %s\n", row->name);
	}
	if (d->nr_cols > 1 && d->cols[0].nr > 1)
		fputs("\n* p < 0.05 (Welch's t-test against the first column)\n", f);
}

/* ---- columns form: mmtests' compare tables ---- */

static void rtrim_line(FILE *f, char *line)
{
	size_t len = strlen(line);

	while (len && line[len - 1] == ' ')
		line[--len] = 0;
	fprintf(f, "%s\n", line);
}

/* The change cell of mmtests: "(  +1.23%)", or "*  +1.23%*" where significant. */
static int change_cell(char *out, size_t len, double ch, int sig, int prec)
{
	char open = sig ? '*' : '(', close = sig ? '*' : ')';

	if (isnan(ch))
		return snprintf(out, len, " %*s", prec ? 10 : 9, "");
	return snprintf(out, len, prec ? " %c%+7.2f%%%c" : " %c%+6.1f%%%c", open, ch, close);
}

static int print_columns(FILE *f, struct diff *d, struct row *const *shown, int n)
{
	int stats = 0, namew = 8, *vw = calloc(d->nr_cols > 0 ? (size_t)d->nr_cols : 1, sizeof(int)), len = 0;
	static const char *const statname[] = { "Amean", "Stddev", "CoeffVar" };
	size_t cap;
	char buf[64], *line;

	for (int c = 0; c < d->nr_cols; c++)
		stats |= d->cols[c].nr > 1;
	for (int c = 0; c < d->nr_cols; c++)
		len += strlen(d->cols[c].label) + 64;
	for (int i = 0; i < n; i++)
		if ((int)strlen(shown[i]->name) > namew)
			namew = strlen(shown[i]->name);
	cap = namew + len + 16;
	line = malloc(cap);
	if (!vw || !line) {
		free(vw);
		free(line);
		ps_error("out of memory");
		return -1;
	}
	print_header(f, d, "");
	fputc('\n', f);
	for (int i = 0; i < n; i++) {
		for (int c = 0; c < d->nr_cols; c++) {
			const struct ps_stat *s = &shown[i]->st[c];
			int l;

			if (stats)
				snprintf(buf, sizeof(buf), "%.2f", s->n ? fmax(fabs(s->mean), s->sd) : 0);
			else
				fmt_mean(buf, sizeof(buf), &d->cols[c], s);
			l = strlen(buf) + (stats ? 1 : 0);
			if (l > vw[c])
				vw[c] = l;
		}
	}
	/* a cell is "value (+xxx.x%)": the label is right-aligned over it */
	for (int c = 0; c < d->nr_cols; c++) {
		int l = strlen(d->cols[c].label), w = stats ? 11 : 10;

		if (vw[c] + w < l)
			vw[c] = l - w;
	}
	len = snprintf(line, cap, "%-*s", namew + (stats ? 10 : 0), "");
	for (int c = 0; c < d->nr_cols; c++)
		len += snprintf(line + len, cap - len, "  %*s", vw[c] + (stats ? 11 : 10), d->cols[c].label);
	rtrim_line(f, line);
	for (int i = 0; i < n; i++) {
		const struct row *row = shown[i];

		for (int k = 0; k < (stats ? 3 : 1); k++) {
			double base = 0;

			if (stats)
				len = snprintf(line, cap, "%-9s %-*s", statname[k], namew, row->name);
			else
				len = snprintf(line, cap, "%-*s", namew, row->name);
			for (int c = 0; c < d->nr_cols; c++) {
				const struct ps_stat *s = &row->st[c];
				double v = k == 0 ? s->mean : k == 1 ? (s->sd > 0 ? s->sd : 0) : ps_stat_rel_sd(s), ch;

				if (!stats)
					fmt_mean(buf, sizeof(buf), &d->cols[c], s);
				else if (!s->n)
					snprintf(buf, sizeof(buf), "-");
				else
					snprintf(buf, sizeof(buf), "%.2f", v);
				len += snprintf(line + len, cap - len, "  %*s", vw[c], buf);
				if (c == 0) {
					base = v;
					if (s->n)
						len += snprintf(line + len, cap - len, stats ? " (%7.2f%%)" : " (%6.1f%%)", 0.0);
					else
						len += snprintf(line + len, cap - len, " %*s", stats ? 10 : 9, "");
					continue;
				}
				ch = !s->n || !row->st[0].n ? NAN : k == 0 ? row->change[c] : ps_stat_change(base, v);
				len += change_cell(line + len, cap - len, ch, k == 0 && significant(row, c), stats);
			}
			rtrim_line(f, line);
		}
	}
	if (stats && d->nr_cols > 1)
		fputs("\n*x.xx%*: p < 0.05 (Welch's t-test against the first column)\n", f);
	free(line);
	free(vw);
	return 0;
}

/* ---- csv: one row per counter and column ---- */

static void csv_num(FILE *f, double v, int ok)
{
	if (ok && isfinite(v))
		fprintf(f, ",%.15g", v);
	else if (ok && isinf(v))
		fputs(v > 0 ? ",inf" : ",-inf", f);
	else
		fputs(",", f);
}

static void print_csv(FILE *f, const struct diff *d, struct row *const *shown, int n)
{
	fputs("counter,column,n,mean,stddev,change_pct,p,significant,inputs,trace,policy,pagesim\n", f);
	for (int i = 0; i < n; i++) {
		const struct row *row = shown[i];

		for (int c = 0; c < d->nr_cols; c++) {
			const struct column *col = &d->cols[c];
			const struct ps_stat *s = &row->st[c];

			ps_csv_cell(f, row->name, 0);
			fputc(',', f);
			ps_csv_cell(f, col->label, 0);
			fprintf(f, ",%d", s->n);
			csv_num(f, s->mean, s->n > 0);
			csv_num(f, s->sd, s->n > 1);
			csv_num(f, c ? row->change[c] : 0, c ? !isnan(row->change[c]) : s->n > 0);
			csv_num(f, c ? row->p[c] : 0, c && !isnan(row->p[c]));
			fprintf(f, ",%s,", significant(row, c) ? "yes" : c && !isnan(row->p[c]) ? "no" : "");
			ps_csv_cell(f, col->arg, 0);
			fputc(',', f);
			ps_csv_cell(f, col->meta.trace, 0);
			fputc(',', f);
			ps_csv_cell(f, col->meta.policy, 0);
			fprintf(f, ",%s\n", col->meta.version[0] ? col->meta.version : PAGESIM_VERSION);
		}
	}
}

/* ---- vmstat: each column's means as "name value" lines ---- */

static void print_vmstat(FILE *f, const struct diff *d, struct row *const *shown, int n)
{
	for (int c = 0; c < d->nr_cols; c++) {
		char buf[64];

		fprintf(f, "%s# pagesim %s diff column %s: ", c ? "\n" : "", PAGESIM_VERSION, d->cols[c].label);
		describe(f, &d->cols[c], ", ");
		fputc('\n', f);
		for (int i = 0; i < n; i++) {
			if (!shown[i]->st[c].n)
				continue;
			fmt_mean(buf, sizeof(buf), &d->cols[c], &shown[i]->st[c]);
			fprintf(f, "%s %s\n", shown[i]->name, buf);
		}
	}
}

/* ---- json ---- */

static json_object *json_num(double v, int ok)
{
	if (!ok || !isfinite(v))
		return json_object_new_null();
	if (fabs(v) < 9e15 && v == floor(v))
		return json_object_new_int64((int64_t)v);
	return json_object_new_double(v);
}

static json_object *json_str(const char *s)
{
	return s && *s ? ps_json_string(s) : json_object_new_null();
}

static void print_json(FILE *f, const struct diff *d, struct row *const *shown, int n)
{
	json_object *root = json_object_new_object(), *cols = json_object_new_array(), *ctrs = json_object_new_array();

	json_object_object_add(root, "format", json_object_new_string("pagesim-diff"));
	json_object_object_add(root, "version", json_object_new_int(2));
	json_object_object_add(root, "tool", json_object_new_string("pagesim " PAGESIM_VERSION));
	for (int c = 0; c < d->nr_cols; c++) {
		json_object *o = json_object_new_object(), *in = json_object_new_array();

		json_object_object_add(o, "label", ps_json_string(d->cols[c].label));
		json_object_object_add(o, "kind", json_object_new_string(ps_diffin_kind_name(d->cols[c].kind)));
		for (int r = 0; r < d->cols[c].nr; r++)
			json_object_array_add(in, ps_json_string(d->cols[c].paths[r]));
		json_object_object_add(o, "inputs", in);
		json_object_object_add(o, "trace", json_str(d->cols[c].meta.trace));
		json_object_object_add(o, "policy", json_str(d->cols[c].meta.policy));
		json_object_object_add(o, "pagesim", json_str(d->cols[c].meta.version));
		json_object_array_add(cols, o);
	}
	json_object_object_add(root, "columns", cols);
	for (int i = 0; i < n; i++) {
		const struct row *row = shown[i];
		json_object *o = json_object_new_object(), *a[6];

		for (int k = 0; k < 6; k++)
			a[k] = json_object_new_array();
		for (int c = 0; c < d->nr_cols; c++) {
			json_object_array_add(a[0], json_object_new_int(row->st[c].n));
			json_object_array_add(a[1], json_num(row->st[c].mean, row->st[c].n > 0));
			json_object_array_add(a[2], json_num(row->st[c].sd, row->st[c].n > 1));
			if (!c)
				continue;
			json_object_array_add(a[3], json_num(row->change[c], !isnan(row->change[c])));
			json_object_array_add(a[4], json_num(row->p[c], !isnan(row->p[c])));
			json_object_array_add(a[5], json_object_new_boolean(significant(row, c)));
		}
		json_object_object_add(o, "name", ps_json_string(row->name));
		json_object_object_add(o, "n", a[0]);
		json_object_object_add(o, "mean", a[1]);
		json_object_object_add(o, "stddev", a[2]);
		json_object_object_add(o, "change_pct", a[3]);
		json_object_object_add(o, "p", a[4]);
		json_object_object_add(o, "significant", a[5]);
		json_object_array_add(ctrs, o);
	}
	json_object_object_add(root, "counters", ctrs);
	fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
						   JSON_C_TO_STRING_NOSLASHESCAPE),
	      f);
	fputc('\n', f);
	json_object_put(root);
}

static int diff_tables(const struct ps_diff_opts *o, struct diff *d, FILE *f)
{
	struct row **shown = NULL;
	regex_t kernel;
	int nr_shown = 0, ret = -1;

	for (int c = 0; c < d->nr_cols; c++)
		if (load_column(&d->cols[c], o->node) < 0)
			return -1;
	if (check_kinds(d) < 0 || build_rows(d, o->per_node) < 0)
		return -1;
	if (regcomp(&kernel, kernel_rows, REG_EXTENDED | REG_NOSUB)) {
		ps_error("bad built-in row pattern");
		return -1;
	}
	shown = malloc((d->nr_rows ? d->nr_rows : 1) * sizeof(*shown));
	if (!shown) {
		ps_error("out of memory");
		goto out;
	}
	if (o->order == ORDER_NAME)
		qsort(d->rows, d->nr_rows, sizeof(*d->rows), cmp_name);
	else if (o->order == ORDER_CHANGE)
		qsort(d->rows, d->nr_rows, sizeof(*d->rows), cmp_change);
	for (int i = 0; i < d->nr_rows; i++)
		if (row_shown(o, &kernel, d, &d->rows[i]))
			shown[nr_shown++] = &d->rows[i];
	column_formats(d, shown, nr_shown);
	switch (o->fmt) {
	case PS_DIFF_LKP: print_lkp(f, d, shown, nr_shown); break;
	case PS_DIFF_COLUMNS:
		if (print_columns(f, d, shown, nr_shown) < 0)
			goto out;
		break;
	case PS_DIFF_JSON: print_json(f, d, shown, nr_shown); break;
	case PS_DIFF_CSV: print_csv(f, d, shown, nr_shown); break;
	case PS_DIFF_VMSTAT: print_vmstat(f, d, shown, nr_shown); break;
	}
	/* the table forms: an empty table says why */
	if (!nr_shown && !o->all && d->nr_cols > 1 && (o->fmt == PS_DIFF_LKP || o->fmt == PS_DIFF_COLUMNS))
		fprintf(f, "\nno row: none of the counters shown changes%s between the columns (--all shows every counter)\n",
			o->min_change > 0 ? " by --min-change or more" : "");
	ret = 0;
out:
	regfree(&kernel);
	free(shown);
	return ret;
}

int ps_diff_print(const struct ps_diff_opts *o, struct ps_diff_col *cols, int n, FILE *f)
{
	struct diff d = { 0 };
	int ret = -1;

	if (n < 1) {
		ps_error("a report needs a column");
		return -1;
	}
	d.nr_cols = n;
	d.cols = calloc(n, sizeof(*d.cols));
	if (!d.cols) {
		ps_error("out of memory");
		return -1;
	}
	for (int c = 0; c < n; c++) {
		d.cols[c].arg = d.cols[c].label = cols[c].label;
		d.cols[c].nr = cols[c].nr;
		d.cols[c].paths = calloc(cols[c].nr, sizeof(char *));
		if (!d.cols[c].paths)
			goto out;
		for (int r = 0; r < cols[c].nr; r++)
			if (!(d.cols[c].paths[r] = strdup(cols[c].paths[r])))
				goto out;
	}
	ret = diff_tables(o, &d, f);
out:
	diff_free(&d);
	return ret;
}

/*
 * Where NAME ends in --label NAME=PATH: a name may hold '=' itself (a
 * sweep's wsf=200), so the first '=' after which a BASE or NEW argument, an
 * existing file or a matching pattern follows; else the first.
 */
static const char *label_split(const char *text, char *const *args, int nr_args)
{
	for (const char *eq = strchr(text, '='); eq; eq = strchr(eq + 1, '=')) {
		struct ps_error err;
		char **paths;
		int n;

		for (int c = 0; c < nr_args; c++)
			if (!strcmp(args[c], eq + 1))
				return eq;
		n = eq[1] ? ps_diffin_expand(eq + 1, &paths, &err) : -1;
		if (n > 0) {
			int ok = access(paths[0], F_OK) == 0;

			ps_diffin_paths_free(paths, n);
			if (ok)
				return eq;
		}
	}
	return strchr(text, '=');
}

int cmd_diff(int argc, char **argv)
{
	struct ps_diff_opts o;
	struct diff d = { 0 };
	struct ps_error err = { { 0 } };
	struct ps_out out;
	const char *labels[64];
	int nr_labels = 0, opt, rc, ret = PS_EXIT_FAIL, nr_args;
	char *end;

	ps_diff_opts_init(&o);
	optind = 1;
	while ((opt = ps_getopt("diff", argc, argv, "o:h", diff_options)) != -1) {
		switch (opt) {
		case OPT_NODE: {
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 0 || v > 4095)
				return ps_usage_error("diff", "--node takes a node number, not '%s'", optarg);
			o.node = (int)v;
			break;
		}
		case OPT_LABEL:
			if (nr_labels == 64)
				return ps_usage_error("diff", "more than 64 --label options");
			if (!strchr(optarg, '=') || optarg[0] == '=' || !strchr(optarg, '=')[1])
				return ps_usage_error("diff", "--label wants NAME=PATH, not '%s'", optarg);
			labels[nr_labels++] = optarg;
			break;
		case 'o': o.output = optarg; break;
		case 'h': fputs(diff_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		case '?': return PS_EXIT_USAGE;
		default:
			rc = ps_diff_opts_parse(&o, opt, optarg, "diff");
			if (rc < 0)
				return ps_usage_error("diff", "unknown option");
			if (rc > 0)
				return rc;
		}
	}
	nr_args = argc - optind;
	d.cols = calloc(nr_args + nr_labels + 1, sizeof(*d.cols));
	if (!d.cols) {
		ps_error("out of memory");
		return PS_EXIT_FAIL;
	}
	for (int c = 0; c < nr_args; c++)
		d.cols[d.nr_cols++].arg = argv[optind + c];
	for (int l = 0; l < nr_labels; l++) {
		const char *eq = label_split(labels[l], argv + optind, nr_args);
		struct column *col = NULL;

		for (int c = 0; c < nr_args; c++)
			if (!strcmp(d.cols[c].arg, eq + 1))
				col = &d.cols[c];
		if (!col) {
			col = &d.cols[d.nr_cols++];
			col->arg = eq + 1;
		}
		/* the name stays in argv's memory: point into it */
		col->label = labels[l];
		((char *)labels[l])[eq - labels[l]] = 0;
	}
	for (int c = 0; c < d.nr_cols; c++)
		if (!d.cols[c].label)
			d.cols[c].label = d.cols[c].arg;
	if (d.nr_cols < 2) {
		diff_free(&d);
		return ps_usage_error("diff", d.nr_cols == 0 ? "missing BASE and NEW" : "missing NEW: give BASE NEW [NEW...]");
	}
	/* the inputs are all read (and noted) before the output is opened: -o may not name one */
	{
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);

		if (!mem) {
			ps_error("out of memory");
			goto out;
		}
		rc = diff_tables(&o, &d, mem);
		fclose(mem);
		if (rc == 0 && ps_out_open(&out, o.output, &err) == 0) {
			fwrite(text, 1, len, out.f);
			if (ps_out_commit(&out, &err) == 0)
				ret = PS_EXIT_OK;
		}
		if (rc == 0 && ret != PS_EXIT_OK)
			ps_error("%s", err.msg);
		free(text);
	}
out:
	diff_free(&d);
	if (o.has_include)
		regfree(&o.include);
	if (o.has_exclude)
		regfree(&o.exclude);
	return ret;
}
