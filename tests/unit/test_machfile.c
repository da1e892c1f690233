// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_machfile.c - machine files (sim/config/machfile.c) and the configs/ library:
 * every configs/machines/ file loads into a consistent machine; every
 * configs/policies/ file loads with ps_policy_load and sets what its name
 * says; bad files fail with the file, line and key in the message;
 * qemu-2n-256m.machine gives the same machine as the numa2-base sysroot it
 * was copied from (testdata/numa2/numa2-base/before);
 * the derived zones, watermarks, lowmem_reserve and pcp sizes of the 64 GiB
 * machine against a hand computation; the pcp rules against every recorded
 * sysroot's pagesets.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/config/machfile.h"
#include "sim/config/policy.h"
#include "lib/kver.h"
#include "trace/sysroot.h"
#include "check.h"

static char src[4096], tmpdir[256];
static struct ps_machine ma, mb;

/* The source tree: $PAGESIM_SRC, else two levels above this file (compiled relative to build/). */
static void source_root(char *buf, size_t len)
{
	const char *env = getenv("PAGESIM_SRC");
	char *slash;

	if (env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	snprintf(buf, len, "%s", __FILE__);
	for (int i = 0; i < 3 && (slash = strrchr(buf, '/')); i++)
		*slash = 0;
	if (!strchr(__FILE__, '/') || !buf[0])
		snprintf(buf, len, ".");
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static char *read_text(const char *path)
{
	struct ps_error err;

	return ps_read_file(path, NULL, &err);
}

/* ---- every shipped machine file: loads, and the machine is consistent */

static void check_consistent(const char *path, const struct ps_machine *m)
{
	int cpus[PS_MAX_NODES] = { 0 };

	CHECK(m->nr_nodes >= 1 && m->nr_cpus >= 1 && m->nr_zones >= 1);
	CHECK(m->kver != PS_KVER_UNKNOWN && m->release[0]);
	CHECK_EQ(m->page_shift, 12);
	CHECK(m->source && !strcmp(m->source, path));
	CHECK(!m->assumed);
	for (int c = 0; c < m->nr_cpus; c++) {
		CHECK(m->cpu_node[c] >= 0 && m->cpu_node[c] < m->nr_nodes);
		if (m->cpu_node[c] >= 0 && m->cpu_node[c] < PS_MAX_NODES)
			cpus[m->cpu_node[c]]++;
	}
	for (int i = 0; i < m->nr_nodes; i++) {
		int mem = 0;

		CHECK((m->node_online >> i) & 1);
		CHECK_EQ(m->distance[i][i], 10);
		for (int j = 0; j < m->nr_nodes; j++)
			CHECK_EQ(m->distance[i][j], m->distance[j][i]);
		for (int z = 0; z < m->nr_zones; z++)
			mem |= m->zones[z].node == i;
		CHECK(mem || cpus[i]);
	}
	for (int z = 0; z < m->nr_zones; z++) {
		const struct ps_zone_desc *d = &m->zones[z];

		CHECK(d->spanned >= d->present && d->present >= d->managed && d->managed > 0);
		CHECK(d->wmark_min <= d->wmark_low && d->wmark_low <= d->wmark_high);
		CHECK(d->wmark_min > 0);
		CHECK(d->pcp_batch >= 1 && d->pcp_high >= 0);
		CHECK(!d->have_pagetypeinfo && !d->have_buddyinfo);
		if (z)
			CHECK(m->zones[z - 1].start_pfn + m->zones[z - 1].spanned <= d->start_pfn);
		CHECK_EQ(ps_machine_zone_of(m, d->start_pfn), z);
	}
}

static void test_machines(void)
{
	char dir[4200], path[4600];
	struct ps_error err;
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/configs/machines", src);
	d = opendir(dir);
	CHECK(d != NULL);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!ends_with(de->d_name, ".machine"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (ps_machine_load(path, &ma, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			CHECK(!"machine file loads");
			continue;
		}
		printf("%s: %d nodes, %d CPUs, %d zones, kernel %s\n", de->d_name, ma.nr_nodes,
		       ma.nr_cpus, ma.nr_zones, ma.release);
		check_consistent(path, &ma);
		n++;
	}
	closedir(d);
	CHECK(n >= 4);

	/* the layouts the files promise */
	snprintf(path, sizeof(path), "%s/configs/machines/ivb-ep-2s-64g.machine", src);
	CHECK(ps_machine_load(path, &ma, &err) == 0);
	CHECK_EQ(ma.nr_nodes, 2);
	CHECK_EQ(ma.nr_cpus, 48);
	for (int c = 0; c < 48; c++)
		CHECK_EQ(ma.cpu_node[c], (c % 24) < 12 ? 0 : 1);
	CHECK_EQ(ma.distance[0][1], 21);
	snprintf(path, sizeof(path), "%s/configs/machines/numa4.machine", src);
	CHECK(ps_machine_load(path, &ma, &err) == 0);
	CHECK_EQ(ma.nr_nodes, 4);
	CHECK_EQ(ma.nr_cpus, 32);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			int hops = abs(i - j) == 2 ? 2 : i == j ? 0 : 1;

			CHECK_EQ(ma.distance[i][j], hops == 0 ? 10 : hops == 1 ? 21 : 31);
		}
	snprintf(path, sizeof(path), "%s/configs/machines/uma-4g.machine", src);
	CHECK(ps_machine_load(path, &ma, &err) == 0);
	CHECK_EQ(ma.nr_nodes, 1);
	CHECK_EQ(ma.nr_cpus, 4);
	{
		uint64_t present = 0;

		for (int z = 0; z < ma.nr_zones; z++)
			present += ma.zones[z].present;
		/* 4 GiB less the 97 absent pages of the first MiB and page 0 */
		CHECK_EQ(present, (4096ull << 8) - 98);
	}
}

/* ---- every shipped policy file */

static void test_policies(void)
{
	char dir[4200], path[4600];
	struct ps_error err;
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s/configs/policies", src);
	d = opendir(dir);
	CHECK(d != NULL);
	if (!d)
		return;
	while ((de = readdir(d))) {
		struct ps_policy p;
		char *text;
		long v;

		if (!ends_with(de->d_name, ".policy"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ps_policy_init(&p);
		if (ps_policy_load(&p, path, &err) < 0) {
			fprintf(stderr, "%s\n", err.msg);
			CHECK(!"policy file loads");
			continue;
		}
		n++;
		/* a comment line first, saying what it is for */
		text = read_text(path);
		CHECK(text && text[0] == '#' && strlen(text) > 20);
		free(text);
		if (sscanf(de->d_name, "wsf-%ld.policy", &v) == 1)
			CHECK_EQ(p.watermark_scale_factor, v);
		if (sscanf(de->d_name, "pcp-batch-%ld.policy", &v) == 1)
			CHECK_EQ(p.pcp_batch, v);
		if (!strncmp(de->d_name, "kernel-", 7)) {
			char name[32];

			snprintf(name, sizeof(name), "%.*s", (int)(strlen(de->d_name) - 14),
				 de->d_name + 7);
			CHECK(p.profile && !strcmp(p.profile->name, name));
		}
		if (!strcmp(de->d_name, "boost-off.policy"))
			CHECK_EQ(p.watermark_boost_factor, 0);
		if (!strcmp(de->d_name, "zone-reclaim.policy"))
			CHECK_EQ(p.zone_reclaim_mode, 1);
		if (!strcmp(de->d_name, "defrag-mode.policy"))
			CHECK(p.defrag_mode == 1 && p.profile && p.profile->defrag_mode);
	}
	closedir(d);
	/* 11 profiles, 3 wsf, boost-off, zone-reclaim, defrag-mode, 4 pcp batches */
	CHECK(n >= 21);
	for (int i = 0; ps_profiles[i]; i++) {
		snprintf(path, sizeof(path), "%s/kernel-%s.policy", dir, ps_profiles[i]->name);
		CHECK(access(path, R_OK) == 0);
	}
}

/* ---- bad files: the message names the file, the line and the key */

static const char good_head[] =
	"# a valid machine\n"	/* 1 */
	"nodes = 2\n"		/* 2 */
	"kernel = 6.1\n"	/* 3 */
	"node0.cpus = 0-1\n"	/* 4 */
	"node0.distance = 10 20\n" /* 5 */
	"node0.memory_mb = 1024\n" /* 6 */
	"node1.cpus = 2-3\n"	/* 7 */
	"node1.distance = 20 10\n" /* 8 */
	"node1.memory_mb = 1024\n"; /* 9 */

static void expect_error(const char *what, const char *text, int line, const char *key,
			 const char *says)
{
	char path[512], want[700];
	struct ps_error err;
	int r;

	snprintf(path, sizeof(path), "%s/bad.machine", tmpdir);
	write_file(path, text);
	memset(&err, 0, sizeof(err));
	r = ps_machine_load(path, &ma, &err);
	CHECK_EQ(r, -1);
	if (line)
		snprintf(want, sizeof(want), "%s:%d: %s: ", path, line, key);
	else
		snprintf(want, sizeof(want), "%s", path);
	printf("  %-22s %s\n", what, err.msg);
	if (strncmp(err.msg, want, strlen(want)) || !strstr(err.msg, says)) {
		fprintf(stderr, "%s: got '%s', want '%s...%s'\n", what, err.msg, want, says);
		CHECK(!"error names file, line and key");
	} else {
		CHECK(1);
	}
}

static void test_errors(void)
{
	char text[4096], path[512];
	struct ps_error err;

	/* the base text is valid */
	snprintf(path, sizeof(path), "%s/good.machine", tmpdir);
	write_file(path, good_head);
	CHECK(ps_machine_load(path, &ma, &err) == 0);

	snprintf(text, sizeof(text), "%snode1.colour = blue\n", good_head);
	expect_error("unknown key", text, 10, "node1.colour", "unknown key");
	snprintf(text, sizeof(text), "%sfrobnicate = 1\n", good_head);
	expect_error("unknown key", text, 10, "frobnicate", "unknown key");
	snprintf(text, sizeof(text), "%s\nnodes = 2\n", good_head);
	expect_error("duplicate key", text, 11, "nodes", "given twice (first at line 2)");
	snprintf(text, sizeof(text), "%svm.watermark_scale_factor = 5000\n", good_head);
	expect_error("out of range", text, 10, "vm.watermark_scale_factor",
		     "5000 is out of range [1, 3000]");
	snprintf(text, sizeof(text), "%spageblock_order = 11\n", good_head);
	expect_error("out of range", text, 10, "pageblock_order", "out of range");
	snprintf(text, sizeof(text), "%svm.min_free_kbytes = lots\n", good_head);
	expect_error("not a number", text, 10, "vm.min_free_kbytes", "expected an integer");
	snprintf(text, sizeof(text), "%spage_size = 65536\n", good_head);
	expect_error("page size", text, 10, "page_size", "65536 is not supported");
	snprintf(text, sizeof(text), "%skernel = banana\n", "nodes = 1\nnode0.cpus = 0\nnode0.memory_mb = 512\n");
	expect_error("bad kernel", text, 4, "kernel", "not a kernel release");

	/* distances */
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-1\nnode0.distance = 10 20\nnode0.memory_mb = 1024\n"
		 "node1.cpus = 2-3\nnode1.distance = 21 10\nnode1.memory_mb = 1024\n");
	expect_error("asymmetric distance", text, 6, "node1.distance",
		     "distance to node 0 is 21 but node0.distance (line 3) gives 20");
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-1\nnode0.distance = 10 20\nnode0.memory_mb = 1024\n"
		 "node1.cpus = 2-3\nnode1.distance = 20 12\nnode1.memory_mb = 1024\n");
	expect_error("own distance", text, 6, "node1.distance", "to itself is 12, must be 10");
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-1\nnode0.distance = 10 20 30\nnode0.memory_mb = 1024\n"
		 "node1.cpus = 2-3\nnode1.distance = 20 10\nnode1.memory_mb = 1024\n");
	expect_error("distance row length", text, 3, "node0.distance", "3 distances for 2 nodes");
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-1\nnode0.memory_mb = 1024\n"
		 "node1.cpus = 2-3\nnode1.memory_mb = 1024\n");
	expect_error("missing distances", text, 1, "nodes", "node0.distance missing");

	/* CPUs */
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-3\nnode0.distance = 10 20\nnode0.memory_mb = 1024\n"
		 "node1.cpus = 3-5\nnode1.distance = 20 10\nnode1.memory_mb = 1024\n");
	expect_error("CPU in two nodes", text, 5, "node1.cpus",
		     "CPU 3 is already in node 0 (line 2)");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0-3,x\nnode0.memory_mb = 1024\n");
	expect_error("bad CPU list", text, 2, "node0.cpus", "not a CPU list");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0-1,4-5\nnode0.memory_mb = 1024\n");
	expect_error("CPU hole", text, 1, "nodes", "CPU 2 is in no node");
	snprintf(text, sizeof(text), "nodes = 1\nnode3.cpus = 0\nnode0.memory_mb = 1024\n");
	expect_error("node out of range", text, 2, "node3.cpus", "node 3 does not exist");

	/* memory and zones */
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-3\nnode0.distance = 10 20\nnode0.memory_mb = 1024\n"
		 "node1.distance = 20 10\nnode1.memory_mb = 0\n");
	expect_error("node without anything", text, 6, "node1.memory_mb",
		     "neither memory nor CPUs");
	snprintf(text, sizeof(text),
		 "nodes = 2\nnode0.cpus = 0-3\nnode0.distance = 10 20\n"
		 "node0.zone.DMA = start_pfn=1 spanned=4095 present=3998 managed=3840\n"
		 "node0.zone.DMA32 = start_pfn=4096 spanned=100000 present=100000 managed=90000\n"
		 "node1.distance = 20 10\n"
		 "node1.zone.DMA32 = start_pfn=100000 spanned=100000 present=100000 managed=90000\n");
	expect_error("overlapping zones", text, 7, "node1.zone.DMA32", "overlaps node 0's DMA32 zone");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\n"
		 "node0.zone.DMA32 = start_pfn=4096 spanned=1000 present=2000 managed=900\n");
	expect_error("present > spanned", text, 3, "node0.zone.DMA32", "managed <= present <= spanned");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\n"
		 "node0.zone.Normal = start_pfn=4096 spanned=1000 present=1000 managed=900\n");
	expect_error("Normal below 4 GiB", text, 3, "node0.zone.Normal", "4 GiB");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\n"
		 "node0.zone.HighMem = start_pfn=4096 spanned=1000 present=1000 managed=900\n");
	expect_error("no HighMem on x86-64", text, 3, "node0.zone.HighMem", "unknown zone");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\n"
		 "node0.zone.DMA32 = start_pfn=4096 spanned=1000 managed=900\n");
	expect_error("zone field missing", text, 3, "node0.zone.DMA32", "field present missing");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\nnode0.memory_mb = 2048\n"
		 "node0.zone.Normal.wmark = 10 20 30\n");
	expect_error("wmark of absent zone", text, 4, "node0.zone.Normal.wmark", "no Normal zone");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\nnode0.memory_mb = 2048\n"
		 "node0.zone.DMA32.wmark = 30 20 10\n");
	expect_error("wmark order", text, 4, "node0.zone.DMA32.wmark", "MIN <= LOW <= HIGH");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\nnode0.memory_mb = 2048\n"
		 "node0.zone.DMA = start_pfn=1 spanned=4095 present=3998 managed=3840\n");
	expect_error("memory_mb and zones", text, 4, "node0.zone.DMA", "use one or the other");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\nnode0.memory_mb = 2048\n"
		 "vm.lowmem_reserve_ratio = 256 32\n");
	expect_error("ratio count", text, 4, "vm.lowmem_reserve_ratio", "2 values");
	snprintf(text, sizeof(text), "nodes = 1\nnode0.cpus = 0\nnode0.memory_mb\n");
	expect_error("syntax", text, 0, "", ":3: expected 'key = value'");
	snprintf(text, sizeof(text), "node0.cpus = 0\n");
	expect_error("no nodes line", text, 0, "", "no 'nodes = N' line");

	snprintf(path, sizeof(path), "%s/absent.machine", tmpdir);
	CHECK(ps_machine_load(path, &ma, &err) < 0 && strstr(err.msg, path));
}

/* ---- qemu-2n-256m.machine against the sysroot it was copied from */

static void compare_machines(const struct ps_machine *a, const struct ps_machine *b)
{
	CHECK(!strcmp(a->release, b->release));
	CHECK_EQ(a->kver, b->kver);
	CHECK_EQ(a->page_shift, b->page_shift);
	CHECK_EQ(a->pageblock_order, b->pageblock_order);
	CHECK_EQ(a->nr_nodes, b->nr_nodes);
	CHECK_EQ(a->node_online, b->node_online);
	for (int i = 0; i < a->nr_nodes; i++)
		for (int j = 0; j < a->nr_nodes; j++)
			CHECK_EQ(a->distance[i][j], b->distance[i][j]);
	CHECK_EQ(a->nr_cpus, b->nr_cpus);
	for (int c = 0; c < PS_MAX_CPUS; c++)
		if (a->cpu_node[c] != b->cpu_node[c])
			CHECK_EQ(a->cpu_node[c], b->cpu_node[c]);
	CHECK_EQ(a->nr_zones, b->nr_zones);
	for (int i = 0; i < a->nr_zones && i < b->nr_zones; i++) {
		const struct ps_zone_desc *x = &a->zones[i], *y = &b->zones[i];

		CHECK_EQ(x->node, y->node);
		CHECK_EQ(x->type, y->type);
		CHECK_EQ(x->start_pfn, y->start_pfn);
		CHECK_EQ(x->spanned, y->spanned);
		CHECK_EQ(x->present, y->present);
		CHECK_EQ(x->managed, y->managed);
		CHECK_EQ(x->wmark_min, y->wmark_min);
		CHECK_EQ(x->wmark_low, y->wmark_low);
		CHECK_EQ(x->wmark_high, y->wmark_high);
		for (int t = 0; t < PS_ZONE_NR; t++)
			CHECK_EQ(x->lowmem_reserve[t], y->lowmem_reserve[t]);
		CHECK_EQ(x->nr_protection, y->nr_protection);
		for (int j = 0; j < x->nr_protection; j++)
			CHECK_EQ(x->protection[j], y->protection[j]);
		CHECK_EQ(x->pcp_high, y->pcp_high);
		CHECK_EQ(x->pcp_batch, y->pcp_batch);
	}
}

static void test_qemu_equivalence(void)
{
	char path[4600], dir[4600], *text, *p, *q;
	struct ps_error err;

	snprintf(dir, sizeof(dir), "%s/testdata/numa2/numa2-base/before", src);
	if (ps_sysroot_load_machine(dir, &mb, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(!"numa2-base sysroot loads");
		return;
	}
	snprintf(path, sizeof(path), "%s/configs/machines/qemu-2n-256m.machine", src);
	if (ps_machine_load(path, &ma, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		CHECK(!"qemu-2n-256m.machine loads");
		return;
	}
	printf("qemu-2n-256m.machine vs %s: %d zones compared\n", dir, ma.nr_zones);
	compare_machines(&ma, &mb);

	/* without the copied watermark lines: derived from vm.min_free_kbytes 2713, the same */
	text = read_text(path);
	CHECK(text != NULL);
	if (!text)
		return;
	for (p = text; (q = strstr(p, ".wmark = ")); p = q) {
		char *bol = q, *eol;

		while (bol > text && bol[-1] != '\n')
			bol--;
		eol = strchr(q, '\n');
		*bol = '#';
		q = eol ? eol : q + strlen(q);
	}
	CHECK(ps_machine_parse(text, "qemu-2n-256m without wmark lines", &ma, &err) == 0);
	compare_machines(&ma, &mb);
	free(text);
}

/* ---- derived zones and marks of the 64 GiB machine, by hand */

static const struct ps_zone_desc *zone(const struct ps_machine *m, int node, int type)
{
	for (int i = 0; i < m->nr_zones; i++)
		if (m->zones[i].node == node && m->zones[i].type == type)
			return &m->zones[i];
	return NULL;
}

#define CHECK_ZONE(z, start, span, pres, man)           \
	do {                                            \
		CHECK(z != NULL);                       \
		if (!z)                                 \
			break;                          \
		CHECK_EQ(z->start_pfn, start);          \
		CHECK_EQ(z->spanned, span);             \
		CHECK_EQ(z->present, pres);             \
		CHECK_EQ(z->managed, man);              \
	} while (0)

#define CHECK_MARKS(z, mn, lo, hi, ph, pb)              \
	do {                                            \
		if (!z)                                 \
			break;                          \
		CHECK_EQ(z->wmark_min, mn);             \
		CHECK_EQ(z->wmark_low, lo);             \
		CHECK_EQ(z->wmark_high, hi);            \
		CHECK_EQ(z->pcp_high, ph);              \
		CHECK_EQ(z->pcp_batch, pb);             \
	} while (0)

/*
 * ivb-ep-2s-64g: 2 x 32768 MiB = 2 x 8388608 pages, kernel 4.4.
 * Node 0: DMA pfn 1-4095, present 3998, managed 3840.  DMA32 from 4096,
 * spanning to 4 GiB (1044480 pages), RAM to 3 GiB: 786432 - 4096 = 782336
 * present; less the 10240-page boot reserve: 772096 managed.  Normal from
 * 4 GiB: 8388608 - 786432 = 7602176 pages; the node's present pages
 * 3998 + 782336 + 7602176 = 8388510 need 8388510 * 64 / 4096 = 131070.5,
 * so 131071 pages of memmap, plus 256 reserved: 7602176 - 131327 = 7470849.
 * Node 1: Normal at 1048576 + 7602176 = 8650752, 8388608 pages, less
 * 131072 + 256: 8257280.
 * min_free_kbytes: lowmem = 3840 + 772096 + 7470849 + 8257280 = 16504065
 * pages; sqrt(16 * 4 * 16504065) = 32500 KiB; THP raises it to
 * 4 zones * 512 * 11 pages = 22528 pages = 90112 KiB (5% of 16.5M pages is
 * far above).  pages_min 22528, tmp = 22528 * managed / 16504065:
 * DMA 5, DMA32 1053, Normal0 10197, Normal1 11271; 4.4 (pre-4.6 rule):
 * low = min + tmp/4, high = min + tmp/2.
 * lowmem_reserve (256 256 32): DMA against DMA32 772096/256 = 3016,
 * against Normal (772096 + 7470849)/256 = 32199; DMA32 against Normal
 * 7470849/256 = 29183.
 * pcp (4.4): batch min(managed/1024, 128)/4 -> 32 -> rounddown_pow2(48) - 1
 * = 31, high 6 * 31 = 186; DMA: 3/4 = 0 -> 1 -> 1 - 1 = 0: high 0, batch 1.
 */
static void test_ivb_ep_by_hand(void)
{
	char path[4600], *text, *k;
	const struct ps_zone_desc *z;
	struct ps_error err;

	snprintf(path, sizeof(path), "%s/configs/machines/ivb-ep-2s-64g.machine", src);
	CHECK(ps_machine_load(path, &ma, &err) == 0);
	CHECK_EQ(ma.nr_zones, 4);
	z = zone(&ma, 0, PS_ZONE_DMA);
	CHECK_ZONE(z, 1, 4095, 3998, 3840);
	CHECK_MARKS(z, 5, 6, 7, 0, 1);
	if (z) {
		CHECK_EQ(z->lowmem_reserve[PS_ZONE_DMA32], 3016);
		CHECK_EQ(z->lowmem_reserve[PS_ZONE_NORMAL], 32199);
		CHECK_EQ(z->lowmem_reserve[PS_ZONE_MOVABLE], 32199);
	}
	z = zone(&ma, 0, PS_ZONE_DMA32);
	CHECK_ZONE(z, 4096, 1044480, 782336, 772096);
	CHECK_MARKS(z, 1053, 1316, 1579, 186, 31);
	if (z)
		CHECK_EQ(z->lowmem_reserve[PS_ZONE_NORMAL], 29183);
	z = zone(&ma, 0, PS_ZONE_NORMAL);
	CHECK_ZONE(z, 1048576, 7602176, 7602176, 7470849);
	CHECK_MARKS(z, 10197, 12746, 15295, 186, 31);
	if (z)
		CHECK_EQ(z->lowmem_reserve[PS_ZONE_MOVABLE], 0);
	z = zone(&ma, 1, PS_ZONE_NORMAL);
	CHECK_ZONE(z, 8650752, 8388608, 8388608, 8257280);
	CHECK_MARKS(z, 11271, 14088, 16906, 186, 31);

	/*
	 * The same machine under 6.1: min_free_kbytes still 90112, so the
	 * same min; spacing max(tmp/4, managed * 10 / 10000): DMA max(1, 3) = 3,
	 * DMA32 max(263, 772) = 772, Normal0 max(2549, 7470) = 7470,
	 * Normal1 max(2817, 8257) = 8257.  pcp: batch min(managed/1024, 256)
	 * / 4 = 64 -> rounddown_pow2(96) - 1 = 63; high max(low / 24 CPUs of
	 * the node, 4 * batch): DMA32 1825/24 = 76 -> 252, Normal0 17667/24 =
	 * 736, Normal1 19528/24 = 813; DMA batch 1, high max(8/24, 4) = 4.
	 */
	text = read_text(path);
	CHECK(text != NULL);
	if (!text)
		return;
	k = strstr(text, "kernel = 4.4");
	CHECK(k != NULL);
	if (k) {
		memcpy(k, "kernel = 6.1", 12);
		CHECK(ps_machine_parse(text, "ivb-ep-2s-64g (6.1)", &ma, &err) == 0);
		CHECK_MARKS(zone(&ma, 0, PS_ZONE_DMA), 5, 8, 11, 4, 1);
		CHECK_MARKS(zone(&ma, 0, PS_ZONE_DMA32), 1053, 1825, 2597, 252, 63);
		CHECK_MARKS(zone(&ma, 0, PS_ZONE_NORMAL), 10197, 17667, 25137, 736, 63);
		CHECK_MARKS(zone(&ma, 1, PS_ZONE_NORMAL), 11271, 19528, 27785, 813, 63);
	}
	free(text);

	/*
	 * explicit tunables: min_free_kbytes 65536 -> pages_min 16384;
	 * Normal1 16384 * 8257280 / 16504065 = 8197
	 */
	text = read_text(path);
	if (text) {
		char buf[8192];

		snprintf(buf, sizeof(buf), "%svm.min_free_kbytes = 65536\n", text);
		CHECK(ps_machine_parse(buf, "ivb-ep-2s-64g (65536)", &ma, &err) == 0);
		z = zone(&ma, 1, PS_ZONE_NORMAL);
		if (z) {
			CHECK_EQ(z->wmark_min, 8197);
			CHECK_EQ(z->wmark_low, 8197 + 8197 / 4);
		}
		free(text);
	}
}

/* ---- the pcp rules: hand cases and every recorded sysroot's pagesets */

static void test_pcp_rules(void)
{
	int h, b;

	/* docs/kernel-rules.md, Per-CPU lists, the example: 16M-page zone, 32 CPUs on its node, LOW 26922 */
	ps_pcp_zone_default(PS_KVER(4, 4, 0), 16ull << 20, 26922, 32, 64, &h, &b);
	CHECK(h == 186 && b == 31);
	ps_pcp_zone_default(PS_KVER(4, 18, 0), 16ull << 20, 26922, 32, 64, &h, &b);
	CHECK(h == 186 && b == 31);
	ps_pcp_zone_default(PS_KVER(4, 19, 0), 16ull << 20, 26922, 32, 64, &h, &b);
	CHECK(h == 378 && b == 63);
	ps_pcp_zone_default(PS_KVER(5, 13, 0), 16ull << 20, 26922, 32, 64, &h, &b);
	CHECK(h == 378 && b == 63);
	ps_pcp_zone_default(PS_KVER(5, 14, 0), 16ull << 20, 26922, 32, 64, &h, &b);
	CHECK(h == 841 && b == 63);
	/* a node without CPUs splits over all CPUs */
	ps_pcp_zone_default(PS_KVER(6, 1, 0), 16ull << 20, 26922, 0, 64, &h, &b);
	CHECK(h == 420 && b == 63);
	/* batch sizes by hand: managed / 1024 / 4, then 2^n - 1 */
	CHECK_EQ(ps_pcp_zone_batchsize(PS_KVER(6, 1, 0), 3840), 0);	/* 3 / 4 = 0 -> 1 -> 0 */
	CHECK_EQ(ps_pcp_zone_batchsize(PS_KVER(6, 1, 0), 16291), 3);	/* 15/4 = 3 -> 4 -> 3 */
	CHECK_EQ(ps_pcp_zone_batchsize(PS_KVER(6, 1, 0), 64318), 15);	/* 62/4 = 15 -> 22 -> 15 */
	CHECK_EQ(ps_pcp_zone_batchsize(PS_KVER(6, 1, 0), 200000), 63);	/* 195/4 = 48 -> 72 -> 63 */
}

static int check_sysroot_pcp(const char *dir)
{
	struct ps_error err;
	int node_cpus[PS_MAX_NODES] = { 0 }, checked = 0;

	if (ps_sysroot_load_machine(dir, &mb, &err) < 0)
		return 0;
	for (int c = 0; c < mb.nr_cpus; c++)
		if (mb.cpu_node[c] >= 0 && mb.cpu_node[c] < PS_MAX_NODES)
			node_cpus[mb.cpu_node[c]]++;
	for (int i = 0; i < mb.nr_zones; i++) {
		const struct ps_zone_desc *z = &mb.zones[i];
		int h, b;

		if (z->pcp_batch < 0)
			continue;
		ps_pcp_zone_default(mb.kver, z->managed, z->wmark_low, node_cpus[z->node],
				    mb.nr_cpus, &h, &b);
		CHECK_EQ(b, z->pcp_batch);
		/* 6.7+: pcp->high is tuned at run time; the rule gives where it starts */
		if (mb.kver < PS_KVER(6, 7, 0))
			CHECK_EQ(h, z->pcp_high);
		checked++;
	}
	printf("%s (%s): pcp of %d zones checked%s\n", dir, mb.release, checked,
	       mb.kver >= PS_KVER(6, 7, 0) ? " (batch only: high auto-tuned)" : "");
	return checked > 0;
}

static int sysroots_under(const char *base)
{
	struct dirent *de;
	DIR *d = opendir(base);
	int n = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char dir[4600];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(dir, sizeof(dir), "%s/%s/before", base, de->d_name);
		if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
			n += check_sysroot_pcp(dir);
	}
	closedir(d);
	return n;
}

/* The derived layout of the first node against this kind of machine's real DMA and DMA32 */
static void test_layout_vs_real(void)
{
	char dir[4600], text[1024];
	const struct ps_zone_desc *r, *z;
	struct ps_error err;

	snprintf(dir, sizeof(dir), "%s/testdata/uma-idle/before", src);
	if (ps_sysroot_load_machine(dir, &mb, &err) < 0) {
		printf("testdata/uma-idle absent: layout check skipped\n");
		return;
	}
	/* MemTotal 24683656 kB: a 24 GiB machine */
	snprintf(text, sizeof(text), "nodes = 1\nkernel = %s\nnode0.cpus = 0-1\nnode0.memory_mb = 24576\n",
		 mb.release);
	CHECK(ps_machine_parse(text, "uma 24g", &ma, &err) == 0);
	for (int t = PS_ZONE_DMA; t <= PS_ZONE_DMA32; t++) {
		r = zone(&mb, 0, t);
		z = zone(&ma, 0, t);
		CHECK(r && z);
		if (!r || !z)
			continue;
		CHECK_EQ(z->start_pfn, r->start_pfn);
		CHECK_EQ(z->spanned, r->spanned);
		CHECK_EQ(z->present, r->present);
		/* managed: the boot reserve is an estimate; within 1% */
		CHECK(z->managed * 100 >= r->managed * 99 && z->managed * 100 <= r->managed * 101);
		printf("  %s: derived managed %llu, real %llu\n", ps_zone_names[t],
		       (unsigned long long)z->managed, (unsigned long long)r->managed);
	}
	r = zone(&mb, 0, PS_ZONE_NORMAL);
	z = zone(&ma, 0, PS_ZONE_NORMAL);
	CHECK(r && z && z->start_pfn == r->start_pfn && z->spanned == r->spanned);
}

int main(void)
{
	/* the folders of testdata/ holding run directories (RUN/before) */
	static const char *const sysroot_dirs[] = {
		"testdata", "testdata/numa2", "testdata/numa4", "testdata/uma",
	};
	char base[4600];
	int found = 0;

	source_root(src, sizeof(src));
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_machfile.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_machines();
	test_policies();
	test_errors();
	test_qemu_equivalence();
	test_ivb_ep_by_hand();
	test_pcp_rules();
	test_layout_vs_real();
	for (size_t i = 0; i < sizeof(sysroot_dirs) / sizeof(sysroot_dirs[0]); i++) {
		snprintf(base, sizeof(base), "%s/%s", src, sysroot_dirs[i]);
		found += sysroots_under(base);
	}
	printf("%d recorded sysroots' pagesets checked\n", found);
	CHECK(found > 0);

	snprintf(base, sizeof(base), "rm -rf '%s'", tmpdir);
	if (system(base) != 0)
		fprintf(stderr, "could not remove %s\n", tmpdir);
	CHECK_DONE();
}
