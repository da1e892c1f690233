// SPDX-License-Identifier: GPL-2.0-or-later
/* test_diffin.c - pagesim diff's inputs: JSON counters, numastat detection, node paths, deltas, files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/diffin.h"
#include "check.h"

static int64_t get(const struct ps_kv *kv, const char *name)
{
	const struct ps_kv_item *it = ps_kv_get(kv, name);

	return it ? it->value : -999999;
}

static char tmpdir[] = "/tmp/test_diffin.XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	f = fopen(path, "w");
	if (!f)
		abort();
	fputs(text, f);
	fclose(f);
}

static int load(const char *rel, int node, struct ps_kv *kv, enum ps_diffin_kind *kind, struct ps_error *err)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tmpdir, rel);
	ps_kv_free(kv);
	ps_kv_init(kv);
	return ps_diffin_load(path, node, kv, kind, err);
}

int main(void)
{
	struct ps_kv kv, a, b, d;
	struct ps_error err = { { 0 } };
	enum ps_diffin_kind kind;

	ps_kv_init(&kv);

	/* the name index: 5000 names in order, overwrites, misses, renames */
	for (int i = 0; i < 5000; i++) {
		char name[32];

		snprintf(name, sizeof(name), "nr_x%d", i);
		CHECK_EQ(ps_kv_set(&kv, name, i), 0);
	}
	CHECK_EQ(ps_kv_set(&kv, "nr_x17", -17), 0);
	CHECK_EQ(kv.nr, 5000);
	CHECK_EQ(get(&kv, "nr_x17"), -17);
	CHECK_EQ(get(&kv, "nr_x4999"), 4999);
	CHECK(ps_kv_get(&kv, "nr_x5000") == NULL);
	CHECK(!strcmp(kv.items[4999].name, "nr_x4999"));
	snprintf(kv.items[3].name, sizeof(kv.items[3].name), "renamed");
	CHECK_EQ(ps_kv_reindex(&kv), 0);
	CHECK_EQ(get(&kv, "renamed"), 3);
	CHECK(ps_kv_get(&kv, "nr_x3") == NULL);
	ps_kv_free(&kv);
	CHECK(ps_kv_get(&kv, "renamed") == NULL);

	/* replay --ensemble: means and stddevs in thousandths, or the means rounded */
	{
		struct ps_kv sd;
		int n = 0;

		ps_kv_init(&sd);
		CHECK_EQ(ps_diffin_parse_ensemble(PS_ENSEMBLE_HEADER "4: x\nnuma_miss 54579.0 8168.8\na 0.5 0.0\n", "e", &kv, &sd,
						  &n, &err), 0);
		CHECK_EQ(n, 4);
		CHECK_EQ(get(&kv, "numa_miss"), 54579000);
		CHECK_EQ(get(&sd, "numa_miss"), 8168800);
		CHECK_EQ(get(&kv, "a"), 500);
		ps_kv_free(&kv);
		ps_kv_free(&sd);
		CHECK_EQ(ps_diffin_parse_ensemble(PS_ENSEMBLE_HEADER "4: x\nb 2.6 1\n", "e", &kv, NULL, &n, &err), 0);
		CHECK_EQ(get(&kv, "b"), 3);
		ps_kv_free(&kv);
		CHECK(ps_diffin_parse_ensemble(PS_ENSEMBLE_HEADER "4: x\nb 2.6\n", "e", &kv, &sd, &n, &err) < 0);
		CHECK(strstr(err.msg, "e:2: expected 'name mean stddev'"));
		ps_kv_free(&kv);
		ps_kv_free(&sd);
		CHECK(ps_diffin_parse_ensemble(PS_ENSEMBLE_HEADER "1: x\nb 2 0\n", "e", &kv, &sd, &n, &err) < 0);
		ps_kv_free(&kv);
		ps_kv_free(&sd);
		CHECK(ps_diffin_parse_ensemble(PS_ENSEMBLE_HEADER "3: x\nb 2 1 7\n", "e", &kv, &sd, &n, &err) < 0);
		CHECK(strstr(err.msg, "got more after them"));
		ps_kv_free(&kv);
		ps_kv_free(&sd);
	}

	/* pagesim stat --format json: only "counters" is read, in order */
	CHECK_EQ(ps_diffin_parse_json("{\n  \"trace\": \"t.dat\",\n  \"x\": [1, {\"y\": null}, true],\n"
				      "  \"counters\": {\n    \"numa_hit\": 52957,\n    \"node1.numa_miss\": -3\n  }\n}\n",
				      "j", &kv, &err), 0);
	CHECK_EQ(kv.nr, 2);
	CHECK_EQ(get(&kv, "numa_hit"), 52957);
	CHECK_EQ(get(&kv, "node1.numa_miss"), -3);
	CHECK(!strcmp(kv.items[0].name, "numa_hit"));
	ps_kv_free(&kv);

	/* a fraction is not a counter; the message names file and line */
	CHECK(ps_diffin_parse_json("{\"counters\": {\n\"a\": 1,\n\"b\": 1.5}}", "f.json", &kv, &err) < 0);
	CHECK(strstr(err.msg, "f.json:3") && strstr(err.msg, "'b' is not an integer"));
	ps_kv_free(&kv);
	CHECK(ps_diffin_parse_json("{\"counters\": {\"a\": 1,", "cut.json", &kv, &err) < 0);
	CHECK(strstr(err.msg, "cut.json:1") && strstr(err.msg, "end of the file"));
	ps_kv_free(&kv);
	CHECK(ps_diffin_parse_json("{\"trace\": \"x\"}", "nc.json", &kv, &err) < 0);
	CHECK(strstr(err.msg, "without a \"counters\""));
	ps_kv_free(&kv);
	CHECK(ps_diffin_parse_json("{\"counters\": {\"a\": 1}} x", "t.json", &kv, &err) < 0);
	ps_kv_free(&kv);
	CHECK(ps_diffin_parse_json("{\"counters\": {\"a\": 1, \"a\": 2}}", "t.json", &kv, &err) < 0);
	CHECK(strstr(err.msg, "twice"));
	ps_kv_free(&kv);
	CHECK(ps_diffin_parse_json("{\"counters\": {\"a\": 99999999999999999999}}", "t.json", &kv, &err) < 0);
	ps_kv_free(&kv);
	{
		/* deep nesting is refused, not a stack overflow */
		char deep[400];

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = 0;
		memcpy(deep, "{\"x\":", 5);
		CHECK(ps_diffin_parse_json(deep, "deep.json", &kv, &err) < 0);
		CHECK(strstr(err.msg, "nested too deeply"));
		ps_kv_free(&kv);
	}

	/* node from the path */
	CHECK_EQ(ps_diffin_path_node("/x/sys/devices/system/node/node1/numastat"), 1);
	CHECK_EQ(ps_diffin_path_node("node12/numastat"), 12);
	CHECK_EQ(ps_diffin_path_node("/x/node/numastat"), -1);
	CHECK_EQ(ps_diffin_path_node("/x/node1a/numastat"), -1);
	CHECK_EQ(ps_diffin_path_node("/x/node1/vmstat"), -1);
	CHECK_EQ(ps_diffin_path_node("numastat"), -1);

	/* numastat content: numastat-only names, nothing else */
	ps_kv_init(&kv);
	CHECK_EQ(ps_kv_parse(&kv, "numa_hit 1\nnuma_miss 0\nlocal_node 1\nother_node 0\n", "n", NULL, &err), 0);
	CHECK(ps_diffin_is_numastat(&kv));
	ps_kv_set(&kv, "pgfree", 3);
	CHECK(!ps_diffin_is_numastat(&kv));
	ps_kv_free(&kv);
	CHECK_EQ(ps_kv_parse(&kv, "numa_hit 1\nnuma_miss 0\n", "n", NULL, &err), 0);
	CHECK(!ps_diffin_is_numastat(&kv));	/* as much /proc/vmstat as numastat */
	ps_kv_free(&kv);

	/* after - before, negative deltas kept, missing names refused */
	ps_kv_init(&a);
	ps_kv_init(&b);
	ps_kv_init(&d);
	ps_kv_set(&b, "pgfree", 100);
	ps_kv_set(&b, "nr_free_pages", 5000);
	ps_kv_set(&a, "nr_free_pages", 4200);
	ps_kv_set(&a, "pgfree", 175);
	CHECK_EQ(ps_diffin_delta(&b, &a, &d, "B", "A", &err), 0);
	CHECK_EQ(get(&d, "pgfree"), 75);
	CHECK_EQ(get(&d, "nr_free_pages"), -800);
	CHECK(!strcmp(d.items[0].name, "nr_free_pages"));	/* after's order */
	ps_kv_set(&a, "numa_hit", 1);
	ps_kv_free(&d);
	CHECK(ps_diffin_delta(&b, &a, &d, "B", "A", &err) < 0);
	CHECK(strstr(err.msg, "'numa_hit' is in A but not in B"));
	ps_kv_free(&a);
	ps_kv_free(&b);
	ps_kv_free(&d);

	/* files and directories, recognised by content */
	if (!mkdtemp(tmpdir))
		return 1;
	put("v", "numa_hit 10\npgfree 20\n");
	CHECK_EQ(load("v", -1, &kv, &kind, &err), 0);
	CHECK_EQ(kind, PS_DIFFIN_VMSTAT);
	CHECK_EQ(get(&kv, "pgfree"), 20);
	put("j", "  {\"counters\": {\"pgfree\": 7}}\n");
	CHECK_EQ(load("j", -1, &kv, &kind, &err), 0);
	CHECK_EQ(kind, PS_DIFFIN_JSON);
	CHECK_EQ(get(&kv, "pgfree"), 7);
	put("ns", "numa_hit 5\nlocal_node 4\nother_node 1\n");
	CHECK(load("ns", -1, &kv, &kind, &err) < 0);
	CHECK(strstr(err.msg, "--node N"));
	CHECK_EQ(load("ns", 3, &kv, &kind, &err), 0);
	CHECK_EQ(kind, PS_DIFFIN_NUMASTAT);
	CHECK_EQ(get(&kv, "node3.local_node"), 4);
	put("bad", "numa_hit 5\npgfree x\n");
	CHECK(load("bad", -1, &kv, &kind, &err) < 0);
	CHECK(strstr(err.msg, "bad:2"));
	put("empty", "\n# nothing\n");
	CHECK(load("empty", -1, &kv, &kind, &err) < 0);
	CHECK(strstr(err.msg, "no counters"));
	CHECK(load("missing", -1, &kv, &kind, &err) < 0);
	CHECK(strstr(err.msg, "cannot open"));
	{
		char p[512];

		/* a run directory: after - before of proc/vmstat and the node's numastat */
		const char *dirs[] = { "run", "run/before", "run/before/proc", "run/before/sys",
				       "run/before/sys/devices", "run/before/sys/devices/system",
				       "run/before/sys/devices/system/node",
				       "run/before/sys/devices/system/node/node1", "run/after", "run/after/proc",
				       "run/after/sys", "run/after/sys/devices", "run/after/sys/devices/system",
				       "run/after/sys/devices/system/node",
				       "run/after/sys/devices/system/node/node1" };

		for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s", tmpdir, dirs[i]);
			mkdir(p, 0755);
		}
		put("run/before/proc/vmstat", "nr_free_pages 900\nnuma_hit 1000\n");
		put("run/after/proc/vmstat", "nr_free_pages 850\nnuma_hit 1234\n");
		put("run/before/sys/devices/system/node/node1/numastat", "local_node 10\n");
		put("run/after/sys/devices/system/node/node1/numastat", "local_node 25\n");
		CHECK_EQ(load("run", -1, &kv, &kind, &err), 0);
		CHECK_EQ(kind, PS_DIFFIN_RUN);
		CHECK_EQ(get(&kv, "numa_hit"), 234);
		CHECK_EQ(get(&kv, "nr_free_pages"), -50);
		CHECK_EQ(get(&kv, "node1.local_node"), 15);
		CHECK_EQ(load("run/after", -1, &kv, &kind, &err), 0);
		CHECK_EQ(kind, PS_DIFFIN_SNAPSHOT);
		CHECK_EQ(get(&kv, "numa_hit"), 1234);
		CHECK_EQ(load("run/after/sys/devices/system/node/node1/numastat", -1, &kv, &kind, &err), 0);
		CHECK_EQ(kind, PS_DIFFIN_NUMASTAT);
		CHECK_EQ(get(&kv, "node1.local_node"), 25);
		CHECK(load("run/after/sys", -1, &kv, &kind, &err) < 0);
		CHECK(strstr(err.msg, "neither before/"));

		/* column arguments: commas and globs, sorted; a pattern matching nothing is an error */
		{
			char **paths, arg[1200];
			int n;

			snprintf(arg, sizeof(arg), "%s/v,%s/[jn]*", tmpdir, tmpdir);
			n = ps_diffin_expand(arg, &paths, &err);
			CHECK_EQ(n, 3);
			if (n == 3) {
				CHECK(strstr(paths[0], "/v") && strstr(paths[1], "/j") && strstr(paths[2], "/ns"));
				ps_diffin_paths_free(paths, n);
			}
			snprintf(arg, sizeof(arg), "%s/*.none", tmpdir);
			CHECK(ps_diffin_expand(arg, &paths, &err) < 0);
			CHECK(strstr(err.msg, "no file matches"));
			CHECK(ps_diffin_expand(",", &paths, &err) < 0);
			CHECK(strstr(err.msg, "empty group"));
		}
		snprintf(p, sizeof(p), "rm -rf '%s'", tmpdir);
		if (system(p))
			CHECK(0);
	}
	ps_kv_free(&kv);
	CHECK_DONE();
}
