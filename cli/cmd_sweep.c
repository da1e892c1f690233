// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_sweep.c - pagesim sweep: the cartesian product of --set value lists,
 * --policy names and traces, run here (each trace read once per pass for
 * all of its cells), as a Slurm job array or a GNU parallel job list, and
 * reported with pagesim diff's tables.  See sweep.h and docs/sweep.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/diff.h"
#include "cli/input.h"
#include "cli/policyopt.h"
#include "cli/sweep.h"
#include "lib/cpulist.h"
#include "sim/replay/replay.h"

static const char sweep_usage[] =
	"usage: pagesim sweep -o DIR [OPTIONS] TRACE...\n"
	"       pagesim sweep --cell LIST [-j N] DIR\n"
	"       pagesim sweep --emit slurm|parallel [--submit] [--cells-per-task N] [--max-running M] DIR\n"
	"       pagesim sweep --collect DIR\n"
	"       pagesim sweep --report [REPORT OPTIONS] DIR\n"
	"\n"
	"Replays each TRACE under every combination of the --set value lists and the\n"
	"--policy names (the cartesian product), and under its recorded policy (the\n"
	"baseline, always a cell).  DIR/manifest.json holds the plan: the pagesim\n"
	"version, each trace's sha256 and each cell's full policy (every tunable); each\n"
	"cell's counters go to DIR/cells/ID.vmstat ('name value' lines as pagesim stat\n"
	"prints them, after '#' lines naming the version, the trace and the policy), ID\n"
	"a hash of the trace, the mode and the policy.  A cell whose file exists from\n"
	"this version is not run again: a sweep run again after an interruption, or\n"
	"with more values, runs only what is missing.  Each trace is read once per pass\n"
	"for all of its cells, whose models run on up to -j threads.\n"
	"\n"
	"options:\n"
	"  -o, --output DIR   the sweep directory (created if missing)\n"
	"  -j, --jobs N       threads (default: the CPUs online)\n"
	"  --set KEY=V1,V2,.. a tunable and its values (pagesim replay --set keys); repeatable\n"
	"  --policy P1,P2,..  profiles, releases or policy files (pagesim replay --policy);\n"
	"                     'recorded' is the trace's own\n"
	"  --mode MODE        simulate (default: the model places every block, so policies\n"
	"                     change the counters) or follow (the kernel's own placements)\n"
	"  --ensemble N       N ensemble members per cell (needs pagesim replay --ensemble,\n"
	"                     which this pagesim does not have yet: refused)\n"
	"  --group-size N     at most N models in memory per trace at once (default: all of\n"
	"                     its cells; each group reads the trace once per pass)\n"
	"  --plan             write the manifest only\n"
	"  -q, --quiet        no progress line, no warnings about the traces\n"
	"\n"
	"  --cell LIST        run these cells of DIR's manifest (indices: 0-3,7), as an array\n"
	"                     task does; a failed cell leaves cells/ID.err\n"
	"  --emit slurm       write DIR/slurm/array.sbatch (a job array, one task per\n"
	"                     --cells-per-task cells of one trace; --mem from the model's\n"
	"                     bytes per page) and DIR/slurm/collect.sbatch (pagesim sweep\n"
	"                     --collect, run --dependency=afterok on the array)\n"
	"  --emit parallel    write DIR/parallel/jobs.txt, one line per task, for\n"
	"                     parallel --joblog DIR/parallel/joblog --resume -a DIR/parallel/jobs.txt\n"
	"  --submit           with --emit slurm: submit both jobs with sbatch\n"
	"  --cells-per-task N cells per array task (default 1)\n"
	"  --max-running M    at most M array tasks at once (sbatch's %M)\n"
	"  --sbatch-opt OPT   an #SBATCH line to add; repeatable\n"
	"  --collect          check every cell: lists missing and failed cells by name\n"
	"                     (exit 1 if any), else writes DIR/report.txt\n"
	"  --report           prints the cells side by side as pagesim diff does: one column\n"
	"                     per cell (baseline first, labelled by its values: wsf=200),\n"
	"                     one table per trace; and pagesim diff's --format, --all,\n"
	"                     --include, --exclude, --min-change, --sort, --per-node, and\n"
	"                     -o FILE for the report\n"
	"  --repeats          with --report: the traces as repeats of one workload (one\n"
	"                     column per policy, mean and stddev over the traces, Welch's\n"
	"                     t-test against the baseline)\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"exit status: 0 success, 1 failure (a cell failed or is missing), 2 bad usage\n";

enum { OPT_SET = 512, OPT_POLICY, OPT_MODE, OPT_ENSEMBLE, OPT_GROUP, OPT_PLAN, OPT_CELL, OPT_EMIT, OPT_SUBMIT,
       OPT_PER_TASK, OPT_MAX_RUNNING, OPT_SBATCH_OPT, OPT_COLLECT, OPT_REPORT, OPT_REPEATS };

static const struct option sweep_own_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "jobs", required_argument, NULL, 'j' },
	{ "set", required_argument, NULL, OPT_SET },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "ensemble", required_argument, NULL, OPT_ENSEMBLE },
	{ "group-size", required_argument, NULL, OPT_GROUP },
	{ "plan", no_argument, NULL, OPT_PLAN },
	{ "cell", required_argument, NULL, OPT_CELL },
	{ "emit", required_argument, NULL, OPT_EMIT },
	{ "submit", no_argument, NULL, OPT_SUBMIT },
	{ "cells-per-task", required_argument, NULL, OPT_PER_TASK },
	{ "max-running", required_argument, NULL, OPT_MAX_RUNNING },
	{ "sbatch-opt", required_argument, NULL, OPT_SBATCH_OPT },
	{ "collect", no_argument, NULL, OPT_COLLECT },
	{ "report", no_argument, NULL, OPT_REPORT },
	{ "repeats", no_argument, NULL, OPT_REPEATS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
};

static int parse_count(const char *arg, const char *opt, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return ps_usage_error("sweep", "%s takes a number in %d..%d, not '%s'", opt, min, max, arg);
	*out = (int)v;
	return 0;
}

struct cells {
	int *v;
	int n, cap;
};

static int add_cells(long a, long b, void *arg)
{
	struct cells *c = arg;

	for (long i = a; i <= b; i++) {
		int dup = 0;

		for (int k = 0; k < c->n; k++)
			dup |= c->v[k] == i;
		if (dup)
			continue;
		if (c->n == c->cap) {
			int *q = realloc(c->v, (c->cap = c->cap ? 2 * c->cap : 16) * sizeof(int));

			if (!q)
				return -1;
			c->v = q;
		}
		c->v[c->n++] = (int)i;
	}
	return 0;
}

/* "0-3,7" into indices below @max (a malloc'd array in *@out); -1 on a syntax error or an index out of range. */
static int parse_cells(const char *text, int max, int **out)
{
	struct cells c = { 0 };

	if (strchr(text, '\n') || ps_list_ranges(text, max, add_cells, &c) < 0 || !c.n) {
		free(c.v);
		*out = NULL;
		return -1;
	}
	*out = c.v;
	return c.n;
}

static int mkdir_p(const char *dir)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

static int sweep_dirs(const char *dir)
{
	char sub[PATH_MAX];

	snprintf(sub, sizeof(sub), "%s/cells", dir);
	if (mkdir_p(dir) < 0 || mkdir_p(sub) < 0) {
		ps_error("cannot create the sweep directory '%s': %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The cells of @s that are not done; *@already counts the others. */
static int pending_cells(const struct sweep *s, int **which, int *already)
{
	int n = 0;

	*which = malloc((s->nr_cells ? s->nr_cells : 1) * sizeof(int));
	if (!*which)
		return -1;
	*already = 0;
	for (int i = 0; i < s->nr_cells; i++) {
		if (sweep_cell_state(s, &s->cells[i], NULL, 0) == 1)
			(*already)++;
		else
			(*which)[n++] = i;
	}
	return n;
}

/* ---- reports ---- */

/*
 * The report: pagesim diff's tables over the cells.  One table per trace,
 * or with @repeats one over all traces, a column per label with a repeat
 * per trace (and per ensemble member).
 */
static int report(const struct sweep *s, const struct ps_diff_opts *dopts, int repeats, FILE *f)
{
	int ret = 0;

	for (int t = 0; t < (repeats ? 1 : s->nr_traces) && !ret; t++) {
		struct ps_diff_col *cols = calloc(s->nr_cells, sizeof(*cols));
		int nc = 0;

		if (!cols)
			return -1;
		for (int i = 0; i < s->nr_cells; i++) {
			const struct sweep_cell *c = &s->cells[i];
			struct ps_diff_col *col = NULL;

			if (!repeats && c->trace != t)
				continue;
			for (int k = 0; k < nc; k++)
				if (!strcmp(cols[k].label, c->label))
					col = &cols[k];
			if (!col) {
				col = &cols[nc++];
				col->label = c->label;
			}
			for (int o = 0; o < c->nr_outputs; o++) {
				char **np = realloc(col->paths, (col->nr + 1) * sizeof(char *));

				if (!np)
					return -1;
				col->paths = np;
				col->paths[col->nr++] = sweep_output_path(s, c, o);
			}
		}
		if (t > 0)
			fputc('\n', f);
		ret = ps_diff_print(dopts, cols, nc, f);
		for (int k = 0; k < nc; k++) {
			for (int r = 0; r < cols[k].nr; r++)
				free(cols[k].paths[r]);
			free(cols[k].paths);
		}
		free(cols);
	}
	return ret;
}

static int collect(const struct sweep *s, const struct ps_diff_opts *dopts)
{
	struct ps_error err = { { 0 } };
	int missing = 0, failed = 0;
	struct ps_out out;
	char path[PATH_MAX];

	for (int i = 0; i < s->nr_cells; i++) {
		const struct sweep_cell *c = &s->cells[i];
		char why[512];
		int st = sweep_cell_state(s, c, why, sizeof(why));

		if (st == 1)
			continue;
		if (st == 2)
			failed++;
		else
			missing++;
		printf("%s: cell %d %s (%s, %s)%s%s\n", st == 2 ? "failed" : "missing", i, c->id,
		       s->traces[c->trace].name, c->label, st == 2 ? ": " : "", st == 2 ? why : "");
	}
	if (missing || failed) {
		ps_error("%s: %d of %d cells missing, %d failed", s->dir, missing, s->nr_cells, failed);
		return PS_EXIT_FAIL;
	}
	snprintf(path, sizeof(path), "%s/report.txt", s->dir);
	if (ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", err.msg);
		return PS_EXIT_FAIL;
	}
	if (report(s, dopts, 0, out.f) < 0) {
		ps_out_abort(&out);
		return PS_EXIT_FAIL;
	}
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		return PS_EXIT_FAIL;
	}
	printf("%d cells: %s\n", s->nr_cells, path);
	return PS_EXIT_OK;
}

/* ---- Slurm and GNU parallel ---- */

/* Tasks: runs of at most @per consecutive cells of one trace, as "a-b" lists. */
static int tasks_of(const struct sweep *s, int per, char ***out)
{
	int n = 0;

	*out = calloc(s->nr_cells ? s->nr_cells : 1, sizeof(char *));
	if (!*out)
		return -1;
	for (int i = 0; i < s->nr_cells;) {
		int j = i;

		while (j + 1 < s->nr_cells && j + 1 - i < per && s->cells[j + 1].trace == s->cells[i].trace)
			j++;
		if ((j > i ? asprintf(&(*out)[n], "%d-%d", i, j) : asprintf(&(*out)[n], "%d", i)) < 0)
			return -1;
		n++;
		i = j + 1;
	}
	return n;
}

/*
 * Memory of a task: the model's bytes per page (ps_replay_bytes_per_page of
 * a model built for each trace's machine, as replay --stats prints it) times
 * the pages, per cell of the task, plus a reader's and the program's own.
 */
static long task_mem_mb(const struct sweep *s, int per)
{
	double worst = 0;

	for (int t = 0; t < s->nr_traces; t++) {
		struct ps_input_opts io = { .trace = s->traces[t].path, .quiet = 1 };
		struct ps_error err = { { 0 } };
		struct ps_replay_opts ro;
		struct ps_input in;
		struct ps_replay *r;
		char msg[256];
		uint64_t pages = 0;
		double b;

		if (ps_input_open(&in, &io) < 0)
			continue;
		memset(&ro, 0, sizeof(ro));
		ps_policyopt_args(&ro, "sweep", NULL, NULL, NULL, 0);
		ro.mode = s->simulate ? PS_REPLAY_SIMULATE : PS_REPLAY_FOLLOW;
		for (int k = 0; k < PS_MAX_CPUS; k++)
			ro.cpu_node_map[k] = -1;
		if (ps_policyopt_recorded(&ro, &in, &err) < 0) {
			ps_input_close(&in);
			continue;
		}
		r = ps_replay_create(&in.machine, &ro, msg, sizeof(msg));
		for (int z = 0; z < in.machine.nr_zones; z++)
			pages += in.machine.zones[z].spanned;
		if (r) {
			b = ps_replay_bytes_per_page(r) * pages;
			if (b > worst)
				worst = b;
			ps_replay_destroy(r);
		}
		ps_input_close(&in);
	}
	/* the simulate-mode table grows with the blocks in use: twice the start's, and 64 MiB for the rest */
	return (long)((2 * worst * per) / (1 << 20)) + 64;
}

static int write_text(const char *path, const char *text, int mode)
{
	struct ps_error err = { { 0 } };
	struct ps_out out;

	if (ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	fputs(text, out.f);
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	if (mode)
		chmod(path, mode);
	return 0;
}

/* A word for sh: single-quoted. */
static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	fputc('\'', f);
}

static int self_path(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n <= 0)
		return -1;
	buf[n] = 0;
	return 0;
}

static int emit(const struct sweep *s, const char *what, int per, int max_running, const char *const *sbatch_opts,
		int nr_sbatch_opts, int submit)
{
	char exe[PATH_MAX], dir[PATH_MAX], sub[PATH_MAX], path[PATH_MAX];
	char **tasks = NULL, *text = NULL;
	size_t len = 0;
	int nt, ret = PS_EXIT_FAIL;
	FILE *f;

	if (self_path(exe, sizeof(exe)) < 0 || !realpath(s->dir, dir)) {
		ps_error("cannot find the pagesim binary or the directory '%s'", s->dir);
		return PS_EXIT_FAIL;
	}
	nt = tasks_of(s, per, &tasks);
	if (nt < 0) {
		ps_error("out of memory");
		return PS_EXIT_FAIL;
	}
	snprintf(sub, sizeof(sub), "%s/%s", dir, !strcmp(what, "slurm") ? "slurm" : "parallel");
	if (mkdir_p(sub) < 0) {
		ps_error("cannot create '%s': %s", sub, strerror(errno));
		goto out;
	}
	if (!strcmp(what, "parallel")) {
		f = open_memstream(&text, &len);
		for (int i = 0; i < nt; i++) {
			sh_quote(f, exe);
			fprintf(f, " sweep -q -j 1 --cell %s ", tasks[i]);
			sh_quote(f, dir);
			fputc('\n', f);
		}
		fclose(f);
		snprintf(path, sizeof(path), "%s/jobs.txt", sub);
		if (write_text(path, text, 0) < 0)
			goto out;
		printf("%s: %d tasks; run them with\n  parallel --joblog %s/joblog --resume -j %d -a %s\n"
		       "and then\n  %s sweep --collect %s\n",
		       path, nt, sub, max_running > 0 ? max_running : (int)sysconf(_SC_NPROCESSORS_ONLN), path, exe, dir);
		ret = PS_EXIT_OK;
		goto out;
	}
	/* the array */
	f = open_memstream(&text, &len);
	fprintf(f, "#!/bin/sh\n# pagesim %s sweep of %d cells over %d traces: one array task per", PAGESIM_VERSION,
		s->nr_cells, s->nr_traces);
	fprintf(f, per > 1 ? " group of up to %d cells of one trace\n" : " cell\n", per);
	fprintf(f, "#SBATCH --job-name=pagesim-sweep\n");
	if (max_running > 0)
		fprintf(f, "#SBATCH --array=0-%d%%%d\n", nt - 1, max_running);
	else
		fprintf(f, "#SBATCH --array=0-%d\n", nt - 1);
	fprintf(f, "#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n#SBATCH --mem=%ldM\n", task_mem_mb(s, per));
	fprintf(f, "#SBATCH --output=%s/%%A_%%a.out\n", sub);
	for (int i = 0; i < nr_sbatch_opts; i++)
		fprintf(f, "#SBATCH %s\n", sbatch_opts[i]);
	fprintf(f, "set -e\ncase \"$SLURM_ARRAY_TASK_ID\" in\n");
	for (int i = 0; i < nt; i++)
		fprintf(f, "%d) cells=%s ;;\n", i, tasks[i]);
	fprintf(f, "*) echo \"pagesim sweep: no task $SLURM_ARRAY_TASK_ID in this array\" >&2; exit 2 ;;\nesac\nexec ");
	sh_quote(f, exe);
	fprintf(f, " sweep -q -j \"${SLURM_CPUS_PER_TASK:-1}\" --cell \"$cells\" ");
	sh_quote(f, dir);
	fputc('\n', f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/array.sbatch", sub);
	if (write_text(path, text, 0755) < 0)
		goto out;
	free(text);
	text = NULL;
	/* the aggregation job */
	f = open_memstream(&text, &len);
	fprintf(f, "#!/bin/sh\n# pagesim %s sweep: gathers the cells once the array is done\n"
		   "# (submit with --dependency=afterok:ARRAY_JOB_ID)\n",
		PAGESIM_VERSION);
	fprintf(f, "#SBATCH --job-name=pagesim-collect\n#SBATCH --ntasks=1\n#SBATCH --mem=256M\n");
	fprintf(f, "#SBATCH --output=%s/collect-%%j.out\n", sub);
	for (int i = 0; i < nr_sbatch_opts; i++)
		fprintf(f, "#SBATCH %s\n", sbatch_opts[i]);
	fputs("exec ", f);
	sh_quote(f, exe);
	fputs(" sweep --collect ", f);
	sh_quote(f, dir);
	fputc('\n', f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/collect.sbatch", sub);
	if (write_text(path, text, 0755) < 0)
		goto out;
	if (!submit) {
		printf("%s/array.sbatch: %d array tasks; submit with\n"
		       "  jobid=$(sbatch --parsable %s/array.sbatch)\n"
		       "  sbatch --dependency=afterok:$jobid %s/collect.sbatch\n",
		       sub, nt, sub, sub);
		ret = PS_EXIT_OK;
		goto out;
	}
	{
		char *cmd = NULL, id[64] = "";
		size_t cl = 0;
		FILE *p;
		int st;

		f = open_memstream(&cmd, &cl);
		fputs("sbatch --parsable ", f);
		snprintf(path, sizeof(path), "%s/array.sbatch", sub);
		sh_quote(f, path);
		fclose(f);
		p = popen(cmd, "r");
		free(cmd);
		if (!p || !fgets(id, sizeof(id), p)) {
			if (p)
				pclose(p);
			ps_error("sbatch %s/array.sbatch failed (is Slurm here? sbatch on the PATH?)", sub);
			goto out;
		}
		st = pclose(p);
		id[strcspn(id, ";\n")] = 0;
		if (st != 0 || !id[0] || strspn(id, "0123456789") != strlen(id)) {
			ps_error("sbatch %s/array.sbatch failed", sub);
			goto out;
		}
		printf("array job %s\n", id);
		fflush(stdout);
		f = open_memstream(&cmd, &cl);
		fprintf(f, "sbatch --parsable --dependency=afterok:%s ", id);
		snprintf(path, sizeof(path), "%s/collect.sbatch", sub);
		sh_quote(f, path);
		fclose(f);
		p = popen(cmd, "r");
		free(cmd);
		if (!p || !fgets(id, sizeof(id), p) || pclose(p) != 0) {
			ps_error("sbatch %s/collect.sbatch failed", sub);
			goto out;
		}
		id[strcspn(id, ";\n")] = 0;
		printf("collect job %s\n", id);
	}
	ret = PS_EXIT_OK;
out:
	for (int i = 0; i < nt; i++)
		free(tasks[i]);
	free(tasks);
	free(text);
	return ret;
}

int cmd_sweep(int argc, char **argv)
{
	struct option opts[64];
	struct sweep_args a = { .simulate = 1, .ensemble = 1 };
	struct ps_diff_opts dopts;
	struct ps_error err = { { 0 } };
	struct sweep s = { 0 };
	const char *dir = NULL, *cells = NULL, *emit_what = NULL, *sbatch_opts[32];
	int jobs = (int)sysconf(_SC_NPROCESSORS_ONLN), group = 0, plan_only = 0, quiet = 0, submit = 0, per = 1;
	int max_running = 0, do_collect = 0, do_report = 0, repeats = 0, nr_sbatch = 0, opt, n, ret = PS_EXIT_FAIL;
	size_t no = 0;

	ps_diff_opts_init(&dopts);
	for (size_t i = 0; i < sizeof(sweep_own_options) / sizeof(sweep_own_options[0]); i++)
		opts[no++] = sweep_own_options[i];
	for (const struct option *o = ps_diff_report_options; o->name && no + 1 < 64; o++)
		opts[no++] = *o;
	memset(&opts[no], 0, sizeof(opts[no]));
	if (jobs < 1)
		jobs = 1;
	optind = 1;
	while ((opt = ps_getopt("sweep", argc, argv, "o:j:qh", opts)) != -1) {
		switch (opt) {
		case 'o': dir = optarg; break;
		case 'j':
			if (parse_count(optarg, "-j", 1, 1024, &jobs))
				return PS_EXIT_USAGE;
			break;
		case OPT_SET:
			if (a.nr_axes == SWEEP_MAX_AXES)
				return ps_usage_error("sweep", "more than %d --set options", SWEEP_MAX_AXES);
			a.axes[a.nr_axes++] = optarg;
			break;
		case OPT_POLICY:
			if (a.policies)
				return ps_usage_error("sweep", "--policy given twice: give the policies in one list, P1,P2");
			a.policies = optarg;
			break;
		case OPT_MODE:
			if (!strcmp(optarg, "simulate"))
				a.simulate = 1;
			else if (!strcmp(optarg, "follow"))
				a.simulate = 0;
			else
				return ps_usage_error("sweep", "--mode must be simulate or follow, not '%s'", optarg);
			break;
		case OPT_ENSEMBLE:
			if (parse_count(optarg, "--ensemble", 1, 10000, &a.ensemble))
				return PS_EXIT_USAGE;
			break;
		case OPT_GROUP:
			if (parse_count(optarg, "--group-size", 1, 1 << 20, &group))
				return PS_EXIT_USAGE;
			break;
		case OPT_PLAN: plan_only = 1; break;
		case OPT_CELL: cells = optarg; break;
		case OPT_EMIT:
			if (strcmp(optarg, "slurm") && strcmp(optarg, "parallel"))
				return ps_usage_error("sweep", "--emit must be slurm or parallel, not '%s'", optarg);
			emit_what = optarg;
			break;
		case OPT_SUBMIT: submit = 1; break;
		case OPT_PER_TASK:
			if (parse_count(optarg, "--cells-per-task", 1, 1 << 20, &per))
				return PS_EXIT_USAGE;
			break;
		case OPT_MAX_RUNNING:
			if (parse_count(optarg, "--max-running", 1, 1 << 20, &max_running))
				return PS_EXIT_USAGE;
			break;
		case OPT_SBATCH_OPT:
			if (nr_sbatch == 32)
				return ps_usage_error("sweep", "more than 32 --sbatch-opt options");
			if (strchr(optarg, '\n'))
				return ps_usage_error("sweep", "--sbatch-opt takes one line");
			sbatch_opts[nr_sbatch++] = optarg;
			break;
		case OPT_COLLECT: do_collect = 1; break;
		case OPT_REPORT: do_report = 1; break;
		case OPT_REPEATS: repeats = 1; break;
		case 'q': quiet = 1; break;
		case 'h': fputs(sweep_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		case '?': return PS_EXIT_USAGE;
		default:
			n = ps_diff_opts_parse(&dopts, opt, optarg, "sweep");
			if (n < 0)
				return ps_usage_error("sweep", "unknown option");
			if (n > 0)
				return n;
			if (!do_report)
				return ps_usage_error("sweep", "%s is a --report option", argv[optind - 1]);
			break;
		}
	}
	if (do_report) {
		/* with --report, -o is the report's file */
		dopts.output = dir;
		dir = NULL;
	}
	if (a.ensemble > 1)
		return ps_usage_error("sweep", "--ensemble needs pagesim replay --ensemble, which this pagesim does not have yet; "
					       "run the sweep without it (each trace once per cell)");
	if (do_collect + do_report + (cells != NULL) > 1 || ((do_collect || do_report || cells) && (emit_what || dir)))
		return ps_usage_error("sweep", "--cell, --collect, --report and -o/--emit are separate uses: give one");
	if (submit && (!emit_what || strcmp(emit_what, "slurm")))
		return ps_usage_error("sweep", "--submit goes with --emit slurm");
	if (repeats && !do_report)
		return ps_usage_error("sweep", "--repeats goes with --report");
	if (do_collect || do_report || cells || (emit_what && !dir)) {
		int *which = NULL;

		if (optind != argc - 1)
			return ps_usage_error("sweep", optind >= argc ? "missing DIR" : "give one DIR (traces go with -o DIR)");
		if (a.nr_axes || a.policies)
			return ps_usage_error("sweep", "--set and --policy plan a sweep: they go with -o DIR TRACE...");
		if (sweep_load(&s, argv[optind], &err) < 0) {
			ps_error("%s", err.msg);
			return PS_EXIT_FAIL;
		}
		if (do_collect)
			ret = collect(&s, &dopts);
		else if (do_report) {
			struct ps_out out;

			if (ps_out_open(&out, dopts.output, &err) < 0) {
				ps_error("%s", err.msg);
			} else if (report(&s, &dopts, repeats, out.f) < 0) {
				ps_out_abort(&out);
			} else if (ps_out_commit(&out, &err) < 0) {
				ps_error("%s", err.msg);
			} else {
				ret = PS_EXIT_OK;
			}
		} else if (cells) {
			n = parse_cells(cells, s.nr_cells, &which);
			if (n < 0) {
				int nr_cells = s.nr_cells;	/* sweep_free() clears it */

				free(which);
				sweep_free(&s);
				return ps_usage_error("sweep", "--cell wants indices of the manifest's %d cells (0-%d) such as 0-3,7, not '%s'",
						      nr_cells, nr_cells - 1, cells);
			}
			if (sweep_dirs(s.dir) == 0)
				ret = sweep_run(&s, which, n, jobs, group, quiet) == 0 ? PS_EXIT_OK : PS_EXIT_FAIL;
			free(which);
		} else {
			ret = emit(&s, emit_what, per, max_running, sbatch_opts, nr_sbatch, submit);
		}
		sweep_free(&s);
		return ret;
	}
	if (!dir)
		return ps_usage_error("sweep", "missing -o DIR");
	if (optind >= argc)
		return ps_usage_error("sweep", "missing TRACE");
	a.nr_traces = argc - optind;
	a.traces = argv + optind;
	if (sweep_plan(&s, dir, &a, &err) < 0) {
		if (strcmp(err.msg, "bad policy"))
			ps_error("%s", err.msg);
		sweep_free(&s);
		return strcmp(err.msg, "bad policy") ? PS_EXIT_FAIL : PS_EXIT_USAGE;
	}
	if (sweep_dirs(dir) < 0)
		goto out;
	if (sweep_write_manifest(&s, &err) < 0) {
		ps_error("%s", err.msg);
		goto out;
	}
	if (emit_what) {
		ret = emit(&s, emit_what, per, max_running, sbatch_opts, nr_sbatch, submit);
		goto out;
	}
	if (plan_only) {
		printf("%s/manifest.json: %d cells\n", dir, s.nr_cells);
		ret = PS_EXIT_OK;
		goto out;
	}
	{
		int *which = NULL, already = 0;

		n = pending_cells(&s, &which, &already);
		if (n < 0) {
			ps_error("out of memory");
			goto out;
		}
		if (!quiet && already)
			fprintf(stderr, "pagesim: %d of %d cells are done already: running %d\n", already, s.nr_cells, n);
		if (n && sweep_run(&s, which, n, jobs, group, quiet) != 0) {
			free(which);
			goto out;
		}
		free(which);
		ret = collect(&s, &dopts);
	}
out:
	sweep_free(&s);
	return ret;
}
