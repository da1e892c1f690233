// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_plot.c - pagesim plot: timelines, final states and diffs drawn by
 * gnuplot.  The script (with the data inline, as datablocks) is written
 * here and fed to gnuplot on a pipe; gnuplot's image goes straight into the
 * output file, which appears only once gnuplot succeeded.
 *
 * Kinds: counters (columns of one or more timelines over time), watermarks
 * (each zone's free pages against WMARK_MIN/LOW/HIGH, kswapd's awake
 * intervals shaded), pageblocks (a --state-dir's pageblocks by migratetype,
 * where fallbacks stole or claimed; several side by side), diff (a diff
 * --format json as bars, the spread as error bars).
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <json-c/json.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/file.h"
#include "cli/cli.h"
#include "cli/diffin.h"

static const char plot_usage[] =
	"usage: pagesim plot [OPTIONS] -o FILE INPUT...\n"
	"\n"
	"Draws timelines, final states and diffs through gnuplot (Debian: gnuplot-nox).\n"
	"An INPUT is a timeline (stat or replay --timeline, CSV or JSON lines), a replay\n"
	"--state-dir, or a diff --format json output; the kind defaults from the first.\n"
	"\n"
	"kinds:\n"
	"  counters     counters over time, one line per counter and timeline (several\n"
	"               timelines overlaid: an A/B); the default for a timeline\n"
	"  watermarks   each zone's free pages against WMARK_MIN, WMARK_LOW and WMARK_HIGH\n"
	"               (boost included), kswapd's awake intervals shaded; a column per timeline\n"
	"  pageblocks   each zone's pageblocks by migratetype, marked where fallbacks stole\n"
	"               from or claimed them; several state directories side by side\n"
	"  diff         a diff's counters as bars (mean against the first column's), the\n"
	"               spread of repeats as error bars\n"
	"\n"
	"options:\n"
	"  --kind KIND        counters, watermarks, pageblocks or diff\n"
	"  --counters LIST    the columns or counters to draw, comma-separated; shell patterns\n"
	"                     ('node*.numa_miss'); default: numa_hit,numa_miss (counters), the\n"
	"                     zones (watermarks: node0.Normal), every counter (diff)\n"
	"  --label NAME=INPUT call INPUT NAME in the legend (default: its policy, else its name)\n"
	"  --format FMT       svg or png (default: from -o's extension, else svg)\n"
	"  -o, --output FILE  the image (replaced only once complete); '-' is standard output\n"
	"  --script FILE      also write the gnuplot script (data inline) to FILE\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"exit status: 0 success, 1 failure (unreadable input, gnuplot missing or failing), 2 bad usage\n";

enum { OPT_KIND = 256, OPT_COUNTERS, OPT_LABEL, OPT_FORMAT, OPT_SCRIPT };

static const struct option plot_options[] = {
	{ "kind", required_argument, NULL, OPT_KIND },
	{ "counters", required_argument, NULL, OPT_COUNTERS },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "script", required_argument, NULL, OPT_SCRIPT },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

enum kind { K_COUNTERS, K_WATERMARKS, K_PAGEBLOCKS, K_DIFF, K_NONE };
static const char *const kind_names[] = { "counters", "watermarks", "pageblocks", "diff" };
enum in_type { IN_TIMELINE, IN_STATE, IN_DIFF };

#define MAX_INPUTS 16
#define MAX_POINTS 2000		/* rows drawn per timeline: more are merged */

/* A timeline: its header, and the columns wanted, [col][row]. */
struct timeline {
	char *meta[16][2];
	int nr_meta;
	uint64_t interval_ns;
	int nr_cols;
	char **name;
	char *kind;		/* 'd' delta, 'l' level */
	int *want;		/* index into data, -1 not loaded */
	int nr_want;
	double *start;
	int64_t **data;		/* [wanted][row] */
	int rows, cap;
	int header_lines;	/* lines before the first row */
};

/* A --state-dir: its pageblocks per zone. */
struct pb_zone {
	char name[64];		/* "node0 Normal" */
	uint64_t pfn;		/* the first pageblock's */
	char *types, *falls;
	int n, nfalls;
};

struct state {
	char *meta[16][2];
	int nr_meta;
	int pageblock_order;
	struct pb_zone *z;
	int nr_z;
};

struct input {
	const char *path;
	const char *label;
	enum in_type type;
	struct timeline tl;
	struct state st;
	json_object *diff;
};

static void free_meta(char *meta[][2], int n)
{
	for (int i = 0; i < n; i++) {
		free(meta[i][0]);
		free(meta[i][1]);
	}
}

static void free_input(struct input *in)
{
	struct timeline *t = &in->tl;

	free_meta(t->meta, t->nr_meta);
	for (int i = 0; i < t->nr_cols; i++)
		free(t->name[i]);
	free(t->name);
	free(t->kind);
	free(t->want);
	for (int i = 0; i < t->nr_want; i++)
		free(t->data[i]);
	free(t->data);
	free(t->start);
	free_meta(in->st.meta, in->st.nr_meta);
	for (int i = 0; i < in->st.nr_z; i++) {
		free(in->st.z[i].types);
		free(in->st.z[i].falls);
	}
	free(in->st.z);
	if (in->diff)
		json_object_put(in->diff);
}

static const char *meta_get(char *const meta[][2], int n, const char *key)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(meta[i][0], key))
			return meta[i][1];
	return NULL;
}

static void meta_add(char *meta[][2], int *n, const char *key, const char *value)
{
	if (*n == 16)
		return;
	meta[*n][0] = strdup(key);
	meta[*n][1] = strdup(value);
	if (!meta[*n][0] || !meta[*n][1]) {
		free(meta[*n][0]);
		free(meta[*n][1]);
		return;
	}
	(*n)++;
}

/* Splits a CSV line in place (quoted cells as ps_tl_out writes them); returns the cells. */
static int csv_split(char *line, char **cell, int max)
{
	int n = 0;
	char *p = line;

	while (n < max) {
		char *w = p;

		cell[n++] = p;
		if (*p == '"') {
			char *q = ++p;

			cell[n - 1] = w;
			for (;;) {
				if (!*p)
					break;
				if (*p == '"' && p[1] == '"') {
					*w++ = '"';
					p += 2;
				} else if (*p == '"') {
					p++;
					break;
				} else {
					*w++ = *p++;
				}
			}
			(void)q;
			*w = 0;
			if (*p == ',')
				p++;
			else
				return n;
			continue;
		}
		while (*p && *p != ',' && *p != '\n' && *p != '\r')
			p++;
		if (*p != ',') {
			*p = 0;
			return n;
		}
		*p++ = 0;
	}
	return n;
}

/* Where the timeline's rows start: the header parsed; @f left at the first row. */
static int timeline_header(struct input *in, FILE *f, int *jsonl, struct ps_error *err)
{
	struct timeline *t = &in->tl;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int c = fgetc(f);

	ungetc(c, f);
	*jsonl = c == '{';
	if (*jsonl) {
		json_object *h, *cols, *o;

		if ((len = getline(&line, &cap, f)) <= 0 || !(h = json_tokener_parse(line))) {
			free(line);
			return ps_err(err, "%s: line 1: not a pagesim timeline header", in->path);
		}
		free(line);
		if (!json_object_object_get_ex(h, "pagesim_timeline", NULL) ||
		    !json_object_object_get_ex(h, "columns", &cols) || !json_object_is_type(cols, json_type_array)) {
			json_object_put(h);
			return ps_err(err, "%s: line 1: not a pagesim timeline header", in->path);
		}
		json_object_object_foreach(h, k, v) {
			if (json_object_is_type(v, json_type_string))
				meta_add(t->meta, &t->nr_meta, k, json_object_get_string(v));
		}
		if (json_object_object_get_ex(h, "interval_ns", &o))
			t->interval_ns = (uint64_t)json_object_get_int64(o);
		t->nr_cols = (int)json_object_array_length(cols) - 2;
		t->name = calloc(t->nr_cols > 0 ? t->nr_cols : 1, sizeof(*t->name));
		t->kind = calloc(t->nr_cols > 0 ? t->nr_cols : 1, 1);
		if (!t->name || !t->kind) {
			json_object_put(h);
			return ps_err(err, "out of memory");
		}
		for (int i = 0; i < t->nr_cols; i++) {
			json_object *col = json_object_array_get_idx(cols, i + 2), *n, *kd;

			if (!json_object_object_get_ex(col, "name", &n) || !json_object_object_get_ex(col, "kind", &kd)) {
				json_object_put(h);
				return ps_err(err, "%s: line 1: column %d has no name or kind", in->path, i + 3);
			}
			t->name[i] = strdup(json_object_get_string(n));
			t->kind[i] = json_object_get_string(kd)[0] == 'l' ? 'l' : 'd';
			if (!t->name[i]) {
				json_object_put(h);
				return ps_err(err, "out of memory");
			}
		}
		json_object_put(h);
		t->header_lines = 1;
		return 0;
	}
	for (int lineno = 1; (len = getline(&line, &cap, f)) > 0; lineno++) {
		if (line[len - 1] == '\n')
			line[--len] = 0;
		if (lineno == 1 && strcmp(line, "# pagesim timeline")) {
			free(line);
			return ps_err(err, "%s: line 1: not a pagesim timeline (it starts with '# pagesim timeline')", in->path);
		}
		if (!strncmp(line, "# kind: ", 8)) {
			char **cell = malloc(sizeof(*cell) * (len / 2 + 2));
			int n = cell ? csv_split(line + 8, cell, (int)(len / 2 + 2)) : 0;

			free(t->kind);
			t->kind = calloc(n + 1, 1);
			for (int i = 2; t->kind && i < n; i++)
				t->kind[i - 2] = cell[i][0] == 'l' ? 'l' : 'd';
			free(cell);
			if (!t->kind)
				break;
			continue;
		}
		if (line[0] == '#') {
			char *colon = strstr(line, ": ");

			/* "# key: value"; a key holds no space ("# start_s, end_s: ..." describes) */
			if (colon && colon - line > 2 && colon - line < 40 && !memchr(line + 2, ' ', colon - line - 2)) {
				*colon = 0;
				meta_add(t->meta, &t->nr_meta, line + 2, colon + 2);
				if (!strcmp(line + 2, "interval_ns"))
					t->interval_ns = strtoull(colon + 2, NULL, 10);
			}
			continue;
		}
		/* the column names */
		{
			char **cell = malloc(sizeof(*cell) * (len / 2 + 2));
			int n;

			if (!cell)
				break;
			n = csv_split(line, cell, (int)(len / 2 + 2));
			if (n < 2 || strcmp(cell[0], "start_s") || strcmp(cell[1], "end_s")) {
				free(cell);
				free(line);
				return ps_err(err, "%s: line %d: expected the column names (start_s,end_s,...)", in->path, lineno);
			}
			if (!t->kind) {
				free(cell);
				free(line);
				return ps_err(err, "%s: line %d: no '# kind:' line before the column names", in->path, lineno);
			}
			t->nr_cols = n - 2;
			t->name = calloc(n, sizeof(*t->name));
			if (!t->name) {
				free(cell);
				break;
			}
			for (int i = 0; i < t->nr_cols; i++)
				if (!(t->name[i] = strdup(cell[i + 2]))) {
					free(cell);
					free(line);
					return ps_err(err, "out of memory");
				}
			free(cell);
			free(line);
			t->header_lines = lineno;
			return 0;
		}
	}
	free(line);
	return ps_err(err, "%s: no column names (a timeline's header ends with start_s,end_s,...)", in->path);
}

static int col_index(const struct timeline *t, const char *name)
{
	for (int i = 0; i < t->nr_cols; i++)
		if (!strcmp(t->name[i], name))
			return i;
	return -1;
}

/* Marks column @name wanted; its index in data, or -1 when the timeline lacks it. */
static int want(struct timeline *t, const char *name)
{
	int i = col_index(t, name);

	if (i < 0)
		return -1;
	if (t->want[i] < 0)
		t->want[i] = t->nr_want++;
	return t->want[i];
}

/* The rows of the wanted columns. */
static int timeline_rows(struct input *in, FILE *f, int jsonl, struct ps_error *err)
{
	struct timeline *t = &in->tl;
	char *line = NULL, **cell = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = t->header_lines, ret = -1;

	t->data = calloc(t->nr_want ? t->nr_want : 1, sizeof(*t->data));
	cell = malloc(sizeof(*cell) * (t->nr_cols + 3));
	if (!t->data || !cell) {
		ps_err(err, "out of memory");
		goto out;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (t->rows == t->cap) {
			int nc = t->cap ? 2 * t->cap : 1024;
			double *s = realloc(t->start, nc * sizeof(*s));

			if (!s) {
				ps_err(err, "out of memory");
				goto out;
			}
			t->start = s;
			for (int w = 0; w < t->nr_want; w++) {
				int64_t *d = realloc(t->data[w], nc * sizeof(*d));

				if (!d) {
					ps_err(err, "out of memory");
					goto out;
				}
				t->data[w] = d;
			}
			t->cap = nc;
		}
		if (jsonl) {
			json_object *o = json_tokener_parse(line), *v;

			if (!o || !json_object_object_get_ex(o, "start_s", &v)) {
				if (o)
					json_object_put(o);
				ps_err(err, "%s: line %d: not a timeline row", in->path, lineno);
				goto out;
			}
			t->start[t->rows] = json_object_get_double(v);
			for (int i = 0; i < t->nr_cols; i++)
				if (t->want[i] >= 0)
					t->data[t->want[i]][t->rows] =
						json_object_object_get_ex(o, t->name[i], &v) ? json_object_get_int64(v) : 0;
			json_object_put(o);
		} else {
			int n = csv_split(line, cell, t->nr_cols + 3);

			if (n != t->nr_cols + 2) {
				ps_err(err, "%s: line %d: %d cells, the header names %d columns", in->path, lineno, n,
				       t->nr_cols + 2);
				goto out;
			}
			t->start[t->rows] = strtod(cell[0], NULL);
			for (int i = 0; i < t->nr_cols; i++)
				if (t->want[i] >= 0)
					t->data[t->want[i]][t->rows] = strtoll(cell[i + 2], NULL, 10);
		}
		t->rows++;
	}
	if (!t->rows) {
		ps_err(err, "%s: no rows", in->path);
		goto out;
	}
	ret = 0;
out:
	free(cell);
	free(line);
	return ret;
}

static int load_state(struct input *in, struct ps_error *err)
{
	char path[4096], *text, *save = NULL;
	struct state *s = &in->st;
	struct pb_zone *z = NULL;
	size_t len;

	snprintf(path, sizeof(path), "%s/info", in->path);
	if ((text = ps_read_file(path, &len, err))) {
		for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			char *colon = strstr(l, ": ");

			if (l[0] != '#' && colon) {
				*colon = 0;
				meta_add(s->meta, &s->nr_meta, l, colon + 2);
			}
		}
		free(text);
	}
	snprintf(path, sizeof(path), "%s/pageblocks", in->path);
	text = ps_read_file(path, &len, err);
	if (!text)
		return ps_err(err, "%s: no pageblocks file (written by replay --state-dir)", in->path);
	save = NULL;
	s->pageblock_order = -1;
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int node;
		char zname[32], word[16], letters[128];
		unsigned long long pfn;

		if (sscanf(l, "Page block order: %d", &s->pageblock_order) == 1 || l[0] == '#' ||
		    !strncmp(l, "Pages per block", 15))
			continue;
		if (sscanf(l, "Node %d, zone %31s", &node, zname) == 2) {
			struct pb_zone *nz = realloc(s->z, (s->nr_z + 1) * sizeof(*nz));

			if (!nz) {
				free(text);
				return ps_err(err, "out of memory");
			}
			s->z = nz;
			z = &s->z[s->nr_z++];
			memset(z, 0, sizeof(*z));
			snprintf(z->name, sizeof(z->name), "node%d %s", node, zname);
			continue;
		}
		if (z && sscanf(l, "%15s 0x%llx %127s", word, &pfn, letters) == 3) {
			int f = !strcmp(word, "fallbacks");
			char **dst = f ? &z->falls : &z->types;
			int *n = f ? &z->nfalls : &z->n;
			size_t k = strlen(letters);
			char *g = realloc(*dst, *n + k + 1);

			if (!g) {
				free(text);
				return ps_err(err, "out of memory");
			}
			if (!*n && !f)
				z->pfn = pfn;
			memcpy(g + *n, letters, k + 1);
			*dst = g;
			*n += (int)k;
			continue;
		}
		free(text);
		return ps_err(err, "%s: cannot read the line '%.60s'", path, l);
	}
	free(text);
	if (!s->nr_z || s->pageblock_order < 0)
		return ps_err(err, "%s: no zones or no 'Page block order' line", path);
	return 0;
}

static int load_diff(struct input *in, struct ps_error *err)
{
	size_t len;
	char *text = ps_read_file(in->path, &len, err);
	json_object *fmt;

	if (!text)
		return -1;
	in->diff = ps_json_parse_object(text, in->path, err);
	free(text);
	if (!in->diff)
		return -1;
	if (!json_object_object_get_ex(in->diff, "format", &fmt) ||
	    strcmp(json_object_get_string(fmt), "pagesim-diff"))
		return ps_err(err, "%s: not a pagesim diff --format json output", in->path);
	return 0;
}

/* What @path is, by its content. */
static int input_type(const char *path, enum in_type *type, struct ps_error *err)
{
	struct stat st;
	char head[64] = { 0 };
	FILE *f;

	if (stat(path, &st) < 0)
		return ps_err(err, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		*type = IN_STATE;
		return 0;
	}
	f = fopen(path, "r");
	if (!f)
		return ps_err(err, "%s: %s", path, strerror(errno));
	if (!fread(head, 1, sizeof(head) - 1, f))
		head[0] = 0;
	fclose(f);
	if (!strncmp(head, "# pagesim timeline", 18) || !strncmp(head, "{\"pagesim_timeline\"", 19))
		*type = IN_TIMELINE;
	else if (head[0] == '{')
		*type = IN_DIFF;
	else
		return ps_err(err, "%s: neither a timeline (stat or replay --timeline), a --state-dir nor a diff --format json",
			      path);
	return 0;
}

/* Writing the script. */

static void gp_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static const char *in_meta(const struct input *in, const char *key)
{
	const char *v = in->type == IN_TIMELINE ? meta_get(in->tl.meta, in->tl.nr_meta, key) :
			in->type == IN_STATE ? meta_get(in->st.meta, in->st.nr_meta, key) : NULL;

	return v && *v ? v : NULL;
}

/* "numa2-base.pgs, simulate, policy wsf-10 (profile 5.10) vs ..., pagesim 0.1.0" */
static void title(char *buf, size_t len, const char *what, struct input *in, int n)
{
	const char *trace = in_meta(&in[0], "trace"), *mode = in_meta(&in[0], "mode");
	const char *ver = in_meta(&in[0], "pagesim");
	size_t k = (size_t)snprintf(buf, len, "%s: %s", what, trace ? trace : in[0].path);

	if (trace) {
		char *copy = strdup(trace);

		if (copy) {
			k = (size_t)snprintf(buf, len, "%s: %s", what, basename(copy));
			free(copy);
		}
	}
	for (int i = 1; i < n && k < len; i++) {
		const char *t = in_meta(&in[i], "trace");

		if (t && trace && strcmp(t, trace)) {
			char *copy = strdup(t);

			if (copy) {
				k += (size_t)snprintf(buf + k, len - k, " and %s", basename(copy));
				free(copy);
			}
		}
	}
	if (mode && k < len)
		k += (size_t)snprintf(buf + k, len - k, ", %s", mode);
	if (k < len)
		k += (size_t)snprintf(buf + k, len - k, ", pagesim %s", ver ? ver : "?");
	for (int i = 0; i < n && k < len; i++) {
		const char *p = in_meta(&in[i], "policy");

		if (p && strcmp(p, "-"))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? " vs " : "\npolicy ", p);
	}
}

static const char *label_of(const struct input *in)
{
	const char *p;

	if (in->label)
		return in->label;
	p = in_meta(in, "policy");
	return p ? p : in->path;
}

/* The kernel's unit of a timeline column. */
static const char *unit_of(const char *name)
{
	const char *last = strrchr(name, '.');

	last = last ? last + 1 : name;
	if (strstr(name, ".free.order"))
		return "free blocks";
	if (!strncmp(last, "pgalloc_", 8) || !strcmp(last, "pgfree") || !strcmp(last, "free") ||
	    !strncmp(last, "wmark_", 6) || !strcmp(last, "watermark_boost") || !strcmp(last, "pcp") ||
	    strstr(last, "reclaimed") || strstr(last, "freed"))
		return "pages";
	if (!strncmp(last, "numa_", 5) || !strcmp(last, "local_node") || !strcmp(last, "other_node") ||
	    !strcmp(last, "interleave_hit") || !strcmp(last, "alloc_failed") || !strcmp(last, "allocs"))
		return "allocations";
	if (!strcmp(last, "lock_acquisitions"))
		return "zone->lock acquisitions";
	if (!strcmp(last, "kswapd_wakeups"))
		return "kswapd wakeups";
	if (!strcmp(last, "kswapd_awake"))
		return "kswapd awake (1) or asleep (0)";
	return "events";
}

static void interval_text(uint64_t ns, char *buf, size_t len)
{
	if (ns % 1000000000ull == 0)
		snprintf(buf, len, "%llu s", (unsigned long long)(ns / 1000000000ull));
	else if (ns % 1000000ull == 0)
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / 1000000ull));
	else if (ns % 1000ull == 0)
		snprintf(buf, len, "%llu us", (unsigned long long)(ns / 1000ull));
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

static int split_list(const char *list, char ***out)
{
	char *copy = strdup(list ? list : ""), *save = NULL;
	int n = 0;

	*out = NULL;
	if (!copy)
		return -1;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **o = realloc(*out, (n + 2) * sizeof(*o));

		if (!o)
			break;
		*out = o;
		o[n++] = t;
		o[n] = NULL;
	}
	if (!n)
		free(copy);
	return n;
}

static void free_list(char **l, int n)
{
	if (n > 0)
		free(l[0]);
	free(l);
}

/*
 * One timeline's wanted column @w as a datablock of "start value" rows,
 * merged @k rows at a time (deltas summed, levels at the group's end).
 */
static void datablock(FILE *f, const char *name, const struct timeline *t, const int *w, int nw, int k)
{
	fprintf(f, "$%s << EOD\n", name);
	for (int r = 0; r < t->rows; r += k) {
		int e = r + k < t->rows ? r + k : t->rows;

		fprintf(f, "%.9f", t->start[r]);
		for (int i = 0; i < nw; i++) {
			int64_t v = 0;
			int ci = w[i];

			if (ci < 0) {
				fputs(" NaN", f);
				continue;
			}
			if (t->kind[ci] == 'l')
				v = t->data[t->want[ci]][e - 1];
			else
				for (int j = r; j < e; j++)
					v += t->data[t->want[ci]][j];
			fprintf(f, " %lld", (long long)v);
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
}

static int merge_of(const struct timeline *t)
{
	return t->rows > MAX_POINTS ? (t->rows + MAX_POINTS - 1) / MAX_POINTS : 1;
}

static const char *const line_colors[] = {
	"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2",
};

static int script_counters(FILE *f, struct input *in, int n, char **pat, int npat, struct ps_error *err)
{
	char ttl[1024], iv[32], ylabel[256] = "";
	int series = 0, delta = 0, level = 0;
	const char *unit = NULL;
	int mixed = 0;

	for (int i = 0; i < n; i++) {
		struct timeline *t = &in[i].tl;
		int *w = calloc(t->nr_cols + 1, sizeof(*w)), nw = 0;
		char blk[16];

		if (!w)
			return ps_err(err, "out of memory");
		for (int c = 0; c < t->nr_cols; c++)
			for (int p = 0; p < npat; p++)
				if (!fnmatch(pat[p], t->name[c], 0)) {
					w[nw++] = c;
					break;
				}
		for (int j = 0; j < nw; j++) {
			const char *u = unit_of(t->name[w[j]]);

			mixed |= unit && strcmp(unit, u);
			unit = u;
			delta |= t->kind[w[j]] == 'd';
			level |= t->kind[w[j]] == 'l';
		}
		snprintf(blk, sizeof(blk), "d%d", i);
		datablock(f, blk, t, w, nw, merge_of(t));
		free(w);
	}
	/* the plot command */
	interval_text(in[0].tl.interval_ns * (uint64_t)merge_of(&in[0].tl), iv, sizeof(iv));
	if (delta && !level)
		snprintf(ylabel, sizeof(ylabel), "%s per %s interval", mixed ? "count" : unit, iv);
	else if (level && !delta)
		snprintf(ylabel, sizeof(ylabel), "%s at the interval's end", mixed ? "value" : unit);
	else
		snprintf(ylabel, sizeof(ylabel), "%s per %s interval, or at its end", mixed ? "count" : unit, iv);
	title(ttl, sizeof(ttl), "counters over time", in, n);
	fputs("set title ", f);
	gp_str(f, ttl);
	fputs("\nset xlabel \"time since the trace's first event (s)\"\nset ylabel ", f);
	gp_str(f, ylabel);
	fputs("\nset key outside bottom center horizontal\nset grid\nset format y '%.0f'\nplot ", f);
	for (int i = 0; i < n; i++) {
		struct timeline *t = &in[i].tl;
		int col = 2;

		for (int c = 0; c < t->nr_cols; c++) {
			int hit = 0;
			char key[256];

			for (int p = 0; p < npat && !hit; p++)
				hit = !fnmatch(pat[p], t->name[c], 0);
			if (!hit)
				continue;
			if (n > 1)
				snprintf(key, sizeof(key), "%s: %s", label_of(&in[i]), t->name[c]);
			else
				snprintf(key, sizeof(key), "%s", t->name[c]);
			fprintf(f, "%s$d%d using 1:%d with steps lw 1.5 lc rgb '%s' dt %d title ", series ? ", \\\n     " : "",
				i, col++, line_colors[series % 8], i % 4 + 1);
			gp_str(f, key);
			series++;
		}
	}
	if (!series)
		return ps_err(err, "no column of the timelines matches --counters");
	fputc('\n', f);
	return 0;
}

/* The zones of a timeline: the prefixes of its nodeN.ZONE.free columns. */
static int zones_of(const struct timeline *t, char ***out)
{
	int n = 0;

	*out = NULL;
	for (int c = 0; c < t->nr_cols; c++) {
		size_t l = strlen(t->name[c]);
		char **o;

		if (strncmp(t->name[c], "node", 4) || l < 6 || strcmp(t->name[c] + l - 5, ".free"))
			continue;
		o = realloc(*out, (n + 1) * sizeof(*o));
		if (!o)
			break;
		*out = o;
		o[n] = strndup(t->name[c], l - 5);
		if (o[n])
			n++;
	}
	return n;
}

/* The zones the watermarks kind draws (those --counters names, all by default). */
static int count_zones(const struct timeline *t, char **pat, int npat)
{
	char **zones;
	int nz = zones_of(t, &zones), shown = 0;

	for (int z = 0; z < nz; z++) {
		int hit = !npat;

		for (int p = 0; p < npat && !hit; p++)
			hit = !fnmatch(pat[p], zones[z], 0);
		shown += hit;
		free(zones[z]);
	}
	free(zones);
	return shown;
}

static int script_watermarks(FILE *f, struct input *in, int n, char **pat, int npat, struct ps_error *err)
{
	char ttl[1024], **zones = NULL;
	int nz = zones_of(&in[0].tl, &zones), shown = 0;

	for (int z = 0; z < nz; z++) {
		int hit = !npat;

		for (int p = 0; p < npat && !hit; p++)
			hit = !fnmatch(pat[p], zones[z], 0);
		if (!hit) {
			free(zones[z]);
			zones[z] = NULL;
		} else {
			shown++;
		}
	}
	if (!shown) {
		for (int z = 0; z < nz; z++)
			free(zones[z]);
		free(zones);
		return ps_err(err, "no zone of the timeline (nodeN.ZONE.free columns) matches --counters");
	}
	title(ttl, sizeof(ttl), "free pages against the watermarks", in, n);
	fprintf(f, "set multiplot layout %d,%d title ", shown, n);
	gp_str(f, ttl);
	fputs("\nset xlabel \"time since the trace's first event (s)\"\nset ylabel 'pages (log scale)'\nset grid\n"
	      "set logscale y\nset key outside right top font ',9'\nset format y '%.0f'\n", f);
	for (int z = 0; z < nz; z++) {
		if (!zones[z])
			continue;
		for (int i = 0; i < n; i++) {
			struct timeline *t = &in[i].tl;
			char name[160], blk[32], ptitle[300], node[16];
			int w[6], k = merge_of(t), awake = -1, wake = -1, freed = -1;
			int64_t ymax = 1, ymin = INT64_MAX;
			double half = (double)t->interval_ns * k / 2e9;
			const char *suffix[] = { "free", "wmark_min", "wmark_low", "wmark_high" };

			snprintf(node, sizeof(node), "%.*s", (int)(strchr(zones[z], '.') - zones[z]), zones[z]);
			for (int s = 0; s < 4; s++) {
				snprintf(name, sizeof(name), "%s.%s", zones[z], suffix[s]);
				w[s] = col_index(t, name);
			}
			snprintf(name, sizeof(name), "%s.kswapd_awake", node);
			awake = col_index(t, name);
			snprintf(name, sizeof(name), "%s.kswapd_wakeups", node);
			wake = col_index(t, name);
			snprintf(name, sizeof(name), "trace.%s.kswapd_freed", node);
			freed = col_index(t, name);
			snprintf(blk, sizeof(blk), "w%d_%d", z, i);
			datablock(f, blk, t, w, 4, k);
			for (int s = 0; s < 4; s++)
				for (int r = 0; w[s] >= 0 && r < t->rows; r++)
					if (t->data[t->want[w[s]]][r] > ymax)
						ymax = t->data[t->want[w[s]]][r];
			for (int r = 0; w[1] >= 0 && r < t->rows; r++)
				if (t->data[t->want[w[1]]][r] > 0 && t->data[t->want[w[1]]][r] < ymin)
					ymin = t->data[t->want[w[1]]][r];
			ymin = ymin == INT64_MAX || ymin < 3 ? 1 : ymin / 3;
			ymax = ymax * 3 / 2 + 10;
			/*
			 * kswapd awake: at the row's end, at the one before's (so through
			 * the row), or woken in it; else the trace's kswapd freeing.  The
			 * awake rows merged into boxes, bottom to top.
			 */
			fprintf(f, "$k%d_%d << EOD\n", z, i);
			{
				double from = -1;

				for (int r = 0; r <= t->rows; r += k) {
					int on = 0;

					for (int j = r > 0 ? r - 1 : 0; r < t->rows && j < r + k && j < t->rows; j++) {
						if (awake >= 0 && t->data[t->want[awake]][j])
							on = 1;
						if (j >= r && wake >= 0 && t->data[t->want[wake]][j])
							on = 1;
						if (j >= r && awake < 0 && freed >= 0 && t->data[t->want[freed]][j])
							on = 1;
					}
					if (on && from < 0)
						from = t->start[r];
					if (!on && from >= 0) {
						double to = r < t->rows ? t->start[r] : t->start[t->rows - 1] + 2 * half;

						fprintf(f, "%.9f %lld %.9f %.9f %lld %lld\n", from, (long long)ymin, from, to,
							(long long)ymin, (long long)ymax);
						from = -1;
					}
				}
			}
			fputs("EOD\n", f);
			snprintf(ptitle, sizeof(ptitle), "%s%s%s", zones[z], n > 1 ? ": " : "", n > 1 ? label_of(&in[i]) : "");
			fputs("set title ", f);
			gp_str(f, ptitle);
			fprintf(f, "\nset yrange [%lld:%lld]\n", (long long)ymin, (long long)ymax);
			fprintf(f, "plot $k%d_%d using 1:2:3:4:5:6 with boxxyerror fs solid 0.3 noborder lc rgb '#f5a623' title ", z, i);
			/* kswapdN: the node's kswapd thread */
			snprintf(name, sizeof(name), awake >= 0 || wake >= 0 ? "kswapd%s awake" : "kswapd%s freeing (trace)",
				 node + 4);
			gp_str(f, name);
			fprintf(f, ", \\\n     $w%d_%d using 1:2 with steps lw 1.5 lc rgb '#1f77b4' title 'NR_FREE_PAGES'", z, i);
			fprintf(f, ", \\\n     $w%d_%d using 1:3 with steps lw 1 lc rgb '#d62728' dt 2 title 'WMARK_MIN'", z, i);
			fprintf(f, ", \\\n     $w%d_%d using 1:4 with steps lw 1 lc rgb '#ff7f0e' dt 2 title 'WMARK_LOW'", z, i);
			fprintf(f, ", \\\n     $w%d_%d using 1:5 with steps lw 1 lc rgb '#2ca02c' dt 2 title 'WMARK_HIGH'\n", z, i);
		}
		free(zones[z]);
	}
	free(zones);
	fputs("unset multiplot\n", f);
	return 0;
}

/* Migratetypes by show_migration_types()' letters, and their colours. */
static const struct { char letter; const char *name, *color; } mt_style[] = {
	{ 'U', "Unmovable", "#d62728" }, { 'M', "Movable", "#2ca02c" }, { 'E', "Reclaimable", "#1f77b4" },
	{ 'H', "HighAtomic", "#ff7f0e" }, { 'C', "CMA", "#17becf" }, { 'I', "Isolate", "#7f7f7f" },
};

/* Rows of the map, @w pageblocks to a row: each zone from a new row, a row apart. */
static int pb_rows(const struct state *s, int w)
{
	int rows = 0;

	for (int z = 0; z < s->nr_z; z++)
		rows += (s->z[z].n + w - 1) / w + 1;
	return rows - 1;
}

/* Pageblocks to a row: about as many rows as columns, a multiple of 8 from 16 to 256. */
static int pb_width(const struct input *in, int n)
{
	int most = 0, w = 16;

	for (int i = 0; i < n; i++) {
		int t = 0;

		for (int z = 0; z < in[i].st.nr_z; z++)
			t += in[i].st.z[z].n;
		most = t > most ? t : most;
	}
	while (w < 256 && w * w < most)
		w += 8;
	return w;
}

static int script_pageblocks(FILE *f, struct input *in, int n, int PB_ROW, struct ps_error *err)
{
	static const char *const mark_title[2] = { "fallback stole from", "fallback claimed (change_ownership)" };
	const int nmt = (int)(sizeof(mt_style) / sizeof(mt_style[0]));
	char ttl[1024];

	title(ttl, sizeof(ttl), "pageblocks by migratetype", in, n);
	fprintf(f, "set multiplot layout 1,%d title ", n);
	gp_str(f, ttl);
	fprintf(f, "\nset xlabel 'pageblock in the row (%d to a row, from the pfn on the left)'\nunset ylabel\n"
		"set key outside bottom center horizontal font ',9'\nunset grid\nset lmargin 20\n", PB_ROW);
	int used[8] = { 0 };

	/* the series any panel has: the others' legends name them too (keyentry), so the panels line up */
	for (int i = 0; i < n; i++)
		for (int z = 0; z < in[i].st.nr_z; z++) {
			const struct pb_zone *pz = &in[i].st.z[z];

			for (int m = 0; m < nmt; m++)
				used[m] |= memchr(pz->types, mt_style[m].letter, pz->n) != NULL;
			used[nmt] |= pz->nfalls && (memchr(pz->falls, 's', pz->nfalls) || memchr(pz->falls, 'b', pz->nfalls));
			used[nmt + 1] |= pz->nfalls && (memchr(pz->falls, 'c', pz->nfalls) || memchr(pz->falls, 'b', pz->nfalls));
		}
	for (int i = 0; i < n; i++) {
		struct state *s = &in[i].st;
		int row, rows = pb_rows(s, PB_ROW), count[8] = { 0 }, any = 0;
		char ptitle[300];

		/* a datablock per migratetype (0..nmt-1) and per mark (nmt, nmt + 1): each zone from a new row */
		for (int m = 0; m < nmt + 2; m++) {
			fprintf(f, "$p%d_%d << EOD\n", i, m);
			row = 0;
			for (int z = 0; z < s->nr_z; z++) {
				const struct pb_zone *pz = &s->z[z];

				for (int b = 0; b < (m < nmt ? pz->n : pz->nfalls); b++) {
					char c = m < nmt ? pz->types[b] : pz->falls[b];

					if (m < nmt ? c == mt_style[m].letter : c == 'b' || c == (m == nmt ? 's' : 'c')) {
						fprintf(f, "%d %d\n", b % PB_ROW, row + b / PB_ROW);
						count[m]++;
					}
				}
				row += (pz->n + PB_ROW - 1) / PB_ROW + 1;
			}
			fputs("EOD\n", f);
		}
		fputs("set ytics (", f);
		row = 0;
		for (int z = 0; z < s->nr_z; z++) {
			fprintf(f, "%s\"%s 0x%llx\" %d", z ? ", " : "", s->z[z].name, (unsigned long long)s->z[z].pfn, row);
			for (int r = 8; r < (s->z[z].n + PB_ROW - 1) / PB_ROW - 2; r += 8)
				fprintf(f, ", \"0x%llx\" %d 1",
					(unsigned long long)(s->z[z].pfn + ((uint64_t)r * PB_ROW << s->pageblock_order)), row + r);
			row += (s->z[z].n + PB_ROW - 1) / PB_ROW + 1;
		}
		fputs(") font ',8'\n", f);
		fprintf(f, "set xrange [-0.5:%d.5]\nset yrange [%d.5:-0.5]\nset xtics 0,%d,%d\n", PB_ROW - 1, rows - 1,
			PB_ROW / 4, PB_ROW - 1);
		snprintf(ptitle, sizeof(ptitle), "%s (pageblock order %d)", label_of(&in[i]), s->pageblock_order);
		fputs("set title ", f);
		gp_str(f, ptitle);
		fputs("\nplot ", f);
		/* the series with points only: gnuplot warns of empty ones */
		for (int m = 0; m < nmt + 2; m++) {
			if (!used[m])
				continue;
			if (!count[m])
				fprintf(f, "%skeyentry", any++ ? ", \\\n     " : "");
			else
				fprintf(f, "%s$p%d_%d using 1:2%s", any++ ? ", \\\n     " : "", i, m, m < nmt ? ":(0.5):(0.5)" : "");
			if (m < nmt)
				fprintf(f, " with boxxyerror fs solid 1.0 noborder lc rgb '%s' title '%s'", mt_style[m].color,
					mt_style[m].name);
			else
				fprintf(f, " with points pt %d ps %s lc rgb 'black' title '%s'", m == nmt ? 2 : 6,
					m == nmt ? "0.6" : "0.8", mark_title[m - nmt]);
		}
		if (!any)
			return ps_err(err, "%s: no pageblocks", in[i].path);
		fputc('\n', f);
	}
	fputs("unset multiplot\n", f);
	return 0;
}

static double num(json_object *a, int i, int *ok)
{
	json_object *v = json_object_is_type(a, json_type_array) && i < (int)json_object_array_length(a) ?
			 json_object_array_get_idx(a, i) : NULL;

	*ok = v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int));
	return *ok ? json_object_get_double(v) : 0;
}

#define MAX_BARS 40

static int script_diff(FILE *f, struct input *in, char **pat, int npat, struct ps_error *err)
{
	json_object *cols, *counters;
	char ttl[1024], ylabel[300];
	int ncol, nrow = 0, kept = 0, size;
	const char *base;
	struct bar { int idx; double change; } *rows;

	if (!json_object_object_get_ex(in->diff, "columns", &cols) ||
	    !json_object_object_get_ex(in->diff, "counters", &counters) || !json_object_is_type(cols, json_type_array) ||
	    !json_object_is_type(counters, json_type_array))
		return ps_err(err, "%s: no columns or counters", in->path);
	ncol = (int)json_object_array_length(cols);
	size = (int)json_object_array_length(counters);
	if (ncol < 2)
		return ps_err(err, "%s: one column: nothing to compare", in->path);
	rows = calloc(size ? size : 1, sizeof(*rows));
	if (!rows)
		return ps_err(err, "out of memory");
	for (int r = 0; r < size; r++) {
		json_object *c = json_object_array_get_idx(counters, r), *name, *mean, *ch;
		int ok, hit = !npat;
		double b, v;

		if (!json_object_object_get_ex(c, "name", &name) || !json_object_object_get_ex(c, "mean", &mean))
			continue;
		for (int p = 0; p < npat && !hit; p++)
			hit = !fnmatch(pat[p], json_object_get_string(name), 0);
		b = num(mean, 0, &ok);
		if (!hit || !ok || b == 0)
			continue;	/* a change against 0 has no scale */
		rows[nrow].idx = r;
		rows[nrow].change = 0;
		for (int k = 1; k < ncol; k++) {
			v = num(mean, k, &ok);
			if (ok && fabs(v / b - 1) > rows[nrow].change)
				rows[nrow].change = fabs(v / b - 1);
		}
		(void)ch;
		nrow++;
	}
	if (!nrow) {
		free(rows);
		return ps_err(err, "%s: no counter to draw (none matches --counters, or the base mean is 0)", in->path);
	}
	/* the largest changes when there are too many, in the diff's order */
	if (nrow > MAX_BARS) {
		double cut;
		struct bar *s = malloc(nrow * sizeof(*s));

		if (!s) {
			free(rows);
			return ps_err(err, "out of memory");
		}
		memcpy(s, rows, nrow * sizeof(*s));
		for (int a = 0; a < MAX_BARS; a++)	/* partial selection: the MAX_BARS largest first */
			for (int b = a + 1; b < nrow; b++)
				if (s[b].change > s[a].change) {
					struct bar t = s[a];

					s[a] = s[b];
					s[b] = t;
				}
		cut = s[MAX_BARS - 1].change;
		free(s);
		for (int r = 0; r < nrow; r++)
			if (rows[r].change >= cut && kept < MAX_BARS)
				rows[kept++] = rows[r];
		ps_warn("plot: the %d counters of the largest changes of %d drawn (--counters chooses)", kept, nrow);
		nrow = kept;
	}
	fputs("$bars << EOD\n", f);
	for (int r = 0; r < nrow; r++) {
		json_object *c = json_object_array_get_idx(counters, rows[r].idx), *name, *mean, *sd, *sig, *nn;
		int ok;
		double b;
		char label[128];
		int star = 0;

		json_object_object_get_ex(c, "name", &name);
		json_object_object_get_ex(c, "mean", &mean);
		json_object_object_get_ex(c, "stddev", &sd);
		json_object_object_get_ex(c, "n", &nn);
		if (json_object_object_get_ex(c, "significant", &sig) && json_object_is_type(sig, json_type_array))
			for (int k = 0; k < (int)json_object_array_length(sig); k++)
				star |= json_object_get_boolean(json_object_array_get_idx(sig, k));
		b = fabs(num(mean, 0, &ok));
		snprintf(label, sizeof(label), "%s%s", json_object_get_string(name), star ? " *" : "");
		gp_str(f, label);
		for (int k = 0; k < ncol; k++) {
			double m = num(mean, k, &ok) / b * 100, e;
			int okm = ok, n = (int)num(nn, k, &ok);

			e = sd && n >= 2 ? num(sd, k, &ok) / b * 100 : 0;
			if (!ok)
				e = 0;
			if (okm)
				fprintf(f, " %.4f %.4f", m, e);
			else
				fputs(" NaN 0", f);
		}
		fputc('\n', f);
	}
	fputs("EOD\n", f);
	{
		json_object *c0 = json_object_array_get_idx(cols, 0), *l;

		base = json_object_object_get_ex(c0, "label", &l) ? json_object_get_string(l) : "the first column";
	}
	{
		/* the columns; then their traces and policies (each once), and the version */
		size_t k = (size_t)snprintf(ttl, sizeof(ttl), "diff:");
		const char *tool = NULL, *seen[2][32];
		int nseen[2] = { 0, 0 };
		json_object *t;

		for (int c = 0; c < ncol && k < sizeof(ttl); c++) {
			json_object *col = json_object_array_get_idx(cols, c), *v;

			k += (size_t)snprintf(ttl + k, sizeof(ttl) - k, "%s %s", c ? " vs" : "",
					      json_object_object_get_ex(col, "label", &v) ? json_object_get_string(v) : "?");
			for (int w = 0; w < 2; w++) {
				const char *x = json_object_object_get_ex(col, w ? "policy" : "trace", &v) && v ?
						json_object_get_string(v) : NULL;
				int dup = 0;

				for (int j = 0; x && j < nseen[w]; j++)
					dup |= !strcmp(seen[w][j], x);
				if (x && !dup && nseen[w] < 32)
					seen[w][nseen[w]++] = x;
			}
		}
		for (int w = 0; w < 2; w++)
			for (int j = 0; j < nseen[w] && k < sizeof(ttl); j++) {
				const char *x = seen[w][j], *slash = w ? NULL : strrchr(x, '/');

				k += (size_t)snprintf(ttl + k, sizeof(ttl) - k, "%s%s", j ? ", " : w ? "; policy " : "\n",
						      slash ? slash + 1 : x);
			}
		if (json_object_object_get_ex(in->diff, "tool", &t))
			tool = json_object_get_string(t);
		if (k < sizeof(ttl))
			snprintf(ttl + k, sizeof(ttl) - k, "%s%s", nseen[0] || nseen[1] ? "; " : "\n", tool ? tool : "pagesim");
	}
	snprintf(ylabel, sizeof(ylabel), "mean, %% of %s's (bars: 1 stddev of repeats)", base);
	fputs("set title ", f);
	gp_str(f, ttl);
	fputs("\nset ylabel ", f);
	gp_str(f, ylabel);
	fputs("\nset xlabel \"counter (* : p < 0.05, Welch's t-test)\"\n"
	      "set style data histograms\nset style histogram errorbars gap 1 lw 1\nset style fill solid 0.8 border -1\n"
	      "set boxwidth 0.9\nset xtics rotate by 40 right font ',9'\nset grid ytics\nset key outside bottom center horizontal\n"
	      "set yrange [0:*]\nplot ", f);
	for (int k = 0; k < ncol; k++) {
		json_object *col = json_object_array_get_idx(cols, k), *l;
		const char *lab = json_object_object_get_ex(col, "label", &l) ? json_object_get_string(l) : "?";

		fprintf(f, "%s$bars using %d:%d%s lc rgb '%s' title ", k ? ", \\\n     " : "", 2 * k + 2, 2 * k + 3,
			k ? "" : ":xtic(1)", line_colors[k % 8]);
		gp_str(f, lab);
	}
	fputc('\n', f);
	free(rows);
	return 0;
}

/* Runs gnuplot on @script with its stdout into @fd; 0 or -1. */
static int run_gnuplot(const char *script, size_t len, int fd, struct ps_error *err)
{
	int pipefd[2], status;
	pid_t pid;
	void (*old)(int);

	if (pipe(pipefd) < 0)
		return ps_err(err, "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return ps_err(err, "fork: %s", strerror(errno));
	if (!pid) {
		dup2(pipefd[0], 0);
		dup2(fd, 1);
		close(pipefd[0]);
		close(pipefd[1]);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(pipefd[0]);
	old = signal(SIGPIPE, SIG_IGN);
	for (size_t off = 0; off < len;) {
		ssize_t w = write(pipefd[1], script + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	close(pipefd[1]);
	signal(SIGPIPE, old);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return ps_err(err, "cannot run gnuplot: is it installed? (Debian: apt-get install gnuplot-nox)");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return ps_err(err, "gnuplot failed (its messages are above); nothing was written");
	return 0;
}

int cmd_plot(int argc, char **argv)
{
	struct input in[MAX_INPUTS];
	const char *labels[MAX_INPUTS][2];
	int nr_labels = 0, n = 0, opt, ret = PS_EXIT_FAIL, npat = 0;
	enum kind kind = K_NONE;
	const char *counters = NULL, *format = NULL, *output = NULL, *script_path = NULL;
	struct ps_error err = { { 0 } };
	char **pat = NULL, *script = NULL;
	size_t script_len = 0;
	FILE *sf = NULL;
	struct ps_out out = { 0 };
	int out_open = 0;

	memset(in, 0, sizeof(in));
	optind = 1;
	while ((opt = ps_getopt("plot", argc, argv, "o:h", plot_options)) != -1) {
		switch (opt) {
		case OPT_KIND:
			for (kind = 0; kind < K_NONE && strcmp(optarg, kind_names[kind]); kind++)
				;
			if (kind == K_NONE)
				return ps_usage_error("plot", "--kind must be counters, watermarks, pageblocks or diff, not '%s'",
						      optarg);
			break;
		case OPT_COUNTERS: counters = optarg; break;
		case OPT_LABEL: {
			char *eq = strrchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1])
				return ps_usage_error("plot", "--label wants NAME=INPUT, not '%s'", optarg);
			if (nr_labels == MAX_INPUTS)
				return ps_usage_error("plot", "more than %d --label options", MAX_INPUTS);
			*eq = 0;
			labels[nr_labels][0] = optarg;
			labels[nr_labels++][1] = eq + 1;
			break;
		}
		case OPT_FORMAT:
			if (strcmp(optarg, "svg") && strcmp(optarg, "png"))
				return ps_usage_error("plot", "--format must be svg or png, not '%s'", optarg);
			format = optarg;
			break;
		case 'o': output = optarg; break;
		case OPT_SCRIPT: script_path = optarg; break;
		case 'h': fputs(plot_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		default: return PS_EXIT_USAGE;
		}
	}
	if (!output)
		return ps_usage_error("plot", "-o FILE is needed (the image)");
	if (optind >= argc)
		return ps_usage_error("plot", "missing INPUT (a timeline, a --state-dir or a diff --format json)");
	if (argc - optind > MAX_INPUTS)
		return ps_usage_error("plot", "more than %d inputs", MAX_INPUTS);
	if (!format) {
		size_t l = strlen(output);

		format = l > 4 && !strcmp(output + l - 4, ".png") ? "png" : "svg";
	}
	for (int a = optind; a < argc; a++) {
		struct input *p = &in[n++];

		p->path = argv[a];
		ps_note_input(argv[a]);
		for (int l = 0; l < nr_labels; l++)
			if (!strcmp(labels[l][1], argv[a]))
				p->label = labels[l][0];
		if (input_type(argv[a], &p->type, &err) < 0)
			goto fail;
	}
	for (int l = 0; l < nr_labels; l++) {
		int found = 0;

		for (int i = 0; i < n; i++)
			found |= !strcmp(labels[l][1], in[i].path);
		if (!found) {
			ret = ps_usage_error("plot", "--label %s=%s: '%s' is not an INPUT", labels[l][0], labels[l][1],
					     labels[l][1]);
			goto out;
		}
	}
	if (kind == K_NONE)
		kind = in[0].type == IN_STATE ? K_PAGEBLOCKS : in[0].type == IN_DIFF ? K_DIFF : K_COUNTERS;
	for (int i = 0; i < n; i++) {
		enum in_type need = kind == K_PAGEBLOCKS ? IN_STATE : kind == K_DIFF ? IN_DIFF : IN_TIMELINE;

		if (in[i].type != need) {
			ret = ps_usage_error("plot", "--kind %s draws %s, and %s is not one", kind_names[kind],
					     need == IN_STATE ? "--state-dir directories" :
					     need == IN_DIFF ? "a diff --format json output" : "timelines", in[i].path);
			goto out;
		}
	}
	if (kind == K_DIFF && n > 1) {
		ret = ps_usage_error("plot", "--kind diff draws one diff (its columns are the runs compared)");
		goto out;
	}
	npat = split_list(counters ? counters : kind == K_COUNTERS ? "numa_hit,numa_miss" : "", &pat);
	/* load: the timelines' wanted columns only */
	for (int i = 0; i < n; i++) {
		struct input *p = &in[i];

		if (p->type == IN_TIMELINE) {
			FILE *f = fopen(p->path, "r");
			int jsonl;

			if (!f) {
				ps_err(&err, "%s: %s", p->path, strerror(errno));
				goto fail;
			}
			if (timeline_header(p, f, &jsonl, &err) < 0 || !(p->tl.want = malloc(p->tl.nr_cols * sizeof(int) + 1))) {
				fclose(f);
				if (!err.msg[0])
					ps_err(&err, "out of memory");
				goto fail;
			}
			for (int c = 0; c < p->tl.nr_cols; c++)
				p->tl.want[c] = -1;
			for (int c = 0; c < p->tl.nr_cols; c++) {
				const char *nm = p->tl.name[c];
				int w = 0;

				if (kind == K_COUNTERS)
					for (int q = 0; q < npat && !w; q++)
						w = !fnmatch(pat[q], nm, 0);
				else	/* watermarks: the zones' free pages and watermarks, kswapd */
					w = (!strncmp(nm, "node", 4) &&
					     (strstr(nm, ".free") == nm + strlen(nm) - 5 || strstr(nm, ".wmark_") ||
					      strstr(nm, ".kswapd_"))) ||
					    (!strncmp(nm, "trace.node", 10) && strstr(nm, ".kswapd_freed"));
				if (w)
					want(&p->tl, nm);
			}
			if (timeline_rows(p, f, jsonl, &err) < 0) {
				fclose(f);
				goto fail;
			}
			fclose(f);
		} else if (p->type == IN_STATE ? load_state(p, &err) < 0 : load_diff(p, &err) < 0) {
			goto fail;
		}
	}
	sf = open_memstream(&script, &script_len);
	if (!sf) {
		ps_error("out of memory");
		goto out;
	}
	fprintf(sf, "# pagesim %s plot --kind %s\n", PAGESIM_VERSION, kind_names[kind]);
	{
		int w = 1000, h = 640;

		if (kind == K_WATERMARKS) {
			w = 560 * n > 700 ? 560 * n : 700;
			h = 70 + 230 * count_zones(&in[0].tl, pat, npat);
		} else if (kind == K_PAGEBLOCKS) {
			int rows = 0, pw = pb_width(in, n);

			for (int i = 0; i < n; i++)
				if (pb_rows(&in[i].st, pw) > rows)
					rows = pb_rows(&in[i].st, pw);
			/* square cells: the panel's plot area is about 360 pixels wide */
			w = 560 * n > 700 ? 560 * n : 700;
			h = 230 + rows * 360 / pw;
			h = h > 2400 ? 2400 : h;
		}
		if (!strcmp(format, "png"))
			fprintf(sf, "set terminal pngcairo size %d,%d font 'Sans,10' noenhanced background rgb 'white'\n", w, h);
		else
			fprintf(sf, "set terminal svg size %d,%d dynamic noenhanced font 'Arial,11' background rgb 'white'\n", w, h);
	}
	fputs("set termoption noenhanced\n", sf);
	switch (kind) {
	case K_COUNTERS: ret = script_counters(sf, in, n, pat, npat, &err); break;
	case K_WATERMARKS: ret = script_watermarks(sf, in, n, pat, npat, &err); break;
	case K_PAGEBLOCKS: ret = script_pageblocks(sf, in, n, pb_width(in, n), &err); break;
	case K_DIFF: ret = script_diff(sf, in, pat, npat, &err); break;
	default: break;
	}
	if (fclose(sf) != 0) {
		sf = NULL;
		ps_error("out of memory");
		ret = PS_EXIT_FAIL;
		goto out;
	}
	sf = NULL;
	if (ret < 0)
		goto fail;
	ret = PS_EXIT_FAIL;
	if (script_path) {
		struct ps_out so;

		if (ps_out_open(&so, script_path, &err) < 0)
			goto fail;
		fwrite(script, 1, script_len, so.f);
		if (ps_out_commit(&so, &err) < 0)
			goto fail;
	}
	if (ps_out_open(&out, output, &err) < 0)
		goto fail;
	out_open = 1;
	fflush(out.f);
	if (run_gnuplot(script, script_len, fileno(out.f), &err) < 0)
		goto fail;
	out_open = 0;
	if (ps_out_commit(&out, &err) < 0)
		goto fail;
	ret = PS_EXIT_OK;
	goto out;
fail:
	ps_error("%s", err.msg);
	ret = PS_EXIT_FAIL;
out:
	if (out_open)
		ps_out_abort(&out);
	if (sf)
		fclose(sf);
	free(script);
	free_list(pat, npat);
	for (int i = 0; i < n; i++)
		free_input(&in[i]);
	return ret;
}
