// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tracefs_rec.c - live recording of the page events (tracefs_rec.h).
 *
 * The instance uses the "mono" trace clock, so that its timestamps compare
 * with clock_gettime(CLOCK_MONOTONIC): an event stamped before a drain
 * started has been committed, and so read, by the end of that drain.  Each
 * drain reads every CPU's buffer (partial pages included) until it is
 * empty, queues the events per CPU, then writes out, merged by time, the
 * events stamped before the drain started; the rest wait for the next
 * drain.  Stopping turns tracing off and writes everything.
 */
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <traceevent/kbuffer.h>
#include <tracefs/tracefs.h>

#include "lib/kver.h"
#include "trace/sysroot.h"
#include "trace/tep_formats.h"
#include "trace/tep_kmem.h"
#include "trace/tracefs_rec.h"

struct cpu_queue {
	struct ps_event *ev;
	size_t head, tail, cap;
	uint64_t missed, markers, unknown;	/* from the pages' missed-event marks */
	uint64_t lost_stats;			/* overrun + commit overrun + dropped (stats file) */
	uint64_t bytes;
};

struct ps_rec {
	struct tracefs_instance *inst;
	char name[64];
	unsigned int events;		/* enabled PS_EV_* bits */
	unsigned int enabled;		/* ... that were switched on (to undo) */
	unsigned int missing;		/* asked for, not on this kernel */
	struct tep_handle *tep;
	struct ps_tep_kmem k;
	int have_k;
	struct kbuffer *kbuf;
	int nr_cpus;
	struct tracefs_cpu **tcpu;
	struct cpu_queue *q;
	void *page;
	int page_size;
	int kver;
	uint64_t events_read, bad;
	int stopped;
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int push(struct cpu_queue *q, const struct ps_event *ev)
{
	if (q->tail == q->cap) {
		if (q->head > q->cap / 2) {
			memmove(q->ev, q->ev + q->head, (q->tail - q->head) * sizeof(*q->ev));
			q->tail -= q->head;
			q->head = 0;
		} else {
			size_t cap = q->cap ? q->cap * 2 : 65536;
			struct ps_event *n = realloc(q->ev, cap * sizeof(*n));

			if (!n)
				return -1;
			q->ev = n;
			q->cap = cap;
		}
	}
	q->ev[q->tail++] = *ev;
	return 0;
}

const char *ps_rec_instance(const struct ps_rec *r)
{
	return r->name;
}

unsigned int ps_rec_missing(const struct ps_rec *r)
{
	return r->missing;
}

/* The event's system and name on this kernel (mm_vmscan_writepage before folios). */
static const char *event_name(const struct ps_rec *r, int t)
{
	return r->k.f[t].event ? r->k.f[t].event->name : ps_event_names[t];
}

/* Switches event @t of the instance on or off. */
static int event_enable(struct ps_rec *r, int t, int on)
{
	return on ? tracefs_event_enable(r->inst, ps_event_systems[t], event_name(r, t)) :
		    tracefs_event_disable(r->inst, ps_event_systems[t], event_name(r, t));
}

int ps_rec_check(struct ps_error *err)
{
	const char *dir;
	char path[4096];

	if (geteuid() != 0)
		return ps_err(err, "pagesim record needs root: tracefs instances and the kmem events are root's (run it with sudo)");
	dir = tracefs_tracing_dir();
	if (!dir)
		return ps_err(err, "tracefs is not mounted: mount it with 'mount -t tracefs nodev /sys/kernel/tracing' (kernel with CONFIG_FTRACE)");
	snprintf(path, sizeof(path), "%s/instances", dir);
	if (access(path, W_OK) != 0)
		return ps_err(err, "tracefs at %s is not writable (%s): pagesim records in its own instance under %s; remount tracefs read-write",
			      dir, strerror(errno), path);
	return 0;
}

static int write_file(struct ps_rec *r, const char *file, const char *val)
{
	return tracefs_instance_file_write(r->inst, file, val) < 0 ? -1 : 0;
}

/*
 * Removes the instances that a pagesim record killed with SIGKILL left
 * behind ("pagesim-<pid>" whose process is gone); pagesim alone makes them.
 */
static void remove_stale_instances(void)
{
	char **names = tracefs_instances("^pagesim-[0-9][0-9]*$");

	for (int i = 0; names && names[i]; i++) {
		int pid = atoi(names[i] + strlen("pagesim-"));
		struct tracefs_instance *inst;

		if (pid <= 0 || kill(pid, 0) == 0 || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, names[i]);
		if (inst && tracefs_instance_destroy(inst) == 0)
			fprintf(stderr, "pagesim: removed the tracefs instance %s left by a pagesim record that was killed\n",
				names[i]);
		tracefs_instance_free(inst);
	}
	tracefs_list_free(names);
}

struct ps_rec *ps_rec_start(const struct ps_rec_opts *o, struct ps_error *err)
{
	static const char *const systems[] = { "kmem", "filemap", "pagemap", "vmscan", NULL };
	unsigned int required = o->events ? o->required : PS_REC_KMEM_EVENTS;
	struct ps_rec *r;
	char release[128] = "";
	char *rel;

	if (ps_rec_check(err) < 0)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		ps_err(err, "out of memory");
		return NULL;
	}
	r->events = o->events ? o->events : PS_REC_ALL_EVENTS;
	rel = ps_read_file("/proc/sys/kernel/osrelease", NULL, NULL);
	if (rel) {
		snprintf(release, sizeof(release), "%s", rel);
		release[strcspn(release, "\n")] = 0;
		free(rel);
	}
	r->kver = ps_kver_parse(release);
	r->tep = tracefs_local_events_system(NULL, systems);
	if (!r->tep) {
		ps_err(err, "cannot read the event formats from tracefs (%s/events/kmem, ...): %s",
		       tracefs_tracing_dir(), strerror(errno));
		goto fail;
	}
	ps_tep_kmem_init(&r->k, r->tep);
	r->have_k = 1;
	for (int t = 0; t < PS_EV_NR; t++) {
		if (!(r->events & (1u << t)) || r->k.f[t].id >= 0)
			continue;
		if (required & (1u << t)) {
			ps_err(err, "the event %s:%s does not exist on this kernel (%s): leave it out with --events",
			       ps_event_systems[t], ps_event_names[t], release[0] ? release : "unknown release");
			goto fail;
		}
		r->missing |= 1u << t;
		r->events &= ~(1u << t);
	}
	if (!r->events) {
		ps_err(err, "none of the events asked for exists on this kernel (%s)", release[0] ? release : "unknown release");
		goto fail;
	}
	r->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	if (r->nr_cpus <= 0 || r->nr_cpus > PS_READER_MAX_CPUS) {
		ps_err(err, "cannot tell how many CPUs this machine has (%d)", r->nr_cpus);
		goto fail;
	}
	remove_stale_instances();
	snprintf(r->name, sizeof(r->name), "pagesim-%d", (int)getpid());
	if (tracefs_instance_exists(r->name)) {
		ps_err(err, "a tracefs instance named %s already exists: remove it with 'rmdir %s/instances/%s'",
		       r->name, tracefs_tracing_dir(), r->name);
		goto fail;
	}
	r->inst = tracefs_instance_create(r->name);
	if (!r->inst) {
		ps_err(err, "cannot create the tracefs instance %s/instances/%s: %s", tracefs_tracing_dir(), r->name,
		       strerror(errno));
		goto fail;
	}
	/* nothing runs until the events are enabled; keep it off while setting up */
	if (tracefs_trace_off(r->inst) < 0 || write_file(r, "trace_clock", "mono") < 0) {
		ps_err(err, "cannot set up the tracefs instance %s: %s", r->name, strerror(errno));
		goto fail;
	}
	if (o->buffer_kb > 0 && tracefs_instance_set_buffer_size(r->inst, o->buffer_kb, -1) < 0) {
		ps_err(err, "cannot set the ring buffer of %s to %d KiB per CPU: %s (try a smaller --buffer-kb)", r->name,
		       o->buffer_kb, strerror(errno));
		goto fail;
	}
	r->kbuf = kbuffer_alloc(KBUFFER_LSIZE_SAME_AS_HOST, KBUFFER_ENDIAN_SAME_AS_HOST);
	r->tcpu = calloc(r->nr_cpus, sizeof(*r->tcpu));
	r->q = calloc(r->nr_cpus, sizeof(*r->q));
	if (!r->kbuf || !r->tcpu || !r->q) {
		ps_err(err, "out of memory");
		goto fail;
	}
	for (int c = 0; c < r->nr_cpus; c++) {
		r->tcpu[c] = tracefs_cpu_open(r->inst, c, true);	/* NULL for an offline CPU */
		if (r->tcpu[c] && tracefs_cpu_read_size(r->tcpu[c]) > r->page_size)
			r->page_size = tracefs_cpu_read_size(r->tcpu[c]);
	}
	if (!r->page_size) {
		ps_err(err, "cannot open the per-CPU buffers of %s (%s/instances/%s/per_cpu/cpu*/trace_pipe_raw): %s",
		       r->name, tracefs_tracing_dir(), r->name, strerror(errno));
		goto fail;
	}
	r->page = malloc(r->page_size);
	if (!r->page) {
		ps_err(err, "out of memory");
		goto fail;
	}
	for (int t = 0; t < PS_EV_NR; t++) {
		if (!(r->events & (1u << t)))
			continue;
		if (event_enable(r, t, 1) < 0) {
			ps_err(err, "cannot enable %s:%s in %s: %s", ps_event_systems[t], event_name(r, t), r->name,
			       strerror(errno));
			goto fail;
		}
		r->enabled |= 1u << t;
	}
	return r;
fail:
	ps_rec_destroy(r);
	return NULL;
}

int ps_rec_on(struct ps_rec *r, struct ps_error *err)
{
	if (tracefs_trace_on(r->inst) < 0)
		return ps_err(err, "cannot switch tracing on in %s: %s", r->name, strerror(errno));
	return 0;
}

void ps_rec_off(struct ps_rec *r)
{
	tracefs_trace_off(r->inst);
	for (int t = 0; t < PS_EV_NR; t++)
		if (r->enabled & (1u << t))
			event_enable(r, t, 0);
	r->enabled = 0;
}

int ps_rec_write_formats(struct ps_rec *r, struct ps_pgs_writer *w, struct ps_error *err)
{
	char name[128];

	for (int t = 0; t < PS_EV_NR; t++) {
		int size = 0;
		char *text;

		if (!(r->events & (1u << t)))
			continue;
		text = tracefs_event_file_read(NULL, ps_event_systems[t], event_name(r, t), "format", &size);
		if (!text)
			continue;
		snprintf(name, sizeof(name), "format/%s/%s", ps_event_systems[t], event_name(r, t));
		if (ps_pgs_write_blob(w, name, text, size, err) < 0) {
			free(text);
			return -1;
		}
		free(text);
	}
	return 0;
}

/* Decodes one ring-buffer page of @cpu into its queue. */
static int decode_page(struct ps_rec *r, int cpu, int len, struct ps_error *err)
{
	struct cpu_queue *q = &r->q[cpu];
	unsigned long long ts;
	struct ps_event ev;
	void *data;
	int missed;

	q->bytes += len;
	if (kbuffer_load_subbuffer(r->kbuf, r->page) < 0)
		return 0;
	missed = kbuffer_missed_events(r->kbuf);
	if (missed) {
		q->markers++;
		if (missed > 0)
			q->missed += missed;
		else
			q->unknown++;
	}
	for (data = kbuffer_read_event(r->kbuf, &ts); data; data = kbuffer_next_event(r->kbuf, &ts)) {
		struct tep_record rec = { .ts = ts, .cpu = cpu, .data = data, .size = kbuffer_event_size(r->kbuf) };
		int type = ps_tep_kmem_type(&r->k, tep_data_type(r->tep, &rec)), from_page;

		if (type < 0 || ps_tep_kmem_fill(&r->k, type, &rec, r->kver, &ev, &from_page) < 0) {
			r->bad++;
			continue;
		}
		if (push(q, &ev) < 0)
			return ps_err(err, "out of memory queueing the events of CPU %d", cpu);
		r->events_read++;
	}
	return 0;
}

/* Reads every CPU's buffer until it is empty; returns events read or -1. */
static long drain(struct ps_rec *r, struct ps_error *err)
{
	uint64_t before = r->events_read;

	for (int c = 0; c < r->nr_cpus; c++) {
		if (!r->tcpu[c])
			continue;
		for (int pages = 0; pages < 4096; pages++) {
			int n = tracefs_cpu_read(r->tcpu[c], r->page, true);

			if (n <= 0)
				break;
			if (decode_page(r, c, n, err) < 0)
				return -1;
		}
	}
	return r->events_read - before;
}

/* Writes, merged by time, the queued events stamped before @limit. */
static int emit(struct ps_rec *r, struct ps_pgs_writer *w, uint64_t limit, struct ps_error *err)
{
	for (;;) {
		int best = -1;
		uint64_t best_ts = limit;

		for (int c = 0; c < r->nr_cpus; c++) {
			struct cpu_queue *q = &r->q[c];

			if (q->head < q->tail && q->ev[q->head].ts_ns < best_ts) {
				best = c;
				best_ts = q->ev[q->head].ts_ns;
			}
		}
		if (best < 0)
			return 0;
		if (ps_pgs_write_event(w, &r->q[best].ev[r->q[best].head++], err) < 0)
			return -1;
		if (r->q[best].head == r->q[best].tail)
			r->q[best].head = r->q[best].tail = 0;
	}
}

long ps_rec_poll(struct ps_rec *r, struct ps_pgs_writer *w, struct ps_error *err)
{
	uint64_t start = mono_ns();
	long n = drain(r, err);

	if (n < 0)
		return -1;
	/* events stamped before the drain started were all committed, so read */
	if (emit(r, w, start > 1000000 ? start - 1000000 : 0, err) < 0)
		return -1;
	return n;
}

/* overrun + commit overrun + dropped events of a CPU's stats file. */
static uint64_t cpu_stats_lost(struct ps_rec *r, int cpu)
{
	char file[64], *text, *p;
	uint64_t lost = 0;

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(r->inst, file, NULL);
	if (!text)
		return 0;
	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		unsigned long long v;

		if (sscanf(p, "overrun: %llu", &v) == 1 || sscanf(p, "commit overrun: %llu", &v) == 1 ||
		    sscanf(p, "dropped events: %llu", &v) == 1)
			lost += v;
	}
	free(text);
	return lost;
}

void ps_rec_progress(struct ps_rec *r, struct ps_rec_progress *p)
{
	memset(p, 0, sizeof(*p));
	p->events = r->events_read;
	for (int c = 0; c < r->nr_cpus; c++) {
		uint64_t s = r->stopped ? r->q[c].lost_stats : cpu_stats_lost(r, c);

		p->lost += s > r->q[c].missed ? s : r->q[c].missed;
		p->bytes += r->q[c].bytes;
	}
}

int ps_rec_stop(struct ps_rec *r, struct ps_pgs_writer *w, struct ps_error *err)
{
	long n;

	ps_rec_off(r);
	do {
		n = drain(r, err);
		if (n < 0)
			return -1;
	} while (n > 0);
	if (emit(r, w, UINT64_MAX, err) < 0)
		return -1;
	for (int c = 0; c < r->nr_cpus; c++) {
		struct cpu_queue *q = &r->q[c];

		if (!r->tcpu[c])
			continue;
		q->lost_stats = cpu_stats_lost(r, c);
		ps_pgs_set_cpu_lost(w, c, q->lost_stats, q->missed, q->markers, q->unknown);
	}
	ps_pgs_set_nr_cpus(w, r->nr_cpus);
	r->stopped = 1;
	return 0;
}

int ps_rec_lost(const struct ps_rec *r, uint64_t *lost, int max)
{
	for (int c = 0; c < r->nr_cpus && c < max; c++)
		lost[c] = r->q[c].lost_stats > r->q[c].missed ? r->q[c].lost_stats : r->q[c].missed;
	return r->nr_cpus;
}

void ps_rec_destroy(struct ps_rec *r)
{
	if (!r)
		return;
	if (r->inst) {
		tracefs_trace_off(r->inst);
		for (int t = 0; t < PS_EV_NR; t++)
			if (r->enabled & (1u << t))
				event_enable(r, t, 0);
	}
	for (int c = 0; r->tcpu && c < r->nr_cpus; c++)
		if (r->tcpu[c])
			tracefs_cpu_close(r->tcpu[c]);
	if (r->inst) {
		tracefs_instance_destroy(r->inst);
		tracefs_instance_free(r->inst);
	}
	for (int c = 0; r->q && c < r->nr_cpus; c++)
		free(r->q[c].ev);
	free(r->q);
	free(r->tcpu);
	free(r->page);
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	if (r->have_k)
		ps_tep_kmem_free(&r->k);
	if (r->tep) {
		ps_tep_forget(r->tep);
		tep_free(r->tep);
	}
	free(r);
}

static int snap(struct ps_pgs_writer *w, const char *prefix, const char *rel, struct ps_error *err)
{
	char path[512], name[512];
	size_t len;
	char *text;
	int ret;

	if (snprintf(path, sizeof(path), "/%s", rel) >= (int)sizeof(path) ||
	    snprintf(name, sizeof(name), "%s/%s", prefix, rel) >= (int)sizeof(name))
		return ps_err(err, "snapshot path too long: %s/%s", prefix, rel);
	text = ps_read_file(path, &len, NULL);
	if (!text)
		return 0;	/* absent on this kernel, or write-only (drop_caches) */
	ret = ps_pgs_write_blob(w, name, text, len, err);
	free(text);
	return ret < 0 ? -1 : 1;
}

/*
 * Calls @fn with every entry of directory /@rel_dir (with @names: the files
 * @names of each nodeN entry, sys/devices/system/node/nodeN/...), relative
 * to /.  Returns the sum of what @fn returned, or -1 when it returned -1.
 */
static int for_each_entry(const char *rel_dir, const char *const *names, size_t nr,
			  int (*fn)(void *ctx, const char *rel), void *ctx)
{
	char path[512], rel[512];
	struct dirent *d;
	DIR *dir;
	int n = 0, r;

	snprintf(path, sizeof(path), "/%s", rel_dir);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.' ||
		    (names && (strncmp(d->d_name, "node", 4) || d->d_name[4] < '0' || d->d_name[4] > '9')))
			continue;
		for (size_t i = 0; i < (names ? nr : 1); i++) {
			if (names)
				snprintf(rel, sizeof(rel), "%s/%s/%s", rel_dir, d->d_name, names[i]);
			else
				snprintf(rel, sizeof(rel), "%s/%s", rel_dir, d->d_name);
			if ((r = fn(ctx, rel)) < 0) {
				closedir(dir);
				return -1;
			}
			n += r;
		}
	}
	if (dir)
		closedir(dir);
	return n;
}

struct snap_ctx {
	struct ps_pgs_writer *w;
	const char *prefix;
	struct ps_error *err;
};

static int snap_one(void *ctx, const char *rel)
{
	struct snap_ctx *s = ctx;

	return snap(s->w, s->prefix, rel, s->err);
}

static int counters_add(void *ctx, const char *rel)
{
	struct ps_rec_counters *c = ctx;
	char path[512];

	if (c->nr == PS_REC_MAX_COUNTER_FILES || snprintf(path, sizeof(path), "/%s", rel) >= (int)sizeof(path))
		return 0;
	c->text[c->nr] = ps_read_file(path, &c->len[c->nr], NULL);
	if (!c->text[c->nr])
		return 0;	/* absent on this kernel */
	if (!(c->rel[c->nr] = strdup(rel))) {
		free(c->text[c->nr]);
		return -1;
	}
	c->nr++;
	return 0;
}

int ps_rec_read_counters(struct ps_rec_counters *c, int vmstat_first, struct ps_error *err)
{
	static const char *const node_files[] = { "numastat", "vmstat" };

	memset(c, 0, sizeof(*c));
	if ((vmstat_first && counters_add(c, "proc/vmstat") < 0) ||
	    for_each_entry("sys/devices/system/node", node_files, 2, counters_add, c) < 0 ||
	    (!vmstat_first && counters_add(c, "proc/vmstat") < 0))
		goto oom;
	return 0;
oom:
	ps_rec_counters_free(c);
	return ps_err(err, "out of memory");
}

int ps_rec_write_counters(struct ps_pgs_writer *w, const char *prefix, struct ps_rec_counters *c,
			  struct ps_error *err)
{
	char name[600];
	int ret = 0;

	for (int i = 0; i < c->nr && !ret; i++) {
		snprintf(name, sizeof(name), "%s/%s", prefix, c->rel[i]);
		ret = ps_pgs_write_blob(w, name, c->text[i], c->len[i], err) < 0 ? -1 : 0;
	}
	ps_rec_counters_free(c);
	return ret;
}

void ps_rec_counters_free(struct ps_rec_counters *c)
{
	for (int i = 0; i < c->nr; i++) {
		free(c->text[i]);
		free(c->rel[i]);
	}
	c->nr = 0;
}

int ps_rec_snapshot_buffers(const struct ps_rec *r, struct ps_pgs_writer *w, const char *prefix,
			    struct ps_error *err)
{
	char file[64], name[512];
	int n = 0;

	for (int cpu = 0; cpu < r->nr_cpus; cpu++) {
		int size = 0, ret;
		char *text;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/buffer_size_kb", cpu);
		text = tracefs_instance_file_read(r->inst, file, &size);
		if (!text)
			continue;	/* an offline CPU has no buffer file */
		if (snprintf(name, sizeof(name), "%s/sys/kernel/tracing/%s", prefix, file) >= (int)sizeof(name)) {
			free(text);
			return ps_err(err, "snapshot path too long: %s/sys/kernel/tracing/%s", prefix, file);
		}
		ret = ps_pgs_write_blob(w, name, text, (size_t)(size > 0 ? size : 0), err);
		free(text);
		if (ret < 0)
			return -1;
		n++;
	}
	return n;
}

int ps_rec_snapshot(struct ps_pgs_writer *w, const char *prefix, struct ps_error *err)
{
	static const char *const proc[] = { "proc/zoneinfo", "proc/pagetypeinfo", "proc/buddyinfo",
					    "proc/meminfo", "proc/sys/kernel/osrelease",
					    "sys/devices/system/node/online", "sys/devices/system/node/possible",
					    /* multi-generational LRU on or off: reclaim's rules differ */
					    "sys/kernel/mm/lru_gen/enabled" };
	static const char *const node_files[] = { "cpulist", "distance", "meminfo" };
	struct snap_ctx ctx = { w, prefix, err };
	int n = 0, r;

	for (size_t i = 0; i < sizeof(proc) / sizeof(proc[0]); i++) {
		if ((r = snap(w, prefix, proc[i], err)) < 0)
			return -1;
		n += r;
	}
	if ((r = for_each_entry("proc/sys/vm", NULL, 0, snap_one, &ctx)) < 0)
		return -1;
	n += r;
	if ((r = for_each_entry("sys/devices/system/node", node_files, sizeof(node_files) / sizeof(node_files[0]),
				snap_one, &ctx)) < 0)
		return -1;
	n += r;
	return n;
}
