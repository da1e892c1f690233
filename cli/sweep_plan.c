// SPDX-License-Identifier: GPL-2.0-or-later
/* sweep_plan.c - a sweep's cells from the command line, and its manifest.json (see sweep.h). */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/diffin.h"
#include "cli/input.h"
#include "cli/policyopt.h"
#include "cli/sweep.h"
#include "lib/file.h"

static void sha256_hex(struct sha256_ctx *ctx, char out[65])
{
	uint8_t md[SHA256_DIGEST_SIZE];

	sha256_digest(ctx, sizeof(md), md);
	for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
	out[64] = 0;
}

int sweep_sha256_file(const char *path, char out[65], uint64_t *bytes, struct ps_error *err)
{
	struct sha256_ctx ctx;
	static const size_t bufsz = 1 << 20;
	char *buf = malloc(bufsz);
	int fd = open(path, O_RDONLY), ret = -1;
	uint64_t total = 0;

	if (!buf) {
		ps_err(err, "out of memory");
		goto out;
	}
	if (fd < 0) {
		ps_err(err, "cannot open '%s': %s", path, strerror(errno));
		goto out;
	}
	sha256_init(&ctx);
	for (;;) {
		ssize_t n = read(fd, buf, bufsz);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ps_err(err, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (!n)
			break;
		sha256_update(&ctx, (size_t)n, (const uint8_t *)buf);
		total += n;
	}
	sha256_hex(&ctx, out);
	if (bytes)
		*bytes = total;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

static void sha256_text(const char *text, char out[65])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, strlen(text), (const uint8_t *)text);
	sha256_hex(&ctx, out);
}

char *sweep_output_path(const struct sweep *s, const struct sweep_cell *c, int o)
{
	char *p;

	if (asprintf(&p, "%s/%s", s->dir, c->outputs[o]) < 0)
		return NULL;
	return p;
}

/* ---- planning ---- */

/* The short name of a key in labels: the initials of its last part (watermark_scale_factor: wsf), or that part. */
static void short_key(const char *key, char *out, size_t len)
{
	const char *last = strrchr(key, '.');
	size_t n = 0;

	last = last ? last + 1 : key;
	if (!strchr(last, '_')) {
		snprintf(out, len, "%s", last);
		return;
	}
	for (const char *p = last; *p && n + 1 < len; p++)
		if (p == last || p[-1] == '_')
			out[n++] = *p;
	out[n] = 0;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");

	if (!d) {
		fputs("pagesim: out of memory\n", stderr);
		exit(PS_EXIT_FAIL);
	}
	return d;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz);

	if (!p) {
		fputs("pagesim: out of memory\n", stderr);
		exit(PS_EXIT_FAIL);
	}
	return p;
}

/* Splits "a,b,c" into a malloc'd array of malloc'd strings; empty items are refused. */
static int split_list(const char *text, char ***out)
{
	int n = 1, i = 0;
	const char *p = text;

	for (const char *q = text; *q; q++)
		n += *q == ',';
	*out = xcalloc(n, sizeof(char *));
	for (;;) {
		const char *c = strchr(p, ',');
		size_t l = c ? (size_t)(c - p) : strlen(p);

		if (!l)
			return -1;
		(*out)[i] = xcalloc(l + 1, 1);
		memcpy((*out)[i++], p, l);
		if (!c)
			break;
		p = c + 1;
	}
	return n;
}

static void cell_values(const struct ps_replay_opts *ro, char ***values)
{
	int nk = ps_policyopt_nr_keys();

	*values = xcalloc(nk, sizeof(char *));
	for (int k = 0; k < nk; k++) {
		char buf[96];

		ps_policyopt_value(ro, k, buf, sizeof(buf));
		(*values)[k] = xstrdup(buf);
	}
}

static void cell_id(const struct sweep *s, struct sweep_cell *c)
{
	char *text = NULL, sha[65];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f) {
		fputs("pagesim: out of memory\n", stderr);
		exit(PS_EXIT_FAIL);
	}
	fprintf(f, "pagesim sweep cell 1\ntrace %s\nmode %s\n", s->traces[c->trace].sha256,
		s->simulate ? "simulate" : "follow");
	for (int k = 0; k < ps_policyopt_nr_keys(); k++)
		fprintf(f, "%s %s\n", ps_policyopt_key(k), c->values[k]);
	fclose(f);
	sha256_text(text, sha);
	free(text);
	memcpy(c->id, sha, 16);
	c->id[16] = 0;
}

/*
 * Adds a cell of trace @t unless one with the same full policy is there
 * already (a --set value equal to the recorded one is the baseline itself).
 */
static void add_cell(struct sweep *s, int t, const struct ps_replay_opts *ro, const char *policy, char **sets,
		     int nr_sets, int baseline)
{
	struct sweep_cell c = { .trace = t, .baseline = baseline };
	char label[512] = "";
	size_t l = 0;

	cell_values(ro, &c.values);
	cell_id(s, &c);
	for (int i = 0; i < s->nr_cells; i++)
		if (s->cells[i].trace == t && !strcmp(s->cells[i].id, c.id)) {
			for (int k = 0; k < ps_policyopt_nr_keys(); k++)
				free(c.values[k]);
			free(c.values);
			return;
		}
	if (baseline)
		snprintf(label, sizeof(label), "recorded");
	if (policy) {
		const char *b = strrchr(policy, '/');
		char *dot;

		l += snprintf(label + l, sizeof(label) - l, "%s", b ? b + 1 : policy);
		dot = strstr(label, ".policy");
		if (dot && !dot[7])
			*dot = 0, l = strlen(label);
		c.policy = xstrdup(policy);
	}
	c.nr_sets = nr_sets;
	c.sets = xcalloc(nr_sets, sizeof(char *));
	for (int i = 0; i < nr_sets; i++) {
		char sk[64];
		const char *eq = strchr(sets[i], '=');
		char key[128];

		snprintf(key, sizeof(key), "%.*s", (int)(eq - sets[i]), sets[i]);
		short_key(key, sk, sizeof(sk));
		if (l < sizeof(label))
			l += snprintf(label + l, sizeof(label) - l, "%s%s=%s", l ? "," : "", sk, eq + 1);
		c.sets[i] = xstrdup(sets[i]);
	}
	c.label = xstrdup(label[0] ? label : "recorded");
	c.nr_outputs = s->ensemble;
	c.outputs = xcalloc(c.nr_outputs, sizeof(char *));
	for (int o = 0; o < c.nr_outputs; o++) {
		char name[64];

		if (c.nr_outputs == 1)
			snprintf(name, sizeof(name), "cells/%s.vmstat", c.id);
		else
			snprintf(name, sizeof(name), "cells/%s.e%d.vmstat", c.id, o);
		c.outputs[o] = xstrdup(name);
	}
	s->cells = realloc(s->cells, (s->nr_cells + 1) * sizeof(*s->cells));
	if (!s->cells) {
		fputs("pagesim: out of memory\n", stderr);
		exit(PS_EXIT_FAIL);
	}
	s->cells[s->nr_cells++] = c;
}

int sweep_plan(struct sweep *s, const char *dir, const struct sweep_args *a, struct ps_error *err)
{
	int total = 1;

	memset(s, 0, sizeof(*s));
	s->dir = xstrdup(dir);
	s->simulate = a->simulate;
	s->ensemble = a->ensemble > 0 ? a->ensemble : 1;
	for (int i = 0; i < a->nr_axes; i++) {
		const char *eq = strchr(a->axes[i], '=');
		struct sweep_axis *ax = &s->axes[s->nr_axes++];

		if (!eq || eq == a->axes[i])
			return ps_err(err, "--set wants KEY=V1,V2,..., not '%s'", a->axes[i]);
		ax->key = xcalloc(eq - a->axes[i] + 1, 1);
		memcpy(ax->key, a->axes[i], eq - a->axes[i]);
		for (int j = 0; j < i; j++)
			if (!strcmp(s->axes[j].key, ax->key))
				return ps_err(err, "--set %s given twice: give its values in one list", ax->key);
		ax->nr = split_list(eq + 1, &ax->values);
		if (ax->nr < 0)
			return ps_err(err, "--set %s: an empty value in '%s'", ax->key, eq + 1);
		total *= ax->nr;
	}
	if (a->policies) {
		s->nr_policies = split_list(a->policies, &s->policies);
		if (s->nr_policies < 0)
			return ps_err(err, "--policy: an empty name in '%s'", a->policies);
	}
	s->nr_traces = a->nr_traces;
	s->traces = xcalloc(a->nr_traces, sizeof(*s->traces));
	for (int t = 0; t < a->nr_traces; t++) {
		struct sweep_trace *tr = &s->traces[t];
		char abs[PATH_MAX];
		const char *b;

		if (!realpath(a->traces[t], abs))
			return ps_err(err, "cannot open '%s': %s", a->traces[t], strerror(errno));
		for (int u = 0; u < t; u++)
			if (!strcmp(s->traces[u].path, abs))
				return ps_err(err, "'%s' is given twice", a->traces[t]);
		tr->path = xstrdup(abs);
		b = strrchr(abs, '/');
		tr->name = xstrdup(b ? b + 1 : abs);
		if (sweep_sha256_file(abs, tr->sha256, &tr->bytes, err) < 0)
			return -1;
		tr->verified = 1;
	}
	for (int t = 0; t < s->nr_traces; t++) {
		struct ps_input_opts io = { .trace = s->traces[t].path, .quiet = 1 };
		struct ps_input in;
		struct ps_replay_opts ro;
		int np = s->nr_policies ? s->nr_policies : 1;

		if (ps_input_open(&in, &io) < 0)
			return ps_err(err, "%s: cannot be read", s->traces[t].path);
		if (in.machine.assumed) {
			ps_input_close(&in);
			return ps_err(err, "%s: no layout of the machine it was recorded on (a pagesim file with snapshots, or a before/ directory beside the trace)",
				      s->traces[t].path);
		}
		memset(&ro, 0, sizeof(ro));
		if (ps_policyopt_args(&ro, "sweep", NULL, NULL, NULL, 0)) {
			ps_input_close(&in);
			return ps_err(err, "bad policy");
		}
		if (ps_policyopt_recorded(&ro, &in, err) < 0) {
			ps_input_close(&in);
			return -1;
		}
		add_cell(s, t, &ro, NULL, NULL, 0, 1);
		for (int p = 0; p < np; p++) {
			const char *pol = s->nr_policies ? s->policies[p] : NULL;

			if (pol && !strcmp(pol, "recorded"))
				pol = NULL;
			for (int k = 0; k < total; k++) {
				char *sets[SWEEP_MAX_AXES];
				int rest = k, rc;

				/* the last axis varies fastest */
				for (int x = s->nr_axes - 1; x >= 0; x--) {
					const struct sweep_axis *ax = &s->axes[x];

					if (asprintf(&sets[x], "%s=%s", ax->key, ax->values[rest % ax->nr]) < 0)
						exit(PS_EXIT_FAIL);
					rest /= ax->nr;
				}
				memset(&ro, 0, sizeof(ro));
				rc = ps_policyopt_args(&ro, "sweep", pol, NULL, (const char *const *)sets, s->nr_axes);
				if (!rc) {
					/* the recorded sysctls were checked above */
					ps_policyopt_recorded(&ro, &in, err);
					add_cell(s, t, &ro, pol, sets, s->nr_axes, 0);
				}
				for (int x = 0; x < s->nr_axes; x++)
					free(sets[x]);
				if (rc) {
					ps_input_close(&in);
					return ps_err(err, "bad policy");
				}
			}
		}
		ps_input_close(&in);
	}
	return 0;
}

void sweep_free(struct sweep *s)
{
	int nk = ps_policyopt_nr_keys();

	for (int i = 0; i < s->nr_cells; i++) {
		struct sweep_cell *c = &s->cells[i];

		for (int k = 0; c->values && k < nk; k++)
			free(c->values[k]);
		free(c->values);
		for (int j = 0; j < c->nr_sets; j++)
			free(c->sets[j]);
		free(c->sets);
		for (int o = 0; o < c->nr_outputs; o++)
			free(c->outputs[o]);
		free(c->outputs);
		free(c->label);
		free(c->policy);
	}
	free(s->cells);
	for (int t = 0; t < s->nr_traces; t++) {
		free(s->traces[t].path);
		free(s->traces[t].name);
	}
	free(s->traces);
	for (int x = 0; x < s->nr_axes; x++) {
		for (int v = 0; v < s->axes[x].nr; v++)
			free(s->axes[x].values[v]);
		free(s->axes[x].values);
		free(s->axes[x].key);
	}
	for (int p = 0; p < s->nr_policies; p++)
		free(s->policies[p]);
	free(s->policies);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* ---- manifest.json ---- */

static json_object *jstr(const char *s)
{
	return s ? ps_json_string(s) : json_object_new_null();
}

/* A tunable as a JSON integer when it is one, null for the model's own, else a string. */
static json_object *jvalue(const char *v)
{
	char *end;
	long long n;

	if (!strcmp(v, "-"))
		return json_object_new_null();
	errno = 0;
	n = strtoll(v, &end, 10);
	if (!errno && end != v && !*end && !(v[0] == '0' && v[1]) && strcmp(v, "-0"))
		return json_object_new_int64(n);
	return ps_json_string(v);
}

int sweep_write_manifest(const struct sweep *s, struct ps_error *err)
{
	json_object *root = json_object_new_object(), *arr;
	struct ps_out out;
	char path[4096];
	int ret = -1;

	json_object_object_add(root, "format", json_object_new_string("pagesim-sweep"));
	json_object_object_add(root, "format_version", json_object_new_int(1));
	json_object_object_add(root, "pagesim", json_object_new_string(PAGESIM_VERSION));
	json_object_object_add(root, "mode", json_object_new_string(s->simulate ? "simulate" : "follow"));
	json_object_object_add(root, "ensemble", json_object_new_int(s->ensemble));
	arr = json_object_new_array();
	for (int x = 0; x < s->nr_axes; x++) {
		json_object *ax = json_object_new_object(), *vals = json_object_new_array();

		json_object_object_add(ax, "key", json_object_new_string(s->axes[x].key));
		for (int v = 0; v < s->axes[x].nr; v++)
			json_object_array_add(vals, ps_json_string(s->axes[x].values[v]));
		json_object_object_add(ax, "values", vals);
		json_object_array_add(arr, ax);
	}
	json_object_object_add(root, "axes", arr);
	arr = json_object_new_array();
	for (int p = 0; p < s->nr_policies; p++)
		json_object_array_add(arr, ps_json_string(s->policies[p]));
	json_object_object_add(root, "policies", arr);
	arr = json_object_new_array();
	for (int t = 0; t < s->nr_traces; t++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", ps_json_string(s->traces[t].name));
		json_object_object_add(o, "path", ps_json_string(s->traces[t].path));
		json_object_object_add(o, "sha256", json_object_new_string(s->traces[t].sha256));
		json_object_object_add(o, "bytes", json_object_new_int64((int64_t)s->traces[t].bytes));
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "traces", arr);
	arr = json_object_new_array();
	for (int i = 0; i < s->nr_cells; i++) {
		const struct sweep_cell *c = &s->cells[i];
		json_object *o = json_object_new_object(), *sets = json_object_new_object(), *outs = json_object_new_array();
		json_object *tun = json_object_new_object();

		json_object_object_add(o, "index", json_object_new_int(i));
		json_object_object_add(o, "id", json_object_new_string(c->id));
		json_object_object_add(o, "trace", json_object_new_int(c->trace));
		json_object_object_add(o, "label", ps_json_string(c->label));
		json_object_object_add(o, "baseline", json_object_new_boolean(c->baseline));
		json_object_object_add(o, "policy", jstr(c->policy));
		for (int j = 0; j < c->nr_sets; j++) {
			const char *eq = strchr(c->sets[j], '=');
			char key[128];

			snprintf(key, sizeof(key), "%.*s", (int)(eq - c->sets[j]), c->sets[j]);
			json_object_object_add(sets, key, ps_json_string(eq + 1));
		}
		json_object_object_add(o, "set", sets);
		for (int k = 0; k < ps_policyopt_nr_keys(); k++)
			json_object_object_add(tun, ps_policyopt_key(k), jvalue(c->values[k]));
		json_object_object_add(o, "tunables", tun);
		for (int j = 0; j < c->nr_outputs; j++)
			json_object_array_add(outs, json_object_new_string(c->outputs[j]));
		json_object_object_add(o, "outputs", outs);
		json_object_array_add(arr, o);
	}
	json_object_object_add(root, "cells", arr);

	snprintf(path, sizeof(path), "%s/manifest.json", s->dir);
	if (ps_out_open(&out, path, err) == 0) {
		fputs(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
								   JSON_C_TO_STRING_NOSLASHESCAPE),
		      out.f);
		fputc('\n', out.f);
		ret = ps_out_commit(&out, err);
	}
	json_object_put(root);
	return ret;
}

/* ---- reading it back ---- */

static json_object *member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

static int bad(struct ps_error *err, const char *path, const char *what)
{
	return ps_err(err, "%s: %s (not a manifest written by this pagesim: plan the sweep again with pagesim sweep -o)",
		      path, what);
}

static char *str_of(json_object *o, const char *key)
{
	json_object *v = member(o, key, json_type_string);

	return v ? xstrdup(json_object_get_string(v)) : NULL;
}

int sweep_load(struct sweep *s, const char *dir, struct ps_error *err)
{
	char path[4096];
	json_object *root, *v, *arr;
	char *text;
	int nk = ps_policyopt_nr_keys(), ret = -1;

	memset(s, 0, sizeof(*s));
	snprintf(path, sizeof(path), "%s/manifest.json", dir);
	if (access(path, F_OK) < 0)
		return ps_err(err, "%s: no manifest.json: is it a sweep directory (pagesim sweep -o %s ...)?", dir, dir);
	text = ps_read_file(path, NULL, err);
	if (!text)
		return -1;
	root = ps_json_parse_object(text, path, err);
	free(text);
	if (!root)
		return -1;
	s->dir = xstrdup(dir);
	v = member(root, "format", json_type_string);
	if (!v || strcmp(json_object_get_string(v), "pagesim-sweep")) {
		bad(err, path, "no \"format\": \"pagesim-sweep\"");
		goto out;
	}
	v = member(root, "mode", json_type_string);
	if (!v) {
		bad(err, path, "no \"mode\"");
		goto out;
	}
	s->simulate = !strcmp(json_object_get_string(v), "simulate");
	v = member(root, "ensemble", json_type_int);
	s->ensemble = v ? json_object_get_int(v) : 1;
	arr = member(root, "axes", json_type_array);
	for (size_t i = 0; arr && i < json_object_array_length(arr) && s->nr_axes < SWEEP_MAX_AXES; i++) {
		json_object *ax = json_object_array_get_idx(arr, i), *vals = member(ax, "values", json_type_array);
		struct sweep_axis *a = &s->axes[s->nr_axes];

		a->key = str_of(ax, "key");
		if (!a->key || !vals) {
			free(a->key);
			bad(err, path, "an axis without \"key\" or \"values\"");
			goto out;
		}
		s->nr_axes++;
		a->nr = json_object_array_length(vals);
		a->values = xcalloc(a->nr, sizeof(char *));
		for (int k = 0; k < a->nr; k++)
			a->values[k] = xstrdup(json_object_get_string(json_object_array_get_idx(vals, k)));
	}
	arr = member(root, "policies", json_type_array);
	s->nr_policies = arr ? json_object_array_length(arr) : 0;
	s->policies = xcalloc(s->nr_policies, sizeof(char *));
	for (int p = 0; p < s->nr_policies; p++)
		s->policies[p] = xstrdup(json_object_get_string(json_object_array_get_idx(arr, p)));
	arr = member(root, "traces", json_type_array);
	if (!arr || !json_object_array_length(arr)) {
		bad(err, path, "no \"traces\"");
		goto out;
	}
	s->nr_traces = json_object_array_length(arr);
	s->traces = xcalloc(s->nr_traces, sizeof(*s->traces));
	for (int t = 0; t < s->nr_traces; t++) {
		json_object *o = json_object_array_get_idx(arr, t);
		struct sweep_trace *tr = &s->traces[t];
		char *sha = str_of(o, "sha256");

		tr->name = str_of(o, "name");
		tr->path = str_of(o, "path");
		v = member(o, "bytes", json_type_int);
		tr->bytes = v ? (uint64_t)json_object_get_int64(v) : 0;
		if (!tr->name || !tr->path || !sha || strlen(sha) != 64) {
			free(sha);
			bad(err, path, "a trace without \"name\", \"path\" or \"sha256\"");
			goto out;
		}
		memcpy(tr->sha256, sha, 65);
		free(sha);
	}
	arr = member(root, "cells", json_type_array);
	if (!arr) {
		bad(err, path, "no \"cells\"");
		goto out;
	}
	s->cells = xcalloc(json_object_array_length(arr), sizeof(*s->cells));
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *tun = member(o, "tunables", json_type_object);
		json_object *sets = member(o, "set", json_type_object), *outs = member(o, "outputs", json_type_array);
		struct sweep_cell *c = &s->cells[s->nr_cells];
		char *id = str_of(o, "id");

		v = member(o, "trace", json_type_int);
		c->label = str_of(o, "label");
		s->nr_cells++;
		if (!id || strlen(id) != 16 || !v || json_object_get_int(v) < 0 || json_object_get_int(v) >= s->nr_traces ||
		    !c->label || !tun || !outs || !json_object_array_length(outs)) {
			free(id);
			bad(err, path, "a cell without \"id\", \"trace\", \"label\", \"tunables\" or \"outputs\"");
			goto out;
		}
		memcpy(c->id, id, 17);
		free(id);
		c->trace = json_object_get_int(v);
		v = member(o, "baseline", json_type_boolean);
		c->baseline = v && json_object_get_boolean(v);
		c->policy = str_of(o, "policy");
		c->values = xcalloc(nk, sizeof(char *));
		for (int k = 0; k < nk; k++) {
			json_object *tv;

			if (!json_object_object_get_ex(tun, ps_policyopt_key(k), &tv)) {
				char what[128];

				snprintf(what, sizeof(what), "cell %zu has no tunable \"%s\"", i, ps_policyopt_key(k));
				bad(err, path, what);
				goto out;
			}
			c->values[k] = xstrdup(json_object_is_type(tv, json_type_null) ? "-" : json_object_get_string(tv));
		}
		if (sets) {
			c->sets = xcalloc(json_object_object_length(sets), sizeof(char *));
			json_object_object_foreach(sets, key, val)
			{
				if (asprintf(&c->sets[c->nr_sets], "%s=%s", key, json_object_get_string(val)) < 0)
					exit(PS_EXIT_FAIL);
				c->nr_sets++;
			}
		}
		c->nr_outputs = json_object_array_length(outs);
		c->outputs = xcalloc(c->nr_outputs, sizeof(char *));
		for (int j = 0; j < c->nr_outputs; j++) {
			const char *p = json_object_get_string(json_object_array_get_idx(outs, j));

			/* outputs stay inside the sweep directory */
			if (!p || strncmp(p, "cells/", 6) || strstr(p, "..") || strchr(p + 6, '/')) {
				bad(err, path, "an output outside cells/");
				goto out;
			}
			c->outputs[j] = xstrdup(p);
		}
	}
	ret = 0;
out:
	json_object_put(root);
	return ret;
}

/* ---- the state of a cell ---- */

int sweep_cell_state(const struct sweep *s, const struct sweep_cell *c, char *why, int len)
{
	char *p, line[256], want[128];
	FILE *f;

	if (asprintf(&p, "%s/cells/%s.err", s->dir, c->id) < 0)
		return 0;
	f = fopen(p, "r");
	free(p);
	if (f) {
		if (why) {
			if (!fgets(why, len, f))
				why[0] = 0;
			why[strcspn(why, "\n")] = 0;
		}
		fclose(f);
		return 2;
	}
	snprintf(want, sizeof(want), "# pagesim %s sweep cell %s\n", PAGESIM_VERSION, c->id);
	for (int o = 0; o < c->nr_outputs; o++) {
		int ok;

		p = sweep_output_path(s, c, o);
		f = p ? fopen(p, "r") : NULL;
		free(p);
		if (!f)
			return 0;
		ok = fgets(line, sizeof(line), f) && !strcmp(line, want);
		fclose(f);
		if (!ok)
			return 0;
	}
	return 1;
}
