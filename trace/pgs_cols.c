// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pgs_cols.c - the column decoders of a pagesim file's event frames: the
 * careful one, which checks every field against its column's end and names
 * a damaged record, and the fast one, which checks once per batch and hands
 * anything unusual back to the careful one.  Neither allocates nor touches
 * a string per event.
 */
#include <stdio.h>
#include <string.h>

#include "trace/pgs-local.h"


/* Reads a varint; NULL on a varint that runs past @end or is longer than 10 bytes. */
static inline const uint8_t *get_varint(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;
	int shift = 0;

	if (__builtin_expect(end - p >= 10, 1)) {
		if (p[0] < 0x80) {
			*v = p[0];
			return p + 1;
		}
		if (p[1] < 0x80) {
			*v = (p[0] & 0x7f) | (uint64_t)p[1] << 7;
			return p + 2;
		}
		while (*p & 0x80) {
			x |= (uint64_t)(*p++ & 0x7f) << shift;
			shift += 7;
			if (shift > 63)
				return NULL;
		}
	} else {
		while (p < end && (*p & 0x80)) {
			x |= (uint64_t)(*p++ & 0x7f) << shift;
			shift += 7;
			if (shift > 63)
				return NULL;
		}
		if (p >= end)
			return NULL;
	}
	*v = x | (uint64_t)*p++ << shift;
	return p;
}


/*
 * The batch's slots that held a page-cache, LRU or reclaim event get their
 * x zeroed again: a kmem event's is zero, and the decoders write it only
 * for those events.
 */
static inline void clear_xslots(struct pgs_state *st)
{
	for (int i = 0; i < st->nxslot; i++)
		memset(&st->batch[st->xslot[i]].x, 0, sizeof(st->batch[0].x));
	st->nxslot = 0;
}


/* A migratetype byte as the other readers give it: PS_MT_* or PS_MT_UNKNOWN. */
static inline int8_t mt_of(int v)
{
	return v >= PS_MT_UNKNOWN && v < PS_MIGRATETYPE_NAMES ? (int8_t)v : PS_MT_UNKNOWN;
}

/*
 * Orders past the highest buddy order, in the event or in an extfrag's
 * fields, are bad fields as in the other readers: a shift by them is
 * undefined downstream.
 */
static inline int orders_bad(const struct ps_event *e)
{
	return e->order > PS_MAX_PAGE_ORDER ||
	       (e->type == PS_EV_EXTFRAG && (e->alloc_order > PS_MAX_PAGE_ORDER || e->fallback_order > PS_MAX_PAGE_ORDER));
}

/* A bad field the other readers skip too: an order out of range, a timestamp past 2^63 ns. */
static inline int fields_bad(const struct ps_event *e)
{
	return orders_bad(e) || e->ts_ns > PS_EV_MAX_TS;
}

/*
 * Decodes up to PGS_BATCH records of the current frame into st->batch.  The
 * column cursors live in locals for the whole loop (through uint8_t
 * pointers every store could alias them, so kept in the state they would be
 * reloaded after each field).  A record with a bad field is skipped (counted
 * unless @again: the batch was decoded before).  Returns the events kept,
 * or -1 on a damaged record.
 */
int ps_pgs_decode_batch(struct ps_reader *r, struct pgs_state *st, int again, struct ps_error *err)
{
	const uint8_t *ctrl = st->col[PS_PGS_COL_CTRL], *tsc = st->col[PS_PGS_COL_TS];
	const uint8_t *cpuc = st->col[PS_PGS_COL_CPU], *pidc = st->col[PS_PGS_COL_PID];
	const uint8_t *pfnc = st->col[PS_PGS_COL_PFN], *ordc = st->col[PS_PGS_COL_ORDER];
	const uint8_t *auxc = st->col[PS_PGS_COL_AUX], *gfpc = st->col[PS_PGS_COL_GFP];
	const uint8_t *xfc = st->col[PS_PGS_COL_XF], *extc = st->col[PS_PGS_COL_EXT];
	const uint8_t *const *end = st->end;
	uint64_t ts = st->prev_ts;
	unsigned int cpu = st->prev_cpu;
	int n = st->left < PGS_BATCH ? st->left : PGS_BATCH, i, kept = 0;

	clear_xslots(st);
	for (i = 0; i < n; i++) {
		struct ps_event *e = &st->batch[kept];
		uint64_t v;
		uint8_t c = *ctrl++;
		int x = (c & PS_PGS_C_TYPE) == PS_PGS_C_XTYPE;

		e->type = c & PS_PGS_C_TYPE;
		if (__builtin_expect(e->type >= PS_EV_KMEM_NR && !x, 0))
			goto bad;
		if (c & PS_PGS_C_CPU) {
			cpuc = get_varint(cpuc, end[PS_PGS_COL_CPU], &v);
			if (__builtin_expect(!cpuc || v > 0xffff, 0))
				goto bad;
			cpu = v;
		}
		e->cpu = cpu;
		if (c & PS_PGS_C_PID) {
			pidc = get_varint(pidc, end[PS_PGS_COL_PID], &v);
			if (__builtin_expect(!pidc, 0))
				goto bad;
			e->pid = (int32_t)ps_unzigzag(v);
			if (cpu < PS_PGS_MAX_CPU_STATE)
				st->pid[cpu] = e->pid;
		} else {
			if (__builtin_expect(cpu >= PS_PGS_MAX_CPU_STATE, 0))
				goto bad;
			e->pid = st->pid[cpu];
		}
		if (c & PS_PGS_C_NOPFN) {
			e->pfn = PS_PFN_NONE;
		} else {
			uint64_t *prev = &st->pfn[cpu < PS_PGS_MAX_CPU_STATE ? cpu : 0];

			pfnc = get_varint(pfnc, end[PS_PGS_COL_PFN], &v);
			if (__builtin_expect(!pfnc, 0))
				goto bad;
			*prev += (uint64_t)ps_unzigzag(v);
			e->pfn = *prev;
		}
		tsc = get_varint(tsc, end[PS_PGS_COL_TS], &v);
		if (__builtin_expect(!tsc, 0))
			goto bad;
		ts += (uint64_t)ps_unzigzag(v);
		e->ts_ns = ts;
		e->order = *ordc++;
		e->gfp = 0;
		if (__builtin_expect(c & PS_PGS_C_EXT, 0)) {
			if (end[PS_PGS_COL_EXT] - extc < 8)
				goto bad;
			e->flags = extc[0];
			e->percpu_refill = extc[1] != 0;
			e->migratetype = mt_of((int8_t)extc[2]);
			e->alloc_order = extc[3];
			e->fallback_order = extc[4];
			e->alloc_migratetype = mt_of((int8_t)extc[5]);
			e->fallback_migratetype = mt_of((int8_t)extc[6]);
			e->change_ownership = extc[7] != 0;
			extc += 8;
		} else {
			uint8_t a;

			if (__builtin_expect(auxc >= end[PS_PGS_COL_AUX], 0))
				goto bad;
			a = *auxc++;
			e->migratetype = mt_of((a & 0x0f) - 1);
			e->percpu_refill = (a >> 4) & 1;
			e->flags = a >> 5;
			if (e->type == PS_EV_EXTFRAG) {
				if (end[PS_PGS_COL_XF] - xfc < 5)
					goto bad;
				e->alloc_order = xfc[0];
				e->fallback_order = xfc[1];
				e->alloc_migratetype = mt_of((int8_t)xfc[2]);
				e->fallback_migratetype = mt_of((int8_t)xfc[3]);
				e->change_ownership = xfc[4] != 0;
				xfc += 5;
			} else {
				e->alloc_order = e->fallback_order = 0;
				e->alloc_migratetype = e->fallback_migratetype = PS_MT_UNKNOWN;
				e->change_ownership = 0;
			}
		}
		if (x) {
			if (ps_pgs_get_x(st->col, end, e, &st->xpred) < 0 || e->order > PS_MAX_PAGE_ORDER)
				goto bad;
			st->xslot[st->nxslot++] = kept;
		}
		if ((c & PS_PGS_C_EXT) || e->type == PS_EV_ALLOC || (x && ps_pgs_x_has_gfp(e->type))) {
			if (__builtin_expect(end[PS_PGS_COL_GFP] - gfpc < 4, 0))
				goto bad;
			e->gfp = ps_le_get32(gfpc);
			gfpc += 4;
		}
		e->comm = NULL;
		e->task = PS_TASK_OTHER;
		if (__builtin_expect(fields_bad(e), 0)) {
			const struct frame *f = &st->frames[st->cur - 1];
			char where[96], sample[96];

			if (x)
				st->nxslot--;
			if (again)
				continue;
			snprintf(where, sizeof(where), "byte %llu: event %u of frame %d", (unsigned long long)f->off,
				 f->nr - st->left + i, st->cur - 1);
			snprintf(sample, sizeof(sample), "%s order=%u alloc_order=%u fallback_order=%u ts=%llu",
				 ps_event_names[e->type], e->order, e->alloc_order, e->fallback_order,
				 (unsigned long long)e->ts_ns);
			if (ps_reader_skip(r, PS_SKIP_BAD_FIELD, where, sample, strlen(sample), err) < 0)
				return -1;
			continue;
		}
		kept++;
	}
	st->col[PS_PGS_COL_CTRL] = ctrl;
	st->col[PS_PGS_COL_TS] = tsc;
	st->col[PS_PGS_COL_CPU] = cpuc;
	st->col[PS_PGS_COL_PID] = pidc;
	st->col[PS_PGS_COL_PFN] = pfnc;
	st->col[PS_PGS_COL_ORDER] = ordc;
	st->col[PS_PGS_COL_AUX] = auxc;
	st->col[PS_PGS_COL_GFP] = gfpc;
	st->col[PS_PGS_COL_XF] = xfc;
	st->col[PS_PGS_COL_EXT] = extc;
	st->prev_ts = ts;
	st->prev_cpu = cpu;
	st->left -= n;
	return kept;
bad:
	{
		const struct frame *f = &st->frames[st->cur - 1];

		return ps_err(err, "%s: byte %llu: event %u of frame %d runs past its column: the file is damaged",
			      r->path, (unsigned long long)f->off, f->nr - st->left + i, st->cur - 1);
	}
}

static inline uint64_t load64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

static inline uint32_t load32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	v = __builtin_bswap32(v);
#endif
	return v;
}

/* A varint of 9 or 10 bytes (get_varint's rules, no end check); NULL if longer. */
static const uint8_t *varint_long(const uint8_t *p, uint64_t *v)
{
	uint64_t x = 0;

	for (int shift = 0; shift < 70; shift += 7) {
		uint8_t b = *p++;

		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return p;
		}
	}
	return NULL;
}

/*
 * A varint with no branch on its length up to 8 bytes: the first byte
 * without its continuation bit ends it, and the 7-bit groups are packed
 * together by three shift-and-mask steps.  The caller guarantees 8
 * readable bytes (RAW_PAD) and checks the cursor against the column's end.
 */
static inline const uint8_t *varint_unchecked(const uint8_t *p, uint64_t *v)
{
	uint64_t x = load64(p), stop = ~x & 0x8080808080808080ull;

	if (__builtin_expect(!stop, 0))
		return varint_long(p, v);
	x &= (stop ^ (stop - 1)) & 0x7f7f7f7f7f7f7f7full;
	x = (x & 0x007f007f007f007full) | (x & 0x7f007f007f007f00ull) >> 1;
	x = (x & 0x00003fff00003fffull) | (x & 0x3fff00003fff0000ull) >> 2;
	x = (x & 0x000000000fffffffull) | (x & 0x0fffffff00000000ull) >> 4;
	*v = x;
	return p + (__builtin_ctzll(stop) >> 3) + 1;
}

/*
 * varint_unchecked() for the common short varints: up to 4 bytes without a
 * branch on the length, in 32-bit steps (two packing steps instead of
 * three); a longer one goes to varint_long().  Same rules for the caller.
 */
static inline const uint8_t *varint4(const uint8_t *p, uint64_t *v)
{
	uint32_t x = load32(p), stop = ~x & 0x80808080u;

	if (__builtin_expect(!stop, 0))
		return varint_long(p, v);
	x &= (stop ^ (stop - 1)) & 0x7f7f7f7fu;
	x = (x & 0x007f007fu) | (x & 0x7f007f00u) >> 1;
	x = (x & 0x00003fffu) | (x & 0x3fff0000u) >> 2;
	*v = x;
	return p + (__builtin_ctz(stop) >> 3) + 1;
}

/*
 * The batch tally of ps_pgs_decode_fast(): per control byte, one in the 9-bit
 * field of the event's type (bits TALLY_BITS * type) and one in the field
 * after them for a failed allocation (mm_page_alloc without a pfn); nothing
 * for a type beyond PS_EV_KMEM_NR: the page-cache, LRU and reclaim events
 * (PS_PGS_C_XTYPE) are counted apart, and a type 6, which no file holds, is
 * given away by the fields' total.
 */
#define TALLY_BITS 9
#define TALLY_FIELD ((1u << TALLY_BITS) - 1)
#define TALLY_FAILED (PS_EV_KMEM_NR * TALLY_BITS)
_Static_assert(PGS_BATCH <= TALLY_FIELD && TALLY_FAILED + TALLY_BITS <= 64, "tally fields too small");
/* ps_pgs_decode_fast() fills migratetype..alloc_order and fallback_order..change_ownership 4 bytes at a time */
_Static_assert(offsetof(struct ps_event, alloc_order) == offsetof(struct ps_event, migratetype) + 3 &&
	       offsetof(struct ps_event, percpu_refill) == offsetof(struct ps_event, migratetype) + 1 &&
	       offsetof(struct ps_event, flags) == offsetof(struct ps_event, migratetype) + 2 &&
	       offsetof(struct ps_event, alloc_migratetype) == offsetof(struct ps_event, fallback_order) + 1 &&
	       offsetof(struct ps_event, fallback_migratetype) == offsetof(struct ps_event, fallback_order) + 2 &&
	       offsetof(struct ps_event, change_ownership) == offsetof(struct ps_event, fallback_order) + 3,
	       "struct ps_event layout");

/* The per-control-byte and per-aux-byte tables of ps_pgs_decode_fast(). */
void ps_pgs_fast_tables(struct pgs_state *st)
{
	for (int c = 0; c < 256; c++) {
		int type = c & PS_PGS_C_TYPE;

		st->tally[c] = type < PS_EV_KMEM_NR ? 1ull << (TALLY_BITS * type) : 0;
		st->type_word[c] = (uint64_t)type << 48;
		if (type == PS_EV_ALLOC && (c & PS_PGS_C_NOPFN))
			st->tally[c] += 1ull << TALLY_FAILED;
		/* gfp of mm_page_alloc and of extended events */
		st->gfp_mask[c] = (c & PS_PGS_C_EXT) || type == PS_EV_ALLOC ? 0xffffffffu : 0;
		/* migratetype, percpu_refill, flags, alloc_order of a compact aux byte */
		st->aux[c][0] = (uint8_t)mt_of((c & 0x0f) - 1);
		st->aux[c][1] = (c >> 4) & 1;
		st->aux[c][2] = c >> 5;
		st->aux[c][3] = 0;
	}
}

/*
 * Adds a batch to the reader's statistics as ps_reader_account() would one
 * event at a time: @tally from ps_pgs_decode_fast(), @xn the count of each
 * page-cache, LRU and reclaim event type (by type - PS_EV_KMEM_NR) when
 * @nx of them, @maxc the highest cpu of the batch, @tsor the OR of its
 * timestamp varints (zigzag deltas), @ts0 the timestamp before it and @ts
 * its last.
 */
static void account_fast(struct ps_reader *r, const struct pgs_state *st, int n, uint64_t tally,
			 const uint16_t *xn, int nx, unsigned int maxc, uint64_t tsor, uint64_t ts0, uint64_t ts)
{
	/* a delta of 2^55 or more, or a pfn that reads as none: one by one */
	if (__builtin_expect(tsor >> 56, 0)) {
		for (int i = 0; i < n; i++)
			ps_reader_account_inline(r, &st->batch[i]);
		return;
	}
	for (int t = 0; t < PS_EV_KMEM_NR; t++)
		r->stats.events[t] += (tally >> (TALLY_BITS * t)) & TALLY_FIELD;
	for (int t = 0; nx && t < PS_EV_NR - PS_EV_KMEM_NR; t++)
		r->stats.events[PS_EV_KMEM_NR + t] += xn[t];
	r->stats.alloc_failed += (tally >> TALLY_FAILED) & TALLY_FIELD;
	if ((int)maxc > r->stats.max_cpu)
		r->stats.max_cpu = maxc;
	/*
	 * No delta negative and each below 2^55, so that their sum cannot wrap
	 * twice, nor once when the last timestamp is not below the first: the
	 * batch is in order and only its first event can be older than the
	 * newest before it.
	 */
	if (__builtin_expect(!(tsor & 1) && ts >= ts0 &&
			     st->batch[0].ts_ns >= r->last_ts, 1)) {
		r->last_ts = ts;
		return;
	}
	for (int i = 0; i < n; i++) {
		uint64_t t = st->batch[i].ts_ns, last = r->last_ts;
		int older = t < last;

		r->stats.out_of_order += older;
		r->last_ts = older ? last : t;
	}
}

/*
 * pid, cpu, type and order lie together in struct ps_event: ps_pgs_decode_fast()
 * keeps pid and cpu in one word (pid_cpu()), takes type from a table by
 * control byte (type << 48) and stores the four with one store.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(offsetof(struct ps_event, cpu) == offsetof(struct ps_event, pid) + 4 &&
	       offsetof(struct ps_event, type) == offsetof(struct ps_event, pid) + 6 &&
	       offsetof(struct ps_event, order) == offsetof(struct ps_event, pid) + 7,
	       "struct ps_event layout");
#endif

static inline uint64_t pid_cpu(int32_t pid, unsigned int cpu)
{
	return (uint32_t)pid | (uint64_t)cpu << 32;
}

static inline void put_pid_cpu_type_order(struct ps_event *e, uint64_t w)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(&e->pid, &w, 8);
#else
	e->pid = (int32_t)(uint32_t)w;
	e->cpu = (uint16_t)(w >> 32);
	e->type = (uint8_t)(w >> 48);
	e->order = (uint8_t)(w >> 56);
#endif
}

/*
 * ps_pgs_decode_fast()'s page-cache, LRU or reclaim event @e: its type and fields
 * from the x columns (checked as they are read), the gfp column's word in
 * *@gm's place when its type carries one, its count in @xn.  0, or -1 on a
 * damaged record (ps_pgs_decode_batch() then names it).
 */
static inline int take_x(struct pgs_state *st, struct ps_event *e, uint32_t *gm, uint16_t *xn)
{
	if (ps_pgs_get_x(st->col, st->end, e, &st->xpred) < 0 || e->order > PS_MAX_PAGE_ORDER)
		return -1;
	if (ps_pgs_x_has_gfp(e->type))
		*gm = 0xffffffffu;
	xn[e->type - PS_EV_KMEM_NR]++;
	st->xslot[st->nxslot++] = e - st->batch;
	return 0;
}

/*
 * ps_pgs_decode_batch() without its per-field end checks, and with the reader's
 * accounting of the batch: the cursors are checked once at the end of the
 * batch, and anything unusual (a damaged record, a cpu beyond the per-cpu
 * state) sends the batch back to ps_pgs_decode_batch(), which knows every rule and
 * names the bad event.  The
 * predictors of the current cpu stay in registers; an event's fields are
 * stored a few bytes at a time, and its comm and task are left as they are (NULL, or
 * set by pgs_batch()).  Returns the count, or -2 when ps_pgs_decode_batch() must
 * redo the batch.
 */
int ps_pgs_decode_fast(struct ps_reader *r, struct pgs_state *st)
{
	/* fallback_order, alloc_migratetype, fallback_migratetype, change_ownership */
	static const uint8_t no_xf[4] = { 0, (uint8_t)PS_MT_UNKNOWN, (uint8_t)PS_MT_UNKNOWN, 0 };
	/*
	 * The cursors of every event in locals; those of the rare columns
	 * (cpu, pid, xf, ext) stay in st->col, which leaves the registers to
	 * the rest.
	 */
	const uint8_t *ctrl = st->col[PS_PGS_COL_CTRL], *tsc = st->col[PS_PGS_COL_TS];
	const uint8_t *pfnc = st->col[PS_PGS_COL_PFN], *ordc = st->col[PS_PGS_COL_ORDER];
	const uint8_t *auxc = st->col[PS_PGS_COL_AUX], *gfpc = st->col[PS_PGS_COL_GFP];
	uint64_t ts = st->prev_ts, pfn, v, tally = 0, tsor = 0, total, pidcpu, pmax = 0, tsmax = 0;
	unsigned int cpu = st->prev_cpu, maxc = cpu, omax = 0;
	int n = st->left < PGS_BATCH ? st->left : PGS_BATCH, nx = 0;
	struct ps_event *e = st->batch, *stop = e + n;
	uint16_t xn[PS_EV_NR - PS_EV_KMEM_NR] = { 0 };
	int32_t pid;

	if (cpu >= PS_PGS_MAX_CPU_STATE)
		return -2;
	clear_xslots(st);
	pid = st->pid[cpu];
	pfn = st->pfn[cpu];
	pidcpu = pid_cpu(pid, cpu);
	for (; e < stop; e++) {
		unsigned int c = *ctrl++, type = c & PS_PGS_C_TYPE;
		uint32_t gm = st->gfp_mask[c];
		const uint8_t *p;

		tally += st->tally[c];
		if (__builtin_expect(c & PS_PGS_C_CPU, 0)) {
			p = st->col[PS_PGS_COL_CPU];
			if (__builtin_expect(*p < 0x80, 1))	/* a cpu below 128 */
				v = *p++;
			else
				p = varint_unchecked(p, &v);
			if (!p || v >= PS_PGS_MAX_CPU_STATE)
				return -2;
			st->col[PS_PGS_COL_CPU] = p;
			st->pid[cpu] = pid;
			st->pfn[cpu] = pfn;
			cpu = v;
			maxc = cpu > maxc ? cpu : maxc;
			pid = st->pid[cpu];
			pfn = st->pfn[cpu];
			pidcpu = pid_cpu(pid, cpu);
		}
		if (__builtin_expect(c & PS_PGS_C_PID, 0)) {
			p = varint_unchecked(st->col[PS_PGS_COL_PID], &v);
			if (!p)
				return -2;
			st->col[PS_PGS_COL_PID] = p;
			pid = (int32_t)ps_unzigzag(v);
			pidcpu = pid_cpu(pid, cpu);
		}
		omax = *ordc > omax ? *ordc : omax;
		put_pid_cpu_type_order(e, pidcpu | st->type_word[c] | (uint64_t)*ordc++ << 56);
		if (__builtin_expect(!(c & PS_PGS_C_NOPFN), 1)) {
			/* pfns of one cpu are often near each other: one byte */
			if (__builtin_expect(*pfnc < 0x80, 1))
				v = *pfnc++;
			else if (!(pfnc = varint4(pfnc, &v)))
				return -2;
			pfn += (uint64_t)ps_unzigzag(v);
			pmax = pfn > pmax ? pfn : pmax;
			e->pfn = pfn;
		} else {
			e->pfn = PS_PFN_NONE;
		}
		/* most timestamp deltas take two bytes: those without varint4()'s packing */
		if (__builtin_expect((tsc[0] & 0x80) && !(tsc[1] & 0x80), 1)) {
			v = (tsc[0] & 0x7fu) | (uint64_t)tsc[1] << 7;
			tsc += 2;
		} else if (!(tsc = varint4(tsc, &v))) {
			return -2;
		}
		tsor |= v;
		ts += (uint64_t)ps_unzigzag(v);
		tsmax |= ts;
		e->ts_ns = ts;
		if (__builtin_expect(c & PS_PGS_C_EXT, 0)) {
			const uint8_t *x = st->col[PS_PGS_COL_EXT];

			e->flags = x[0];
			e->percpu_refill = x[1] != 0;
			e->migratetype = mt_of((int8_t)x[2]);
			e->alloc_order = x[3];
			e->fallback_order = x[4];
			e->alloc_migratetype = mt_of((int8_t)x[5]);
			e->fallback_migratetype = mt_of((int8_t)x[6]);
			e->change_ownership = x[7] != 0;
			st->col[PS_PGS_COL_EXT] = x + 8;
			if (type == PS_EV_EXTFRAG) {
				omax = x[3] > omax ? x[3] : omax;
				omax = x[4] > omax ? x[4] : omax;
			}
			if (type == PS_PGS_C_XTYPE && take_x(st, e, &gm, xn) < 0)
				return -2;
		} else {
			/* migratetype, percpu_refill, flags and alloc_order 0 */
			memcpy(&e->migratetype, st->aux[*auxc++], 4);
			/* extfrag, and the page-cache, LRU and reclaim events: no test of their own */
			if (__builtin_expect(type >= PS_EV_EXTFRAG, 0)) {
				const uint8_t *x = st->col[PS_PGS_COL_XF];

				if (type == PS_EV_EXTFRAG) {
					e->alloc_order = x[0];
					e->fallback_order = x[1];
					e->alloc_migratetype = mt_of((int8_t)x[2]);
					e->fallback_migratetype = mt_of((int8_t)x[3]);
					e->change_ownership = x[4] != 0;
					st->col[PS_PGS_COL_XF] = x + 5;
					omax = x[0] > omax ? x[0] : omax;
					omax = x[1] > omax ? x[1] : omax;
				} else {
					memcpy(&e->fallback_order, no_xf, 4);
					if (type != PS_PGS_C_XTYPE || take_x(st, e, &gm, xn) < 0)
						return -2;
				}
			} else {
				memcpy(&e->fallback_order, no_xf, 4);
			}
		}
		/* gfp of mm_page_alloc and of extended events, without a branch */
		e->gfp = load32(gfpc) & gm;
		gfpc += gm & 4;
	}
	for (int t = 0; t < PS_EV_NR - PS_EV_KMEM_NR; t++)
		nx += xn[t];
	total = nx;
	for (int t = 0; t < PS_EV_KMEM_NR; t++)
		total += (tally >> (TALLY_BITS * t)) & TALLY_FIELD;
	if (total != (uint64_t)n || omax > PS_MAX_PAGE_ORDER || tsmax > PS_EV_MAX_TS || tsc > st->end[PS_PGS_COL_TS] ||
	    st->col[PS_PGS_COL_CPU] > st->end[PS_PGS_COL_CPU] ||
	    st->col[PS_PGS_COL_PID] > st->end[PS_PGS_COL_PID] ||
	    pfnc > st->end[PS_PGS_COL_PFN] || auxc > st->end[PS_PGS_COL_AUX] ||
	    gfpc > st->end[PS_PGS_COL_GFP] || st->col[PS_PGS_COL_XF] > st->end[PS_PGS_COL_XF] ||
	    st->col[PS_PGS_COL_EXT] > st->end[PS_PGS_COL_EXT])
		return -2;
	/* a pfn that reads as none (the highest there is): the batch is accounted event by event */
	tsor |= (uint64_t)(pmax == PS_PFN_NONE) << 63;
	account_fast(r, st, n, tally, xn, nx, maxc, tsor, st->prev_ts, ts);
	st->pid[cpu] = pid;
	st->pfn[cpu] = pfn;
	st->col[PS_PGS_COL_CTRL] = ctrl;
	st->col[PS_PGS_COL_TS] = tsc;
	st->col[PS_PGS_COL_PFN] = pfnc;
	st->col[PS_PGS_COL_ORDER] = ordc;
	st->col[PS_PGS_COL_AUX] = auxc;
	st->col[PS_PGS_COL_GFP] = gfpc;
	st->prev_ts = ts;
	st->prev_cpu = cpu;
	st->left -= n;
	return n;
}
