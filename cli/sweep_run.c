// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sweep_run.c - a sweep's cells run here: each trace is read once per pass
 * (the engine's two: the start state, then the replay) and every batch of
 * events feeds all of that trace's cells, whose models are spread over up to
 * -j threads.  The reader's batches are copied into a small ring of chunks;
 * a worker takes whichever cell is furthest behind and feeds it one chunk,
 * and a chunk is refilled once every cell has passed it.  Pass 1 is the
 * same for the cells of one profile: the first of them reads it, the
 * others take a copy (ps_replay_prepass_copy).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/input.h"
#include "cli/policyopt.h"
#include "cli/sweep.h"

#define CHUNK_EVENTS 4096
#define NR_CHUNKS 8
#define COMM_LEN 16

/* ps_input_open, ps_out_* and the messages keep process-wide state: one thread at a time */
static pthread_mutex_t io_lock = PTHREAD_MUTEX_INITIALIZER;

struct chunk {
	struct ps_event ev[CHUNK_EVENTS];
	char comm[CHUNK_EVENTS][COMM_LEN];	/* the reader's comm strings live only until its next batch */
	int n;
	int refs;		/* workers yet to read it */
};

struct crun {
	struct sweep_cell *cell;
	struct ps_replay_opts ro;
	struct ps_replay *r;
	const struct ps_machine *m;	/* what r models */
	int leader;		/* the cell whose pass 1 this one copies, -1: its own */
	int failed;
	int written;		/* its counters are in its file */
	uint64_t seq;		/* the pass's next chunk for it */
	char msg[600];
	struct ps_kv kv;
};

struct group {
	struct sweep *s;
	int trace;
	int nr;
	struct crun *runs;
	int slots;		/* worker threads */
	int quiet, tty;		/* tty: a progress line to clear before a warning */
	/* the ring */
	pthread_mutex_t lock;
	pthread_cond_t more, room;
	struct chunk *chunks;
	uint64_t produced;
	int eof, pass;
	int complete;		/* the pass read the whole trace */
	int stop;		/* the pass failed to start: workers leave at once */
	int copying;		/* pass 2: workers yet to take their cells' copies of pass 1 */
	/*
	 * The cells no worker holds, ready for the pass (made, or started),
	 * by their next chunk, lowest first: a ring of indices into @runs.
	 * @left: the cells the pass has not ended for.
	 */
	int *runq, rq_head, rq_len, left;
	struct ps_input *in;	/* pass 2's: the reader's lost-event counts */
	/* progress */
	_Atomic uint64_t events_done;	/* pass 2: events times cells */
	_Atomic uint64_t trace_events;	/* known after pass 1 (0 before) */
	_Atomic int finished;
	int nr_failed;
	pthread_t thread;
};

struct worker {
	struct group *g;
	int w;
	pthread_t thread;
};

static _Atomic int cells_done;
static pthread_mutex_t done_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;

static void fail(struct crun *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void fail(struct crun *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed)
		return;
	c->failed = 1;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
}

/* The counters of @c to its file: the file is synced outside io_lock, so that workers sync theirs at once. */
static int write_cell(const struct sweep *s, const struct crun *c)
{
	struct ps_error err = { { 0 } };
	const struct sweep_cell *cell = c->cell;
	const struct sweep_trace *t = &s->traces[cell->trace];
	struct ps_out out;
	char *path = sweep_output_path(s, cell, 0);
	int ret;

	pthread_mutex_lock(&io_lock);
	if (!path || ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", path ? err.msg : "out of memory");
		pthread_mutex_unlock(&io_lock);
		free(path);
		return -1;
	}
	pthread_mutex_unlock(&io_lock);
	fprintf(out.f, "# pagesim %s sweep cell %s\n", PAGESIM_VERSION, cell->id);
	fprintf(out.f, "# trace %.160s sha256 %s\n", t->name, t->sha256);
	fprintf(out.f, "# mode %s\n", s->simulate ? "simulate" : "follow");
	fprintf(out.f, "# label %.200s\n", cell->label);
	for (int k = 0; k < ps_policyopt_nr_keys(); k++)
		fprintf(out.f, "# policy %s %s\n", ps_policyopt_key(k), cell->values[k]);
	ps_print_kv_vmstat(out.f, &c->kv);
	ps_out_sync(&out);	/* its failure is ps_out_commit()'s to report */
	pthread_mutex_lock(&io_lock);
	ret = ps_out_commit(&out, &err);
	if (ret < 0)
		ps_error("%s", err.msg);
	pthread_mutex_unlock(&io_lock);
	free(path);
	return ret;
}

/*
 * The cells of worker @w: dealt out in rows of one per worker, every
 * other row in reverse (0 1 1 0 0 1 ...), so that where the cost of a
 * cell follows an axis of the sweep (zone_reclaim_mode 0 and 1 taking
 * turns) each worker gets a share of both.
 */
static int cell_worker(const struct group *g, int i)
{
	int col = i % g->slots;

	return (i / g->slots) % 2 ? g->slots - 1 - col : col;
}

static int next_cell(const struct group *g, int w, int i)
{
	while (++i < g->nr && cell_worker(g, i) != w)
		;
	return i;
}

static int first_cell(const struct group *g, int w)
{
	return next_cell(g, w, -1);
}

/* Pass 1 for a cell that shares its leader's: a copy of it. */
static void copy_pass1(struct group *g, struct crun *c)
{
	const struct crun *l = c->leader >= 0 ? &g->runs[c->leader] : NULL;

	if (c->failed || !l)
		return;
	if (l->failed)
		fail(c, "pass 1 was to come from cell %s, which failed: %s", l->cell->id, l->msg);
	else if (!ps_replay_prepass_shares(l->r, c->r))
		fail(c, "pass 1 differs from cell %s's, whose copy it was to take", l->cell->id);
	else if (ps_replay_prepass_copy(c->r, l->r) < 0)
		fail(c, "%s", "out of memory");
}

/* Pass 2's events of chunk @ch through @c's model. */
static void replay_chunk(struct group *g, struct crun *c, const struct chunk *ch)
{
	for (int e = 0; e < ch->n; e++) {
		const struct ps_event *ev = &ch->ev[e];
		char msg[400], where[160];

		if (ps_replay_event(c->r, ev, msg, sizeof(msg)) < 0) {
			snprintf(where, sizeof(where), "%s pfn %#llx at %llu ns", ps_event_names[ev->type],
				 (unsigned long long)ev->pfn, (unsigned long long)ev->ts_ns);
			fail(c, "model invariant broken after %s: %s", where, msg);
			break;
		}
	}
	atomic_fetch_add(&g->events_done, (uint64_t)ch->n);
}

/* The counters, the model's memory back and the file of a cell pass 2 has ended for. */
static void finish_cell(struct group *g, struct crun *c)
{
	const struct ps_reader_stats *st = ps_reader_stats(g->in->reader);

	if (!c->failed && (ps_replay_counters(c->r, &c->kv) < 0 ||
			   ps_kv_set(&c->kv, "events_lost", (int64_t)(st->lost_events + st->lost_overwritten)) < 0))
		fail(c, "%s", "out of memory");
	ps_replay_destroy(c->r);
	c->r = NULL;
	if (!c->failed) {
		if (write_cell(g->s, c) < 0)
			fail(c, "cannot write the counters of cell %s", c->cell->id);
		else
			c->written = 1;
	}
	ps_kv_free(&c->kv);	/* written: freed here, while the other workers still replay */
}

/* Puts @c in the run queue: at its head (a cell just ready, at chunk 0), or at its tail. */
static void rq_push(struct group *g, struct crun *c, int head)
{
	int i = (int)(c - g->runs);

	if (head) {
		g->rq_head = (g->rq_head + g->nr - 1) % g->nr;
		g->runq[g->rq_head] = i;
	} else {
		g->runq[(g->rq_head + g->rq_len) % g->nr] = i;
	}
	g->rq_len++;
}

/*
 * The next work of the pass for any worker: the cell furthest behind that
 * no other worker holds, with a chunk to read or, once the trace has
 * ended, its finish (*@finish); NULL when every cell is done.  Any worker
 * takes any cell, one chunk at a time, so that none waits while cells
 * remain: the ring's oldest chunk is freed once the last cell has passed
 * it.  A cell goes back to the queue's tail one chunk further on, so the
 * queue stays in order of chunk, and its head is the one furthest behind.
 */
static struct crun *pick_cell(struct group *g, int *finish)
{
	struct crun *c = NULL;

	pthread_mutex_lock(&g->lock);
	while (!g->stop && g->left) {
		if (g->rq_len) {
			struct crun *h = &g->runs[g->runq[g->rq_head]];

			if (h->seq < g->produced || g->eof) {
				c = h;
				g->rq_head = (g->rq_head + 1) % g->nr;
				g->rq_len--;
				*finish = c->seq == g->produced;	/* and so the trace has ended */
				break;
			}
		}
		pthread_cond_wait(&g->more, &g->lock);
	}
	pthread_mutex_unlock(&g->lock);
	return c;
}

/* @c may be taken by any worker now: made (pass 1) or started (pass 2). */
static void cell_ready(struct group *g, struct crun *c)
{
	pthread_mutex_lock(&g->lock);
	rq_push(g, c, 1);
	pthread_cond_broadcast(&g->more);
	pthread_mutex_unlock(&g->lock);
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct group *g = wk->g;

	/* the models, each thread its own cells', then any cell made may be taken by any worker */
	for (int i = first_cell(g, wk->w); g->pass == 1 && i < g->nr; i = next_cell(g, wk->w, i)) {
		struct crun *c = &g->runs[i];
		char msg[512];

		if (!c->failed && !(c->r = ps_replay_create(c->m, &c->ro, msg, sizeof(msg))))
			fail(c, "%s", msg);
		cell_ready(g, c);
	}
	if (g->pass == 2) {
		/* pass 1's copies, then the start states: a leader's start frees what its copies are taken from */
		for (int i = first_cell(g, wk->w); i < g->nr; i = next_cell(g, wk->w, i))
			copy_pass1(g, &g->runs[i]);
		pthread_mutex_lock(&g->lock);
		if (--g->copying == 0)
			pthread_cond_broadcast(&g->more);
		while (g->copying > 0)
			pthread_cond_wait(&g->more, &g->lock);
		pthread_mutex_unlock(&g->lock);
		for (int i = first_cell(g, wk->w); i < g->nr; i = next_cell(g, wk->w, i)) {
			struct crun *c = &g->runs[i];
			char msg[400];

			if (!c->failed && ps_replay_start(c->r, msg, sizeof(msg)) < 0)
				fail(c, "initial state inconsistent: %s", msg);
			cell_ready(g, c);
		}
	}
	for (;;) {
		int finish;
		struct crun *c = pick_cell(g, &finish);
		struct chunk *ch;

		if (!c)
			break;
		if (finish) {
			/* the trace has ended for @c */
			if (g->pass == 2 && g->complete)
				finish_cell(g, c);
			pthread_mutex_lock(&g->lock);
			g->left--;
			pthread_cond_broadcast(&g->more);
			pthread_mutex_unlock(&g->lock);
			continue;
		}
		ch = &g->chunks[c->seq % NR_CHUNKS];
		if (!c->failed && g->pass == 1 && c->leader < 0)
			ps_replay_prepass(c->r, ch->ev, ch->n);
		else if (!c->failed && g->pass == 2)
			replay_chunk(g, c, ch);
		pthread_mutex_lock(&g->lock);
		c->seq++;
		rq_push(g, c, 0);
		if (--ch->refs == 0)
			pthread_cond_signal(&g->room);
		pthread_cond_broadcast(&g->more);
		pthread_mutex_unlock(&g->lock);
	}
	return NULL;
}

/* One pass over the trace: decodes here, the workers replay.  Returns the events read, or -1 (message in @msg). */
static int64_t run_pass(struct group *g, struct ps_input *in, int pass, char *msg, size_t len)
{
	struct worker wk[64];
	const struct ps_event *evs;
	struct ps_error err = { { 0 } };
	uint64_t seq = 0;
	int64_t total = 0;
	int rc, nw = g->slots;

	g->pass = pass;
	g->produced = 0;
	g->eof = 0;
	g->complete = 0;
	g->stop = 0;
	g->copying = nw;
	for (int i = 0; i < NR_CHUNKS; i++)
		g->chunks[i].refs = 0;
	for (int i = 0; i < g->nr; i++)
		g->runs[i].seq = 0;
	g->rq_head = g->rq_len = 0;
	g->left = g->nr;
	for (int w = 0; w < nw; w++) {
		wk[w].g = g;
		wk[w].w = w;
		if ((rc = pthread_create(&wk[w].thread, NULL, worker_main, &wk[w]))) {
			nw = w;
			break;
		}
	}
	if (nw < g->slots) {
		/* the pass fails: the workers that did start are told to stop */
		snprintf(msg, len, "cannot start threads: %s", strerror(rc));	/* pthread_create's error, not errno */
		pthread_mutex_lock(&g->lock);
		g->eof = 1;
		g->copying = 0;
		g->stop = 1;	/* the cells of the workers that did not start are never ready */
		pthread_cond_broadcast(&g->more);
		pthread_mutex_unlock(&g->lock);
		for (int w = 0; w < nw; w++)
			pthread_join(wk[w].thread, NULL);
		return -1;
	}
	for (;;) {
		struct chunk *ch = &g->chunks[seq % NR_CHUNKS];
		const char *last_src = NULL, *last_dst = NULL;

		pthread_mutex_lock(&g->lock);
		while (ch->refs > 0)
			pthread_cond_wait(&g->room, &g->lock);
		pthread_mutex_unlock(&g->lock);
		ch->n = 0;
		while (ch->n < CHUNK_EVENTS && (rc = ps_reader_next_batch(in->reader, &evs, &err)) > 0) {
			/* a batch may overrun the chunk: the rest waits in @evs for the next one */
			for (int i = 0; i < rc; i++) {
				struct ps_event *d;

				if (ch->n == CHUNK_EVENTS) {
					/* publish the full chunk and continue in the next */
					pthread_mutex_lock(&g->lock);
					ch->refs = g->nr;
					g->produced = ++seq;
					pthread_cond_broadcast(&g->more);
					ch = &g->chunks[seq % NR_CHUNKS];
					while (ch->refs > 0)
						pthread_cond_wait(&g->room, &g->lock);
					pthread_mutex_unlock(&g->lock);
					ch->n = 0;
					last_src = last_dst = NULL;
				}
				d = &ch->ev[ch->n];
				*d = evs[i];
				if (d->comm) {
					if (d->comm != last_src) {
						size_t l = strnlen(d->comm, COMM_LEN - 1);

						last_src = d->comm;
						memcpy(ch->comm[ch->n], d->comm, l);
						ch->comm[ch->n][l] = 0;
						last_dst = ch->comm[ch->n];
					}
					d->comm = last_dst;
				}
				ch->n++;
			}
			total += rc;
		}
		if (ch->n == 0 && rc <= 0)
			break;
		pthread_mutex_lock(&g->lock);
		ch->refs = g->nr;
		g->produced = ++seq;
		pthread_cond_broadcast(&g->more);
		pthread_mutex_unlock(&g->lock);
		if (rc <= 0)
			break;
	}
	pthread_mutex_lock(&g->lock);
	g->eof = 1;
	g->complete = rc == 0;
	pthread_cond_broadcast(&g->more);
	pthread_mutex_unlock(&g->lock);
	for (int w = 0; w < nw; w++)
		pthread_join(wk[w].thread, NULL);
	if (rc < 0) {
		snprintf(msg, len, "%s", err.msg);
		return -1;
	}
	return total;
}

static void write_err(const struct sweep *s, const struct crun *c)
{
	char *path;
	FILE *f;

	if (asprintf(&path, "%s/cells/%s.err", s->dir, c->cell->id) < 0)
		return;
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%s\n", c->msg);
		fclose(f);
	}
	free(path);
}

static void group_fail_all(struct group *g, const char *msg)
{
	for (int i = 0; i < g->nr; i++)
		fail(&g->runs[i], "%s", msg);
}

static void *group_main(void *arg)
{
	struct group *g = arg;
	struct sweep *s = g->s;
	const struct sweep_trace *t = &s->traces[g->trace];
	struct ps_input_opts io = { .trace = t->path, .quiet = 1 };
	struct ps_input in;
	char msg[600];
	int64_t n;
	int open = 0;

	g->chunks = calloc(NR_CHUNKS, sizeof(*g->chunks));
	g->runq = malloc(g->nr * sizeof(*g->runq));
	if (!g->chunks || !g->runq) {
		group_fail_all(g, "out of memory");
		goto out;
	}
	if (!t->verified) {
		/* an array task: the trace must be the one planned */
		char sha[65];
		struct ps_error err = { { 0 } };

		if (sweep_sha256_file(t->path, sha, NULL, &err) < 0) {
			group_fail_all(g, err.msg);
			goto out;
		}
		if (strcmp(sha, t->sha256)) {
			snprintf(msg, sizeof(msg), "%s has changed since the sweep was planned (sha256 %.16s..., the manifest has %.16s...): plan it again",
				 t->path, sha, t->sha256);
			group_fail_all(g, msg);
			goto out;
		}
	}
	if (s->simulate)
		io.reader_flags |= PS_RD_COMM;
	/* pass 1: the start state */
	pthread_mutex_lock(&io_lock);
	open = ps_input_open(&in, &io) == 0;
	pthread_mutex_unlock(&io_lock);
	if (!open) {
		snprintf(msg, sizeof(msg), "%s: cannot be read", t->path);
		group_fail_all(g, msg);
		goto out;
	}
	for (int i = 0; i < g->nr; i++) {
		struct crun *c = &g->runs[i];
		struct ps_error err = { { 0 } };

		c->leader = -1;
		memset(&c->ro, 0, sizeof(c->ro));
		ps_kv_init(&c->kv);
		if (ps_policyopt_args(&c->ro, "sweep", NULL, NULL, NULL, 0)) {
			fail(c, "%s", "bad policy");
			continue;
		}
		c->ro.mode = s->simulate ? PS_REPLAY_SIMULATE : PS_REPLAY_FOLLOW;
		for (int k = 0; k < PS_MAX_CPUS; k++)
			c->ro.cpu_node_map[k] = -1;
		for (int k = 0; k < ps_policyopt_nr_keys(); k++)
			if (ps_policyopt_set(&c->ro, ps_policyopt_key(k), c->cell->values[k], &err) < 0) {
				fail(c, "%s", err.msg);
				break;
			}
		if (c->failed)
			continue;
		if (ps_policyopt_recorded(&c->ro, &in, &err) < 0) {
			fail(c, "%s", err.msg);
			continue;
		}
		if (in.machine.assumed) {
			fail(c, "%s: no layout of the machine it was recorded on", t->path);
			continue;
		}
		c->m = &in.machine;	/* created by pass 1's workers */
		for (int j = 0; j < i && c->leader < 0; j++)
			if (!g->runs[j].failed && g->runs[j].leader < 0 &&
			    ps_replay_opts_share_prepass(&g->runs[j].ro, &c->ro))
				c->leader = j;
	}
	n = run_pass(g, &in, 1, msg, sizeof(msg));
	if (n < 0) {
		group_fail_all(g, msg);
		goto out;
	}
	atomic_store(&g->trace_events, (uint64_t)n ? (uint64_t)n : 1);
	pthread_mutex_lock(&io_lock);
	if (g->tty)
		fputs("\r\033[K", stderr);
	n = ps_input_report(&in, g->quiet, 0);
	pthread_mutex_unlock(&io_lock);
	if (n < 0) {
		snprintf(msg, sizeof(msg), "%s: truncated, or no kmem page event", t->path);
		group_fail_all(g, msg);
		goto out;
	}
	pthread_mutex_lock(&io_lock);
	ps_input_close(&in);
	io.reader_flags |= PS_RD_COMM;	/* kswapd.takeover and follow's ZONE_RECLAIM_ACTIVE need each event's task */
	open = ps_input_open(&in, &io) == 0;
	pthread_mutex_unlock(&io_lock);
	if (!open) {
		snprintf(msg, sizeof(msg), "%s: cannot be read again", t->path);
		group_fail_all(g, msg);
		goto out;
	}
	/* pass 2: the replay; each worker writes its cells' files */
	g->in = &in;
	if (run_pass(g, &in, 2, msg, sizeof(msg)) < 0)
		group_fail_all(g, msg);
out:
	for (int i = 0; i < g->nr; i++)
		if (!g->runs[i].failed && !g->runs[i].written)
			fail(&g->runs[i], "%s", "not replayed");	/* every cell that ran is written by its worker */
	pthread_mutex_lock(&io_lock);
	if (open)
		ps_input_close(&in);
	for (int i = 0; i < g->nr; i++) {
		struct crun *c = &g->runs[i];

		if (c->failed) {
			write_err(s, c);
			g->nr_failed++;
			ps_error("cell %s (%s, %s) failed: %s", c->cell->id, t->name, c->cell->label, c->msg);
		}
		ps_replay_destroy(c->r);
		c->r = NULL;
		ps_kv_free(&c->kv);
		atomic_fetch_add(&cells_done, 1);
	}
	pthread_mutex_unlock(&io_lock);
	free(g->chunks);
	g->chunks = NULL;
	free(g->runq);
	g->runq = NULL;
	pthread_mutex_lock(&done_lock);
	atomic_store(&g->finished, 1);
	pthread_cond_broadcast(&done_cond);
	pthread_mutex_unlock(&done_lock);
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(struct group *gs, int ng, int total, double t0, int last)
{
	double el = now_s() - t0, per_byte = 0, left = 0;
	uint64_t done = 0, known_bytes = 0, known_events = 0;
	int unknown = 0;
	char eta[32];

	for (int i = 0; i < ng; i++) {
		uint64_t te = atomic_load(&gs[i].trace_events);

		done += atomic_load(&gs[i].events_done);
		if (te) {
			known_events += te;
			known_bytes += gs[i].s->traces[gs[i].trace].bytes;
		}
	}
	if (known_bytes)
		per_byte = (double)known_events / known_bytes;
	for (int i = 0; i < ng; i++) {
		uint64_t te = atomic_load(&gs[i].trace_events);
		double work;

		if (!te && !per_byte) {
			unknown = 1;
			continue;
		}
		work = (te ? te : per_byte * gs[i].s->traces[gs[i].trace].bytes) * gs[i].nr;
		left += work;
	}
	left -= done;
	if (last)
		snprintf(eta, sizeof(eta), "done");
	else if (unknown || !done || el <= 0)
		snprintf(eta, sizeof(eta), "time left: ?");
	else
		snprintf(eta, sizeof(eta), "time left: %.0f s", left > 0 ? left / (done / el) + 0.5 : 0);
	fprintf(stderr, "\rpagesim sweep: %d/%d cells, %.1f M events/s, %s\033[K%s", atomic_load(&cells_done), total,
		el > 0 ? done / el / 1e6 : 0.0, eta, last ? "\n" : "");
}

int sweep_run(struct sweep *s, const int *which, int n, int jobs, int group_size, int quiet)
{
	struct group *gs = calloc(n ? n : 1, sizeof(*gs));
	int ng = 0, next = 0, free_slots = jobs, failed = 0, show = !quiet && isatty(2);
	double t0 = now_s(), last_print = 0;

	if (!gs)
		return -1;
	atomic_store(&cells_done, 0);
	/* groups: the cells of one trace in the order asked, at most @group_size each */
	for (int t = 0; t < s->nr_traces; t++) {
		struct group *g = NULL;

		for (int i = 0; i < n; i++) {
			struct sweep_cell *c = &s->cells[which[i]];
			char *err;

			if (c->trace != t)
				continue;
			if (!g || (group_size > 0 && g->nr == group_size)) {
				g = &gs[ng++];
				g->s = s;
				g->trace = t;
				g->quiet = quiet;
				g->tty = show;
				g->runs = calloc(n, sizeof(*g->runs));
				if (!g->runs)
					return -1;
				pthread_mutex_init(&g->lock, NULL);
				pthread_cond_init(&g->more, NULL);
				pthread_cond_init(&g->room, NULL);
			}
			g->runs[g->nr++].cell = c;
			if (asprintf(&err, "%s/cells/%s.err", s->dir, c->id) >= 0) {
				unlink(err);
				free(err);
			}
		}
	}
	pthread_mutex_lock(&done_lock);
	for (;;) {
		int active = 0, stuck = 0;

		while (next < ng && free_slots > 0) {
			struct group *g = &gs[next];

			g->slots = g->nr < free_slots ? g->nr : free_slots;
			if (g->slots > 64)
				g->slots = 64;
			free_slots -= g->slots;
			if (pthread_create(&g->thread, NULL, group_main, g)) {
				free_slots += g->slots;
				g->slots = 0;
				stuck = 1;
				break;
			}
			next++;
		}
		for (int i = 0; i < next; i++) {
			if (gs[i].slots && atomic_load(&gs[i].finished)) {
				pthread_mutex_unlock(&done_lock);
				pthread_join(gs[i].thread, NULL);
				pthread_mutex_lock(&done_lock);
				failed += gs[i].nr_failed;
				free_slots += gs[i].slots;
				gs[i].slots = 0;
				continue;
			}
			active += gs[i].slots > 0;
		}
		if (!active && next == ng)
			break;
		if (!active && stuck) {
			ps_error("cannot start a thread for the sweep");
			failed = -1;
			break;
		}
		if (show && now_s() - last_print >= 0.2) {
			progress(gs, ng, n, t0, 0);
			last_print = now_s();
		}
		{
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 200000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			pthread_cond_timedwait(&done_cond, &done_lock, &ts);
		}
	}
	pthread_mutex_unlock(&done_lock);
	if (show && failed >= 0)
		progress(gs, ng, n, t0, 1);
	for (int i = 0; i < ng; i++) {
		free(gs[i].runs);
		pthread_mutex_destroy(&gs[i].lock);
		pthread_cond_destroy(&gs[i].more);
		pthread_cond_destroy(&gs[i].room);
	}
	free(gs);
	return failed;
}
