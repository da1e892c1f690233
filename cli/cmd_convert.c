// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cmd_convert.c - pagesim convert: any readable trace plus its sysroot
 * snapshots -> one pagesim file (docs/pagesim-format.md).
 */
#include <getopt.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/kver.h"
#include "trace/pgs.h"
#include "cli/cli.h"
#include "cli/input.h"
#include "cli/pass1.h"

static const char convert_usage[] =
	"usage: pagesim convert -o FILE [OPTIONS] TRACE\n"
	"\n"
	"Writes the page events of TRACE (the kmem page events, and the page-cache,\n"
	"LRU and reclaim events; ftrace text, trace-cmd report text, a trace.dat, a\n"
	"perf.data or perf script text, compressed or not) into a pagesim file,\n"
	"together with the machine snapshots taken before and after the run, so\n"
	"that the file alone replays: 'pagesim stat FILE' needs no --sysroot.\n"
	"The file also carries what replay's first pass learns from the trace, so\n"
	"that replay reads it once.  TRACE may be a pagesim file: written again,\n"
	"with its snapshots, it gains that summary if it had none.\n"
	"\n"
	"options:\n"
	"  -o, --output FILE  the pagesim file to write (replaced only once complete)\n"
	"  --sysroot DIR      the snapshot taken before the run (default: before/ beside TRACE)\n"
	"  --after DIR        the snapshot taken after the run (default: after/ beside the sysroot)\n"
	"  --kernel RELEASE   interpret the trace as from this kernel (e.g. 4.3) and record it so\n"
	"  --level N          zstd level of the event frames (1-19, default 6)\n"
	"  --strict           stop at the first line or event that cannot be used\n"
	"  --allow-truncated  convert the events before the cut of a truncated input; the\n"
	"                     file then says it was cut (readers need --allow-truncated too)\n"
	"  -q, --quiet        no warnings about skipped input\n"
	"  -v, --verbose      also the layout used and the events of other kinds skipped\n"
	"  -h, --help         this text\n"
	"  --version          pagesim's version\n"
	"\n"
	"exit status: 0 success, 1 failure (unreadable or truncated input, no events), 2 bad usage\n";

enum { OPT_SYSROOT = 256, OPT_AFTER, OPT_KERNEL, OPT_LEVEL, OPT_STRICT, OPT_TRUNC };

static const struct option convert_options[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "sysroot", required_argument, NULL, OPT_SYSROOT },
	{ "after", required_argument, NULL, OPT_AFTER },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "allow-truncated", no_argument, NULL, OPT_TRUNC },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	PS_OPTION_VERSION,
	{ NULL, 0, NULL, 0 },
};

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* DIR/../after for a sysroot DIR whose last component is "before". */
static int sibling_after(const char *sysroot, char *out, size_t len)
{
	char *copy = strdup(sysroot), *base;
	int ok = 0;

	if (!copy)
		return 0;
	while (strlen(copy) > 1 && copy[strlen(copy) - 1] == '/')
		copy[strlen(copy) - 1] = 0;
	base = strrchr(copy, '/');
	if (!strcmp(base ? base + 1 : copy, "before")) {
		if (base)
			snprintf(out, len, "%.*s/after", (int)(base - copy), copy);
		else
			snprintf(out, len, "after");
		ok = is_dir(out);
	}
	free(copy);
	return ok;
}

/* Whether pagesim file @r carries an after/ snapshot. */
static int has_after(const struct ps_reader *r)
{
	char *t = ps_reader_snapshot(r, "after/proc/vmstat", NULL);

	free(t);
	return t != NULL;
}

int cmd_convert(int argc, char **argv)
{
	struct ps_input_opts io = { 0 };
	struct ps_input in;
	struct ps_pgs_meta meta = { 0 };
	struct ps_pgs_writer *w = NULL;
	struct ps_error err = { { 0 } };
	struct ps_out out = { 0 };
	struct ps_event ev;
	const char *output = NULL, *after = NULL, *release;
	char after_buf[4096], fmt_dir[4096], *copy;
	int quiet = 0, allow_trunc = 0, level = 0, opt, r, ret = PS_EXIT_FAIL, nr_cpus, pgs_in;
	const struct ps_reader_stats *s;
	struct ps_pass1_summary *sum = NULL;

	optind = 1;
	while ((opt = ps_getopt("convert", argc, argv, "o:qvh", convert_options)) != -1) {
		switch (opt) {
		case 'o': output = optarg; break;
		case OPT_SYSROOT: io.sysroot = optarg; break;
		case OPT_AFTER: after = optarg; break;
		case OPT_KERNEL: io.kernel = optarg; break;
		case OPT_LEVEL: {
			char *end;
			long v = strtol(optarg, &end, 10);

			/* atoi() took "5x" for 5 */
			if (end == optarg || *end || v < 1 || v > 19)
				return ps_usage_error("convert", "--level must be 1 to 19, not '%s'", optarg);
			level = (int)v;
			break;
		}
		case OPT_STRICT: io.reader_flags |= PS_RD_STRICT; break;
		case OPT_TRUNC: allow_trunc = 1; break;
		case 'q': quiet = 1; break;
		case 'v': io.verbose = 1; break;
		case 'h': fputs(convert_usage, stdout); return PS_EXIT_OK;
		case PS_OPT_VERSION: return ps_print_version();
		default: return PS_EXIT_USAGE;
		}
	}
	if (!output)
		return ps_usage_error("convert", "missing -o FILE");
	if (!strcmp(output, "-"))
		return ps_usage_error("convert", "-o needs a file (a pagesim file's header is completed at the end)");
	if (optind != argc - 1)
		return ps_usage_error("convert", optind >= argc ? "missing TRACE" : "more than one TRACE given");
	if (io.sysroot && !is_dir(io.sysroot))
		return ps_usage_error("convert", "--sysroot '%s' is not a directory", io.sysroot);
	if (after && !is_dir(after))
		return ps_usage_error("convert", "--after '%s' is not a directory", after);
	io.trace = argv[optind];
	io.quiet = quiet;
	io.reader_flags |= PS_RD_COMM;
	if (ps_input_open(&in, &io) < 0)
		return PS_EXIT_FAIL;
	pgs_in = !strncmp(ps_reader_format(in.reader), "pagesim", 7);
	if (!after && in.sysroot[0] && !in.embedded && sibling_after(in.sysroot, after_buf, sizeof(after_buf)))
		after = after_buf;
	if (!in.sysroot[0] && !quiet)
		ps_warn("no before/ snapshot: the file will carry no machine layout (give --sysroot DIR)");
	else if (!after && !quiet && !(pgs_in && has_after(in.reader)))
		ps_warn("no after/ snapshot: 'pagesim stat --check' will not work on the file (give --after DIR)");

	release = io.kernel ? io.kernel : ps_reader_kernel_release(in.reader);
	if (!release && in.machine.release[0])
		release = in.machine.release;
	meta.kernel_release = release;
	meta.page_size = in.sysroot[0] ? 1 << in.machine.page_shift : 4096;
	meta.pageblock_order = in.sysroot[0] ? in.machine.pageblock_order : -1;
	meta.nr_cpus = ps_reader_nr_cpus(in.reader);
	meta.source = ps_reader_format(in.reader);
	meta.flags = PS_PGS_F_CONVERTED;
	meta.level = level;

	if (ps_out_open(&out, output, &err) < 0) {
		ps_error("%s", err.msg);
		goto out;
	}
	w = ps_pgs_writer_open(out.f, output, &meta, &err);
	if (!w)
		goto fail;
	if (pgs_in) {
		/* a pagesim file written again: its stored files, but those given anew and what the writer makes */
		const char *skip[5] = { "comm", PS_PASS1_BLOB };
		int k = 2;

		if (io.sysroot)
			skip[k++] = "before/";
		if (after)
			skip[k++] = "after/";
		if (ps_pgs_copy_blobs(in.reader, w, skip, &err) < 0)
			goto fail;
	}
	if (in.sysroot[0] && !in.embedded && ps_pgs_write_dir(w, "before", in.sysroot, &err) < 0)
		goto fail;
	if (after && ps_pgs_write_dir(w, "after", after, &err) < 0)
		goto fail;
	copy = pgs_in ? NULL : strdup(io.trace);
	if (copy) {
		snprintf(fmt_dir, sizeof(fmt_dir), "%s/format", dirname(copy));
		free(copy);
		if (is_dir(fmt_dir) && ps_pgs_write_dir(w, "format", fmt_dir, &err) < 0)
			goto fail;
	}
	/* with the machine's layout, the file carries what replay's pass 1 would learn */
	if (in.sysroot[0])
		sum = ps_pass1_attach(w, &in.machine);
	while ((r = ps_reader_next(in.reader, &ev, &err)) > 0) {
		if (ev.comm)
			ps_pgs_note_comm(w, ev.pid, ev.comm);
		if (ps_pgs_write_event(w, &ev, &err) < 0)
			goto fail;
	}
	if (r < 0)
		goto fail;
	if (ps_input_report(&in, quiet, allow_trunc) < 0)
		goto abort;
	s = ps_reader_stats(in.reader);
	ps_pgs_set_source_stats(w, s);
	nr_cpus = ps_reader_nr_cpus(in.reader);
	if (s->max_cpu + 1 > nr_cpus)
		nr_cpus = s->max_cpu + 1;
	ps_pgs_set_nr_cpus(w, nr_cpus);
	if (!in.sysroot[0])
		ps_pgs_set_pageblock_order(w, ps_reader_pageblock_order(in.reader));
	if (ps_pass1_store(w, sum, &err) < 0) {
		sum = NULL;
		goto fail;
	}
	sum = NULL;
	if (ps_pgs_writer_finish(w, &err) < 0 || ps_out_commit(&out, &err) < 0)
		goto fail;
	if (!quiet)
		fprintf(stderr, "pagesim: wrote %s: %llu events, %llu bytes (events: %.2f bytes per event)\n",
			output, (unsigned long long)ps_pgs_events(w), (unsigned long long)ps_pgs_bytes(w),
			ps_pgs_events(w) ? (double)ps_pgs_event_bytes(w) / ps_pgs_events(w) : 0.0);
	ret = PS_EXIT_OK;
	goto out;
fail:
	ps_error("%s", err.msg);
abort:
	ps_out_abort(&out);
out:
	ps_pass1_summary_free(sum);
	ps_pgs_writer_free(w);
	ps_input_close(&in);
	return ret;
}
