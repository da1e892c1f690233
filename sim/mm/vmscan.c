// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * vmscan.c - reclaim over the model's own LRU lists (classic LRU, as 6.1
 * runs it by default; the multi-generational LRU's rules where the snapshot
 * has it on, below): the lists per node, shrink_node's passes
 * (shrink_lruvec, shrink_inactive_list, shrink_active_list), kswapd as a
 * timed activity per node (woken, balance_pgdat, boosts, naps, failures),
 * direct reclaim and node reclaim (vm.zone_reclaim_mode).
 *
 * Simplifies:
 *  - What is on which list comes from the trace's LRU insertions and
 *    activations (or, in a trace without them, from the allocation's gfp
 *    flags: the engine decides); the model reclaims from those lists by the
 *    kernel's rules, not from the recorded reclaim.
 *  - No page's references are known: a mapped file page met by reclaim is
 *    taken as referenced (activated); an unmapped clean file page is
 *    reclaimed; a dirty file page is activated (written back first), and
 *    writeback is not modelled.  shrink_active_list deactivates what it
 *    scans.  Anonymous pages are scanned only with swap, and then
 *    reclaimed as if swapped out at once.  Slab is not shrunk.
 *  - kswapd reclaims at one speed, kswapd.reclaim_pages_per_ms (the replay
 *    sets the recorded kswapd's when the trace shows it), page by page as
 *    the time earns them; with kswapd.slice_us a slice's pages at a time,
 *    at the end of each slice (a CPU shared with other tasks runs kswapd
 *    in slices, and their requests on it wait meanwhile: they see a
 *    slice's frees all at once; the other CPUs see them up to a slice
 *    late); direct and node reclaim happen at the time of the request and
 *    take none of the CPU's time.  A node reclaim holds its node for the
 *    pages it took at node_reclaim.reclaim_pages_per_ms (the recorded
 *    calls' speed when the trace shows them), and the holder's own
 *    requests meanwhile, which the kernel's CPU would make only after the
 *    call, go to the node's next zone when it passes.
 *    get_scan_count's proportions are the lists' sizes shifted by the
 *    priority.
 *  - What kswapd reclaims goes to its node's first CPU's lists; the
 *    kernel's kswapd frees on the CPU the scheduler gave it.  With
 *    kswapd.traced_cpu=1 the replay sets kswapd.cpu from the trace's
 *    kswapdN events.
 *  - Zone-based kswapd (<= 4.7) does not tell unreclaimable zones apart.
 *  - kswapd_try_to_sleep: a finished run always takes the HZ/10 nap, and at
 *    its end a boost still set on a zone up to the class zone keeps kswapd
 *    awake.  The kernel's prepare_kswapd_sleep runs balance_pgdat again at
 *    once when the node is not balanced for the class zone asked for, and
 *    does not look at boosts; the default speed of traces without
 *    kswapd's events was calibrated with these two as they are.
 *    kswapd.sleep_check=1 makes the first check, for a class zone asked
 *    during the run; kswapd.nap_boost_check=0 drops the boost from the
 *    second.
 *  - The multi-generational LRU (lru_gen/enabled & 1), by 6.12's rules
 *    for every version that has it: generations per node, type and zone,
 *    eviction from the oldest zone by zone (scan_folios), the aging when
 *    too few generations remain.  No tiers (pages read through file
 *    descriptors are not protected), no PID controller (without swap only
 *    file pages are evicted; with swap the type with the older oldest
 *    generation), no refault distance; the aging's page-table walk
 *    promotes nothing (no accessed bit is known), a page added mapped or
 *    anonymous is taken as faulted in (the youngest generation).  Reclaim
 *    that may not write or unmap reclaims nothing (6.3+: node reclaim
 *    without RECLAIM_WRITE and RECLAIM_UNMAP, boosted kswapd runs), and
 *    kswapd's first pass starts at set_initial_priority's (6.8+).
 * See docs/replay.md, "Reclaim".
 */
#include <string.h>

#include "lib/event.h"
#include "sim/mm/page_alloc.h"
#include "sim/mm/vmscan.h"
#include "sim/mm/watermark.h"

/* ---- the LRU lists ---- */

static inline void set_next(struct ps_mm *mm, uint32_t g, uint32_t v)
{
	uint32_t idx;
	struct ps_zone *z = ps_mm_zone_of_global(mm, g, &idx);

	z->next[idx] = v;
}

static inline void set_prev(struct ps_mm *mm, uint32_t g, uint32_t v)
{
	uint32_t idx;
	struct ps_zone *z = ps_mm_zone_of_global(mm, g, &idx);

	z->prev[idx] = v;
}

static inline long block_pages(const struct ps_zone *z, uint32_t idx)
{
	return 1L << PG_ORDER(z->state[idx]);
}

static inline int code_is_gen(int code)
{
	return code >= PS_LRU_GEN_CODE;
}

/* A generation list's LRU code: its generation slot (seq % MAX_NR_GENS) and its type. */
static inline int code_gen(int code)
{
	return (code - PS_LRU_GEN_CODE) >> 1;
}

static inline int code_type(int code)
{
	return (code - PS_LRU_GEN_CODE) & 1;
}

/* The head and tail words of the list a block of zone type @t with LRU code @code is on. */
static inline uint32_t *list_ends(struct ps_lruvec *lv, int code, int t, uint32_t **tail)
{
	if (code_is_gen(code)) {
		*tail = &lv->gen.tail[code_gen(code)][code_type(code)][t];
		return &lv->gen.head[code_gen(code)][code_type(code)][t];
	}
	*tail = &lv->tail[code - 1];
	return &lv->head[code - 1];
}

/* The pages of the block counted on (@sign 1) or off (-1) the list of @code. */
static void list_count(struct ps_lruvec *lv, const struct ps_zone *z, uint32_t idx, int code, long sign)
{
	long n = sign * block_pages(z, idx);
	int file;

	if (code_is_gen(code)) {
		file = code_type(code) == PS_LRU_GEN_FILE;
		lv->gen.nr_pages[code_gen(code)][code_type(code)][z->type] += n;
	} else {
		file = ps_is_file_lru(code - 1);
		lv->nr[code - 1] += (uint64_t)n;
		lv->zone_nr[z->type][code - 1] += (uint64_t)n;
	}
	if (file && (z->lru[idx] & PS_LRUF_MAPPED))
		lv->nr_mapped_file += (uint64_t)n;
}

static void lru_unlink(struct ps_mm *mm, struct ps_zone *z, uint32_t idx)
{
	struct ps_lruvec *lv = &mm->node[z->node].lru;
	int code = z->lru[idx] & PS_LRUF_LIST;
	uint32_t older = z->next[idx], newer = z->prev[idx], *head, *tail;

	head = list_ends(lv, code, z->type, &tail);
	if (newer == PS_NIL)
		*head = older;
	else
		set_next(mm, newer, older);
	if (older == PS_NIL)
		*tail = newer;
	else
		set_prev(mm, older, newer);
	list_count(lv, z, idx, code, -1);
	z->next[idx] = z->prev[idx] = PS_NIL;
	z->lru[idx] &= ~PS_LRUF_LIST;
}

/* Puts the block on the list of LRU code @code: at its head (newest end), or its tail with @at_tail. */
static void lru_link(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int code, int at_tail)
{
	struct ps_lruvec *lv = &mm->node[z->node].lru;
	uint32_t g = (uint32_t)(mm->gbase[z->index] + idx), *head, *tail;

	head = list_ends(lv, code, z->type, &tail);
	if (at_tail) {
		z->next[idx] = PS_NIL;
		z->prev[idx] = *tail;
		if (*tail == PS_NIL)
			*head = g;
		else
			set_next(mm, *tail, g);
		*tail = g;
	} else {
		z->prev[idx] = PS_NIL;
		z->next[idx] = *head;
		if (*head == PS_NIL)
			*tail = g;
		else
			set_prev(mm, *head, g);
		*head = g;
	}
	z->lru[idx] = (uint8_t)((z->lru[idx] & ~PS_LRUF_LIST) | code);
	list_count(lv, z, idx, code, 1);
}

/* Puts the block at the head (newest end) of classic list @l of its node. */
static void lru_link_head(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int l)
{
	lru_link(mm, z, idx, l + 1, 0);
}

/* ---- the multi-generational LRU's generations ---- */

static inline int lru_gen_on(const struct ps_mm *mm)
{
	return mm->t.lru_gen;
}

static inline int gen_code(uint64_t seq, int type)
{
	return PS_LRU_GEN_CODE + (int)(seq % PS_MAX_NR_GENS) * 2 + type;
}

/* Moves the block to generation @seq of its type: at the head, or the tail with @at_tail. */
static void gen_move(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, uint64_t seq, int at_tail)
{
	int type = code_type(z->lru[idx] & PS_LRUF_LIST);

	lru_unlink(mm, z, idx);
	lru_link(mm, z, idx, gen_code(seq, type), at_tail);
}

static inline int get_nr_gens(const struct ps_lrugen *lg, int type)
{
	return (int)(lg->max_seq - lg->min_seq[type] + 1);
}

/* The pages of generation @seq of @type, all zones. */
static long gen_pages(const struct ps_lrugen *lg, uint64_t seq, int type)
{
	long n = 0;

	for (int t = 0; t < PS_ZONE_NR; t++)
		n += lg->nr_pages[seq % PS_MAX_NR_GENS][type][t];
	return n;
}

/*
 * lru_gen_add_folio: an active page (the trace's insertion or activation
 * says so, or a mapped page or an anonymous one, taken as faulted in:
 * folio_add_lru activates what a fault adds) goes to the youngest
 * generation; a file page to the second oldest, or the oldest while there
 * are no more than MIN_NR_GENS + 1 generations.
 */
static void lru_gen_add(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int lru)
{
	struct ps_lrugen *lg = &mm->node[z->node].lru.gen;
	int type = ps_is_file_lru(lru) ? PS_LRU_GEN_FILE : PS_LRU_GEN_ANON;
	uint64_t seq;

	if (ps_is_active_lru(lru) || type == PS_LRU_GEN_ANON ||
	    (z->lru[idx] & PS_LRUF_MAPPED))
		seq = lg->max_seq;
	else if (lg->min_seq[type] + PS_MIN_NR_GENS >= lg->max_seq)
		seq = lg->min_seq[type];
	else
		seq = lg->min_seq[type] + 1;
	lru_link(mm, z, idx, gen_code(seq, type), 0);
}

void ps_lru_add(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int lru, unsigned int flags)
{
	if (!z->lru || lru < 0 || lru >= PS_NR_LRU)
		return;
	if (z->lru[idx] & PS_LRUF_LIST)
		lru_unlink(mm, z, idx);
	z->lru[idx] = (uint8_t)(((flags & PS_PAGEMAP_MAPPED) ? PS_LRUF_MAPPED : 0) |
				((flags & PS_PAGEMAP_SWAPBACKED) ? PS_LRUF_SWAPBACKED : 0));
	if (lru_gen_on(mm) && lru != PS_LRU_UNEVICTABLE)
		lru_gen_add(mm, z, idx, lru);
	else
		lru_link_head(mm, z, idx, lru);
}

void ps_lru_add_start(struct ps_mm *mm, struct ps_zone *z, uint32_t idx, int lru, unsigned int flags)
{
	const struct ps_lrugen *lg = &mm->node[z->node].lru.gen;

	ps_lru_add(mm, z, idx, lru, flags);
	if (!lru_gen_on(mm) || !z->lru || !code_is_gen(z->lru[idx] & PS_LRUF_LIST))
		return;
	/* active: the older of the two generations that count as active; inactive: the oldest */
	gen_move(mm, z, idx, ps_is_active_lru(lru) ? lg->max_seq - 1 : lg->min_seq[code_type(z->lru[idx] & PS_LRUF_LIST)], 0);
}

void ps_lru_activate(struct ps_mm *mm, struct ps_zone *z, uint32_t idx)
{
	int l;

	if (!z->lru || !(z->lru[idx] & PS_LRUF_LIST))
		return;
	if (code_is_gen(z->lru[idx] & PS_LRUF_LIST)) {
		/* folio_activate under the multi-generational LRU: to the youngest generation */
		gen_move(mm, z, idx, mm->node[z->node].lru.gen.max_seq, 0);
		return;
	}
	l = (z->lru[idx] & PS_LRUF_LIST) - 1;
	if (l != PS_LRU_INACTIVE_ANON && l != PS_LRU_INACTIVE_FILE)
		return;
	lru_unlink(mm, z, idx);
	lru_link_head(mm, z, idx, l + 1);
}

void ps_lru_del(struct ps_mm *mm, struct ps_zone *z, uint32_t idx)
{
	if (z->lru && (z->lru[idx] & PS_LRUF_LIST))
		lru_unlink(mm, z, idx);
	if (z->lru)
		z->lru[idx] = 0;
}

int ps_lru_list(const struct ps_zone *z, uint32_t idx)
{
	int code = z->lru ? z->lru[idx] & PS_LRUF_LIST : 0;

	if (code_is_gen(code))
		return code_type(code) == PS_LRU_GEN_FILE ? PS_LRU_INACTIVE_FILE : PS_LRU_INACTIVE_ANON;
	return code - 1;
}

uint64_t ps_lru_pages(const struct ps_mm *mm, int node, int l)
{
	const struct ps_lruvec *lv = &mm->node[node].lru;
	const struct ps_lrugen *lg = &lv->gen;
	int type = ps_is_file_lru(l) ? PS_LRU_GEN_FILE : PS_LRU_GEN_ANON;
	uint64_t n = 0;

	if (!lru_gen_on(mm) || l == PS_LRU_UNEVICTABLE)
		return lv->nr[l];
	/* lru_gen_update_size: the two youngest generations count as active */
	for (uint64_t seq = lg->min_seq[type]; seq <= lg->max_seq; seq++)
		if ((seq + 1 >= lg->max_seq) == ps_is_active_lru(l))
			n += (uint64_t)gen_pages(lg, seq, type);
	return n;
}

/* lruvec_lru_size: pages of list @l in the node's zones up to @reclaim_idx. */
static long lru_size(const struct ps_lruvec *lv, int l, int reclaim_idx)
{
	long n = 0;

	for (int t = 0; t <= reclaim_idx && t < PS_ZONE_NR; t++)
		n += (long)lv->zone_nr[t][l];
	return n;
}

/* floor(sqrt(x)) */
static unsigned long isqrt(unsigned long x)
{
	unsigned long r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/*
 * inactive_is_low: the inactive list is low when inactive * ratio < active,
 * ratio being sqrt(10 * GiB of both lists), or 1 below a GiB.
 */
static int inactive_is_low(const struct ps_lruvec *lv, int inactive_lru)
{
	uint64_t inactive = lv->nr[inactive_lru], active = lv->nr[inactive_lru + 1];
	uint64_t gb = (inactive + active) >> (30 - 12);

	return inactive * (gb ? isqrt(10 * gb) : 1) < active;
}

/* ---- shrink_node ---- */

/*
 * lru_gen_shrink_node (6.3+, the multi-generational LRU on): reclaim that
 * may not write or unmap is refused outright ("unmapped clean folios are
 * already prioritized"): node reclaim without RECLAIM_WRITE and
 * RECLAIM_UNMAP, and kswapd's boosted reclaim, reclaim nothing.
 */
static int lru_gen_refuses(const struct ps_mm *mm, const struct ps_scan_control *sc)
{
	return mm->t.lru_gen && mm->kver >= PS_KVER(6, 3, 0) && (!sc->may_writepage || !sc->may_unmap);
}

/*
 * get_scan_count: each evictable list's pages up to reclaim_idx, shifted
 * by the priority; anonymous lists only with swap to reclaim into.
 */
static void scan_prepare(struct ps_mm *mm, int node, struct ps_scan_control *sc)
{
	const struct ps_lruvec *lv = &mm->node[node].lru;
	int anon = sc->may_swap && mm->t.swap;

	for (int l = 0; l < PS_NR_LRU; l++) {
		sc->scan[l] = 0;
		sc->rotate_left[l] = (long)lv->nr[l];
	}
	sc->cur = -1;
	sc->batch_left = 0;
	sc->mg_in_batch = 0;
	sc->mg_scanned = 0;
	sc->mg_done = lru_gen_refuses(mm, sc);
	if (sc->mg_done || lru_gen_on(mm))
		return;
	for (int l = 0; l < PS_LRU_UNEVICTABLE; l++)
		if (ps_is_file_lru(l) || anon)
			sc->scan[l] = lru_size(lv, l, sc->reclaim_idx) >> sc->priority;
}

/* Moves the oldest block of list @l to the head of list @to (a rotation when @to == @l). */
static void lru_move_tail(struct ps_mm *mm, int node, int l, int to)
{
	uint32_t g = mm->node[node].lru.tail[l], idx;
	struct ps_zone *z = ps_mm_zone_of_global(mm, g, &idx);

	lru_unlink(mm, z, idx);
	lru_link_head(mm, z, idx, to);
}

/*
 * shrink_active_list: @nr pages off the active list's tail onto the
 * inactive list's head (all deactivated: no references are known).
 */
static void shrink_active(struct ps_mm *mm, int node, int active_lru, long nr)
{
	struct ps_lruvec *lv = &mm->node[node].lru;

	while (nr > 0 && lv->tail[active_lru] != PS_NIL) {
		uint32_t idx;
		struct ps_zone *z = ps_mm_zone_of_global(mm, lv->tail[active_lru], &idx);

		nr -= block_pages(z, idx);
		lru_move_tail(mm, node, active_lru, active_lru - 1);
		mm->nr_deactivate++;
	}
}

/*
 * shrink_folio_list's reclaim of block @idx of @z: off its list and freed,
 * counted in pgsteal_kswapd or pgsteal_direct.  Returns its pages.
 */
static int reclaim_one(struct ps_mm *mm, int node, struct ps_scan_control *sc, struct ps_zone *z, uint32_t idx)
{
	int order = PG_ORDER(z->state[idx]);
	long n = 1L << order;

	lru_unlink(mm, z, idx);
	z->lru[idx] = 0;
	ps_reclaim_block(mm, node, z, idx, order, sc->now, sc->cpu);
	if (mm->ops.reclaimed)
		mm->ops.reclaimed(mm->ops.ctx, z, idx, order);
	sc->nr_reclaimed += n;
	if (sc->kswapd)
		mm->pgsteal_kswapd += (uint64_t)n;
	else
		mm->pgsteal_direct += (uint64_t)n;
	return (int)n;
}

/*
 * One block of inactive list @l, from its tail, through isolate_lru_folios
 * and shrink_folio_list: a block above reclaim_idx is skipped (to the
 * head), a mapped one without may_unmap passed over (to the head), a mapped
 * file page activated (its mappings referenced it), a dirty file page
 * activated (to be written back), an anonymous one without swap kept; any
 * other is reclaimed.  Returns the pages reclaimed, 0 for a block scanned
 * and kept (*@scanned its pages, 0 if it did not count as scanned), or -1
 * when the list has nothing left to scan in this pass.
 */
static int scan_inactive_one(struct ps_mm *mm, int node, struct ps_scan_control *sc, int l, long *scanned)
{
	struct ps_lruvec *lv = &mm->node[node].lru;
	uint32_t g = lv->tail[l], idx;
	struct ps_zone *z;
	long n;
	int file = l == PS_LRU_INACTIVE_FILE;

	*scanned = 0;
	if (g == PS_NIL || sc->rotate_left[l] <= 0)
		return -1;
	z = ps_mm_zone_of_global(mm, g, &idx);
	n = block_pages(z, idx);
	sc->rotate_left[l] -= n;
	sc->nr_scanned += n;
	if (sc->kswapd)
		mm->pgscan_kswapd += (uint64_t)n;
	else
		mm->pgscan_direct += (uint64_t)n;
	if (z->type > sc->reclaim_idx) {	/* skipped: not counted against nr_to_scan */
		if (z->type < PS_ZONE_NR)
			mm->pgskip[z->type] += (uint64_t)n;
		lru_move_tail(mm, node, l, l);
		return 0;
	}
	*scanned = n;
	if ((z->lru[idx] & PS_LRUF_MAPPED) && !sc->may_unmap) {
		lru_move_tail(mm, node, l, l);
		mm->nr_rotated++;
		return 0;
	}
	if (file && (z->lru[idx] & PS_LRUF_MAPPED)) {
		lru_move_tail(mm, node, l, l + 1);
		mm->nr_activate++;
		return 0;
	}
	if (file && ps_dirty_is_dirty(&mm->dirty, mm->gbase[z->index] + idx)) {
		lru_move_tail(mm, node, l, l + 1);
		mm->nr_dirty_kept++;
		return 0;
	}
	if (!file && !(mm->t.swap && sc->may_swap)) {
		lru_move_tail(mm, node, l, l);
		return 0;
	}
	return reclaim_one(mm, node, sc, z, idx);
}

/* ---- the multi-generational LRU: eviction and aging (lru_gen_shrink_node) ---- */

/* get_swappiness: anonymous pages are evicted only with swap to put them in, and may_swap */
static int mg_can_swap(const struct ps_mm *mm, const struct ps_scan_control *sc)
{
	return sc->may_swap && mm->t.swap;
}

/*
 * inc_min_seq: the oldest generation of @type folded into the next, its
 * pages one by one onto that one's tail (so in reverse order); anonymous
 * pages without swap stay where they are, their generation becoming the
 * youngest.
 */
static void inc_min_seq(struct ps_mm *mm, int node, int type, int can_swap)
{
	struct ps_lrugen *lg = &mm->node[node].lru.gen;
	int old = (int)(lg->min_seq[type] % PS_MAX_NR_GENS);

	for (int t = 0; t < PS_ZONE_NR && (type == PS_LRU_GEN_FILE || can_swap); t++)
		while (lg->tail[old][type][t] != PS_NIL) {
			uint32_t idx;
			struct ps_zone *z = ps_mm_zone_of_global(mm, lg->tail[old][type][t], &idx);

			gen_move(mm, z, idx, lg->min_seq[type] + 1, 1);
		}
	lg->min_seq[type]++;
}

/*
 * inc_max_seq, the aging: a new youngest generation, the oldest of a type
 * that has MAX_NR_GENS folded first.  No page's accessed bit is known, so
 * the aging's page-table walk promotes nothing.
 */
static void inc_max_seq(struct ps_mm *mm, int node, int can_swap)
{
	struct ps_lrugen *lg = &mm->node[node].lru.gen;

	for (int type = PS_LRU_GEN_FILE; type >= PS_LRU_GEN_ANON; type--)
		if (get_nr_gens(lg, type) == PS_MAX_NR_GENS)
			inc_min_seq(mm, node, type, can_swap);
	lg->max_seq++;
	mm->lru_gen_aging++;
}

/* try_to_inc_min_seq: min_seq past the empty oldest generations; whether it moved. */
static int try_to_inc_min_seq(struct ps_mm *mm, int node, int can_swap)
{
	struct ps_lrugen *lg = &mm->node[node].lru.gen;
	uint64_t min_seq[2] = { lg->min_seq[0], lg->min_seq[1] };
	int moved = 0;

	for (int type = !can_swap; type < 2; type++)
		while (min_seq[type] + PS_MIN_NR_GENS <= lg->max_seq && !gen_pages(lg, min_seq[type], type))
			min_seq[type]++;
	if (can_swap) {
		/* anonymous pages no younger than file pages */
		if (min_seq[PS_LRU_GEN_FILE] < min_seq[PS_LRU_GEN_ANON])
			min_seq[PS_LRU_GEN_ANON] = min_seq[PS_LRU_GEN_FILE];
		if (min_seq[PS_LRU_GEN_FILE] < lg->min_seq[PS_LRU_GEN_FILE])
			min_seq[PS_LRU_GEN_FILE] = lg->min_seq[PS_LRU_GEN_FILE];
		if (min_seq[PS_LRU_GEN_FILE] < min_seq[PS_LRU_GEN_ANON])
			min_seq[PS_LRU_GEN_FILE] = min_seq[PS_LRU_GEN_ANON];
	}
	for (int type = !can_swap; type < 2; type++)
		if (min_seq[type] != lg->min_seq[type]) {
			lg->min_seq[type] = min_seq[type];
			moved = 1;
		}
	return moved;
}

/*
 * should_run_aging: *@nr_to_scan the pages of every generation of the types
 * that may be evicted; the aging is due when those have only MIN_NR_GENS
 * generations, or MIN_NR_GENS + 1 with the youngest more than half of them
 * or the oldest evictable less than a quarter.
 */
static int should_run_aging(const struct ps_lrugen *lg, int can_swap, long *nr_to_scan)
{
	long total = 0, young = 0, old = 0;

	if (lg->min_seq[!can_swap] + PS_MIN_NR_GENS > lg->max_seq) {
		*nr_to_scan = 0;
		return 1;
	}
	for (int type = !can_swap; type < 2; type++)
		for (uint64_t seq = lg->min_seq[type]; seq <= lg->max_seq; seq++) {
			long size = gen_pages(lg, seq, type);

			total += size;
			if (seq == lg->max_seq)
				young += size;
			else if (seq + PS_MIN_NR_GENS == lg->max_seq)
				old += size;
		}
	*nr_to_scan = total;
	if (lg->min_seq[!can_swap] + PS_MIN_NR_GENS < lg->max_seq)
		return 0;
	return young * PS_MIN_NR_GENS > total || old * (PS_MIN_NR_GENS + 2) < total;
}

/*
 * get_nr_to_scan: the pages to scan at this priority; at a lower one, when
 * the aging is due, the aging instead and -1 (this pass stops).
 */
static long get_nr_to_scan(struct ps_mm *mm, int node, const struct ps_scan_control *sc, int can_swap)
{
	long nr;

	if (!should_run_aging(&mm->node[node].lru.gen, can_swap, &nr) || sc->priority == PS_DEF_PRIORITY)
		return nr >> sc->priority;
	inc_max_seq(mm, node, can_swap);
	return -1;
}

/*
 * should_abort_scan: the pass has what it wants, or (kswapd at order 0)
 * every zone of the node up to reclaim_idx passes WMARK_HIGH plus boost
 * plus MIN_LRU_BATCH.
 */
static int should_abort_scan(const struct ps_mm *mm, int node, const struct ps_scan_control *sc)
{
	long gap = 2L << sc->order;

	if (sc->nr_reclaimed >= (sc->nr_to_reclaim > gap ? sc->nr_to_reclaim : gap))
		return 1;
	if (!sc->kswapd || sc->order)
		return 0;
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node == node && z->managed && z->type <= sc->reclaim_idx &&
		    !ps_zone_watermark_ok(mm->kver, z, 0, z->wmark_high + (long)z->watermark_boost + PS_MIN_LRU_BATCH,
					  sc->reclaim_idx, 0))
			return 0;
	}
	return 1;
}

/* A scan_folios batch of @type begins. */
static void scan_folios_start(struct ps_scan_control *sc, int type)
{
	sc->mg_in_batch = 1;
	sc->mg_type = type;
	sc->mg_zone_i = PS_ZONE_NR;
	sc->mg_remaining = PS_MAX_LRU_BATCH;
	sc->mg_isolated = 0;
	sc->mg_batch_scanned = 0;
}

/*
 * One block of scan_folios and shrink_folio_list: the oldest block of the
 * oldest generation in the zone whose turn it is (reclaim_idx down to the
 * lowest, then the zones above).  A block above reclaim_idx goes to the
 * next generation's tail, a dirty file block to its head (sort_folio); a
 * mapped file block, taken as referenced, to the youngest generation; any
 * other is reclaimed.  Returns its pages if reclaimed, 0 if not, or -1 when
 * the batch has ended (MAX_LRU_BATCH blocks, MIN_LRU_BATCH pages isolated,
 * or no zone left).
 */
static int scan_folios_one(struct ps_mm *mm, int node, struct ps_scan_control *sc)
{
	struct ps_lrugen *lg = &mm->node[node].lru.gen;
	int type = sc->mg_type, gen = (int)(lg->min_seq[type] % PS_MAX_NR_GENS);
	struct ps_zone *z;
	uint32_t idx, tail;
	long n;

	if (get_nr_gens(lg, type) == PS_MIN_NR_GENS)
		return -1;
	for (;;) {
		if (!sc->mg_zone_i || !sc->mg_remaining || sc->mg_isolated >= PS_MIN_LRU_BATCH)
			return -1;
		tail = lg->tail[gen][type][(sc->reclaim_idx + sc->mg_zone_i) % PS_ZONE_NR];
		if (tail != PS_NIL)
			break;
		sc->mg_zone_i--;
	}
	z = ps_mm_zone_of_global(mm, tail, &idx);
	n = block_pages(z, idx);
	sc->mg_batch_scanned += n;
	sc->mg_remaining--;
	if (z->type > sc->reclaim_idx) {	/* ineligible */
		gen_move(mm, z, idx, lg->min_seq[type] + 1, 1);
		return 0;
	}
	if (type == PS_LRU_GEN_FILE && ps_dirty_is_dirty(&mm->dirty, mm->gbase[z->index] + idx)) {
		gen_move(mm, z, idx, lg->min_seq[type] + 1, 0);	/* waiting for writeback */
		mm->nr_dirty_kept++;
		return 0;
	}
	/* isolated */
	sc->mg_isolated += n;
	sc->nr_scanned += n;
	if (sc->kswapd)
		mm->pgscan_kswapd += (uint64_t)n;
	else
		mm->pgscan_direct += (uint64_t)n;
	if (type == PS_LRU_GEN_FILE && (z->lru[idx] & PS_LRUF_MAPPED)) {
		gen_move(mm, z, idx, lg->max_seq, 0);	/* rejected: PG_active, to the youngest */
		mm->nr_activate++;
		return 0;
	}
	return reclaim_one(mm, node, sc, z, idx);
}

/*
 * try_to_shrink_lruvec, one reclaimed block at a time: batches of
 * evict_folios (isolate_folios' type: file without swap, else the type
 * with the older oldest generation, the other when it has nothing;
 * try_to_inc_min_seq after each) while get_nr_to_scan has pages to scan,
 * until the pass has scanned them or should_abort_scan.  Returns the pages
 * of the block reclaimed, or 0 once the pass has ended.
 */
static int mg_shrink_step(struct ps_mm *mm, int node, struct ps_scan_control *sc)
{
	struct ps_lrugen *lg = &mm->node[node].lru.gen;
	int can_swap = mg_can_swap(mm, sc);

	while (!sc->mg_done) {
		long delta;
		int got;

		if (!sc->mg_in_batch) {
			sc->mg_nr_to_scan = get_nr_to_scan(mm, node, sc, can_swap);
			if (sc->mg_nr_to_scan <= 0) {
				sc->mg_done = 1;
				break;
			}
			scan_folios_start(sc, !can_swap || lg->min_seq[PS_LRU_GEN_FILE] <= lg->min_seq[PS_LRU_GEN_ANON]
						      ? PS_LRU_GEN_FILE : PS_LRU_GEN_ANON);
			sc->mg_tried_other = !can_swap;
		}
		got = scan_folios_one(mm, node, sc);
		if (got >= 0) {
			if (got > 0)
				return got;
			continue;
		}
		/* the batch has ended: scan_folios' return, then evict_folios' */
		delta = sc->mg_isolated || !sc->mg_remaining ? sc->mg_batch_scanned : 0;
		if (!delta && !sc->mg_tried_other) {
			scan_folios_start(sc, !sc->mg_type);
			sc->mg_tried_other = 1;
			continue;
		}
		sc->mg_in_batch = 0;
		delta += try_to_inc_min_seq(mm, node, can_swap);
		if (get_nr_gens(lg, !can_swap) == PS_MIN_NR_GENS)
			delta = 0;
		sc->mg_scanned += delta;
		if (!delta || sc->mg_scanned >= sc->mg_nr_to_scan || should_abort_scan(mm, node, sc))
			sc->mg_done = 1;
	}
	return 0;
}

/*
 * shrink_lruvec, one reclaimed block at a time: the evictable lists in the
 * kernel's order, SWAP_CLUSTER_MAX pages of one list a turn, the active
 * list of a type shrunk (deactivated) only while its inactive one is low.
 * Returns the pages of the block reclaimed, or 0 once the pass has scanned
 * what it was to scan.
 */
static int shrink_step(struct ps_mm *mm, int node, struct ps_scan_control *sc)
{
	if (lru_gen_on(mm))
		return mg_shrink_step(mm, node, sc);
	for (;;) {
		long scanned;
		int got;

		if (sc->batch_left <= 0) {
			int l = -1;

			for (int k = 1; k <= PS_LRU_UNEVICTABLE && l < 0; k++) {
				int c = (sc->cur + k + PS_LRU_UNEVICTABLE) % PS_LRU_UNEVICTABLE;

				if (sc->scan[c] > 0)
					l = c;
			}
			if (l < 0)
				return 0;
			sc->cur = l;
			sc->batch_left = sc->scan[l] < PS_SWAP_CLUSTER_MAX ? sc->scan[l] : PS_SWAP_CLUSTER_MAX;
			sc->scan[l] -= sc->batch_left;
			if (ps_is_active_lru(l)) {
				if (inactive_is_low(&mm->node[node].lru, l - 1))
					shrink_active(mm, node, l, sc->batch_left);
				sc->batch_left = 0;
				continue;
			}
		}
		got = scan_inactive_one(mm, node, sc, sc->cur, &scanned);
		if (got < 0) {
			sc->batch_left = 0;
			sc->scan[sc->cur] = 0;
			continue;
		}
		sc->batch_left -= scanned;
		if (got > 0)
			return got;
	}
}

/* One whole shrink_node pass at @sc's priority, until it has what it wants. */
static void shrink_node(struct ps_mm *mm, int node, struct ps_scan_control *sc)
{
	scan_prepare(mm, node, sc);
	/* the multi-generational LRU's pass ends at a batch's end (should_abort_scan) */
	while ((lru_gen_on(mm) || sc->nr_reclaimed < sc->nr_to_reclaim) && shrink_step(mm, node, sc) > 0)
		;
}

/*
 * Zone-based kswapd (<= 4.7): the node is balanced when every zone up to
 * the class zone passes WMARK_HIGH at @order, or with @quarter (an order > 0
 * run's pgdat_balanced) when the zones that pass hold a quarter of those
 * zones' managed pages.  Each zone is judged as its own class zone
 * (zone_balanced(zone, order, 0, i) in pgdat_balanced, (.., 0, 0) in
 * wakeup_kswapd), so no lowmem_reserve counts.  Zones the kernel would
 * deem unreclaimable are not told apart.
 */
static int zones_balanced(const struct ps_mm *mm, int node, int classzone, int order, int quarter)
{
	uint64_t managed = 0, balanced = 0;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		managed += z->managed;
		if (ps_zone_watermark_ok(mm->kver, z, order, z->wmark_high + z->watermark_boost, z->type, 0))
			balanced += z->managed;
	}
	return quarter ? balanced * 4 >= managed : balanced == managed;
}

/*
 * pgdat_balanced: some zone of the node up to the class zone passes
 * zone_watermark_ok_safe at WMARK_HIGH plus boost, at @order (a free block
 * of that order on a list, 4.4+); a node with no such zone needs no
 * balancing.  Up to 4.7 zones_balanced() instead.
 */
static int node_balanced(const struct ps_mm *mm, int node, int classzone, int order)
{
	int eligible = 0;

	if (mm->prof->kswapd_per_zone)
		return zones_balanced(mm, node, classzone, order, order > 0);

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node != node || !z->managed || z->type > classzone)
			continue;
		eligible = 1;
		if (ps_zone_watermark_ok(mm->kver, z, order, z->wmark_high + z->watermark_boost, classzone, 0))
			return 1;
	}
	return !eligible;
}

/*
 * pgdat_watermark_boosted (5.0+): a boost on one of the node's zones up to
 * @classzone; a boost above the class zone does not count.
 */
static int node_boosted(const struct ps_mm *mm, int node, int classzone)
{
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node == node && z->type <= classzone && z->managed && z->watermark_boost)
			return 1;
	}
	return 0;
}

/* ZONE_RECLAIM_ACTIVE on (or off) for the node's zones up to @zoneidx: pcp high capped (pcp.h). */
static void set_reclaim_active(struct ps_mm *mm, int node, int zoneidx, int on)
{
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		struct ps_zone *z = &mm->zones[zi];

		if (z->node == node)
			z->reclaim_active = on && z->type <= zoneidx;
	}
}

/* balance_pgdat starts: the boost to reclaim is snapshot, rounds start afresh. */
static void kswapd_run_start(struct ps_mm *mm, int node, uint64_t now)
{
	struct ps_kswapd *k = &mm->node[node].kswapd;

	k->napping = 0;
	k->runs++;
	if (k->req_zoneidx >= 0)
		k->zoneidx = k->req_zoneidx;
	k->req_zoneidx = -1;
	k->order = k->req_order;
	k->req_order = 0;
	k->woken_at = now;
	k->last_run = now;
	k->credit = 0;
	k->slice_end = 0;	/* its first slice starts with its first step */
	k->in_pass = 0;
	k->pass_got = 0;
	k->run_got = 0;
	k->priority = PS_DEF_PRIORITY;
	k->raise = -1;		/* no pass yet */
	k->done = 0;
	set_reclaim_active(mm, node, k->zoneidx, 1);
	ps_kswapd_boost_start(mm, node, k->zoneidx);
}

void ps_kswapd_boost_start(struct ps_mm *mm, int node, int classzone)
{
	struct ps_kswapd *k = &mm->node[node].kswapd;

	/* nr_boost_reclaim: the boosts of the zones up to the class zone, kept per zone */
	k->boost_left = 0;
	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];

		if (z->node != node || z->type >= PS_ZONE_NR)
			continue;
		k->zboost[z->type] = z->type <= classzone ? z->watermark_boost : 0;
		k->boost_left += (long)k->zboost[z->type];
	}
}

/*
 * wakeup_kswapd: not for a node that is balanced and not boosted; a wake
 * during kswapd's short sleep ends it (the kernel's
 * kswapd_low_wmark_hit_quickly).  kswapd reads the order and class zone
 * asked for when it runs, not when it is woken: its run starts at the first
 * event kswapd.wake_latency_us (default 0; an ensemble member adds up to
 * kswapd_wake_jitter_us, drawn per wake) after the wake, and the wakes
 * until then, such as a second zone's fallback in the same zone walk, merge
 * into it (kswapd_order, kswapd_highest_zoneidx: the highest asked for).
 */
void ps_wakeup_kswapd(struct ps_mm *mm, int node, int classzone, int order, int boosted, uint64_t now)
{
	struct ps_kswapd *k;

	if (node < 0 || node >= PS_MAX_NODES)
		return;
	k = &mm->node[node].kswapd;
	/* kswapd_highest_zoneidx and kswapd_order: the highest asked for since kswapd last looked */
	if (k->req_zoneidx < classzone)
		k->req_zoneidx = classzone;
	if (k->req_order < order)
		k->req_order = order;
	/* up to 4.7 one wake per zone: any zone of the node short of its high watermark wakes */
	if ((k->awake && !k->napping) || k->failures >= PS_MAX_RECLAIM_RETRIES ||
	    ((mm->prof->kswapd_per_zone ? zones_balanced(mm, node, classzone, order, 0) :
	      node_balanced(mm, node, classzone, order)) && !node_boosted(mm, node, classzone)))
		return;
	if (k->napping) {
		k->hit_quickly_low++;
		k->napping = 0;
	} else {
		k->awake = 1;
		mm->nr_awake++;
		k->wakeups++;
	}
	k->boost_wakeups += boosted != 0;
	k->pending = 1;
	k->start_at = now + 1000ull * (uint64_t)(mm->t.kswapd_wake_latency_us > 0 ? mm->t.kswapd_wake_latency_us : 0);
	if (mm->t.kswapd_wake_jitter_us > 0)
		k->start_at += 1000ull * ps_rng_below(&mm->rng, (uint64_t)mm->t.kswapd_wake_jitter_us + 1);
	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_KSWAPD, node, k->start_at);
}

/* kswapd_shrink_node's nr_to_reclaim: the sum over the node's zones up to reclaim_idx of max(HIGH + boost, 32). */
static long round_pages(const struct ps_mm *mm, int node, int reclaim_idx)
{
	long sum = 0;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		const struct ps_zone *z = &mm->zones[zi];
		long high = z->wmark_high + (long)z->watermark_boost;

		if (z->node == node && z->managed && z->type <= reclaim_idx)
			sum += high > PS_SWAP_CLUSTER_MAX ? high : PS_SWAP_CLUSTER_MAX;
	}
	return sum;
}

/* fls_long: the position of the highest bit set, 0 for none */
static int fls_long(unsigned long x)
{
	int n = 0;

	while (x) {
		n++;
		x >>= 1;
	}
	return n;
}

/*
 * set_initial_priority (the multi-generational LRU, in 6.8, not in 6.1):
 * reclaim at DEF_PRIORITY wanting MIN_LRU_BATCH (64) pages or more starts
 * where (reclaimable >> priority) would give what it wants, reclaimable
 * being the inactive lists (anonymous ones only with swap), clamped to
 * DEF_PRIORITY / 2 .. DEF_PRIORITY; balance_pgdat goes on from there.
 */
static void lru_gen_initial_priority(const struct ps_mm *mm, int node, struct ps_scan_control *sc)
{
	unsigned long reclaimable;
	int prio;

	if (!mm->t.lru_gen || mm->kver < PS_KVER(6, 8, 0) || sc->priority != PS_DEF_PRIORITY || sc->nr_to_reclaim < 64 ||
	    lru_gen_refuses(mm, sc))
		return;
	reclaimable = (unsigned long)ps_lru_pages(mm, node, PS_LRU_INACTIVE_FILE);
	if (mm->t.swap && sc->may_swap)
		reclaimable += (unsigned long)ps_lru_pages(mm, node, PS_LRU_INACTIVE_ANON);
	prio = fls_long(reclaimable) - 1 - fls_long((unsigned long)sc->nr_to_reclaim - 1);
	sc->priority = prio < PS_DEF_PRIORITY / 2 ? PS_DEF_PRIORITY / 2 : (prio > PS_DEF_PRIORITY ? PS_DEF_PRIORITY : prio);
}

/*
 * One turn of balance_pgdat's loop between shrink_node passes: account the
 * pass just done, then stop (returns 0, k->done set) or start the next pass.
 */
static int kswapd_next_pass(struct ps_mm *mm, int node, uint64_t now)
{
	struct ps_kswapd *k = &mm->node[node].kswapd;
	struct ps_scan_control *sc = &k->sc;
	int balanced;

	if (k->raise >= 0) {		/* a pass ended */
		/* kswapd_shrink_node: a pass that scanned what it wanted does not raise the priority */
		k->raise = k->raise && !(sc->nr_scanned >= sc->nr_to_reclaim);
		if (k->boost_left > 0 && !k->pass_got) {
			k->done = 1;	/* boosted reclaim that made no progress */
			return 0;
		}
		k->boost_left -= k->boost_left < k->pass_got ? k->boost_left : k->pass_got;
		/* kswapd_shrink_node: once compact_gap() is reclaimed, balance at order 0 */
		if (k->order && k->run_got >= (2L << k->order))
			k->order = 0;
		if (k->raise || !k->pass_got)
			k->priority--;
		if (k->priority < 1) {
			k->done = 1;
			return 0;
		}
	}
	balanced = node_balanced(mm, node, k->zoneidx, k->order);
	if (!balanced && k->boost_left > 0) {
		/* imbalanced: boosting is ignored, reclaim restarts for the watermarks */
		k->boost_left = 0;
		k->priority = PS_DEF_PRIORITY;
	}
	if (k->boost_left <= 0 && balanced) {
		k->done = 1;
		return 0;
	}
	memset(sc, 0, sizeof(*sc));
	sc->reclaim_idx = k->zoneidx;
	sc->priority = k->priority;
	sc->may_unmap = 1;
	/* boosted reclaim neither writes nor swaps */
	sc->may_writepage = sc->may_swap = k->boost_left <= 0;
	sc->kswapd = 1;
	sc->order = k->order;
	sc->cpu = -1;
	sc->now = now;
	sc->nr_to_reclaim = round_pages(mm, node, k->zoneidx);
	if (k->priority == PS_DEF_PRIORITY)
		lru_gen_initial_priority(mm, node, sc);
	k->priority = sc->priority;
	k->raise = !(k->boost_left > 0 && k->priority == PS_DEF_PRIORITY - 2);
	scan_prepare(mm, node, sc);
	k->pass_got = 0;
	k->in_pass = 1;
	return 1;
}

void ps_reclaim_block(struct ps_mm *mm, int node, struct ps_zone *z, uint32_t idx, int order, uint64_t now, int cpu)
{
	if (cpu < 0)
		cpu = mm->node[node].kswapd.cpu;
	mm->zone_reclaimed[z->index] += 1ull << order;
	ps_free_pages(mm, z, idx, order, cpu, now, 0);
}

void ps_kswapd_boost_end(struct ps_mm *mm, int n)
{
	struct ps_kswapd *k = &mm->node[n].kswapd;

	for (int zi = 0; zi < mm->nr_zones; zi++) {
		struct ps_zone *z = &mm->zones[zi];
		unsigned long b;

		if (z->node != n || z->type >= PS_ZONE_NR || !k->zboost[z->type])
			continue;
		b = k->zboost[z->type];
		z->watermark_boost -= z->watermark_boost < b ? z->watermark_boost : b;
		k->zboost[z->type] = 0;
		k->boost_resets++;
	}
	k->boost_left = 0;
}

#define PAGE_CREDIT PS_KSWAPD_PAGE_CREDIT

void ps_kswapd_earn(struct ps_kswapd *k, uint64_t now, uint64_t rate, uint64_t slice_ns)
{
	if (!slice_ns) {
		if (now > k->last_run)
			k->credit += (now - k->last_run) * rate;
	} else if (!k->slice_end) {
		k->slice_end = now + slice_ns;	/* the run's first slice */
	} else if (now >= k->slice_end && k->credit < PAGE_CREDIT) {
		k->credit += slice_ns * rate;	/* the slice's pages, at its end */
		k->slice_end = now + slice_ns;
	}
	if (now > k->last_run)
		k->last_run = now;
}

uint64_t ps_kswapd_earn_at(const struct ps_kswapd *k, uint64_t rate, uint64_t slice_ns)
{
	if (k->credit >= PAGE_CREDIT)
		return k->last_run;
	if (slice_ns)
		return k->slice_end > k->last_run ? k->slice_end : k->last_run;
	return k->last_run + (PAGE_CREDIT - k->credit + rate - 1) / rate;
}

/* When @node's kswapd next has work: its run's start, its nap's end, or its next page earned. */
static void kswapd_arm(struct ps_mm *mm, int n)
{
	struct ps_kswapd *k = &mm->node[n].kswapd;
	uint64_t at, rate = (uint64_t)mm->t.kswapd_rate;

	if (!k->awake)
		at = PS_MM_NEVER;
	else if (k->pending)
		at = k->start_at;
	else if (k->napping)
		at = k->nap_end;
	else
		at = ps_kswapd_earn_at(k, rate, (uint64_t)mm->t.kswapd_slice_us * 1000);
	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_KSWAPD, n, at);
}

/*
 * kswapd, a timed activity per node (mm/vmscan.c of 4.9+): woken by the slow
 * path and by a boosted watermark (wakeup_kswapd), it runs balance_pgdat at
 * kswapd.reclaim_pages_per_ms in shrink_node passes over the node's LRU
 * lists (kswapd_next_pass, shrink_step), and between passes stops once the
 * boost it was woken with is reclaimed and the node is balanced, or when a
 * pass at priority 1 is done (a failure if the run reclaimed nothing;
 * MAX_RECLAIM_RETRIES of them in a row and the node is no longer woken).
 * Then the boosts it started with go and kswapd takes the HZ/10 short
 * sleep of kswapd_try_to_sleep: a wake during it starts a new run at once
 * (kswapd_low_wmark_hit_quickly), and at its end kswapd runs again if the
 * node is no longer balanced (kswapd_high_wmark_hit_quickly), or sleeps.
 * Each step is a timer (kswapd_arm): the reclaim earned up to the engine's
 * clock is done when it runs; scanning what it keeps costs no time.
 */
void ps_kswapd_run(struct ps_mm *mm, int n, uint64_t now)
{
	uint64_t rate = (uint64_t)mm->t.kswapd_rate;
	struct ps_kswapd *k = &mm->node[n].kswapd;

	if (!k->awake)
		return;
	if (k->pending) {
		if (now < k->start_at)
			goto arm;
		k->pending = 0;
		kswapd_run_start(mm, n, k->start_at);
	}
	if (k->napping) {
		if (now < k->nap_end)
			goto arm;
		/* kswapd_try_to_sleep after HZ/10: sleep for good only if still balanced */
		if (k->req_zoneidx >= 0)
			k->zoneidx = k->req_zoneidx;
		if (node_balanced(mm, n, k->zoneidx, k->order) &&
		    (mm->t.kswapd_nap_ignores_boost || !node_boosted(mm, n, k->zoneidx))) {
			k->awake = 0;
			k->napping = 0;
			mm->nr_awake--;
			goto arm;
		}
		k->hit_quickly_high++;
		kswapd_run_start(mm, n, k->nap_end);
	}
	ps_kswapd_earn(k, now, rate, (uint64_t)mm->t.kswapd_slice_us * 1000);
	/*
	 * balance_pgdat: passes of shrink_node at falling priority; between
	 * passes it stops once the node is balanced and the boost it was woken
	 * with is reclaimed
	 */
	while (k->credit >= PAGE_CREDIT && !k->done) {
		int got;

		if ((!k->in_pass || (!lru_gen_on(mm) && k->sc.nr_reclaimed >= k->sc.nr_to_reclaim)) &&
		    !kswapd_next_pass(mm, n, k->last_run))
			break;
		k->sc.now = k->last_run;
		got = shrink_step(mm, n, &k->sc);
		if (!got) {
			k->in_pass = 0;		/* the pass scanned what it was to */
			continue;
		}
		k->reclaimed += got;
		k->failures = 0;
		k->pass_got += got;
		k->run_got += got;
		k->credit -= (uint64_t)got * PAGE_CREDIT < k->credit ? (uint64_t)got * PAGE_CREDIT : k->credit;
	}
	if (k->done) {
		if (!k->run_got)
			k->failures++;	/* at MAX_RECLAIM_RETRIES the node is left alone */
		/* done: the boosts it started with go, and kswapd takes its short sleep */
		set_reclaim_active(mm, n, k->zoneidx, 0);
		k->awake_ns += now - k->woken_at;
		ps_kswapd_boost_end(mm, n);
		/*
		 * kswapd.sleep_check: prepare_kswapd_sleep for the class zone asked
		 * during the run; not balanced for it, balance_pgdat runs again at once
		 */
		if (mm->t.kswapd_sleep_check && k->req_zoneidx >= 0 && !node_balanced(mm, n, k->req_zoneidx, k->order)) {
			k->hit_quickly_high++;
			kswapd_run_start(mm, n, now);
			goto arm;
		}
		k->napping = 1;
		k->nap_end = now + 100000000ull;
	}
arm:
	kswapd_arm(mm, n);
}

/*
 * node_pagecache_reclaimable: with RECLAIM_UNMAP the node's page cache,
 * without it the file LRU pages less the mapped ones; less the dirty pages
 * without RECLAIM_WRITE.
 */
static long node_pagecache_reclaimable(const struct ps_mm *mm, int node)
{
	const struct ps_lruvec *lv = &mm->node[node].lru;
	long file, dirty, n;

	ps_dirty_node(&mm->dirty, mm->zones, node, &file, &dirty);
	if (mm->t.zone_reclaim_mode & 4) {
		n = file;
	} else {
		n = (long)(ps_lru_pages(mm, node, PS_LRU_INACTIVE_FILE) + ps_lru_pages(mm, node, PS_LRU_ACTIVE_FILE)) -
		    (long)lv->nr_mapped_file;
		if (n < 0)
			n = 0;
	}
	if (!(mm->t.zone_reclaim_mode & 2))
		n -= dirty < n ? dirty : n;
	return n;
}

/*
 * vm.zone_reclaim_mode & 1: a zone below its watermark on the allocating
 * CPU's own node is reclaimed in place before the walk moves on
 * (node_reclaim): not when the node has no more reclaimable page cache than
 * min_unmapped_pages and no more reclaimable slab than min_slab_pages
 * (NODE_RECLAIM_FULL); not for a request that may not block, a remote node
 * with CPUs, or a node another CPU's node reclaim holds (PGDAT_RECLAIM_LOCKED:
 * NODE_RECLAIM_NOSCAN).  __node_reclaim: shrink_node at priority 4 and
 * below until max(2^order, SWAP_CLUSTER_MAX) pages are reclaimed, may_unmap
 * with RECLAIM_UNMAP, may_writepage with RECLAIM_WRITE, reclaim_idx
 * gfp_zone(); one that reclaims less counts as zone_reclaim_failed.  The
 * reclaimed pages go to the reclaiming CPU's lists, so the zone's free count
 * does not see them at once.  The node stays held for the pages reclaimed
 * at node reclaim's speed (t.node_reclaim_rate).  Returns whether the zone
 * now passes.
 */
static int lower_zone_passes(const struct ps_mm *mm, const struct ps_zone *z, int order, int classzone, uint32_t gfp)
{
	unsigned int flags = ps_gfp_to_alloc_flags(gfp, order, mm->kver, 0);

	for (int t = z->type - 1; t >= 0; t--) {
		int zi = ps_mm_zoneref_zone(mm, z->node, t, classzone);

		if (zi >= 0 && mm->zones[zi].managed && ps_zone_ok(mm, &mm->zones[zi], order, 0, classzone, flags))
			return 1;
	}
	return 0;
}

int ps_node_reclaim(struct ps_mm *mm, struct ps_zone *z, int cpu, int order, int classzone, uint32_t gfp)
{
	struct ps_scan_control sc;
	int node = z->node;
	struct ps_pgdat *pgdat = &mm->node[node];

	if (!(mm->t.zone_reclaim_mode & 1))
		return 0;
	if (node_pagecache_reclaimable(mm, node) <= pgdat->min_unmapped_pages &&
	    pgdat->nr_slab_reclaimable <= pgdat->min_slab_pages) {
		mm->node_reclaim_full++;	/* NODE_RECLAIM_FULL */
		return 0;
	}
	if (!(gfp & PS_GFP_DIRECT_RECLAIM))
		return 0;	/* the allocation may not block: NODE_RECLAIM_NOSCAN */
	if (node != ps_machine_cpu_node(mm->m, cpu))
		return 0;
	if (pgdat->reclaim_locked) {
		if (pgdat->reclaim_cpu != cpu) {
			mm->node_reclaim_locked++;	/* PGDAT_RECLAIM_LOCKED: NODE_RECLAIM_NOSCAN */
			return 0;
		}
		/*
		 * The holder's own request: its CPU is still in the reclaim
		 * and asks only once it is over, when the walk goes on to the
		 * node's next zone if this one still fails.  Served there
		 * when that zone passes now; else it reclaims again.
		 */
		if (lower_zone_passes(mm, z, order, classzone, gfp))
			return 0;
	}
	memset(&sc, 0, sizeof(sc));
	sc.nr_to_reclaim = 1L << order;
	if (sc.nr_to_reclaim < PS_SWAP_CLUSTER_MAX)
		sc.nr_to_reclaim = PS_SWAP_CLUSTER_MAX;
	sc.reclaim_idx = classzone;
	sc.may_unmap = !!(mm->t.zone_reclaim_mode & 4);
	sc.may_writepage = !!(mm->t.zone_reclaim_mode & 2);
	sc.may_swap = 1;
	sc.cpu = cpu;
	sc.now = mm->now_ns;
	mm->node_reclaims++;
	for (sc.priority = 4; sc.priority >= 0 && sc.nr_reclaimed < sc.nr_to_reclaim; sc.priority--)
		shrink_node(mm, node, &sc);
	mm->node_reclaimed += (uint64_t)sc.nr_reclaimed;
	if (sc.nr_reclaimed < sc.nr_to_reclaim)
		mm->zone_reclaim_failed++;
	pgdat->reclaim_locked = 1;
	pgdat->reclaim_cpu = cpu;
	mm->ops.arm(mm->ops.ctx, PS_MM_TIMER_RECLAIM_LOCK, node,
		    mm->now_ns + (uint64_t)(sc.nr_reclaimed > sc.nr_to_reclaim ? sc.nr_reclaimed : sc.nr_to_reclaim) *
					 1000000ull / (uint64_t)mm->t.node_reclaim_rate);
	return ps_zone_ok(mm, z, order, 0, classzone, ps_gfp_to_alloc_flags(gfp, order, mm->kver, 0));
}

void ps_node_reclaim_unlock(struct ps_mm *mm, int node)
{
	mm->node[node].reclaim_locked = 0;
}

/*
 * try_to_free_pages, when the slow path's walk found nothing: shrink_node
 * on each node of the zonelist with a zone up to @high, at falling
 * priority, until SWAP_CLUSTER_MAX pages are reclaimed (do_try_to_free_pages;
 * no compaction).  The pages go to @cpu's lists.  Returns the pages
 * reclaimed.
 */
long ps_try_to_free_pages(struct ps_mm *mm, const struct ps_zoneref *refs, int nr, int high, int cpu)
{
	struct ps_scan_control sc;

	memset(&sc, 0, sizeof(sc));
	sc.nr_to_reclaim = PS_SWAP_CLUSTER_MAX;
	sc.reclaim_idx = high;
	sc.may_unmap = sc.may_writepage = sc.may_swap = 1;
	sc.cpu = cpu;
	sc.now = mm->now_ns;
	mm->direct_reclaims++;
	for (sc.priority = PS_DEF_PRIORITY; sc.priority >= 0 && sc.nr_reclaimed < sc.nr_to_reclaim; sc.priority--) {
		int last = -1;

		for (int i = 0; i < nr && sc.nr_reclaimed < sc.nr_to_reclaim; i++) {
			int zi = ps_mm_zoneref_zone(mm, refs[i].node, refs[i].type, high);

			if (zi < 0 || !mm->zones[zi].managed || refs[i].node == last)
				continue;
			last = refs[i].node;
			shrink_node(mm, last, &sc);
		}
	}
	return sc.nr_reclaimed;
}
