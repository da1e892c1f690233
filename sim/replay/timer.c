// SPDX-License-Identifier: GPL-2.0-or-later
/* timer.c - the engine's timer queue (timer.h has the ordering contract). */
#include <stdint.h>
#include <string.h>

#include "sim/replay/timer.h"

static int before(const struct ps_timer *a, const struct ps_timer *b)
{
	if (a->at != b->at)
		return a->at < b->at;
	if (a->cls != b->cls)
		return a->cls < b->cls;
	return a->seq < b->seq;
}

static void place(struct ps_timers *t, uint32_t i, struct ps_timer e)
{
	t->heap[i] = e;
	t->pos[e.cls][e.arg] = (int16_t)i;
}

static void sift_up(struct ps_timers *t, uint32_t i)
{
	struct ps_timer e = t->heap[i];

	while (i > 0) {
		uint32_t p = (i - 1) / 2;

		if (!before(&e, &t->heap[p]))
			break;
		place(t, i, t->heap[p]);
		i = p;
	}
	place(t, i, e);
}

static void sift_down(struct ps_timers *t, uint32_t i)
{
	struct ps_timer e = t->heap[i];

	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= t->nr)
			break;
		if (c + 1 < t->nr && before(&t->heap[c + 1], &t->heap[c]))
			c++;
		if (!before(&t->heap[c], &e))
			break;
		place(t, i, t->heap[c]);
		i = c;
	}
	place(t, i, e);
}

static void note_next(struct ps_timers *t)
{
	t->next_at = t->nr ? t->heap[0].at : UINT64_MAX;
}

void ps_timers_init(struct ps_timers *t)
{
	t->nr = t->seq = 0;
	t->next_at = UINT64_MAX;
	memset(t->pos, 0xff, sizeof(t->pos));
}

static void remove_at(struct ps_timers *t, uint32_t i)
{
	struct ps_timer gone = t->heap[i];

	t->pos[gone.cls][gone.arg] = -1;
	if (--t->nr == i)
		return;
	place(t, i, t->heap[t->nr]);
	if (i > 0 && before(&t->heap[i], &t->heap[(i - 1) / 2]))
		sift_up(t, i);
	else
		sift_down(t, i);
}

void ps_timer_cancel(struct ps_timers *t, int cls, int arg)
{
	if (t->pos[cls][arg] >= 0) {
		remove_at(t, (uint32_t)t->pos[cls][arg]);
		note_next(t);
	}
}

void ps_timer_arm(struct ps_timers *t, int cls, int arg, uint64_t at)
{
	struct ps_timer e = { .at = at, .seq = t->seq++, .cls = (uint8_t)cls, .arg = (uint16_t)arg };

	ps_timer_cancel(t, cls, arg);
	place(t, t->nr++, e);
	sift_up(t, t->nr - 1);
	note_next(t);
}

struct ps_timer ps_timer_pop(struct ps_timers *t)
{
	struct ps_timer e = t->heap[0];

	remove_at(t, 0);
	note_next(t);
	return e;
}
