// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_diff.c - pagesim diff: counters of a base and of one or more new
 * columns side by side, in the kernel test robot's %stddev/%change rows,
 * in mmtests' column tables, or as JSON.  Each column is a group of
 * repeats (mean, sample stddev); inputs are read by cli/diffin.c.
 */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lib/stats.h"
#include "cli/diffin.h"
#include "cli/cli.h"

static const char diff_usage[] =
	"usage: pagesim diff [OPTIONS] BASE NEW [NEW...]\n"
	"\n"
	"Compares counters: BASE and each NEW is one column, and a column is a group of\n"
	"repeats: a glob pattern ('base/*.vmstat', expanded by pagesim when the shell did\n"
	"not) or paths joined with commas (a.vmstat,b.vmstat).  A column shows the mean\n"
	"over its repeats and the sample stddev.  Inputs are recognised by content:\n"
	"  - 'name value' lines: pagesim stat output, a raw /proc/vmstat;\n"
	"  - a raw nodeN/numastat (node from the path .../nodeN/numastat, else --node N);\n"
	"  - pagesim stat --format json output;\n"
	"  - a run directory holding before/ and after/ sysroots: after - before of\n"
	"    proc/vmstat and of each node's numastat, as the test robot reduces counters;\n"
	"  - a sysroot directory (with proc/vmstat): its counters as they are.\n"
	"Node counters are named node<N>.<name>, as pagesim stat names them.\n"
	"\n"
	"options:\n"
	"  --format FMT       lkp (default): 'base ±sd%  %change  new ±sd%  name' rows as the\n"
	"                     kernel test robot prints them; columns: one column per input,\n"
	"                     'value ( +x.x%)' against the first, as mmtests compares;\n"
	"                     json: columns, means, stddevs and changes\n"
	"  --all              every counter, also unchanged ones and ones some column lacks\n"
	"                     (--min-change is then ignored)\n"
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
	"In json, change_pct is null when a column lacks the counter or the base is 0.\n"
	"\n"
	"exit status: 0 success, 1 failure (unreadable or bad input), 2 bad usage\n";

enum { OPT_FORMAT = 256, OPT_ALL, OPT_MIN_CHANGE, OPT_SORT, OPT_PER_NODE, OPT_NODE };

static const struct option diff_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "all", no_argument, NULL, OPT_ALL },
	{ "min-change", required_argument, NULL, OPT_MIN_CHANGE },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "per-node", no_argument, NULL, OPT_PER_NODE },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

enum fmt { FMT_LKP, FMT_COLUMNS, FMT_JSON };
enum order { ORDER_INPUT, ORDER_NAME, ORDER_CHANGE };

struct column {
	const char *arg;		/* as given on the command line */
	char **paths;
	int nr;				/* repeats */
	struct ps_kv *reps;		/* one per path */
	enum ps_diffin_kind kind;
};

struct row {
	char name[96];			/* as printed */
	int input;			/* position in the union of names, BASE first */
	struct ps_stat *st;		/* per column */
	double *change;			/* per column; [0] unused; NAN when a side is missing */
	double key;			/* |change| against the first NEW, for --sort change */
};

struct diff {
	struct column *cols;
	int nr_cols;
	struct row *rows;
	int nr_rows;
};

static void diff_free(struct diff *d)
{
	for (int c = 0; c < d->nr_cols; c++) {
		struct column *col = &d->cols[c];

		for (int r = 0; r < col->nr && col->reps; r++)
			ps_kv_free(&col->reps[r]);
		free(col->reps);
		ps_diffin_paths_free(col->paths, col->nr);
	}
	free(d->cols);
	for (int i = 0; i < d->nr_rows; i++) {
		free(d->rows[i].st);
		free(d->rows[i].change);
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
	int n = ps_diffin_expand(col->arg, &col->paths, &err);

	if (n < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	col->nr = n;
	col->reps = calloc(n, sizeof(*col->reps));
	if (!col->reps) {
		ps_error("out of memory");
		return -1;
	}
	for (int r = 0; r < n; r++) {
		enum ps_diffin_kind kind;

		ps_kv_init(&col->reps[r]);
		ps_note_input(col->paths[r]);
		if (ps_diffin_load(col->paths[r], node, &col->reps[r], &kind, &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
		if (r == 0) {
			col->kind = kind;
		} else if (kind != col->kind) {
			ps_error("mismatched kinds in the group '%s': '%s' is a %s but '%s' is a %s",
				 col->arg, col->paths[0], ps_diffin_kind_name(col->kind), col->paths[r],
				 ps_diffin_kind_name(kind));
			return -1;
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
		row->input = i;
		row->st = calloc(d->nr_cols, sizeof(*row->st));
		row->change = calloc(d->nr_cols, sizeof(*row->change));
		if (!row->st || !row->change)
			goto nomem;
		for (int c = 0; c < d->nr_cols; c++) {
			int n = 0;

			for (int r = 0; r < d->cols[c].nr; r++) {
				const struct ps_kv_item *it;

				it = ps_kv_get(&d->cols[c].reps[r], names.items[i].name);
				if (it)
					vals[n++] = it->value;
			}
			ps_stat_compute(vals, n, &row->st[c]);
		}
		for (int c = 1; c < d->nr_cols; c++)
			row->change[c] = row->st[0].n && row->st[c].n ?
					 ps_stat_change(row->st[0].mean, row->st[c].mean) : NAN;
		row->key = isnan(row->change[1]) ? -1 : fabs(row->change[1]);
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

static int row_shown(const struct diff *d, const struct row *row, int all, double min_change)
{
	int changed = 0;

	if (all)
		return 1;
	for (int c = 1; c < d->nr_cols; c++) {
		double ch = row->change[c];

		if (isnan(ch))
			return 0;	/* a column lacks it */
		if (ch != 0 && fabs(ch) >= min_change)
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

/* ---- lkp form: the test robot's widths (value 10, change 10, stddev 6) ---- */

/* The tail of @s that fits in @w columns. */
static const char *fit(const char *s, int w)
{
	int len = strlen(s);

	return len > w ? s + len - w : s;
}

static void lkp_value(FILE *f, const struct ps_stat *s)
{
	double rel;

	if (!s->n) {
		fprintf(f, "%16s", "");
		return;
	}
	if (fabs(s->mean) < 1000)
		fprintf(f, "%10.2f", s->mean);
	else if (fabs(s->mean) > 1e8)
		fprintf(f, "%10.4g", s->mean);
	else
		fprintf(f, "%10lld", (long long)llround(s->mean));
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
	fputs("columns:\n", f);
	for (int c = 0; c < d->nr_cols; c++) {
		fprintf(f, "  %s: %s", d->cols[c].arg, ps_diffin_kind_name(d->cols[c].kind));
		if (d->cols[c].nr > 1)
			fprintf(f, ", %d repeats", d->cols[c].nr);
		fputc('\n', f);
	}
	fputc('\n', f);
	fprintf(f, "%16s", fit(d->cols[0].arg, 16));
	for (int c = 1; c < d->nr_cols; c++)
		fprintf(f, " %27s", fit(d->cols[c].arg, 27));
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

		lkp_value(f, &row->st[0]);
		for (int c = 1; c < d->nr_cols; c++) {
			double ch = row->change[c];

			if (isnan(ch))
				fprintf(f, "%12s", "");
			else if (fabs(ch) < 100000)
				fprintf(f, "%+10.1f%% ", ch);
			else
				fprintf(f, "%+10.2g%% ", ch);
			lkp_value(f, &row->st[c]);
		}
		fprintf(f, "  %s\n", row->name);
	}
}

/* ---- columns form: mmtests' compare tables ---- */

static void col_value(char *out, size_t len, const struct ps_stat *s)
{
	if (!s->n)
		snprintf(out, len, "-");
	else if (fabs(s->mean) < 9e15 && s->mean == floor(s->mean))
		snprintf(out, len, "%lld", (long long)s->mean);
	else
		snprintf(out, len, "%.2f", s->mean);
}

static void rtrim_line(FILE *f, char *line)
{
	size_t len = strlen(line);

	while (len && line[len - 1] == ' ')
		line[--len] = 0;
	fprintf(f, "%s\n", line);
}

static int print_columns(FILE *f, const struct diff *d, struct row *const *shown, int n)
{
	int namew = 8, *vw = calloc(d->nr_cols, sizeof(int)), len = 0;
	size_t cap;
	char buf[64], *line;

	for (int c = 0; c < d->nr_cols; c++)
		len += strlen(d->cols[c].arg) + 64;
	for (int i = 0; i < n; i++)
		if ((int)strlen(shown[i]->name) > namew)
			namew = strlen(shown[i]->name);
	cap = namew + len + 1;
	line = malloc(cap);
	if (!vw || !line) {
		free(vw);
		free(line);
		ps_error("out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		for (int c = 0; c < d->nr_cols; c++) {
			int l;

			col_value(buf, sizeof(buf), &shown[i]->st[c]);
			l = strlen(buf);
			if (l > vw[c])
				vw[c] = l;
		}
	}
	/* a cell is "value (+xxx.x%)": the label is right-aligned over it */
	for (int c = 0; c < d->nr_cols; c++) {
		int l = strlen(d->cols[c].arg);

		if (vw[c] + 10 < l)
			vw[c] = l - 10;
	}
	len = snprintf(line, cap, "%-*s", namew, "");
	for (int c = 0; c < d->nr_cols; c++)
		len += snprintf(line + len, cap - len, "  %*s", vw[c] + 10, d->cols[c].arg);
	rtrim_line(f, line);
	for (int i = 0; i < n; i++) {
		const struct row *row = shown[i];

		len = snprintf(line, cap, "%-*s", namew, row->name);
		for (int c = 0; c < d->nr_cols; c++) {
			col_value(buf, sizeof(buf), &row->st[c]);
			len += snprintf(line + len, cap - len, "  %*s", vw[c], buf);
			if (c == 0 && row->st[0].n)
				len += snprintf(line + len, cap - len, " (%6.1f%%)", 0.0);
			else if (c == 0 || isnan(row->change[c]))
				len += snprintf(line + len, cap - len, " %9s", "");
			else
				len += snprintf(line + len, cap - len, " (%+6.1f%%)",
						row->change[c]);
		}
		rtrim_line(f, line);
	}
	free(line);
	free(vw);
	return 0;
}

/* ---- json ---- */

static void json_num(FILE *f, double v, int ok)
{
	if (!ok || !isfinite(v))
		fputs("null", f);
	else
		fprintf(f, "%.15g", v);
}

static void print_json(FILE *f, const struct diff *d, struct row *const *shown, int n)
{
	fprintf(f, "{\n  \"format\": \"pagesim-diff\",\n  \"version\": 1,\n  \"tool\": \"pagesim %s\",\n",
		PAGESIM_VERSION);
	fputs("  \"columns\": [\n", f);
	for (int c = 0; c < d->nr_cols; c++) {
		fputs("    { \"label\": ", f);
		ps_print_json_str(f, d->cols[c].arg);
		fputs(", \"kind\": ", f);
		ps_print_json_str(f, ps_diffin_kind_name(d->cols[c].kind));
		fputs(", \"inputs\": [", f);
		for (int r = 0; r < d->cols[c].nr; r++) {
			fputs(r ? ", " : "", f);
			ps_print_json_str(f, d->cols[c].paths[r]);
		}
		fprintf(f, "] }%s\n", c + 1 < d->nr_cols ? "," : "");
	}
	fputs("  ],\n  \"counters\": [\n", f);
	for (int i = 0; i < n; i++) {
		const struct row *row = shown[i];

		fputs("    { \"name\": ", f);
		ps_print_json_str(f, row->name);
		fputs(", \"n\": [", f);
		for (int c = 0; c < d->nr_cols; c++)
			fprintf(f, "%s%d", c ? ", " : "", row->st[c].n);
		fputs("], \"mean\": [", f);
		for (int c = 0; c < d->nr_cols; c++) {
			fputs(c ? ", " : "", f);
			json_num(f, row->st[c].mean, row->st[c].n > 0);
		}
		fputs("], \"stddev\": [", f);
		for (int c = 0; c < d->nr_cols; c++) {
			fputs(c ? ", " : "", f);
			json_num(f, row->st[c].sd, row->st[c].n > 1);
		}
		fputs("], \"change_pct\": [", f);
		for (int c = 1; c < d->nr_cols; c++) {
			fputs(c > 1 ? ", " : "", f);
			json_num(f, row->change[c], !isnan(row->change[c]));
		}
		fprintf(f, "] }%s\n", i + 1 < n ? "," : "");
	}
	fputs("  ]\n}\n", f);
}

int cmd_diff(int argc, char **argv)
{
	struct diff d = { 0 };
	struct ps_error err = { { 0 } };
	struct ps_out out;
	struct row **shown = NULL;
	enum fmt fmt = FMT_LKP;
	enum order order = ORDER_INPUT;
	const char *output = NULL;
	double min_change = 0;
	int all = 0, per_node = 0, node = -1, nr_shown = 0, opt, ret = PS_EXIT_FAIL;
	char *end;

	optind = 1;
	while ((opt = ps_getopt("diff", argc, argv, "o:h", diff_options)) != -1) {
		switch (opt) {
		case OPT_FORMAT:
			if (!strcmp(optarg, "lkp"))
				fmt = FMT_LKP;
			else if (!strcmp(optarg, "columns"))
				fmt = FMT_COLUMNS;
			else if (!strcmp(optarg, "json"))
				fmt = FMT_JSON;
			else
				return ps_usage_error("diff", "--format must be lkp, columns or json, not '%s'", optarg);
			break;
		case OPT_ALL: all = 1; break;
		case OPT_MIN_CHANGE:
			min_change = strtod(optarg, &end);
			if (end == optarg || *end || !(min_change >= 0) || isinf(min_change))
				return ps_usage_error("diff", "--min-change takes a percentage >= 0, not '%s'", optarg);
			break;
		case OPT_SORT:
			if (!strcmp(optarg, "input"))
				order = ORDER_INPUT;
			else if (!strcmp(optarg, "name"))
				order = ORDER_NAME;
			else if (!strcmp(optarg, "change"))
				order = ORDER_CHANGE;
			else
				return ps_usage_error("diff", "--sort must be input, name or change, not '%s'", optarg);
			break;
		case OPT_PER_NODE: per_node = 1; break;
		case OPT_NODE: {
			long v = strtol(optarg, &end, 10);

			if (end == optarg || *end || v < 0 || v > 4095)
				return ps_usage_error("diff", "--node takes a node number, not '%s'", optarg);
			node = (int)v;
			break;
		}
		case 'o': output = optarg; break;
		case 'h': fputs(diff_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		default: return PS_EXIT_USAGE;
		}
	}
	if (argc - optind < 2)
		return ps_usage_error("diff", argc == optind ? "missing BASE and NEW" :
					      "missing NEW: give BASE NEW [NEW...]");
	d.nr_cols = argc - optind;
	d.cols = calloc(d.nr_cols, sizeof(*d.cols));
	if (!d.cols) {
		ps_error("out of memory");
		return PS_EXIT_FAIL;
	}
	for (int c = 0; c < d.nr_cols; c++) {
		d.cols[c].arg = argv[optind + c];
		if (load_column(&d.cols[c], node) < 0)
			goto out;
	}
	if (check_kinds(&d) < 0 || build_rows(&d, per_node) < 0)
		goto out;
	shown = malloc((d.nr_rows ? d.nr_rows : 1) * sizeof(*shown));
	if (!shown) {
		ps_error("out of memory");
		goto out;
	}
	if (order == ORDER_NAME)
		qsort(d.rows, d.nr_rows, sizeof(*d.rows), cmp_name);
	else if (order == ORDER_CHANGE)
		qsort(d.rows, d.nr_rows, sizeof(*d.rows), cmp_change);
	for (int i = 0; i < d.nr_rows; i++)
		if (row_shown(&d, &d.rows[i], all, min_change))
			shown[nr_shown++] = &d.rows[i];
	if (ps_out_open(&out, output, &err) < 0) {
		ps_error("%s", err.msg);
		goto out;
	}
	if (fmt == FMT_LKP)
		print_lkp(out.f, &d, shown, nr_shown);
	else if (fmt == FMT_COLUMNS && print_columns(out.f, &d, shown, nr_shown) < 0) {
		ps_out_abort(&out);
		goto out;
	} else if (fmt == FMT_JSON)
		print_json(out.f, &d, shown, nr_shown);
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		goto out;
	}
	ret = PS_EXIT_OK;
out:
	free(shown);
	diff_free(&d);
	return ret;
}
