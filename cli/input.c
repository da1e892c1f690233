// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lib/kver.h"
#include "trace/sysroot.h"
#include "cli/cli.h"
#include "cli/input.h"

static int find_sibling_before(const char *trace, char *out, size_t len)
{
	char *copy = strdup(trace);
	char path[4096];
	struct stat st;
	int found = 0;

	if (!copy)
		return 0;
	snprintf(path, sizeof(path), "%s/before/proc/zoneinfo", dirname(copy));
	if (stat(path, &st) == 0) {
		snprintf(out, len, "%.*s", (int)(strlen(path) - strlen("/proc/zoneinfo")), path);
		found = 1;
	}
	free(copy);
	return found;
}

/* The sibling after/ of a sysroot named .../before. */
int ps_input_default_after(const char *sysroot, char *out, size_t len)
{
	char *copy = strdup(sysroot), *base, *dir;
	struct stat st;
	int ok = 0;

	if (!copy)
		return 0;
	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = 0;
	base = strdup(copy);
	dir = dirname(copy);
	if (base && !strcmp(basename(base), "before")) {
		snprintf(out, len, "%s/after", dir);
		ok = stat(out, &st) == 0 && S_ISDIR(st.st_mode);
	}
	free(base);
	free(copy);
	return ok;
}

int ps_input_open(struct ps_input *in, const struct ps_input_opts *o)
{
	struct ps_reader_opts ro = { .flags = o->reader_flags };
	struct ps_error err = { { 0 } };
	const char *rel;
	int kver_sysroot = PS_KVER_UNKNOWN;

	memset(in, 0, sizeof(*in));
	in->trace = o->trace;
	in->verbose = o->verbose;
	ps_note_input(o->trace);
	if (o->sysroot)
		snprintf(in->sysroot, sizeof(in->sysroot), "%s", o->sysroot);
	else if (strcmp(o->trace, "-") && find_sibling_before(o->trace, in->sysroot, sizeof(in->sysroot)) &&
		 o->verbose && !o->quiet)
		fprintf(stderr, "pagesim: using the layout in %s (give --sysroot to choose another)\n", in->sysroot);
	if (in->sysroot[0]) {
		ps_note_sysroot(in->sysroot);
		if (ps_sysroot_load_machine(in->sysroot, &in->machine, &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
		kver_sysroot = in->machine.kver;
	}
	if (o->kernel) {
		ro.kver = ps_kver_parse(o->kernel);
		if (ro.kver == PS_KVER_UNKNOWN) {
			ps_error("--kernel '%s' is not a kernel release (e.g. 4.3 or 6.1.0-57-amd64)", o->kernel);
			return -1;
		}
		ro.kver_forced = 1;
	} else {
		ro.kver = kver_sysroot;
	}
	in->reader = ps_reader_open(o->trace, &ro, &err);
	if (!in->reader) {
		ps_error("%s", err.msg);
		return -1;
	}
	if (!in->sysroot[0] && ps_reader_has_snapshots(in->reader)) {
		/* a pagesim file: the machine it was recorded on travels with it */
		struct ps_fsrc src;

		ps_fsrc_reader(&src, in->reader, "before", o->trace);
		if (ps_sysroot_load_machine_src(&src, &in->machine, &err) < 0) {
			ps_error("%s", err.msg);
			return -1;
		}
		in->embedded = 1;
		snprintf(in->sysroot, sizeof(in->sysroot), "%s", o->trace);
	}
	rel = ps_reader_kernel_release(in->reader);
	if (rel && in->machine.release[0] && strcmp(rel, in->machine.release))
		ps_warn("the trace was recorded on kernel %s but the sysroot %s is from %s: is it the same machine?",
			rel, in->sysroot, in->machine.release);
	if (!in->sysroot[0]) {
		ps_machine_assume_x86_64(&in->machine, PS_MAX_CPUS);
		if (!o->quiet)
			ps_warn("no machine layout given: assuming one node with x86-64 zone boundaries (give --sysroot DIR for the real one)");
	} else if (in->machine.nr_cpus == 0) {
		/* no node directories in the sysroot: a kernel built without NUMA */
		in->machine.nr_cpus = PS_MAX_CPUS;
		for (int c = 0; c < PS_MAX_CPUS; c++)
			in->machine.cpu_node[c] = 0;
		if (in->machine.nr_nodes == 0)
			in->machine.nr_nodes = 1;
	}
	if (!o->quiet)
		ps_print_machine_warnings(&in->machine);
	if (ps_reader_kver(in->reader) == PS_KVER_UNKNOWN && !o->quiet)
		ps_warn("%s: kernel release unknown: reading migratetypes in the v4.4+ numbering (give --kernel or --sysroot)",
			o->trace);
	in->pageblock_order = in->machine.pageblock_order;
	return 0;
}

void ps_input_close(struct ps_input *in)
{
	ps_reader_close(in->reader);
	in->reader = NULL;
}

int ps_input_report(struct ps_input *in, int quiet, int allow_truncated)
{
	const struct ps_reader_stats *s = ps_reader_stats(in->reader);
	static const char *const what[PS_SKIP_NR] = { "lines that are not event lines",
						      "events that are not page events pagesim reads",
						      "page events with a missing or bad field" };
	uint64_t total = 0;

	for (int t = 0; t < PS_EV_NR; t++)
		total += s->events[t];
	int tdat = !strncmp(ps_reader_format(in->reader), "trace.dat", 9);
	int perf = !strncmp(ps_reader_format(in->reader), "perf.data", 9);

	for (int i = 0; i < PS_SKIP_NR; i++)
		if (i == PS_SKIP_OTHER_EVENT) {
			/* the user recorded more than the page events: nothing wrong with that */
			if (s->skipped[i] && !quiet && in->verbose)
				fprintf(stderr, "pagesim: skipped %llu %s; first: %s\n", (unsigned long long)s->skipped[i],
					what[i], s->skip_first[i]);
		} else if (s->skipped[i] && !quiet)
			ps_warn("skipped %llu %s; first: %s", (unsigned long long)s->skipped[i],
				i == PS_SKIP_MALFORMED && tdat ? "damaged ring-buffer pages or records" :
				i == PS_SKIP_MALFORMED && perf ? "damaged records" : what[i],
				s->skip_first[i]);
	if (s->lost_markers || s->lost_overwritten)
		ps_warn("the trace lost events: %llu in %llu places (%llu of unknown count), %llu overwritten before reading; counters miss them",
			(unsigned long long)s->lost_events, (unsigned long long)s->lost_markers,
			(unsigned long long)s->lost_unknown, (unsigned long long)s->lost_overwritten);
	if (s->out_of_order && !quiet)
		ps_warn("%llu events are older than the event before them (per-CPU buffers not merged?)",
			(unsigned long long)s->out_of_order);
	if (s->pfn_from_page && !quiet)
		ps_warn("%llu pfns were derived from struct page addresses (no pfn field) assuming the default x86-64 vmemmap",
			(unsigned long long)s->pfn_from_page);
	if (s->truncated) {
		if (!allow_truncated) {
			ps_error("%s (give --allow-truncated to use the events before the cut)", s->truncated_msg);
			return -1;
		}
		ps_warn("%s", s->truncated_msg);
	}
	if (!quiet && in->sysroot[0] && !in->embedded) {
		/* what the trace says of its machine (read with its events) against the sysroot's */
		int pb = ps_reader_pageblock_order(in->reader), cpus = ps_reader_nr_cpus(in->reader), pti = 0;

		for (int i = 0; i < in->machine.nr_zones; i++)
			pti |= in->machine.zones[i].have_pagetypeinfo;
		if (pb > 0 && pti && pb != in->machine.pageblock_order)
			ps_warn("%s says pageblock order %d but %s/proc/pagetypeinfo %d: is the sysroot from the traced machine?",
				in->trace, pb, in->sysroot, in->machine.pageblock_order);
		if (cpus > 0 && in->machine.nr_cpus > 0 && cpus > in->machine.nr_cpus)
			ps_warn("%s was recorded on %d CPUs but the node cpulists of %s list %d: is the sysroot from the traced machine?",
				in->trace, cpus, in->sysroot, in->machine.nr_cpus);
	}
	if (!total) {
		ps_error("%s: no kmem page event found in this %s: record kmem:mm_page_alloc and the other kmem page events",
			 in->trace, ps_reader_format(in->reader));
		return -1;
	}
	return 0;
}

int ps_input_sysctl(struct ps_input *in, const char *name, long *value, struct ps_error *err)
{
	struct ps_fsrc src;
	char rel[256], *text, *end;
	int absent;
	long v;

	if (!in->sysroot[0])
		return 1;
	if (in->embedded)
		ps_fsrc_reader(&src, in->reader, "before", in->trace);
	else
		ps_fsrc_dir(&src, in->sysroot);
	snprintf(rel, sizeof(rel), "proc/sys/%s", name);
	text = ps_fsrc_read_opt(&src, rel, NULL, &absent, err);
	if (!text)
		return absent ? 1 : -1;
	errno = 0;
	v = strtol(text, &end, 10);
	end += strspn(end, " \t\n");
	if (end == text || *end || errno) {
		ps_err(err, "%s/%s: '%.40s' is not a number (the kernel writes one integer)", src.name, rel, text);
		free(text);
		return -1;
	}
	free(text);
	*value = v;
	return 0;
}
