// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_record.c - pagesim record: the page events of this machine (kmem, and
 * the page-cache, LRU and reclaim events), with its layout and counters
 * before and after, into one pagesim file.
 *
 * Recording runs in pagesim's own tracefs instance (trace/tracefs_rec.c).
 * SIGINT, SIGTERM and SIGHUP only set a flag: the loop then stops, and the
 * one exit path turns the events off and removes the instance.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "trace/pgs.h"
#include "trace/sysroot.h"
#include "cli/pass1.h"
#include "trace/tracefs_rec.h"
#include "cli/cli.h"

static const char record_usage[] =
	"usage: pagesim record -o FILE [OPTIONS] [-- COMMAND [ARGS...]]\n"
	"\n"
	"Records the page events of this machine into a pagesim file: the kmem page\n"
	"allocator's, and the page-cache, LRU and reclaim events (filemap, pagemap,\n"
	"vmscan) where the kernel has them; with the machine's layout and counters\n"
	"before and after (zoneinfo, pagetypeinfo, buddyinfo, vmstat, meminfo,\n"
	"/proc/sys/vm, lru_gen, node cpulists, distances, numastat, per-node vmstat),\n"
	"so that 'pagesim stat FILE' and 'pagesim stat --check FILE' work\n"
	"anywhere.  With COMMAND, records while it runs and stops when it exits;\n"
	"otherwise until --duration ends or SIGINT (Ctrl-C) or SIGTERM.  Uses its own\n"
	"tracefs instance (pagesim-<pid>), removed at the end; needs root.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE    the pagesim file (written as FILE.tmp.* and renamed at the end)\n"
	"  -d, --duration SECS  stop after SECS seconds (COMMAND, if still running, gets SIGTERM)\n"
	"  -b, --buffer-kb N    ring buffer per CPU in KiB (default: 1/64 of memory spread over the\n"
	"                       CPUs, between 4 MiB and 128 MiB per CPU)\n"
	"  -e, --events LIST    comma-separated systems (kmem, filemap, pagemap, vmscan: all of\n"
	"                       their events pagesim reads) and events (mm_page_alloc,\n"
	"                       vmscan:mm_vmscan_lru_isolate, ...; pagesim-record(1) lists them),\n"
	"                       each of which must exist; default: all four systems, the events\n"
	"                       this kernel lacks left out (the six kmem events must exist)\n"
	"  -q, --quiet          no progress line and no summary\n"
	"  -h, --help           this text\n"
	"  --version            pagesim's version\n"
	"\n"
	"exit status: with COMMAND, the command's own status (128+N if signal N killed it;\n"
	"127 if it was not found and 126 if it could not be run, and then nothing is written),\n"
	"or 0 if pagesim stopped it (--duration, SIGINT, SIGTERM, SIGHUP); 1 failure (not\n"
	"root, no writable tracefs, an event missing on this kernel, a write error), 2 bad usage\n";

static const struct option record_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "duration", required_argument, NULL, 'd' },
	{ "buffer-kb", required_argument, NULL, 'b' },
	{ "events", required_argument, NULL, 'e' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * "kmem,vmscan:mm_vmscan_lru_isolate,mm_lru_insertion" -> PS_EV_* bits to
 * record (*@bits) and the ones that must exist (*@required): a system's
 * events are recorded where the kernel has them, unless none of them
 * exists; an event named on its own must exist.  -1 on an unknown name.
 */
static int parse_events(const char *list, unsigned int *bits, unsigned int *required, char *bad, size_t badlen)
{
	char *copy = strdup(list), *tok, *save = NULL;

	*bits = *required = 0;
	if (!copy)
		return -1;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		unsigned int group = 0;
		int t;

		for (t = 0; t < PS_EV_NR && !colon; t++)
			if (!strcmp(tok, ps_event_systems[t]))
				group |= 1u << t;
		if (group) {
			*bits |= group;
			continue;
		}
		t = ps_event_type_from_name(colon ? colon + 1 : tok, strlen(colon ? colon + 1 : tok));
		if (t < 0 && !strcmp(colon ? colon + 1 : tok, "mm_vmscan_writepage"))
			t = PS_EV_WRITE_FOLIO;	/* its name before folios */
		if (t < 0 || (colon && ((size_t)(colon - tok) != strlen(ps_event_systems[t]) ||
					strncmp(tok, ps_event_systems[t], colon - tok)))) {
			snprintf(bad, badlen, "%s", tok);
			free(copy);
			return -1;
		}
		*bits |= 1u << t;
		*required |= 1u << t;
	}
	free(copy);
	return *bits ? 0 : -1;
}

static void machine_facts(struct ps_pgs_meta *m, char *release, size_t len)
{
	char *text = ps_read_file("/proc/sys/kernel/osrelease", NULL, NULL);
	const char *p;

	release[0] = 0;
	if (text) {
		snprintf(release, len, "%s", text);
		release[strcspn(release, "\n")] = 0;
		free(text);
	}
	m->kernel_release = release;
	m->page_size = sysconf(_SC_PAGESIZE);
	m->nr_cpus = sysconf(_SC_NPROCESSORS_CONF);
	m->pageblock_order = -1;
	text = ps_read_file("/proc/pagetypeinfo", NULL, NULL);
	if (text && (p = strstr(text, "Page block order:")))
		m->pageblock_order = atoi(p + strlen("Page block order:"));
	free(text);
	m->source = "tracefs";
	m->flags = PS_PGS_F_RECORDED;
}

static void progress(struct ps_rec *rec, struct ps_pgs_writer *w, double t0, double *last, uint64_t *last_ev,
		     int final)
{
	struct ps_rec_progress p;
	double t = now_s();

	ps_rec_progress(rec, &p);
	fprintf(stderr, "\rpagesim record: %6.1f s  %10llu events  %9.0f events/s  %8.1f MiB written  lost %llu%s",
		t - t0, (unsigned long long)p.events, t > *last ? (p.events - *last_ev) / (t - *last) : 0.0,
		ps_pgs_bytes(w) / 1048576.0, (unsigned long long)p.lost, final ? "\n" : "   ");
	*last = t;
	*last_ev = p.events;
}

/*
 * The default per-CPU ring buffer: a new tracefs instance gets the kernel's
 * default size (1.4 MiB, or what trace_buf_size= set at boot: 7 KiB on some
 * guests), which a page-cache workload on two CPUs overruns in well under a
 * second.  1/64 of memory over the online CPUs, clamped to 4..128 MiB.
 */
static int default_buffer_kb(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE), cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long kb;

	if (pages <= 0 || psize <= 0 || cpus <= 0)
		return 4096;
	kb = pages / 64 * (psize / 1024) / cpus;
	if (kb < 4096)
		kb = 4096;
	if (kb > 131072)
		kb = 131072;
	return (int)kb;
}

int cmd_record(int argc, char **argv)
{
	struct ps_rec_opts ro = { 0 };
	struct ps_pgs_meta meta = { 0 };
	struct ps_error err = { { 0 } };
	struct ps_out out = { 0 };
	struct ps_pgs_writer *w = NULL;
	static struct ps_machine machine;
	struct ps_pass1_summary *sum = NULL;
	struct ps_rec *rec = NULL;
	struct ps_rec_counters counters = { 0 };
	struct sigaction sa = { 0 }, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	const char *output = NULL;
	char release[128], bad[64] = "", *end;
	double duration = 0, t0, last_flush, last_prog, deadline;
	uint64_t last_ev = 0, lost[PS_READER_MAX_CPUS];
	int quiet = 0, opt, ret = PS_EXIT_FAIL, tty, child_status = 0, child_done = 0, nr;
	pid_t child = -1;
	const char *why = "stopped";

	optind = 1;
	while ((opt = ps_getopt("record", argc, argv, "+o:d:b:e:qh", record_options)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case 'd':
			duration = strtod(optarg, &end);
			if (*end || !(duration > 0))
				return ps_usage_error("record", "--duration must be a number of seconds above 0, not '%s'",
						      optarg);
			break;
		case 'b':
			ro.buffer_kb = strtol(optarg, &end, 10);
			if (*end || ro.buffer_kb < 4 || ro.buffer_kb > (1 << 22))
				return ps_usage_error("record", "--buffer-kb must be 4 to 4194304 KiB, not '%s'", optarg);
			break;
		case 'e':
			if (parse_events(optarg, &ro.events, &ro.required, bad, sizeof(bad)) < 0)
				return ps_usage_error("record", "--events: '%s' is neither one of the systems kmem, filemap, pagemap, vmscan nor an event of theirs that pagesim reads (pagesim-record(1) lists them)",
						      bad[0] ? bad : optarg);
			break;
		case 'q': quiet = 1; break;
		case 'h': fputs(record_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		default: return PS_EXIT_USAGE;
		}
	}
	if (!output)
		return ps_usage_error("record", "missing -o FILE");
	if (!strcmp(output, "-"))
		return ps_usage_error("record", "-o needs a file (a pagesim file's header is completed at the end)");
	if (ps_rec_check(&err) < 0) {
		ps_error("%s", err.msg);
		return PS_EXIT_FAIL;
	}
	tty = !quiet && isatty(STDERR_FILENO);

	/* signals only set a flag from here on: every exit goes through the cleanup below */
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);

	machine_facts(&meta, release, sizeof(release));
	if (ps_out_open(&out, output, &err) < 0)
		goto fail;
	w = ps_pgs_writer_open(out.f, output, &meta, &err);
	if (!w)
		goto fail;
	if (!ro.buffer_kb)
		ro.buffer_kb = default_buffer_kb();
	/*
	 * The kernel's counters are snapshot just around the traced window:
	 * the ring buffer's pages (sized in ps_rec_start, 2 x 128 MiB on a
	 * 24 GiB machine) before, the drain of what it holds after.
	 */
	rec = ps_rec_start(&ro, &err);
	if (!rec || ps_rec_write_formats(rec, w, &err) < 0 || ps_pgs_flush(w, &err) < 0 ||
	    ps_rec_snapshot(w, "before", &err) < 0 || ps_rec_snapshot_buffers(rec, w, "before", &err) < 0 ||
	    ps_rec_read_counters(&counters, 0, &err) < 0)
		goto fail;
	if (ps_rec_on(rec, &err) < 0 || ps_rec_write_counters(w, "before", &counters, &err) < 0)
		goto fail;
	{
		/* the pass-1 summary replay reads instead of a first pass (none if the layout cannot be read) */
		struct ps_error merr = { { 0 } };

		if (ps_sysroot_load_machine("/", &machine, &merr) == 0)
			sum = ps_pass1_attach(w, &machine);
	}
	t0 = last_flush = last_prog = now_s();
	deadline = duration > 0 ? t0 + duration : 0;
	if (optind < argc) {
		int pfd[2], e = 0;
		ssize_t n;

		/* the child reports a failed exec through a close-on-exec pipe: EOF means it ran */
		if (pipe2(pfd, O_CLOEXEC) < 0) {
			ps_err(&err, "cannot start '%s': %s", argv[optind], strerror(errno));
			goto fail;
		}
		child = fork();
		if (child < 0) {
			ps_err(&err, "cannot start '%s': %s", argv[optind], strerror(errno));
			close(pfd[0]);
			close(pfd[1]);
			goto fail;
		}
		if (child == 0) {
			for (int i = 0; i < 3; i++)
				sigaction(sigs[i], &old[i], NULL);
			close(pfd[0]);
			execvp(argv[optind], argv + optind);
			e = errno;
			if (write(pfd[1], &e, sizeof(e)) < 0)
				_exit(127);
			_exit(127);
		}
		close(pfd[1]);
		do
			n = read(pfd[0], &e, sizeof(e));
		while (n < 0 && errno == EINTR);
		close(pfd[0]);
		if (n == sizeof(e)) {
			waitpid(child, NULL, 0);
			child_done = 1;
			/* the shell's statuses: 127 not found, 126 found but not runnable */
			ret = e == ENOENT || e == ENOTDIR ? 127 : 126;
			ps_err(&err, "cannot run '%s': %s; nothing was written", argv[optind], strerror(e));
			goto fail;
		}
	}
	if (!quiet && ps_rec_missing(rec)) {
		/* a system's events this kernel lacks (node reclaim without NUMA, ...) */
		fprintf(stderr, "pagesim: this kernel has no");
		for (int t = 0, n = 0; t < PS_EV_NR; t++)
			if (ps_rec_missing(rec) & (1u << t))
				fprintf(stderr, "%s %s:%s", n++ ? "," : "", ps_event_systems[t], ps_event_names[t]);
		fprintf(stderr, ": recording without\n");
	}
	if (!quiet)
		fprintf(stderr, "pagesim: recording in tracefs instance %s%s\n", ps_rec_instance(rec),
			child < 0 && !deadline ? " until Ctrl-C" : "");
	for (;;) {
		long n = ps_rec_poll(rec, w, &err);
		double t;

		if (n < 0)
			goto fail;
		if (stop_signal) {
			why = stop_signal == SIGINT ? "interrupted" : "stopped by a signal";
			break;
		}
		if (child > 0 && waitpid(child, &child_status, WNOHANG) == child) {
			child_done = 1;
			why = "command exited";
			break;
		}
		t = now_s();
		if (deadline && t >= deadline) {
			why = "duration reached";
			break;
		}
		if (t - last_flush >= 1.0) {
			/* a crash loses at most the last second */
			if (ps_pgs_flush(w, &err) < 0)
				goto fail;
			last_flush = t;
		}
		if (tty && t - last_prog >= 0.5)
			progress(rec, w, t0, &last_prog, &last_ev, 0);
		if (n == 0) {
			struct timespec ts = { 0, 5000000 };

			nanosleep(&ts, NULL);
		}
	}
	ps_rec_off(rec);
	if (ps_rec_read_counters(&counters, 1, &err) < 0 || ps_rec_write_counters(w, "after", &counters, &err) < 0 ||
	    ps_rec_snapshot(w, "after", &err) < 0 || ps_rec_stop(rec, w, &err) < 0)
		goto fail;
	if (tty)
		progress(rec, w, t0, &last_prog, &last_ev, 1);
	if (child > 0 && !child_done) {
		kill(child, SIGTERM);
		waitpid(child, &child_status, 0);
	}
	if (ps_pass1_store(w, sum, &err) < 0) {
		sum = NULL;
		goto fail;
	}
	sum = NULL;
	if (ps_pgs_writer_finish(w, &err) < 0 || ps_out_commit(&out, &err) < 0)
		goto fail;
	nr = ps_rec_lost(rec, lost, PS_READER_MAX_CPUS);
	{
		uint64_t total = 0;

		for (int c = 0; c < nr && c < PS_READER_MAX_CPUS; c++)
			total += lost[c];
		if (total) {
			ps_warn("the ring buffer lost %llu events; per CPU:", (unsigned long long)total);
			for (int c = 0; c < nr && c < PS_READER_MAX_CPUS; c++)
				if (lost[c])
					fprintf(stderr, "  cpu%d: %llu\n", c, (unsigned long long)lost[c]);
			fprintf(stderr, "  (a larger --buffer-kb, or fewer --events, keeps up better)\n");
		}
	}
	if (!quiet)
		fprintf(stderr, "pagesim: %s: wrote %s: %llu events, %llu bytes (%.2f bytes per event in frames)\n", why,
			output, (unsigned long long)ps_pgs_events(w), (unsigned long long)ps_pgs_bytes(w),
			ps_pgs_events(w) ? (double)ps_pgs_event_bytes(w) / ps_pgs_events(w) : 0.0);
	ret = PS_EXIT_OK;
	if (child > 0 && child_done) {
		/* the command's own status, as the shell gives it: scripts see the workload fail */
		ret = WIFEXITED(child_status) ? WEXITSTATUS(child_status) : 128 + WTERMSIG(child_status);
		if (ret)
			ps_warn("the command %s %d; the recording is complete", WIFEXITED(child_status) ?
				"exited with status" : "was killed by signal", WIFEXITED(child_status) ?
				WEXITSTATUS(child_status) : WTERMSIG(child_status));
	}
	goto out;
fail:
	ps_error("%s", err.msg);
	ps_rec_counters_free(&counters);
	ps_out_abort(&out);
	if (child > 0 && !child_done) {
		kill(child, SIGTERM);
		waitpid(child, NULL, 0);
	}
out:
	ps_rec_destroy(rec);
	ps_pass1_summary_free(sum);
	ps_pgs_writer_free(w);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
	return ret;
}
