// SPDX-License-Identifier: GPL-2.0-or-later
/* test_sysroot.c - zoneinfo, pagetypeinfo, buddyinfo, cpulist and "name value" parsers. */
#include <stdlib.h>
#include <string.h>

#include "lib/machine.h"
#include "trace/sysroot.h"
#include "check.h"

static const char zoneinfo[] =
	"Node 0, zone      DMA\n"
	"  per-node stats\n"
	"      nr_inactive_anon 37\n"
	"  pages free     3808\n"
	"        boost    0\n"
	"        min      22\n"
	"        low      27\n"
	"        high     32\n"
	"        spanned  4095\n"
	"        present  3998\n"
	"        managed  3840\n"
	"        cma      0\n"
	"        protection: (0, 63, 186, 186, 186)\n"
	"      nr_free_pages 3808\n"
	"  pagesets\n"
	"    cpu: 0\n"
	"              count: 0\n"
	"              high:  13\n"
	"              batch: 1\n"
	"  vm stats threshold: 6\n"
	"    cpu: 1\n"
	"              count: 5\n"
	"              high:  99\n"
	"              batch: 7\n"
	"  node_unreclaimable:  0\n"
	"  start_pfn:           1\n"
	"Node 0, zone   Normal\n"
	"  pages free     20561\n"
	"        min      100\n"
	"        low      125\n"
	"        high     150\n"
	"        spanned  32768\n"
	"        present  32768\n"
	"        managed  31573\n"
	"        protection: (0, 0, 0, 0, 0)\n"
	"  start_pfn:           1048576\n"
	"Node 0, zone  Movable\n"
	"  pages free     0\n"
	"        spanned  0\n"
	"        present  0\n"
	"Node 1, zone   Normal\n"
	"  pages free     53843\n"
	"        spanned  65536\n"
	"        present  65536\n"
	"        managed  64318\n"
	"  start_pfn:           1081344\n";

static const char pagetypeinfo[] =
	"Page block order: 9\n"
	"Pages per block:  512\n"
	"\n"
	"Free pages count per migrate type at order       0      1      2      3      4      5      6      7      8      9     10 \n"
	"Node    0, zone   Normal, type    Unmovable      3     14      8      3      3      0      1      0      1      0      0 \n"
	"Node    0, zone   Normal, type      Movable     14      8      4      0      0      1      1      3      1      0     18 \n"
	"\n"
	"Number of blocks type     Unmovable      Movable  Reclaimable   HighAtomic      Isolate \n"
	"Node 0, zone   Normal           18           40            6            0            0 \n";

static void test_zoneinfo(void)
{
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_error err;

	ps_machine_init(m);
	CHECK_EQ(ps_parse_zoneinfo(zoneinfo, "zoneinfo", m, &err), 0);
	CHECK_EQ(m->nr_zones, 3);	/* the empty Movable zone is not kept */
	CHECK_EQ(m->nr_nodes, 2);
	CHECK_EQ(m->zones[0].type, PS_ZONE_DMA);
	CHECK_EQ(m->zones[0].start_pfn, 1);
	CHECK_EQ(m->zones[0].spanned, 4095);
	CHECK_EQ(m->zones[0].managed, 3840);
	CHECK_EQ(m->zones[0].wmark_min, 22);
	CHECK_EQ(m->zones[0].wmark_high, 32);
	CHECK_EQ(m->zones[0].pcp_high, 13);	/* first CPU's pageset */
	CHECK_EQ(m->zones[0].pcp_batch, 1);
	/* the per-CPU counts other than 0: DMA's CPU 1 holds 5 pages */
	CHECK_EQ(m->nr_pcp_seed, 1);
	CHECK_EQ(m->pcp_seed[0].node, 0);
	CHECK_EQ(m->pcp_seed[0].type, PS_ZONE_DMA);
	CHECK_EQ(m->pcp_seed[0].cpu, 1);
	CHECK_EQ(m->pcp_seed[0].count, 5);
	CHECK_EQ(m->pcp_seed[0].high, 99);
	CHECK_EQ(m->zones[0].nr_protection, 5);
	CHECK_EQ(m->zones[0].protection[2], 186);
	CHECK_EQ(m->zones[2].node, 1);
	CHECK_EQ(ps_machine_zone_of(m, 0), -1);
	CHECK_EQ(ps_machine_zone_of(m, 1), 0);
	CHECK_EQ(ps_machine_zone_of(m, 4095), 0);
	CHECK_EQ(ps_machine_zone_of(m, 4096), -1);
	CHECK_EQ(ps_machine_zone_of(m, 1048576), 1);
	CHECK_EQ(ps_machine_zone_of(m, 1081344), 2);
	CHECK_EQ(ps_machine_zone_of(m, 1081344 + 65536), -1);

	CHECK_EQ(ps_parse_pagetypeinfo(pagetypeinfo, "pagetypeinfo", m, &err), 0);
	CHECK_EQ(m->pageblock_order, 9);
	CHECK_EQ(m->zones[1].nr_free[10][1], 18);
	CHECK_EQ(m->zones[1].nr_free[1][0], 14);
	CHECK_EQ(m->zones[1].nr_blocks[0], 18);
	CHECK_EQ(m->zones[1].nr_blocks[2], 6);	/* Reclaimable is the third column */

	CHECK_EQ(ps_parse_buddyinfo("Node 0, zone   Normal     17     25     12      4      4      2      3      3      3      1     18 \n",
				    "buddyinfo", m, &err), 0);
	CHECK_EQ(m->zones[1].buddy[0], 17);
	CHECK_EQ(m->zones[1].buddy[10], 18);
	CHECK_EQ(ps_parse_buddyinfo("Node 0, zone   Normal 1 2\n", "buddyinfo", m, &err), -1);
	CHECK(strstr(err.msg, "buddyinfo:1:") != NULL);

	/* a zone without start_pfn (kernel < 4.9) is an error, not a zone at pfn 0 */
	ps_machine_init(m);
	CHECK_EQ(ps_parse_zoneinfo("Node 0, zone Normal\n spanned 10\n", "old", m, &err), -1);
	CHECK(strstr(err.msg, "start_pfn") != NULL);
	ps_machine_init(m);
	CHECK_EQ(ps_parse_zoneinfo("hello\n", "junk", m, &err), -1);

	/*
	 * Page counters are summed per zone: a huge or negative one is refused, not
	 * overflowed; so are watermarks, protection and pcp values later arithmetic
	 * would overflow or truncate.
	 */
	static const struct {
		const char *name, *body, *msg;
	} refused[] = {
		{ "big", " nr_zone_inactive_file 3156\n nr_zone_active_file 9223372036854775807\n",
		  "big:3: page count out of range" },
		{ "neg", " nr_zone_write_pending -1\n", "neg:2:" },
		{ "prot", "        protection: (0, 9223372036854775807)\n", "prot:2: bad protection list" },
		{ "wmark", "  min 9223372036854775807\n", "wmark:2: page count out of range" },
		{ "pcp", "  pagesets\n    cpu: 0\n              count: 3\n              high:  4294967296\n",
		  "pcp:5: pcp value out of range" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		char text[512];

		snprintf(text, sizeof(text), "Node 0, zone Normal\n%s spanned 10\n start_pfn: 0\n", refused[i].body);
		ps_machine_init(m);
		CHECK_EQ(ps_parse_zoneinfo(text, refused[i].name, m, &err), -1);
		CHECK(strstr(err.msg, refused[i].msg) != NULL);
	}
	ps_machine_init(m);
	CHECK_EQ(ps_parse_zoneinfo("Node 0, zone Normal\n nr_zone_inactive_file 3156\n nr_zone_active_file 44\n"
				   " spanned 10\n start_pfn: 0\n", "ok", m, &err), 0);
	CHECK_EQ(m->zones[0].nr_file, 3200);
	free(m);
}

static void test_cpulist(void)
{
	int16_t node[PS_MAX_CPUS];
	int max = 0;

	memset(node, 0xff, sizeof(node));
	CHECK_EQ(ps_parse_cpulist("0-3,8,10-11\n", node, 1, &max), 0);
	CHECK_EQ(max, 12);
	CHECK_EQ(node[3], 1);
	CHECK_EQ(node[4], -1);
	CHECK_EQ(node[11], 1);
	CHECK_EQ(ps_parse_cpulist("3-1", node, 0, &max), -1);
	CHECK_EQ(ps_parse_cpulist("x", node, 0, &max), -1);
	CHECK_EQ(ps_parse_cpulist("\n", node, 0, &max), 0);	/* a memory-only node */
	CHECK_EQ(ps_parse_cpulist("0-2047", node, 0, &max), -2);	/* past the CPU limit, not a syntax error */
	CHECK_EQ(ps_parse_cpulist("-1", node, 0, &max), -1);
	CHECK_EQ(ps_parse_cpulist("0-3,", node, 0, &max), -1);	/* a trailing comma */
	CHECK_EQ(ps_parse_cpulist("0-3,\n", node, 0, &max), -1);
	CHECK_EQ(ps_parse_cpulist("0;1", node, 0, &max), -1);
}

struct ranges_seen {
	long a[4], b[4];
	int n, stop_at;
};

static int note_range(long a, long b, void *arg)
{
	struct ranges_seen *s = arg;

	if (s->n == s->stop_at)
		return 7;
	s->a[s->n] = a;
	s->b[s->n++] = b;
	return 0;
}

/* the walker under every list: each range in order, the limit, and a callback's own verdict */
static void test_list_ranges(void)
{
	struct ranges_seen s = { .stop_at = -1 };

	CHECK_EQ(ps_list_ranges("2,5-7,9\nignored", 10, note_range, &s), 0);
	CHECK_EQ(s.n, 3);
	CHECK_EQ(s.a[0], 2);
	CHECK_EQ(s.b[0], 2);
	CHECK_EQ(s.a[1], 5);
	CHECK_EQ(s.b[1], 7);
	CHECK_EQ(s.a[2], 9);
	s.n = 0;
	CHECK_EQ(ps_list_ranges("2,5-10", 10, note_range, &s), -2);	/* 10 is at the limit */
	CHECK_EQ(s.n, 1);
	s.n = 0;
	CHECK_EQ(ps_list_ranges("", 10, note_range, &s), 0);
	CHECK_EQ(s.n, 0);
	s = (struct ranges_seen){ .stop_at = 1 };
	CHECK_EQ(ps_list_ranges("1,2,3", 10, note_range, &s), 7);
	CHECK_EQ(s.n, 1);
}

static void test_kv(void)
{
	struct ps_kv kv;
	struct ps_error err;

	ps_kv_init(&kv);
	CHECK_EQ(ps_kv_parse(&kv, "numa_hit 5\nnuma_miss 7\n\n", "vmstat", "node1.", &err), 0);
	CHECK_EQ(ps_kv_get(&kv, "node1.numa_miss")->value, 7);
	CHECK_EQ(ps_kv_parse(&kv, "numa_hit 5\nbroken\n", "vmstat", NULL, &err), -1);
	CHECK(strstr(err.msg, "vmstat:2:") != NULL);
	/* a counter twice in one file is an error naming the line; a later file may update one */
	CHECK_EQ(ps_kv_parse(&kv, "pgfree 1\npgalloc_normal 2\npgfree 3\n", "v2", NULL, &err), -1);
	CHECK(strstr(err.msg, "v2:3: counter 'pgfree' appears twice") != NULL);
	CHECK_EQ(ps_kv_parse(&kv, "numa_hit 9\n", "node1/numastat", "node1.", &err), 0);
	CHECK_EQ(ps_kv_get(&kv, "node1.numa_hit")->value, 9);
	/* past 64 bits is an error, not LONG_MAX; the extremes themselves are read exactly */
	CHECK_EQ(ps_kv_parse(&kv, "pgsteal 1\nnuma_hit 99999999999999999999999\n", "v3", NULL, &err), -1);
	CHECK(strstr(err.msg, "v3:2: the value of 'numa_hit' is out of the 64-bit range") != NULL);
	CHECK_EQ(ps_kv_parse(&kv, "big 9223372036854775807\nsmall -9223372036854775808\n", "v4", NULL, &err), 0);
	CHECK(ps_kv_get(&kv, "big")->value == INT64_MAX);
	CHECK(ps_kv_get(&kv, "small")->value == INT64_MIN);
	/* leading white space of any kind, as sscanf skips it */
	CHECK_EQ(ps_kv_parse(&kv, "\r\vws_lead 77\n", "v5", NULL, &err), 0);
	CHECK_EQ(ps_kv_get(&kv, "ws_lead")->value, 77);
	ps_kv_free(&kv);
}

/* Page-cache counters (4.8+ zoneinfo): per zone nr_zone_*, the node's nr_mapped; the per-node file lines not twice. */
static void test_file_pages(void)
{
	static const char text[] =
		"Node 0, zone      DMA\n"
		"  per-node stats\n"
		"      nr_inactive_file 18\n"
		"      nr_active_file 5\n"
		"      nr_mapped    432\n"
		"      nr_dirty     7\n"
		"      nr_writeback 1\n"
		"      nr_writeback_temp 4\n"
		"      nr_dirtied   99\n"
		"  pages free     3808\n"
		"        min      22\n"
		"        low      27\n"
		"        high     32\n"
		"        spanned  4095\n"
		"        present  3998\n"
		"        managed  3840\n"
		"      nr_zone_inactive_file 3\n"
		"      nr_zone_active_file 1\n"
		"      nr_zone_write_pending 2\n"
		"  start_pfn:           1\n"
		"Node 0, zone   Normal\n"
		"  pages free     100\n"
		"        min      10\n"
		"        low      12\n"
		"        high     14\n"
		"        spanned  1024\n"
		"        present  1024\n"
		"        managed  1000\n"
		"      nr_zone_inactive_file 15\n"
		"      nr_zone_active_file 4\n"
		"      nr_zone_write_pending 6\n"
		"      nr_mapped    77\n"
		"  start_pfn:           1048576\n";
	struct ps_machine *m = calloc(1, sizeof(*m));
	struct ps_error err;

	ps_machine_init(m);
	CHECK_EQ(ps_parse_zoneinfo(text, "zoneinfo", m, &err), 0);
	CHECK_EQ(m->nr_zones, 2);
	CHECK_EQ(m->zones[0].nr_file, 4);
	CHECK_EQ(m->zones[0].nr_dirty, 2);
	CHECK_EQ(m->zones[0].nr_mapped, 432);
	CHECK_EQ(m->zones[1].nr_file, 19);
	CHECK_EQ(m->zones[1].nr_dirty, 6);
	CHECK_EQ(m->zones[1].nr_mapped, 0);	/* outside the per-node stats: not the node's */
	free(m);
}

/* A sysroot in memory: ps_fsrc over a table of (path, text). */
struct mem_file {
	const char *rel, *text;
};

static char *mem_read(void *ctx, const char *rel, size_t *len, struct ps_error *err)
{
	for (const struct mem_file *f = ctx; f->rel; f++)
		if (!strcmp(f->rel, rel)) {
			if (len)
				*len = strlen(f->text);
			return strdup(f->text);
		}
	ps_err(err, "no %s", rel);
	return NULL;
}

static int mem_exists(void *ctx, const char *rel)
{
	for (const struct mem_file *f = ctx; f->rel; f++)
		if (!strcmp(f->rel, rel))
			return 1;
	return 0;
}

static const char zoneinfo_2n[] =
	"Node 0, zone   Normal\n"
	"  pages free     100\n"
	"        spanned  1024\n"
	"        present  1024\n"
	"        managed  1000\n"
	"  start_pfn:           1048576\n"
	"Node 1, zone   Normal\n"
	"  pages free     100\n"
	"        spanned  1024\n"
	"        present  1024\n"
	"        managed  1000\n"
	"  start_pfn:           1049600\n";

/* nodeN/vmstat, meminfo's swap and lru_gen/enabled fill what reclaim depends on; absent files leave -1. */
static void test_reclaim_facts(void)
{
	struct mem_file files[] = {
		{ "proc/zoneinfo", zoneinfo_2n },
		{ "sys/devices/system/node/node0/vmstat",
		  "nr_free_pages 28706\nnr_inactive_anon 15\nnr_active_anon 3\nnr_inactive_file 18\nnr_active_file 1\n"
		  "nr_unevictable 2\nnr_slab_reclaimable 2311\nnr_slab_unreclaimable 1465\nnr_mapped 11\n"
		  "nr_file_pages 27\nnr_dirty 4\nnr_writeback 5\nnr_writeback_temp 99\nnr_shmem 8\n" },
		/* bytes: 40960 = 10 pages */
		{ "sys/devices/system/node/node1/vmstat", "nr_inactive_file 7\nnr_slab_reclaimable_B 40960\n" },
		{ "proc/meminfo", "MemTotal:  524288 kB\nSwapCached: 0 kB\nSwapTotal:  1048572 kB\nSwapFree:   1000000 kB\n" },
		{ "sys/kernel/mm/lru_gen/enabled", "0x0007\n" },
		{ NULL, NULL },
	};
	struct ps_fsrc src = { mem_read, mem_exists, files, "mem" };
	struct ps_machine *m = malloc(sizeof(*m));
	struct ps_error err;

	CHECK_EQ(ps_sysroot_load_machine_src(&src, m, &err), 0);
	CHECK_EQ(m->node[0].nr_inactive_anon, 15);
	CHECK_EQ(m->node[0].nr_active_anon, 3);
	CHECK_EQ(m->node[0].nr_inactive_file, 18);
	CHECK_EQ(m->node[0].nr_active_file, 1);
	CHECK_EQ(m->node[0].nr_unevictable, 2);
	CHECK_EQ(m->node[0].nr_file_pages, 27);
	CHECK_EQ(m->node[0].nr_mapped, 11);
	CHECK_EQ(m->node[0].nr_dirty, 4);
	CHECK_EQ(m->node[0].nr_writeback, 5);
	CHECK_EQ(m->node[0].nr_shmem, 8);
	CHECK_EQ(m->node[0].nr_slab_reclaimable, 2311);
	CHECK_EQ(m->node[1].nr_inactive_file, 7);
	CHECK_EQ(m->node[1].nr_slab_reclaimable, 10);
	CHECK_EQ(m->node[1].nr_active_file, -1);	/* not in the file */
	CHECK_EQ(m->node[2].nr_inactive_file, -1);	/* no such node */
	CHECK_EQ(m->swap_total_kb, 1048572);
	CHECK_EQ(m->swap_free_kb, 1000000);
	CHECK_EQ(m->lru_gen_enabled, 7);

	/* none of the optional files: unknown */
	files[1].rel = files[2].rel = files[3].rel = files[4].rel = "absent";
	CHECK_EQ(ps_sysroot_load_machine_src(&src, m, &err), 0);
	CHECK_EQ(m->node[0].nr_inactive_file, -1);
	CHECK_EQ(m->swap_total_kb, -1);
	CHECK_EQ(m->lru_gen_enabled, -1);

	/* a damaged file is an error naming it and the line */
	files[1].rel = "sys/devices/system/node/node0/vmstat";
	files[1].text = "nr_inactive_file 3\nnr_active_file -4\n";
	CHECK_EQ(ps_sysroot_load_machine_src(&src, m, &err), -1);
	CHECK(strstr(err.msg, "node0/vmstat:2:") != NULL);
	files[1].rel = "absent";
	files[4].rel = "sys/kernel/mm/lru_gen/enabled";
	files[4].text = "y\n";
	CHECK_EQ(ps_sysroot_load_machine_src(&src, m, &err), -1);
	CHECK(strstr(err.msg, "lru_gen/enabled") != NULL);
	free(m);
}

int main(void)
{
	test_reclaim_facts();
	test_zoneinfo();
	test_file_pages();
	test_cpulist();
	test_list_ranges();
	test_kv();
	CHECK_DONE();
}
