// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diffin.c - inputs of pagesim diff: counter files recognised by content,
 * run directories reduced to after - before, column arguments expanded
 * with glob(3).  See diffin.h.
 */
#include <errno.h>
#include <glob.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <math.h>
#include <unistd.h>

#include "cli/diffin.h"
#include "trace/sysroot.h"

#define JSON_MAX_DEPTH 64

const char *ps_diffin_kind_name(enum ps_diffin_kind kind)
{
	switch (kind) {
	case PS_DIFFIN_VMSTAT: return "vmstat file";
	case PS_DIFFIN_NUMASTAT: return "numastat file";
	case PS_DIFFIN_JSON: return "pagesim json file";
	case PS_DIFFIN_RUN: return "run directory (after - before)";
	case PS_DIFFIN_SNAPSHOT: return "sysroot snapshot";
	case PS_DIFFIN_ENSEMBLE: return "replay --ensemble file";
	}
	return "?";
}

/* ---- JSON (json-c), with the line of what is wrong ---- */

/* The line of byte @off of @text. */
static int line_of(const char *text, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

/* The closing quote of the JSON string opening at @i, or the text's end when it has none. */
static size_t string_end(const char *text, size_t i)
{
	size_t j;

	for (j = i + 1; text[j] && text[j] != '"'; j++)
		if (text[j] == '\\' && text[j + 1])
			j++;
	return j;
}

/*
 * The members of the object whose '{' is at @from, in order: json-c keeps
 * neither places nor repeated names, so one pass over the text finds each
 * name's line, and a name met twice.  Fills @lines (one per member, up to
 * @max) and returns how many, or -1 with @dup set to the offset of a repeat.
 */
static int member_lines(const char *text, size_t from, int *lines, int max, struct ps_kv *seen, long *dup)
{
	int depth = 0, n = 0, line = line_of(text, from);

	*dup = -1;
	for (size_t i = from; text[i]; i++) {
		char c = text[i];

		if (c == '\n') {
			line++;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				break;
		} else if (c == '"') {
			size_t start = i + 1, j = string_end(text, i);

			if (!text[j])
				break;		/* a string the text ends in: no member name */
			if (depth == 1) {
				size_t k = j + 1 + strspn(text + j + 1, " \t\r\n");

				if (text[k] == ':') {
					char name[64];

					snprintf(name, sizeof(name), "%.*s", (int)(j - start), text + start);
					if (ps_kv_get(seen, name)) {
						*dup = (long)i;
						return -1;
					}
					ps_kv_set(seen, name, line);
					if (n < max)
						lines[n] = line;
					n++;
				}
			}
			i = j;
		}
	}
	return n;
}

/* Where the top-level member "counters" is (its '{' offset in *@brace), and how often it appears. */
static int find_counters(const char *text, size_t from, size_t *brace, int *line)
{
	int depth = 0, count = 0, l = 1;

	for (size_t i = from; text[i]; i++) {
		char c = text[i];

		if (c == '\n') {
			l++;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if (c == '}' || c == ']') {
			if (--depth <= 0)
				break;
		} else if (c == '"') {
			size_t j = string_end(text, i);

			if (!text[j])
				break;		/* a string the text ends in */
			if (depth == 1 && j - i - 1 == 8 && !strncmp(text + i + 1, "counters", 8)) {
				size_t k = j + 1 + strspn(text + j + 1, " \t\r\n");

				if (text[k] == ':' && !count++) {
					*line = l;
					*brace = k + 1 + strspn(text + k + 1, " \t\r\n");
				}
			}
			i = j;
		}
	}
	return count;
}

json_object *ps_json_parse_object(const char *text, const char *file, struct ps_error *err)
{
	struct json_tokener *tok = json_tokener_new_ex(JSON_MAX_DEPTH);
	json_object *root;
	size_t len = strlen(text), end;

	if (!tok) {
		ps_err(err, "out of memory");
		return NULL;
	}
	/* JSON as the standard has it: no comments, no single quotes, no trailing commas */
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, text, (int)len);
	end = json_tokener_get_parse_end(tok);
	if (!root) {
		enum json_tokener_error e = json_tokener_get_error(tok);

		if (e == json_tokener_continue)
			ps_err(err, "%s:%d: the JSON ends early, found the end of the file (is it cut short?)", file,
			       line_of(text, len));
		else if (e == json_tokener_error_depth)
			ps_err(err, "%s:%d: JSON nested too deeply", file, line_of(text, end));
		else
			ps_err(err, "%s:%d: %s, found '%.12s'", file, line_of(text, end), json_tokener_error_desc(e),
			       text + end);
	} else if (text[end + strspn(text + end, " \t\r\n")]) {
		ps_err(err, "%s:%d: expected the end of the file after the JSON value, found '%.12s'", file,
		       line_of(text, end), text + end);
		json_object_put(root);
		root = NULL;
	} else if (!json_object_is_type(root, json_type_object)) {
		ps_err(err, "%s:1: expected a JSON object", file);
		json_object_put(root);
		root = NULL;
	}
	json_tokener_free(tok);
	return root;
}

int ps_diffin_parse_json(const char *text, const char *file, struct ps_kv *kv, struct ps_error *err)
{
	struct ps_diffin_meta meta;

	return ps_diffin_parse_json_meta(text, file, kv, &meta, err);
}

static void meta_str(json_object *root, const char *key, char *out, size_t len)
{
	json_object *v;

	if (json_object_object_get_ex(root, key, &v) && json_object_is_type(v, json_type_string))
		snprintf(out, len, "%s", json_object_get_string(v));
}

int ps_diffin_parse_json_meta(const char *text, const char *file, struct ps_kv *kv, struct ps_diffin_meta *meta,
			      struct ps_error *err)
{
	json_object *root, *counters;
	size_t brace = 0;
	struct ps_kv seen;
	long dup;
	int n, nm, cline = 1, *lines = NULL, ret = -1;

	memset(meta, 0, sizeof(*meta));
	root = ps_json_parse_object(text, file, err);
	if (!root)
		return -1;
	if (!json_object_object_get_ex(root, "counters", &counters)) {
		ps_err(err, "%s: JSON without a \"counters\" object: not the output of 'pagesim stat --format json'", file);
		goto out;
	}
	n = find_counters(text, strcspn(text, "{"), &brace, &cline);
	if (n > 1) {
		ps_err(err, "%s:%d: \"counters\" appears twice", file, cline);
		goto out;
	}
	if (!json_object_is_type(counters, json_type_object)) {
		ps_err(err, "%s:%d: expected an object of counters after \"counters\":", file, cline);
		goto out;
	}
	nm = json_object_object_length(counters);
	lines = calloc(nm ? nm : 1, sizeof(*lines));
	if (!lines) {
		ps_err(err, "out of memory");
		goto out;
	}
	ps_kv_init(&seen);
	n = member_lines(text, brace, lines, nm, &seen, &dup);
	ps_kv_free(&seen);
	if (n < 0) {
		char name[64] = "";

		sscanf(text + dup + 1, "%63[^\"]", name);
		ps_err(err, "%s:%d: counter '%s' appears twice", file, line_of(text, dup), name);
		goto out;
	}
	{
		int i = 0;

		json_object_object_foreach(counters, key, val)
		{
			int line = i < n ? lines[i] : cline;

			i++;
			if (strlen(key) > 63) {
				ps_err(err, "%s:%d: counter name '%.63s...' is longer than 63 characters", file, line, key);
				goto out;
			}
			if (!json_object_is_type(val, json_type_int)) {
				ps_err(err, "%s:%d: counter '%s' is not an integer", file, line, key);
				goto out;
			}
			/* json-c reads past INT64_MAX as unsigned: a counter is signed */
			if (json_object_get_int64(val) == INT64_MAX && json_object_get_uint64(val) > (uint64_t)INT64_MAX) {
				ps_err(err, "%s:%d: counter '%s': integer out of the 64-bit range", file, line, key);
				goto out;
			}
			if (ps_kv_set(kv, key, json_object_get_int64(val)) < 0) {
				ps_err(err, "out of memory");
				goto out;
			}
		}
	}
	meta_str(root, "trace", meta->trace, sizeof(meta->trace));
	meta_str(root, "policy", meta->policy, sizeof(meta->policy));
	meta_str(root, "mode", meta->mode, sizeof(meta->mode));
	meta_str(root, "pagesim", meta->version, sizeof(meta->version));
	ret = 0;
out:
	free(lines);
	json_object_put(root);
	return ret;
}

/* ---- counter files and directories ---- */

static const char *const numastat_names[] = {
	"numa_hit", "numa_miss", "numa_foreign", "interleave_hit", "local_node", "other_node",
};

int ps_diffin_is_numastat(const struct ps_kv *kv)
{
	int only = 0;

	if (!kv->nr)
		return 0;
	for (int i = 0; i < kv->nr; i++) {
		const char *n = kv->items[i].name;
		int found = 0;

		for (size_t k = 0; k < sizeof(numastat_names) / sizeof(numastat_names[0]); k++)
			if (!strcmp(n, numastat_names[k]))
				found = 1;
		if (!found)
			return 0;
		/* /proc/vmstat says numa_interleave, numa_local, numa_other */
		if (!strcmp(n, "interleave_hit") || !strcmp(n, "local_node") ||
		    !strcmp(n, "other_node"))
			only = 1;
	}
	return only;
}

int ps_diffin_path_node(const char *path)
{
	size_t len = strlen(path);
	const char *tail = "/numastat", *p;
	char *end;
	long n;

	while (len > 1 && path[len - 1] == '/')
		len--;
	if (len < strlen(tail) + 5 || strncmp(path + len - strlen(tail), tail, strlen(tail)))
		return -1;
	/* back to the start of the "nodeN" component */
	p = path + len - strlen(tail);
	while (p > path && p[-1] != '/')
		p--;
	if (strncmp(p, "node", 4) || p[4] < '0' || p[4] > '9')
		return -1;
	n = strtol(p + 4, &end, 10);
	if (end != path + len - strlen(tail) || n > 4095)
		return -1;
	return (int)n;
}

int ps_diffin_delta(const struct ps_kv *before, const struct ps_kv *after, struct ps_kv *out,
		    const char *before_name, const char *after_name, struct ps_error *err)
{
	for (int i = 0; i < after->nr; i++) {
		const struct ps_kv_item *a = &after->items[i], *b = ps_kv_get(before, a->name);

		if (!b)
			return ps_err(err, "counter '%s' is in %s but not in %s: are they snapshots of one machine?",
				      a->name, after_name, before_name);
		if (ps_kv_set(out, a->name, a->value - b->value) < 0)
			return ps_err(err, "out of memory");
	}
	for (int i = 0; i < before->nr; i++)
		if (!ps_kv_get(after, before->items[i].name))
			return ps_err(err, "counter '%s' is in %s but not in %s: are they snapshots of one machine?",
				      before->items[i].name, before_name, after_name);
	return 0;
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int load_run(const char *dir, struct ps_kv *kv, struct ps_error *err)
{
	char before[4096], after[4096];
	struct ps_kv kb, ka;
	int ret = -1;

	snprintf(before, sizeof(before), "%s/before", dir);
	snprintf(after, sizeof(after), "%s/after", dir);
	ps_kv_init(&kb);
	ps_kv_init(&ka);
	if (ps_sysroot_load_counters(before, &kb, err) < 0 ||
	    ps_sysroot_load_counters(after, &ka, err) < 0)
		goto out;
	{
		struct ps_fsrc sb, sa;

		ps_fsrc_dir(&sb, before);
		ps_fsrc_dir(&sa, after);
		if (ps_sysroot_same_machine(NULL, &sb, &sa, err) < 0 ||
		    ps_kv_check_rises(&kb, &ka, before, after, err) < 0)
			goto out;
	}
	ret = ps_diffin_delta(&kb, &ka, kv, before, after, err);
out:
	ps_kv_free(&kb);
	ps_kv_free(&ka);
	return ret;
}

static int reprefix(struct ps_kv *kv, int node)
{
	for (int i = 0; i < kv->nr; i++) {
		char buf[sizeof(kv->items[i].name)];
		int n = snprintf(buf, sizeof(buf), "node%d.%s", node, kv->items[i].name);

		if (n >= (int)sizeof(buf))
			return -1;
		memcpy(kv->items[i].name, buf, sizeof(buf));
	}
	return ps_kv_reindex(kv);
}

/* The '#' lines a sweep cell file starts with: version, trace, label, mode, kernel. */
static void vmstat_meta(const char *text, struct ps_diffin_meta *meta)
{
	while (*text == '#') {
		const char *eol = strchr(text, '\n');
		char line[256], a[200], b[200];
		int len = eol ? (int)(eol - text) : (int)strlen(text);

		snprintf(line, sizeof(line), "%.*s", len, text);
		if (sscanf(line, "# pagesim %31s", meta->version) == 1)
			;
		else if (sscanf(line, "# trace %199s", meta->trace) == 1)
			;
		else if (sscanf(line, "# mode %15s", meta->mode) == 1)
			;
		else if (!strncmp(line, "# label ", 8))
			snprintf(meta->policy, sizeof(meta->policy), "%s", line + 8);
		else if (sscanf(line, "# policy %199s %199s", a, b) == 2 && !strcmp(a, "kernel"))
			snprintf(meta->kernel, sizeof(meta->kernel), "%s", b);
		if (!eol)
			break;
		text = eol + 1;
	}
}

int ps_diffin_parse_ensemble(const char *text, const char *file, struct ps_kv *kv, struct ps_kv *sd, int *n,
			     struct ps_error *err)
{
	const char *p = text;
	int line = 1;

	if (sscanf(text, PS_ENSEMBLE_HEADER "%d", n) != 1 || *n < 2)
		return ps_err(err, "%s:1: not the output of replay --ensemble N (N from 2)", file);
	while ((p = strchr(p, '\n'))) {
		char name[96], *end;
		const char *q;
		double v[2];
		int len;

		p++;
		line++;
		if (!*p || *p == '\n' || *p == '#')
			continue;
		len = (int)strcspn(p, " \t\n");
		if (len <= 0 || len >= (int)sizeof(name))
			return ps_err(err, "%s:%d: expected 'name mean stddev'", file, line);
		snprintf(name, sizeof(name), "%.*s", len, p);
		q = p + len;
		for (int k = 0; k < 2; k++) {
			v[k] = strtod(q, &end);
			if (end == q || !(v[k] > -9e15 && v[k] < 9e15) || (k == 1 && v[k] < 0))
				return ps_err(err, "%s:%d: expected 'name mean stddev' (numbers; the stddev not negative)", file, line);
			q = end;
		}
		q += strspn(q, " \t\r");
		if (*q && *q != '\n')
			return ps_err(err, "%s:%d: expected 'name mean stddev', got more after them", file, line);
		if (ps_kv_get(kv, name))
			return ps_err(err, "%s:%d: '%s' appears twice", file, line, name);
		if (ps_kv_set(kv, name, (int64_t)llround(sd ? v[0] * 1000 : v[0])) < 0 ||
		    (sd && ps_kv_set(sd, name, (int64_t)llround(v[1] * 1000)) < 0))
			return ps_err(err, "%s: out of memory", file);
	}
	if (!kv->nr)
		return ps_err(err, "'%s' holds no counters ('name mean stddev' lines)", file);
	return 0;
}

int ps_diffin_load(const char *path, int node, struct ps_kv *kv, enum ps_diffin_kind *kind,
		   struct ps_error *err)
{
	struct ps_diffin_meta meta;

	return ps_diffin_load_meta(path, node, kv, kind, &meta, err);
}

int ps_diffin_load_meta(const char *path, int node, struct ps_kv *kv, enum ps_diffin_kind *kind,
			struct ps_diffin_meta *meta, struct ps_error *err)
{
	return ps_diffin_load_full(path, node, kv, NULL, kind, meta, err);
}

int ps_diffin_load_full(const char *path, int node, struct ps_kv *kv, struct ps_kv *sd, enum ps_diffin_kind *kind,
			struct ps_diffin_meta *meta, struct ps_error *err)
{
	size_t len;
	char *text;
	const char *s;
	int path_node, ret;

	memset(meta, 0, sizeof(*meta));
	if (is_dir(path)) {
		char sub[4096];

		snprintf(sub, sizeof(sub), "%s/before", path);
		if (is_dir(sub)) {
			snprintf(sub, sizeof(sub), "%s/after", path);
			if (!is_dir(sub))
				return ps_err(err, "'%s' has before/ but no after/: a run directory needs both sysroots",
					      path);
			*kind = PS_DIFFIN_RUN;
			return load_run(path, kv, err);
		}
		snprintf(sub, sizeof(sub), "%s/proc/vmstat", path);
		if (access(sub, F_OK) == 0) {
			*kind = PS_DIFFIN_SNAPSHOT;
			return ps_sysroot_load_counters(path, kv, err);
		}
		return ps_err(err, "'%s' is a directory with neither before/ and after/ (a run) nor proc/vmstat (a sysroot)",
			      path);
	}
	text = ps_read_input(path, &len, err);
	if (!text)
		return -1;
	if (strlen(text) != len) {
		free(text);
		return ps_err(err, "'%s' is a binary file, not counters (a trace? run 'pagesim stat' on it first)",
			      path);
	}
	s = text + strspn(text, " \t\r\n");
	if (*s == '{') {
		*kind = PS_DIFFIN_JSON;
		ret = ps_diffin_parse_json_meta(text, path, kv, meta, err);
		free(text);
		return ret;
	}
	if (!strncmp(text, PS_ENSEMBLE_HEADER, strlen(PS_ENSEMBLE_HEADER))) {
		*kind = PS_DIFFIN_ENSEMBLE;
		snprintf(meta->mode, sizeof(meta->mode), "simulate");
		ret = ps_diffin_parse_ensemble(text, path, kv, sd, &meta->ensemble, err);
		free(text);
		return ret;
	}
	memset(meta, 0, sizeof(*meta));
	vmstat_meta(text, meta);
	path_node = ps_diffin_path_node(path);
	*kind = path_node >= 0 ? PS_DIFFIN_NUMASTAT : PS_DIFFIN_VMSTAT;
	ret = ps_kv_parse(kv, text, path, NULL, err);
	free(text);
	if (ret < 0)
		return -1;
	if (!kv->nr)
		return ps_err(err, "'%s' holds no counters ('name value' lines)", path);
	if (path_node < 0 && ps_diffin_is_numastat(kv)) {
		if (node < 0)
			return ps_err(err, "'%s' is a numastat file of an unknown node: give --node N or read it from a path ending in nodeN/numastat",
				      path);
		path_node = node;
		*kind = PS_DIFFIN_NUMASTAT;
	}
	if (path_node >= 0 && reprefix(kv, path_node) < 0)
		return ps_err(err, "'%s': counter name too long with a node prefix", path);
	return 0;
}

/* ---- column arguments ---- */

void ps_diffin_paths_free(char **paths, int n)
{
	for (int i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

static int add_path(char ***paths, int *n, const char *p)
{
	char **np = realloc(*paths, (*n + 1) * sizeof(*np));

	if (!np)
		return -1;
	*paths = np;
	np[*n] = strdup(p);
	if (!np[*n])
		return -1;
	(*n)++;
	return 0;
}

int ps_diffin_expand(const char *arg, char ***paths, struct ps_error *err)
{
	char *copy = strdup(arg), *item, *save = NULL;
	int n = 0;

	*paths = NULL;
	if (!copy)
		return ps_err(err, "out of memory");
	if (!*arg)
		goto empty;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		glob_t g;
		int r;

		if (!strpbrk(item, "*?[")) {
			if (add_path(paths, &n, item) < 0)
				goto nomem;
			continue;
		}
		r = glob(item, 0, NULL, &g);
		if (r == GLOB_NOMATCH) {
			ps_err(err, "no file matches '%s' (an empty group of repeats)", item);
			goto fail;
		}
		if (r) {
			ps_err(err, "cannot expand '%s': %s", item,
			       r == GLOB_NOSPACE ? "out of memory" : "read error");
			goto fail;
		}
		for (size_t i = 0; i < g.gl_pathc; i++)
			if (add_path(paths, &n, g.gl_pathv[i]) < 0) {
				globfree(&g);
				goto nomem;
			}
		globfree(&g);
	}
	if (!n)
		goto empty;
	free(copy);
	return n;
empty:
	ps_err(err, "empty group '%s': give files, a glob pattern or paths joined with commas", arg);
	goto fail;
nomem:
	ps_err(err, "out of memory");
fail:
	ps_diffin_paths_free(*paths, n);
	*paths = NULL;
	free(copy);
	return -1;
}
