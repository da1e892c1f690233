// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_watermark.c - sim/mm/watermark.c against the kernel: every zone's
 * min/low/high and protection (lowmem_reserve) in the zoneinfo of every
 * recorded sysroot (testdata/STAR/before, testdata/numa2/STAR/before, ...) and
 * of two zoneinfo files embedded here, recomputed from the machine and the
 * sysroot's own vm tunables; the recorded min_free_kbytes re-derived by the
 * kernel's path; hand-computed cases for the version rules; the watermark
 * test and boosting.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/mm/buddy.h"
#include "sim/mm/watermark.h"
#include "lib/event.h"
#include "lib/kver.h"
#include "trace/sysroot.h"
#include "check.h"

/* ---- the zones exactly as /proc/zoneinfo prints them, empty ones included */

struct raw_zone {
	int node, type;
	long boost, min, low, high, promo;
	int have_promo; /* 6.x prints it (Debian's 6.1 does not) */
	long prot[PS_ZONE_NR];
	int nprot;
};

struct raw_info {
	int nr;
	struct raw_zone z[PS_MAX_NODES * PS_ZONE_NR];
	unsigned int zone_types; /* the types node 0 lists: the kernel's zones */
};

static int type_of(const char *name)
{
	for (int t = 0; t < PS_ZONE_NR; t++)
		if (!strcmp(name, ps_zone_names[t]))
			return t;
	return !strcmp(name, "HighMem") ? PS_ZONE_HIGHMEM : -1;
}

/* Not the project's parser: a second, independent reading of the same text. */
static int parse_raw(const char *text, struct raw_info *ri)
{
	const char *p = text;
	struct raw_zone *cur = NULL;

	memset(ri, 0, sizeof(*ri));
	while (p && *p) {
		char line[512], name[32];
		const char *eol = strchr(p, '\n');
		size_t n = eol ? (size_t)(eol - p) : strlen(p);
		int node;
		long v;

		if (n >= sizeof(line))
			n = sizeof(line) - 1;
		memcpy(line, p, n);
		line[n] = 0;
		p = eol ? eol + 1 : NULL;
		if (sscanf(line, "Node %d, zone %31s", &node, name) == 2) {
			if (ri->nr >= (int)(sizeof(ri->z) / sizeof(ri->z[0])) || type_of(name) < 0)
				return -1;
			cur = &ri->z[ri->nr++];
			memset(cur, 0, sizeof(*cur));
			cur->node = node;
			cur->type = type_of(name);
			if (node == 0)
				ri->zone_types |= 1u << cur->type;
			continue;
		}
		if (!cur)
			continue;
		if (strstr(line, "pagesets")) {
			cur = NULL; /* "high:" of the pcp lists follows */
			continue;
		}
		if (sscanf(line, " boost %ld", &v) == 1)
			cur->boost = v;
		else if (sscanf(line, " min %ld", &v) == 1)
			cur->min = v;
		else if (sscanf(line, " low %ld", &v) == 1)
			cur->low = v;
		else if (sscanf(line, " high %ld", &v) == 1)
			cur->high = v;
		else if (sscanf(line, " promo %ld", &v) == 1) {
			cur->promo = v;
			cur->have_promo = 1;
		} else if (strstr(line, "protection: (")) {
			char *q = strchr(line, '(') + 1, *end;

			while (cur->nprot < PS_ZONE_NR) {
				v = strtol(q, &end, 10);
				if (end == q)
					break;
				cur->prot[cur->nprot++] = v;
				q = end;
				while (*q == ',' || *q == ' ')
					q++;
			}
		}
	}
	return ri->nr ? 0 : -1;
}

/* Compares every printed zone with the model; returns the number of zones compared. */
static int check_zones(const char *what, const struct raw_info *ri, const struct ps_wmarks *w)
{
	int types[PS_ZONE_NR], nt = 0, bad = check_fail;

	for (int t = 0; t < PS_ZONE_NR; t++)
		if (ri->zone_types & (1u << t))
			types[nt++] = t;
	for (int i = 0; i < ri->nr; i++) {
		const struct raw_zone *r = &ri->z[i];
		const struct ps_wmark_zone *z = &w->zone[r->node][r->type];

		/* zoneinfo prints the marks with the boost added (wmark_pages()) */
		CHECK_EQ(z->mark[PS_WMARK_MIN] + r->boost, r->min);
		CHECK_EQ(z->mark[PS_WMARK_LOW] + r->boost, r->low);
		CHECK_EQ(z->mark[PS_WMARK_HIGH] + r->boost, r->high);
		if (r->have_promo)
			CHECK_EQ(z->mark[PS_WMARK_PROMO] + r->boost, r->promo);
		CHECK_EQ(r->nprot, nt);
		for (int k = 0; k < r->nprot && k < nt; k++)
			CHECK_EQ(z->lowmem_reserve[types[k]], r->prot[k]);
		if (check_fail != bad) {
			fprintf(stderr, "  (%s: node %d zone %s)\n", what, r->node,
				ps_zone_names[r->type]);
			bad = check_fail;
		}
	}
	return ri->nr;
}

static int parse_longs(const char *s, long *v, int max)
{
	int n = 0;
	char *end;

	while (n < max) {
		long x = strtol(s, &end, 10);

		if (end == s)
			break;
		v[n++] = x;
		s = end;
	}
	return n;
}

/* ---- embedded: numa2-base (QEMU, 2 nodes, Debian 6.1): the lines read, spaces squeezed */

static const char zoneinfo_numa2[] =
	"Node 0, zone DMA\n pages free 3808\n boost 0\n min 22\n low 27\n high 32\n"
	" spanned 4095\n present 3998\n managed 3840\n protection: (0, 63, 186, 186, 186)\n"
	" start_pfn: 1\n"
	"Node 0, zone DMA32\n pages free 16216\n boost 0\n min 95\n low 118\n high 141\n"
	" spanned 1044480\n present 28633\n managed 16291\n"
	" protection: (0, 0, 123, 123, 123)\n start_pfn: 4096\n"
	"Node 0, zone Normal\n pages free 20561\n boost 0\n min 184\n low 230\n high 276\n"
	" spanned 32768\n present 32768\n managed 31573\n protection: (0, 0, 0, 0, 0)\n"
	" start_pfn: 1048576\n"
	"Node 0, zone Movable\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n spanned 0\n"
	" present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n"
	"Node 0, zone Device\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n spanned 0\n"
	" present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone DMA\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n spanned 0\n"
	" present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone DMA32\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n spanned 0\n"
	" present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone Normal\n pages free 53843\n boost 0\n min 375\n low 468\n high 561\n"
	" spanned 65536\n present 65536\n managed 64318\n protection: (0, 0, 0, 0, 0)\n"
	" start_pfn: 1081344\n"
	"Node 1, zone Movable\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n spanned 0\n"
	" present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n"
	"Node 1, zone Device\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n spanned 0\n"
	" present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n";

/* uma-mixed (this kind of machine, 6.18): the empty Movable zone's min is 32 from 6.7 */
static const char zoneinfo_uma618[] =
	"Node 0, zone DMA\n pages free 3840\n boost 0\n min 23\n low 28\n high 33\n promo 38\n"
	" spanned 4095\n present 3998\n managed 3840\n"
	" protection: (0, 3019, 10571, 10571, 10571)\n start_pfn: 1\n"
	"Node 0, zone DMA32\n pages free 772852\n boost 0\n min 4818\n low 6022\n high 7226\n"
	" promo 8430\n spanned 1044480\n present 782336\n managed 772915\n"
	" protection: (0, 0, 7552, 7552, 7552)\n start_pfn: 4096\n"
	"Node 0, zone Normal\n pages free 1216898\n boost 0\n min 12053\n low 15066\n"
	" high 18079\n promo 21092\n spanned 5505024\n present 5505024\n managed 1933312\n"
	" protection: (0, 0, 0, 0, 0)\n start_pfn: 1048576\n"
	"Node 0, zone Movable\n pages free 0\n boost 0\n min 32\n low 32\n high 32\n promo 32\n"
	" spanned 0\n present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n"
	"Node 0, zone Device\n pages free 0\n boost 0\n min 0\n low 0\n high 0\n promo 0\n"
	" spanned 0\n present 0\n managed 0\n protection: (0, 0, 0, 0, 0)\n";

static void test_embedded(const char *name, const char *text, int kver, long mfk, int wsf,
			  const char *ratios)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_wmarks *w = malloc(sizeof(*w));
	struct raw_info *ri = malloc(sizeof(*ri));
	struct ps_wmark_tunables t;
	struct ps_error err;
	long r[8];
	int n = parse_longs(ratios, r, 8);

	ps_machine_init(m);
	CHECK_EQ(ps_parse_zoneinfo(text, name, m, &err), 0);
	CHECK_EQ(parse_raw(text, ri), 0);
	ps_wmark_tunables_default(&t, kver);
	t.zone_types = ri->zone_types;
	t.min_free_kbytes = mfk;
	t.watermark_scale_factor = wsf;
	CHECK_EQ(ps_wmark_set_ratios(&t, r, n), 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(check_zones(name, ri, w), ri->nr);
	free(m);
	free(w);
	free(ri);
}

/* ---- real sysroots */

static char *read_text(const char *dir, const char *rel)
{
	char path[4096];
	struct ps_error err;
	size_t len;

	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return NULL;
	return ps_read_file(path, &len, &err);
}

static long read_long(const char *dir, const char *rel, int *ok)
{
	char *s = read_text(dir, rel);
	long v = 0;

	*ok = s && sscanf(s, "%ld", &v) == 1;
	free(s);
	return v;
}

/*
 * KiB the kernel freed after its initcalls ("Freeing initrd memory",
 * "Freeing unused kernel image ... memory", ...) from the run's boot log,
 * if it has one; "SMP alternatives" is freed before the initcalls.
 */
static long freed_after_boot_kb(const char *info)
{
	char *log = read_text(info, "dmesg_boot"), *p;
	long sum = 0;

	for (p = log; p && (p = strstr(p, "Freeing ")); p++) {
		char *eol = strchr(p, '\n'), *colon = strstr(p, "memory: ");
		long kb;

		if (!colon || (eol && colon > eol) || strstr(p, "SMP alternatives") == p + 8)
			continue;
		if (sscanf(colon + 8, "%ldK", &kb) == 1)
			sum += kb;
	}
	free(log);
	return sum;
}

/*
 * The recorded vm.min_free_kbytes, re-derived along the kernel's path:
 * at boot (postcore) the sqrt rule over the memory managed then, which
 * lacks what the boot log says was freed later; then (subsys initcall,
 * THP on at boot and >= 512 MiB) the THP raise; a run whose init script
 * switched THP to "never" on a 6.1+ kernel then recomputed the sqrt rule
 * over the final managed pages minus the high watermarks then in force
 * (those of the THP value, with the boot managed counts and the default
 * watermark_scale_factor: the harness applies its sysctls afterwards).
 */
static void check_min_free_kbytes(const char *dir, const struct ps_machine *m,
				  const struct ps_wmark_tunables *t0, long recorded)
{
	char info[4096];
	struct ps_machine *boot = malloc(sizeof(*boot));
	struct ps_wmarks *w = malloc(sizeof(*w));
	struct ps_wmark_tunables t;
	long freed_pages, v, expect;
	char *init;
	int thp_never = 0;

	if (snprintf(info, sizeof(info), "%s/../info", dir) >= (int)sizeof(info))
		info[0] = 0;
	init = read_text(info, "init");
	thp_never = init &&
		    strstr(init, "echo never > /sys/kernel/mm/transparent_hugepage/enabled");
	free(init);
	freed_pages = freed_after_boot_kb(info) >> (m->page_shift - 10);

	/* take the late frees out of node 0's DMA32 (the kernel image and initrd live there) */
	*boot = *m;
	for (int i = 0; i < boot->nr_zones; i++) {
		struct ps_zone_desc *z = &boot->zones[i];

		if (z->node == 0 && z->type == PS_ZONE_DMA32 && z->managed > (uint64_t)freed_pages)
			z->managed -= (uint64_t)freed_pages;
	}
	/* the tunables of that time: the kernel's defaults (the run's sysctls came later) */
	ps_wmark_tunables_default(&t, m->kver);
	t.zone_types = t0->zone_types;
	t.thp_at_boot = 1;
	v = ps_wmark_min_free_kbytes_default(boot, &t);
	expect = v;
	if (thp_never && m->kver >= PS_KVER(6, 1, 0)) {
		t.min_free_kbytes = v;
		CHECK_EQ(ps_wmark_setup(w, boot, &t), 0);
		expect = ps_wmark_min_free_kbytes_sqrt(ps_wmark_nr_free_buffer_pages(m, w), m->kver,
						       m->page_shift);
	}
	printf("  min_free_kbytes %ld: boot default %ld (%ld KiB freed after boot)%s -> %ld\n",
	       recorded, v, freed_pages << (m->page_shift - 10),
	       thp_never ? ", THP then set to never" : "", expect);
	CHECK_EQ(expect, recorded);
	free(boot);
	free(w);
}

static int check_sysroot(const char *dir)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_wmarks *w = malloc(sizeof(*w));
	struct raw_info *ri = malloc(sizeof(*ri));
	struct ps_wmark_tunables t;
	struct ps_error err;
	char *zi = read_text(dir, "proc/zoneinfo"),
	     *ratio = read_text(dir, "proc/sys/vm/lowmem_reserve_ratio");
	long r[8], mfk, wsf;
	int ok1, ok2, n, zones = 0;

	ps_machine_init(m);
	if (!zi || !ratio || ps_sysroot_load_machine(dir, m, &err) || parse_raw(zi, ri)) {
		printf("  %s: not a complete sysroot, skipped\n", dir);
		goto out;
	}
	mfk = read_long(dir, "proc/sys/vm/min_free_kbytes", &ok1);
	wsf = read_long(dir, "proc/sys/vm/watermark_scale_factor", &ok2);
	CHECK(ok1 && ok2 && m->kver != PS_KVER_UNKNOWN);
	ps_wmark_tunables_default(&t, m->kver);
	t.zone_types = ri->zone_types;
	t.min_free_kbytes = mfk;
	t.watermark_scale_factor = (int)wsf;
	n = parse_longs(ratio, r, 8);
	CHECK_EQ(ps_wmark_set_ratios(&t, r, n), 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	zones = check_zones(dir, ri, w);
	printf("%s: %s, %d zones, min_free_kbytes %ld, wsf %ld, ratios %d\n", dir, m->release,
	       zones, mfk, wsf, n);
	check_min_free_kbytes(dir, m, &t, mfk);
out:
	free(zi);
	free(ratio);
	free(m);
	free(w);
	free(ri);
	return zones;
}

static int check_sysroots_under(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/before/proc/zoneinfo", base, e->d_name) >=
			    (int)sizeof(path) ||
		    stat(path, &st))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/before", base, e->d_name) >=
		    (int)sizeof(path))
			continue;
		found += check_sysroot(path) > 0;
	}
	closedir(d);
	return found;
}

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

/* ---- hand-computed cases */

static void add_zone(struct ps_machine *m, int node, int type, uint64_t managed)
{
	struct ps_zone_desc *z = &m->zones[m->nr_zones++];

	memset(z, 0, sizeof(*z));
	z->node = node;
	z->type = type;
	z->spanned = z->present = managed + managed / 50;
	z->managed = managed;
	z->start_pfn = (uint64_t)m->nr_zones << 24;
	if (node + 1 > m->nr_nodes)
		m->nr_nodes = node + 1;
	m->node_online |= 1ull << node;
}

/*
 * One node, DMA 3840 / DMA32 500000 / Normal 1500000 managed pages,
 * min_free_kbytes 8192: pages_min 2048, lowmem 2003840; the min share
 * (tmp) is 2048 * managed / 2003840: DMA 3, DMA32 511, Normal 1533.
 */
static void test_pre46(void)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_wmarks *w = malloc(sizeof(*w));
	struct ps_wmark_tunables t;

	ps_machine_init(m);
	add_zone(m, 0, PS_ZONE_DMA, 3840);
	add_zone(m, 0, PS_ZONE_DMA32, 500000);
	add_zone(m, 0, PS_ZONE_NORMAL, 1500000);
	ps_wmark_tunables_default(&t, PS_KVER(4, 4, 0));
	t.min_free_kbytes = 8192;
	t.watermark_scale_factor = 1000; /* ignored before 4.6 */
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	/* <= 4.5: low = min + tmp/4, high = min + tmp/2 */
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].mark[PS_WMARK_MIN], 3);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].mark[PS_WMARK_LOW], 3);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].mark[PS_WMARK_HIGH], 4);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_MIN], 511);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_LOW], 511 + 127);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_HIGH], 511 + 255);
	CHECK_EQ(w->zone[0][PS_ZONE_NORMAL].mark[PS_WMARK_MIN], 1533);
	CHECK_EQ(w->zone[0][PS_ZONE_NORMAL].mark[PS_WMARK_LOW], 1533 + 383);
	CHECK_EQ(w->zone[0][PS_ZONE_NORMAL].mark[PS_WMARK_HIGH], 1533 + 766);
	CHECK_EQ(w->zone[0][PS_ZONE_NORMAL].mark[PS_WMARK_PROMO], 0);
	/*
	 * lowmem_reserve: DMA vs DMA32 500000/256, vs Normal 2000000/256;
	 * DMA32 vs Normal 1500000/256
	 */
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_DMA], 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_DMA32], 1953);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 7812);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_MOVABLE], 7812);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].lowmem_reserve[PS_ZONE_NORMAL], 5859);
	CHECK_EQ(w->zone[0][PS_ZONE_NORMAL].lowmem_reserve[PS_ZONE_MOVABLE], 0);

	/* the same machine on 4.6+: spacing max(tmp/4, managed * wsf / 10000) */
	t.kver = PS_KVER(4, 6, 0);
	t.watermark_scale_factor = 10;
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_LOW],
		 511 + 500); /* 500000*10/10000 > 127 */
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_HIGH], 511 + 1000);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].mark[PS_WMARK_LOW], 3 + 3); /* 3840*10/10000 = 3 > 0 */

	/* a DMA32 ratio of 0: forced to 1 up to 4.18, no protection from 4.19 */
	t.lowmem_reserve_ratio[PS_ZONE_DMA32] = 0;
	t.kver = PS_KVER(4, 14, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].lowmem_reserve[PS_ZONE_NORMAL], 1500000);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 7812);
	t.kver = PS_KVER(4, 19, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].lowmem_reserve[PS_ZONE_NORMAL], 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 7812);
	/* 5.10: the ratio-0 zone's pages drop out of the sums below it: 1500000/256 */
	t.kver = PS_KVER(5, 10, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].lowmem_reserve[PS_ZONE_NORMAL], 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 5859);
	t.kver = PS_KVER(5, 11, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 7812);
	free(m);
	free(w);
}

/*
 * 64 GiB, two nodes: node 0 DMA 3840, DMA32 770000, Normal 7400000; node 1
 * Normal 8300000 managed pages; min_free_kbytes 90112 -> pages_min 22528,
 * lowmem 16473840; tmp = 22528 * managed / 16473840: 5, 1052, 10119, 11350.
 * d = max(tmp/4, managed * wsf / 10000); low = min + d, high = min + 2d.
 */
static void test_wsf_64g(void)
{
	static const struct {
		int wsf, node, type;
		long min, low, high;
	} exp[] = {
		{ 10, 0, PS_ZONE_DMA, 5, 8, 11 },		/* d = max(1, 3) */
		{ 10, 0, PS_ZONE_DMA32, 1052, 1822, 2592 },	/* d = max(263, 770) */
		{ 10, 0, PS_ZONE_NORMAL, 10119, 17519, 24919 }, /* d = 7400 */
		{ 10, 1, PS_ZONE_NORMAL, 11350, 19650, 27950 }, /* d = 8300 */
		{ 100, 0, PS_ZONE_DMA, 5, 43, 81 },		/* d = 38 */
		{ 100, 0, PS_ZONE_DMA32, 1052, 8752, 16452 },
		{ 100, 0, PS_ZONE_NORMAL, 10119, 84119, 158119 },
		{ 100, 1, PS_ZONE_NORMAL, 11350, 94350, 177350 },
		{ 1000, 0, PS_ZONE_DMA, 5, 389, 773 }, /* d = 384 */
		{ 1000, 0, PS_ZONE_DMA32, 1052, 78052, 155052 },
		{ 1000, 0, PS_ZONE_NORMAL, 10119, 750119, 1490119 },
		{ 1000, 1, PS_ZONE_NORMAL, 11350, 841350, 1671350 },
	};
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_wmarks *w = malloc(sizeof(*w));
	struct ps_wmark_tunables t;

	ps_machine_init(m);
	add_zone(m, 0, PS_ZONE_DMA, 3840);
	add_zone(m, 0, PS_ZONE_DMA32, 770000);
	add_zone(m, 0, PS_ZONE_NORMAL, 7400000);
	add_zone(m, 1, PS_ZONE_NORMAL, 8300000);
	ps_wmark_tunables_default(&t, PS_KVER(6, 1, 0));
	t.min_free_kbytes = 90112;
	for (size_t i = 0; i < sizeof(exp) / sizeof(exp[0]); i++) {
		const struct ps_wmark_zone *z = &w->zone[exp[i].node][exp[i].type];

		t.watermark_scale_factor = exp[i].wsf;
		CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
		CHECK_EQ(z->mark[PS_WMARK_MIN], exp[i].min);
		CHECK_EQ(z->mark[PS_WMARK_LOW], exp[i].low);
		CHECK_EQ(z->mark[PS_WMARK_HIGH], exp[i].high);
		CHECK_EQ(z->mark[PS_WMARK_PROMO], exp[i].high + (exp[i].low - exp[i].min));
	}
	/* node 1 has no DMA/DMA32: from 5.9 an empty lower zone protects nothing; 5.4 divides */
	CHECK_EQ(w->zone[1][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], (770000 + 7400000) / 256);
	t.kver = PS_KVER(5, 4, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[1][PS_ZONE_DMA].lowmem_reserve[PS_ZONE_NORMAL], 8300000 / 256);
	CHECK_EQ(w->zone[1][PS_ZONE_DMA32].lowmem_reserve[PS_ZONE_NORMAL], 8300000 / 256);

	/* boot default: sqrt(16 * 16473840 * 4) = 32470 KiB; THP: 4 zones * 512 * 11 pages */
	t.min_free_kbytes = -1;
	t.thp_at_boot = 0;
	CHECK_EQ(ps_wmark_min_free_kbytes_default(m, &t), 32470);
	t.thp_at_boot = 1;
	CHECK_EQ(ps_wmark_min_free_kbytes_default(m, &t), 4 * 512 * 11 * 4);
	free(m);
	free(w);
}

static void test_min_free_default(void)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_wmarks *w = malloc(sizeof(*w));
	struct ps_wmark_tunables t;

	/* clamps: 1 TiB (2^28 pages) gives sqrt(2^34) = 131072 KiB: 65536 up to 5.6 */
	CHECK_EQ(ps_wmark_min_free_kbytes_sqrt(1ull << 28, PS_KVER(5, 6, 0), 12), 65536);
	CHECK_EQ(ps_wmark_min_free_kbytes_sqrt(1ull << 28, PS_KVER(5, 7, 0), 12), 131072);
	CHECK_EQ(ps_wmark_min_free_kbytes_sqrt(1ull << 31, PS_KVER(6, 1, 0), 12), 262144);
	CHECK_EQ(ps_wmark_min_free_kbytes_sqrt(100, PS_KVER(6, 1, 0), 12), 128);
	/* the kernel comment's table: 16384 MiB -> 16384k, 512 MiB -> 2896k */
	CHECK_EQ(ps_wmark_min_free_kbytes_sqrt(4194304, PS_KVER(6, 1, 0), 12), 16384);
	CHECK_EQ(ps_wmark_min_free_kbytes_sqrt(131072, PS_KVER(6, 1, 0), 12), 2896);

	/* 256 MiB with THP wanted: below 512 MiB the kernel switches THP off */
	ps_machine_init(m);
	add_zone(m, 0, PS_ZONE_DMA32, 65536);
	ps_wmark_tunables_default(&t, PS_KVER(6, 1, 0));
	CHECK_EQ(ps_wmark_min_free_kbytes_default(m, &t), 2048);
	/* 1 GiB: THP asks 1 zone * 512 * 11 = 5632 pages, under the 5% cap (~13000): 22528 KiB */
	m->zones[0].managed = 262144;
	CHECK_EQ(ps_wmark_min_free_kbytes_default(m, &t), 22528);
	/* with a Movable zone: counted up to 4.18, not from 4.19 */
	add_zone(m, 0, PS_ZONE_MOVABLE, 262144);
	t.min_free_kbytes = 4096;
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(ps_wmark_min_free_kbytes_thp(m, w, PS_KVER(6, 1, 0), 0), 5632 * 4);
	CHECK_EQ(ps_wmark_min_free_kbytes_thp(m, w, PS_KVER(4, 14, 0), 0), 2 * 5632 * 4);
	CHECK_EQ(ps_wmark_min_free_kbytes_thp(m, w, PS_KVER(6, 1, 0), 90000), 90000);

	/*
	 * 6.7: Movable's min is clamp(managed/1024, 32, 128) and leaves the
	 * lowmem sum.  pages_min 1024: 6.6 spreads it over 524288 pages (512
	 * each); 6.7 gives DMA32 all 1024 and Movable 128 (262144/1024 = 256).
	 */
	t.kver = PS_KVER(6, 6, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_MIN], 512);
	CHECK_EQ(w->zone[0][PS_ZONE_MOVABLE].mark[PS_WMARK_MIN], 512);
	t.kver = PS_KVER(6, 7, 0);
	CHECK_EQ(ps_wmark_setup(w, m, &t), 0);
	CHECK_EQ(w->zone[0][PS_ZONE_DMA32].mark[PS_WMARK_MIN], 1024);
	CHECK_EQ(w->zone[0][PS_ZONE_MOVABLE].mark[PS_WMARK_MIN], 128);
	/* its spacing still comes from its share tmp = 1024 * 262144 / 262144: max(256, 262) */
	CHECK_EQ(w->zone[0][PS_ZONE_MOVABLE].mark[PS_WMARK_LOW], 128 + 262);
	free(m);
	free(w);
}

static void test_boost(void)
{
	/* max_boost = max(pageblock, high * factor / 10000); boost += pageblock up to it */
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 4, 0), 15000, 100000, 1000, 0, 9, NULL), 512);
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 4, 0), 15000, 100000, 1000, 1024, 9, NULL), 1500);
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 4, 0), 15000, 100000, 3, 0, 9, NULL), 512); /* max(512, 4) */
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 4, 0), 15000, 100000, 0, 0, 9, NULL), 0);
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 4, 0), 0, 100000, 1000, 0, 9, NULL), 0);
	CHECK_EQ(ps_wmark_boost(PS_KVER(4, 19, 0), 15000, 100000, 1000, 0, 9, NULL), 0);
	/* zones under 4 pageblocks: boosted up to 5.6, not from 5.7 */
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 0, 0), 15000, 2000, 1000, 0, 9, NULL), 512);
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 6, 0), 15000, 2000, 1000, 0, 9, NULL), 512);
	CHECK_EQ(ps_wmark_boost(PS_KVER(5, 7, 0), 15000, 2000, 1000, 0, 9, NULL), 0);
	/* the kernel's return value: boosted, also when already at the maximum; not on the early exits */
	{
		int b = -1;

		CHECK_EQ(ps_wmark_boost(PS_KVER(5, 10, 0), 15000, 100000, 1000, 1500, 9, &b), 1500);
		CHECK_EQ(b, 1);
		CHECK_EQ(ps_wmark_boost(PS_KVER(5, 10, 0), 15000, 100000, 0, 0, 9, &b), 0);
		CHECK_EQ(b, 0);
		CHECK_EQ(ps_wmark_boost(PS_KVER(5, 10, 0), 0, 100000, 1000, 0, 9, &b), 0);
		CHECK_EQ(b, 0);
	}
}

/* @n free blocks of (order @o, type @mt) in @z's counts, and the order's total. */
static void set_free(struct ps_zone *z, int o, int mt, uint64_t n)
{
	z->free_area[o].nr_free_mt[mt] = n;
	z->free_area[o].nr_free = 0;
	for (int t = 0; t < PS_MIGRATE_TYPES; t++)
		z->free_area[o].nr_free += z->free_area[o].nr_free_mt[t];
}

static const struct ps_zone *with_boost(struct ps_zone *z, long boost)
{
	z->watermark_boost = boost;
	return z;
}

static void test_watermark_ok(void)
{
	static const long res[PS_ZONE_NR] = { 0, 0, 50, 50, 100, 100 };
	static struct ps_zone f;	/* the free state the check reads: counts only, no lists */

	f.nr_free_pages = 1000;
	memcpy(f.lowmem_reserve, res, sizeof(res));
	unsigned int atomic61 = ps_gfp_to_alloc_flags(
		PS_GFP_HIGH | PS_GFP_ATOMIC | PS_GFP_KSWAPD_RECLAIM, 0, PS_KVER(6, 1, 0), 1);
	unsigned int atomic65 = ps_gfp_to_alloc_flags(
		PS_GFP_HIGH | PS_GFP_ATOMIC | PS_GFP_KSWAPD_RECLAIM, 0, PS_KVER(6, 5, 0), 1);
	unsigned int nowait65 =
		ps_gfp_to_alloc_flags(PS_GFP_KSWAPD_RECLAIM, 3, PS_KVER(6, 5, 0), 1);

	CHECK_EQ(atomic61, PS_ALLOC_HIGH | PS_ALLOC_HARDER | PS_ALLOC_GFP_ATOMIC);
	CHECK_EQ(atomic65, PS_ALLOC_HIGH | PS_ALLOC_NON_BLOCK);
	CHECK_EQ(nowait65, PS_ALLOC_NON_BLOCK | PS_ALLOC_HIGHATOMIC);
	CHECK_EQ(ps_gfp_to_alloc_flags(PS_GFP_MOVABLE | PS_GFP_HIGHMEM, 0, PS_KVER(6, 1, 0), 0),
		 PS_ALLOC_CMA);
	CHECK_EQ(ps_gfp_to_alloc_flags(PS_GFP_IO | PS_GFP_FS | PS_GFP_DIRECT_RECLAIM |
					       PS_GFP_KSWAPD_RECLAIM,
				       0, PS_KVER(6, 1, 0), 1),
		 0);

	/* order 0: pass iff free > mark + lowmem_reserve[classzone] */
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 0, 900, PS_ZONE_NORMAL, 0));
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 0, 900, PS_ZONE_MOVABLE, 0));
	/* GFP_ATOMIC keeps 3/8 of min in both flag schemes: 2000 -> 1000 -> 750 */
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 0, 2000, 0, PS_ALLOC_HIGH));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 0, 2000, 0, atomic61));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 5, 0), &f, 0, 2000, 0, atomic65));
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 5, 0), &f, 0, 1000, 0,
				    nowait65)); /* no reduction */

	/* highatomic reserve (4.4+) is unusable without harder/reserve rights */
	f.nr_reserved_highatomic = 200;
	CHECK(!ps_zone_watermark_ok(PS_KVER(5, 10, 0), &f, 0, 850, 0, 0));
	CHECK(ps_zone_watermark_ok(PS_KVER(5, 10, 0), &f, 0, 850, 0, PS_ALLOC_HARDER));
	CHECK(ps_zone_watermark_ok(PS_KVER(4, 3, 0), &f, 0, 850, 0, 0));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 5, 0), &f, 0, 850, 0, nowait65));
	/* the order-0 fast check: 4.7-5.4 ignores it, 5.10 counts it */
	CHECK(ps_zone_watermark_fast(PS_KVER(5, 4, 0), with_boost(&f, 0), 0, 850, 0, 0, 0, 0));
	CHECK(!ps_zone_watermark_fast(PS_KVER(5, 10, 0), with_boost(&f, 0), 0, 850, 0, 0, 0, 0));
	/* 6.13+ counts only the reserve's free pages (nr_free_highatomic): none free here */
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 12, 0), &f, 0, 850, 0, 0));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 13, 0), &f, 0, 850, 0, 0));
	set_free(&f, 2, PS_MT_HIGHATOMIC, 10);	/* 40 free pages in the reserve */
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 13, 0), &f, 0, 959, 0, 0));
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 13, 0), &f, 0, 960, 0, 0));
	memset(f.free_area, 0, sizeof(f.free_area));
	f.nr_reserved_highatomic = 0;
	/* free CMA pages count only for ALLOC_CMA */
	f.nr_free_cma = 300;
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 0, 800, 0, 0));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 0, 800, 0, PS_ALLOC_CMA));
	CHECK(!ps_zone_watermark_ok(PS_KVER(4, 0, 0), &f, 0, 800, 0, 0));
	f.nr_free_cma = 0;

	/* order 3 (4.4+): order-0 mark with 7 pages off, then a usable block of order >= 3 */
	set_free(&f, 2, PS_MT_MOVABLE, 10);
	CHECK(!ps_zone_watermark_ok(PS_KVER(4, 4, 0), &f, 3, 100, 0, 0));
	set_free(&f, 4, PS_MT_HIGHATOMIC, 1);
	CHECK(!ps_zone_watermark_ok(PS_KVER(5, 4, 0), &f, 3, 100, 0, 0));
	CHECK(ps_zone_watermark_ok(PS_KVER(5, 4, 0), &f, 3, 100, 0, PS_ALLOC_HARDER));
	CHECK(ps_zone_watermark_ok(PS_KVER(5, 4, 0), &f, 3, 100, 0, PS_ALLOC_OOM));
	CHECK(!ps_zone_watermark_ok(PS_KVER(4, 9, 0), &f, 3, 100, 0, PS_ALLOC_OOM));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 5, 0), &f, 3, 100, 0, nowait65));
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 5, 0), &f, 3, 100, 0, PS_ALLOC_NON_BLOCK));
	set_free(&f, 4, PS_MT_HIGHATOMIC, 0);
	set_free(&f, 9, PS_MT_CMA, 1);
	CHECK(!ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 3, 100, 0, 0));
	CHECK(ps_zone_watermark_ok(PS_KVER(6, 1, 0), &f, 3, 100, 0, PS_ALLOC_CMA));
	set_free(&f, 9, PS_MT_CMA, 0);
	set_free(&f, 5, PS_MT_UNMOVABLE, 1);
	CHECK(ps_zone_watermark_ok(PS_KVER(4, 4, 0), &f, 3, 100, 0, 0));
	CHECK(!ps_zone_watermark_ok(PS_KVER(4, 4, 0), &f, 3, 993, 0, 0)); /* 1000-7 <= 993 */
	memset(f.free_area, 0, sizeof(f.free_area));

	/*
	 * <= 4.3, order 2: free 1000 - 3 = 997 > 100; order 0 blocks leave
	 * 997 - 600 = 397 > 50; order 1: 397 - 2*150 = 97 > 25: pass; with
	 * 190 order-1 blocks 397 - 380 = 17 <= 25: fail.
	 */
	set_free(&f, 0, PS_MT_MOVABLE, 500);
	set_free(&f, 0, PS_MT_UNMOVABLE, 100);
	set_free(&f, 1, PS_MT_RECLAIMABLE, 150);
	CHECK(ps_zone_watermark_ok(PS_KVER(4, 0, 0), &f, 2, 100, 0, 0));
	set_free(&f, 1, PS_MT_RECLAIMABLE, 190);
	CHECK(!ps_zone_watermark_ok(PS_KVER(4, 0, 0), &f, 2, 100, 0, 0));
	CHECK(!ps_zone_watermark_ok(PS_KVER(3, 13, 0), &f, 2, 100, 0, 0));
	memset(f.free_area, 0, sizeof(f.free_area));

	/*
	 * 5.10+ boost bypass: min 500 boosted by 400, free 300.  GFP_ATOMIC
	 * cuts 900 to 338 (fail) but may retry at the unboosted 500 -> 188.
	 */
	f.nr_free_pages = 300;
	CHECK(!ps_zone_watermark_fast(PS_KVER(5, 4, 0), with_boost(&f, 400), 0, 900, 0, atomic61, 1, 500));
	CHECK(ps_zone_watermark_fast(PS_KVER(5, 10, 0), with_boost(&f, 400), 0, 900, 0, atomic61, 1, 500));
	CHECK(!ps_zone_watermark_fast(PS_KVER(5, 10, 0), with_boost(&f, 400), 0, 900, 0, PS_ALLOC_HIGH, 1, 500));
	CHECK(ps_zone_watermark_fast(PS_KVER(6, 5, 0), with_boost(&f, 400), 0, 900, 0, atomic65, 1, 500));
	CHECK(!ps_zone_watermark_fast(PS_KVER(6, 5, 0), with_boost(&f, 400), 0, 900, 0, atomic65, 0, 500));
}

int main(void)
{
	/* the folders of testdata/ holding run directories (RUN/before) */
	static const char *const sysroot_dirs[] = {
		"testdata", "testdata/numa2", "testdata/numa4", "testdata/uma",
	};
	char src[4096], base[4200];
	int found = 0;

	test_embedded("numa2-base zoneinfo (6.1)", zoneinfo_numa2, PS_KVER(6, 1, 0), 2713, 10,
		      "256 256 32 0 0");
	test_embedded("uma-mixed zoneinfo (6.18)", zoneinfo_uma618, PS_KVER(6, 18, 44), 67584, 10,
		      "256\t256\t32\t0\t0");
	test_pre46();
	test_wsf_64g();
	test_min_free_default();
	test_boost();
	test_watermark_ok();

	source_root(src, sizeof(src));
	for (size_t i = 0; i < sizeof(sysroot_dirs) / sizeof(sysroot_dirs[0]); i++) {
		snprintf(base, sizeof(base), "%s/%s", src, sysroot_dirs[i]);
		found += check_sysroots_under(base);
	}
	printf("%d recorded sysroots checked\n", found);
	CHECK(found > 0);
	CHECK_DONE();
}
