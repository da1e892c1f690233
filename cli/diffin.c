// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * diffin.c - inputs of pagesim diff: counter files recognised by content,
 * run directories reduced to after - before, column arguments expanded
 * with glob(3).  See diffin.h.
 */
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/diffin.h"
#include "trace/sysroot.h"

const char *ps_diffin_kind_name(enum ps_diffin_kind kind)
{
	switch (kind) {
	case PS_DIFFIN_VMSTAT: return "vmstat file";
	case PS_DIFFIN_NUMASTAT: return "numastat file";
	case PS_DIFFIN_JSON: return "pagesim json file";
	case PS_DIFFIN_RUN: return "run directory (after - before)";
	case PS_DIFFIN_SNAPSHOT: return "sysroot snapshot";
	}
	return "?";
}

/* ---- JSON: just enough for pagesim stat's output, with line numbers ---- */

struct jp {
	const char *p;
	const char *file;
	int line;
	struct ps_error *err;
	struct ps_kv *kv;	/* where the "counters" members go */
	int seen_counters;
};

#define JSON_MAX_DEPTH 64

static void jp_ws(struct jp *j)
{
	for (; *j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'; j->p++)
		if (*j->p == '\n')
			j->line++;
}

static int jp_fail(struct jp *j, const char *what)
{
	if (!*j->p)
		return ps_err(j->err, "%s:%d: %s, found the end of the file (is it cut short?)", j->file,
			      j->line, what);
	return ps_err(j->err, "%s:%d: %s, found '%.12s'", j->file, j->line, what, j->p);
}

/* A string into @out (truncated to @len - 1; @truncated set); @out may be NULL. */
static int jp_string(struct jp *j, char *out, size_t len, int *truncated)
{
	size_t n = 0;

	if (*j->p != '"')
		return jp_fail(j, "expected a JSON string");
	j->p++;
	if (truncated)
		*truncated = 0;
	while (*j->p != '"') {
		char c = *j->p;

		if (!c || c == '\n')
			return jp_fail(j, "unterminated JSON string");
		if (c == '\\') {
			j->p++;
			switch (*j->p) {
			case '"': case '\\': case '/': c = *j->p; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) || !j->p[i])
						return jp_fail(j, "bad \\u escape in a JSON string");
				c = '?';
				j->p += 4;
				break;
			default:
				return jp_fail(j, "bad escape in a JSON string");
			}
		}
		if (out) {
			if (n + 1 < len)
				out[n++] = c;
			else if (truncated)
				*truncated = 1;
		}
		j->p++;
	}
	j->p++;
	if (out)
		out[n] = 0;
	return 0;
}

static int jp_value(struct jp *j, int depth);

static int jp_number(struct jp *j, long long *v, int *integral)
{
	const char *s = j->p;
	char *end;

	*integral = 1;
	if (*j->p == '-')
		j->p++;
	if (*j->p < '0' || *j->p > '9')
		return jp_fail(j, "expected a JSON value");
	while (*j->p >= '0' && *j->p <= '9')
		j->p++;
	if (*j->p == '.' || *j->p == 'e' || *j->p == 'E') {
		*integral = 0;
		strtod(s, &end);
		j->p = end;
		return 0;
	}
	errno = 0;
	*v = strtoll(s, &end, 10);
	if (errno == ERANGE) {
		j->p = s;
		return jp_fail(j, "integer out of the 64-bit range");
	}
	return 0;
}

static int jp_object(struct jp *j, int depth, int counters)
{
	if (depth > JSON_MAX_DEPTH)
		return jp_fail(j, "JSON nested too deeply");
	j->p++;		/* '{' */
	jp_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		char key[64];
		int trunc, line;

		jp_ws(j);
		line = j->line;
		if (jp_string(j, key, sizeof(key), &trunc) < 0)
			return -1;
		jp_ws(j);
		if (*j->p != ':')
			return jp_fail(j, "expected ':' after a JSON member name");
		j->p++;
		jp_ws(j);
		if (counters) {
			long long v = 0;
			int integral;

			if (trunc)
				return ps_err(j->err, "%s:%d: counter name '%s...' is longer than 63 characters",
					      j->file, line, key);
			if (jp_number(j, &v, &integral) < 0)
				return -1;
			if (!integral)
				return ps_err(j->err, "%s:%d: counter '%s' is not an integer", j->file, line, key);
			if (ps_kv_get(j->kv, key))
				return ps_err(j->err, "%s:%d: counter '%s' appears twice", j->file, line, key);
			if (ps_kv_set(j->kv, key, v) < 0)
				return ps_err(j->err, "out of memory");
		} else if (depth == 0 && !strcmp(key, "counters")) {
			if (*j->p != '{')
				return jp_fail(j, "expected an object of counters after \"counters\":");
			if (j->seen_counters)
				return ps_err(j->err, "%s:%d: \"counters\" appears twice", j->file, line);
			j->seen_counters = 1;
			if (jp_object(j, depth + 1, 1) < 0)
				return -1;
		} else if (jp_value(j, depth + 1) < 0) {
			return -1;
		}
		jp_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == '}') {
			j->p++;
			return 0;
		}
		return jp_fail(j, "expected ',' or '}' in a JSON object");
	}
}

static int jp_value(struct jp *j, int depth)
{
	long long v;
	int integral;

	if (depth > JSON_MAX_DEPTH)
		return jp_fail(j, "JSON nested too deeply");
	switch (*j->p) {
	case '{':
		return jp_object(j, depth, 0);
	case '[':
		j->p++;
		jp_ws(j);
		if (*j->p == ']') {
			j->p++;
			return 0;
		}
		for (;;) {
			jp_ws(j);
			if (jp_value(j, depth + 1) < 0)
				return -1;
			jp_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			if (*j->p == ']') {
				j->p++;
				return 0;
			}
			return jp_fail(j, "expected ',' or ']' in a JSON array");
		}
	case '"':
		return jp_string(j, NULL, 0, NULL);
	case 't':
		if (!strncmp(j->p, "true", 4)) {
			j->p += 4;
			return 0;
		}
		break;
	case 'f':
		if (!strncmp(j->p, "false", 5)) {
			j->p += 5;
			return 0;
		}
		break;
	case 'n':
		if (!strncmp(j->p, "null", 4)) {
			j->p += 4;
			return 0;
		}
		break;
	default:
		return jp_number(j, &v, &integral);
	}
	return jp_fail(j, "expected a JSON value");
}

int ps_diffin_parse_json(const char *text, const char *file, struct ps_kv *kv, struct ps_error *err)
{
	struct jp j = { .p = text, .file = file, .line = 1, .err = err, .kv = kv };

	jp_ws(&j);
	if (*j.p != '{')
		return jp_fail(&j, "expected a JSON object");
	if (jp_object(&j, 0, 0) < 0)
		return -1;
	jp_ws(&j);
	if (*j.p)
		return jp_fail(&j, "expected the end of the file after the JSON object");
	if (!j.seen_counters)
		return ps_err(err, "%s: JSON without a \"counters\" object: not the output of 'pagesim stat --format json'",
			      file);
	return 0;
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

int ps_diffin_load(const char *path, int node, struct ps_kv *kv, enum ps_diffin_kind *kind,
		   struct ps_error *err)
{
	size_t len;
	char *text;
	const char *s;
	int path_node, ret;

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
	text = ps_read_file(path, &len, err);
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
		ret = ps_diffin_parse_json(text, path, kv, err);
		free(text);
		return ret;
	}
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
