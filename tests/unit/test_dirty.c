// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_dirty.c - the page cache's file and dirty marks (sim/mm/page-writeback.c):
 * a block the trace gives a larger order than the room left in its zone is
 * marked up to the zone's end, not past it into the next zone or the map's
 * end; its release takes off what was marked.
 */
#include <string.h>

#include "sim/mm/page-writeback.h"
#include "check.h"

int main(void)
{
	static struct ps_zone zones[2];
	const uint64_t gbase[2] = { 0, 1000 };
	struct ps_dirty d;

	zones[0].nr_pages = 1000;
	zones[1].nr_pages = 100;
	zones[0].managed = 1000;
	zones[1].managed = 100;
	CHECK_EQ(ps_dirty_init(&d, zones, 2, gbase, 1100, 1, 20, 0), 0);
	/* zone 0's last 8 pages given as an order-9 block: 8 marked, zone 1 untouched */
	ps_dirty_alloc(&d, 992, 0, 9, 1, 0);
	CHECK_EQ(d.z[0].file, 8);
	CHECK_EQ(d.z[0].dirty, 8);
	CHECK_EQ(d.z[1].file, 0);
	CHECK(!(d.file[1000 / 64] & 1ull << (1000 % 64)));
	/* zone 1's last 4 pages as order 10: the map ends there */
	ps_dirty_alloc(&d, 1096, 1, 10, 0, 0);
	CHECK_EQ(d.z[1].file, 4);
	/* a block outside its zone: nothing */
	ps_dirty_alloc(&d, 1096, 0, 0, 0, 0);
	CHECK_EQ(d.z[0].file, 8);
	ps_dirty_release(&d, 992, 0, 9);
	ps_dirty_release(&d, 1096, 1, 10);
	CHECK_EQ(d.z[0].file, 0);
	CHECK_EQ(d.z[0].dirty, 0);
	CHECK_EQ(d.z[1].file, 0);
	ps_dirty_free(&d);
	CHECK_DONE();
}
