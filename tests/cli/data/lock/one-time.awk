# one-time.awk - ftrace text whose events all carry one timestamp (a coarse
# trace clock), for the lock model's bounded queues.  Pfns lie in the Normal
# zone of testdata/uma-small/before (CPUs 0 and 1).
#   awk -v KIND=sections -v N=20000 -v B=8: N pcp refills of B blocks each
#       (runs of mm_page_alloc_zone_locked, each ended by an mm_page_alloc)
#   awk -v KIND=burst -v N=100000: N allocations, then N frees, alternating CPUs
BEGIN {
	print "# tracer: nop"
	if (KIND == "sections") {
		for (i = 0; i < N; i++) {
			c = i % 2
			for (k = 0; k < B; k++)
				printf " t-1 [00%d] ..... 10.000000: mm_page_alloc_zone_locked: pfn=%d order=0 migratetype=1 percpu_refill=1\n", c, 1048576 + (i * B + k) % 3000000
			printf " t-1 [00%d] ..... 10.000000: mm_page_alloc: pfn=%d order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n", c, 1048576 + (i * B) % 3000000
		}
	} else {
		for (i = 0; i < N; i++)
			printf " t-1 [00%d] ..... 10.000000: mm_page_alloc: pfn=%d order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n", i % 2, 1048576 + i
		for (i = 0; i < N; i++)
			printf " t-1 [00%d] ..... 10.000000: mm_page_free: pfn=%d order=0\n", (i + 1) % 2, 1048576 + i
	}
}
