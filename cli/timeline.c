// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * timeline.c - the options stat and replay share beyond their totals, the
 * event filter, trace_marker names for --time, and the timeline file.
 *
 * The filter runs once per event: it compares numbers, and the task's name
 * only with --comm (task names are at most 15 bytes).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/cpulist.h"
#include "trace/stream.h"
#include "cli/timeline.h"

static const char *const by_names[PS_BY_NR] = {
	[PS_BY_ORDER] = "order", [PS_BY_MT] = "migratetype", [PS_BY_GFP] = "gfp",
	[PS_BY_TASK] = "task", [PS_BY_CPU] = "cpu", [PS_BY_ZONE] = "zone",
};

int ps_parse_duration(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char *end;
	double v;

	errno = 0;
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return -1;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			double n = v * units[i].ns + 0.5;

			if (n >= 1.8e19)
				return -1;
			*ns = (uint64_t)n;
			return 0;
		}
	return -1;
}

static int add_list(const char *cmd, const char *opt, const char *arg, const char **list, int *nr, int max,
		    char **keep)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy) {
		ps_error("out of memory");
		return PS_EXIT_FAIL;
	}
	*keep = copy;	/* freed by ps_view_free() */
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (*nr == max)
			return ps_usage_error(cmd, "more than %d names for %s", max, opt);
		list[(*nr)++] = t;
	}
	return 0;
}

static int parse_time(struct ps_filter *f, const char *cmd, const char *arg)
{
	const char *comma = strchr(arg, ',');

	if (!comma || strchr(comma + 1, ','))
		return ps_usage_error(cmd, "--time wants START,END (either may be left out), not '%s'", arg);
	f->time_arg[0] = strndup(arg, comma - arg);
	f->time_arg[1] = strdup(comma + 1);
	if (!f->time_arg[0] || !f->time_arg[1]) {
		ps_error("out of memory");
		return PS_EXIT_FAIL;
	}
	for (int i = 0; i < 2; i++) {
		uint64_t ns;

		f->time_open[i] = !f->time_arg[i][0];
		f->time_rel[i] = -1;
		if (!f->time_open[i] && ps_parse_duration(f->time_arg[i], &ns) == 0)
			f->time_rel[i] = (int64_t)ns;
	}
	f->has_time = 1;
	return 0;
}

int ps_view_opt(struct ps_view_opts *o, const char *cmd, int opt, const char *arg)
{
	struct ps_filter *f = &o->f;

	switch (opt) {
	case PS_OPT_INTERVAL:
		if (ps_parse_duration(arg, &o->interval_ns) < 0 || !o->interval_ns)
			return ps_usage_error(cmd, "--interval wants a duration above 0 such as 10ms, 1s or 500us, not '%s'",
					      arg);
		return 0;
	case PS_OPT_TIMELINE:
		o->timeline = arg;
		return 0;
	case PS_OPT_TL_FORMAT:
		if (strcmp(arg, "csv") && strcmp(arg, "jsonl"))
			return ps_usage_error(cmd, "--timeline-format must be csv or jsonl, not '%s'", arg);
		o->jsonl = arg[0] == 'j';
		return 0;
	case PS_OPT_COMM:
		f->on = 1;
		if (o->nr_comm_text == (int)(sizeof(o->comm_text) / sizeof(o->comm_text[0])))
			return ps_usage_error(cmd, "more than %d --comm options", o->nr_comm_text);
		return add_list(cmd, "--comm", arg, f->comm, &f->nr_comm, 32, &o->comm_text[o->nr_comm_text++]);
	case PS_OPT_PID: {
		char *copy = strdup(arg), *save = NULL;

		if (!copy) {
			ps_error("out of memory");
			return PS_EXIT_FAIL;
		}
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			char *end;
			long v;
			int32_t *p;

			errno = 0;
			v = strtol(t, &end, 10);
			if (errno || *end || end == t || v < 0 || v > INT32_MAX) {
				free(copy);
				return ps_usage_error(cmd, "--pid wants pids such as 1234,1240, not '%s'", arg);
			}
			p = realloc(f->pid, (f->nr_pid + 1) * sizeof(*p));
			if (!p) {
				free(copy);
				ps_error("out of memory");
				return PS_EXIT_FAIL;
			}
			f->pid = p;
			f->pid[f->nr_pid++] = (int32_t)v;
		}
		free(copy);
		f->on = 1;
		return 0;
	}
	case PS_OPT_CPU: {
		int16_t map[PS_MAX_CPUS];
		int max = 0;

		for (int c = 0; c < PS_MAX_CPUS; c++)
			map[c] = -1;
		if (ps_parse_cpulist(arg, map, 0, &max) < 0 || !max)
			return ps_usage_error(cmd, "--cpu wants a CPU list such as 0-3,8 (CPUs below %d), not '%s'",
					      PS_MAX_CPUS, arg);
		for (int c = 0; c < PS_MAX_CPUS; c++)
			if (map[c] == 0)
				f->cpu[c / 64] |= 1ull << (c % 64);
		f->has_cpu = f->on = 1;
		return 0;
	}
	case PS_OPT_TIME:
		if (f->has_time)
			return ps_usage_error(cmd, "--time given twice");
		f->on = 1;
		return parse_time(f, cmd, arg);
	case PS_OPT_BY: {
		char *copy = strdup(arg), *save = NULL;

		if (!copy) {
			ps_error("out of memory");
			return PS_EXIT_FAIL;
		}
		for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			int k = 0;

			while (k < PS_BY_NR && strcmp(t, by_names[k]))
				k++;
			if (k == PS_BY_NR) {
				ps_usage_error(cmd, "--by keys are order, migratetype, gfp, task, cpu and zone, not '%s'", t);
				free(copy);
				return PS_EXIT_USAGE;
			}
			for (int i = 0; i < o->nr_by; i++)
				if (o->by[i] == k) {
					ps_usage_error(cmd, "--by names '%s' twice", t);
					free(copy);
					return PS_EXIT_USAGE;
				}
			o->by[o->nr_by++] = k;
		}
		free(copy);
		if (!o->nr_by)
			return ps_usage_error(cmd, "--by wants keys such as order,migratetype");
		return 0;
	}
	}
	return PS_EXIT_USAGE;
}

int ps_view_check(struct ps_view_opts *o, const char *cmd)
{
	if (o->interval_ns && !o->timeline)
		return ps_usage_error(cmd, "--interval is the interval of --timeline FILE: give it too");
	if (o->timeline && !o->interval_ns)
		o->interval_ns = 1000000000ull;
	if (o->timeline && !strcmp(o->timeline, "-"))
		return ps_usage_error(cmd, "--timeline wants a file (the counters go to standard output)");
	if (o->f.has_time && o->f.time_rel[0] >= 0 && o->f.time_rel[1] >= 0 && o->f.time_rel[1] <= o->f.time_rel[0])
		return ps_usage_error(cmd, "--time: END (%s) is not after START (%s)", o->f.time_arg[1], o->f.time_arg[0]);
	return 0;
}

void ps_view_free(struct ps_view_opts *o)
{
	free(o->f.pid);
	free(o->f.time_arg[0]);
	free(o->f.time_arg[1]);
	for (int i = 0; i < o->nr_comm_text; i++)
		free(o->comm_text[i]);
	o->nr_comm_text = 0;
}

int ps_view_needs_comm(const struct ps_view_opts *o)
{
	for (int i = 0; i < o->nr_by; i++)
		if (o->by[i] == PS_BY_TASK)
			return 1;
	return o->f.nr_comm > 0;
}

/*
 * A trace_marker write of ftrace or trace-cmd report text: "... <ts>:
 * tracing_mark_write: TEXT" (ftrace), "... <ts>: print: tracing_mark_write:
 * TEXT" (trace-cmd report).  Its time into *@ns and its text into *@text.
 */
static int marker_line(char *line, uint64_t *ns, const char **text)
{
	static const char tag[] = "tracing_mark_write: ";
	char *m = strstr(line, tag), *b = strchr(line, ']');

	if (!m || !b || b > m)
		return 0;
	for (char *p = b + 1; p < m; p++) {
		uint64_t sec = 0, frac = 0;
		int digits = 0;
		char *q = p;

		if (!isdigit((unsigned char)*p) || (p[-1] != ' ' && p[-1] != ']'))
			continue;
		while (isdigit((unsigned char)*q))
			sec = sec * 10 + (uint64_t)(*q++ - '0');
		if (*q != '.')
			continue;
		for (q++; isdigit((unsigned char)*q); q++)
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(*q - '0');
				digits++;
			}
		if (*q != ':')
			continue;
		while (digits++ < 9)
			frac *= 10;
		*ns = sec * 1000000000ull + frac;
		*text = m + sizeof(tag) - 1;
		return 1;
	}
	return 0;
}

/* Whether marker text @text is named @name: the whole text, or its first words up to a space. */
static int marker_named(const char *text, const char *name)
{
	size_t n = strlen(name), l = strlen(text);

	while (l && (text[l - 1] == '\n' || text[l - 1] == ' '))
		l--;
	return !strncmp(text, name, n) && (l == n || text[n] == ' ');
}

int ps_filter_load_markers(struct ps_filter *f, const char *trace)
{
	struct ps_error err = { { 0 } };
	struct ps_stream *s;
	const uint8_t *head;
	size_t got;
	char *line;
	long len;
	int need[2], found[2] = { 0, 0 }, text = 0;

	for (int i = 0; i < 2; i++)
		need[i] = f->has_time && !f->time_open[i] && f->time_rel[i] < 0;
	if (!need[0] && !need[1])
		return 0;
	if (!strcmp(trace, "-")) {
		ps_error("--time: '%s' is not a duration (10ms, 1.5s); a trace_marker's name needs TRACE as a file "
			 "(read twice)", f->time_arg[need[0] ? 0 : 1]);
		return -1;
	}
	s = ps_stream_open(trace, &err);
	if (!s) {
		ps_error("%s", err.msg);
		return -1;
	}
	head = ps_stream_peek(s, 16, &got, &err);
	/* trace_marker writes are looked for in text traces only (not pagesim files, trace.dat) */
	text = head && got && !(got >= 8 && !memcmp(head, "PAGESIM", 8)) &&
	       !(got >= 10 && !memcmp(head, "\x17\x08\x44tracing", 10));
	while (text && (line = ps_stream_getline(s, &len, &err))) {
		uint64_t ns;
		const char *t;

		if (!marker_line(line, &ns, &t))
			continue;
		/* START: the first marker so named; END: the first so named after START's */
		if (need[0] && !found[0] && marker_named(t, f->time_arg[0])) {
			f->time_abs[0] = ns;
			found[0] = 1;
		} else if (need[1] && !found[1] && (!need[0] || found[0]) && marker_named(t, f->time_arg[1])) {
			f->time_abs[1] = ns;
			found[1] = 1;
		}
	}
	ps_stream_close(s);
	if (text && len < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	for (int i = 0; i < 2; i++)
		if (need[i] && !found[i]) {
			if (!text)
				ps_error("--time: '%s' is not a duration (10ms, 1.5s), and pagesim finds trace_marker "
					 "writes in text traces only (%s: a pagesim file holds the kmem events alone, the "
					 "trace.dat reader yields only those): give a time, or the trace as ftrace or "
					 "trace-cmd report text", f->time_arg[i], trace);
			else
				ps_error("--time: '%s' is neither a duration (10ms, 1.5s) nor a trace_marker write in %s%s",
					 f->time_arg[i], trace, i && need[0] ? " after START's" : "");
			return -1;
		}
	return 0;
}

static void resolve_time(struct ps_filter *f, uint64_t t0)
{
	f->t0 = t0;
	for (int i = 0; i < 2; i++) {
		if (f->time_open[i])
			f->time_abs[i] = i ? UINT64_MAX : 0;
		else if (f->time_rel[i] >= 0)
			f->time_abs[i] = t0 + (uint64_t)f->time_rel[i];
	}
	f->time_resolved = 1;
}

int ps_filter_match(struct ps_filter *f, const struct ps_event *ev)
{
	if (f->has_time) {
		if (__builtin_expect(!f->time_resolved, 0))
			resolve_time(f, ev->ts_ns);
		if (ev->ts_ns < f->time_abs[0] || ev->ts_ns >= f->time_abs[1])
			return 0;
	}
	if (f->has_cpu && (ev->cpu >= PS_MAX_CPUS || !(f->cpu[ev->cpu / 64] >> (ev->cpu % 64) & 1)))
		return 0;
	if (f->nr_pid) {
		int i = 0;

		while (i < f->nr_pid && f->pid[i] != ev->pid)
			i++;
		if (i == f->nr_pid)
			return 0;
	}
	if (f->nr_comm) {
		int i = 0;

		if (!ev->comm)
			return 0;
		while (i < f->nr_comm && strncmp(f->comm[i], ev->comm, 16))
			i++;
		if (i == f->nr_comm)
			return 0;
	}
	return 1;
}

void ps_filter_describe(const struct ps_filter *f, char *buf, size_t len)
{
	size_t n = 0;

#define ADD(...) (n += (size_t)snprintf(buf + n, n < len ? len - n : 0, __VA_ARGS__))
	buf[0] = 0;
	for (int i = 0; i < f->nr_comm; i++)
		ADD("%s--comm %s", n ? " " : "", f->comm[i]);
	for (int i = 0; i < f->nr_pid; i++)
		ADD("%s%s%d", n ? (i ? "," : " ") : "", i ? "" : "--pid ", f->pid[i]);
	if (f->has_cpu) {
		int first = 1;

		ADD("%s--cpu ", n ? " " : "");
		for (int c = 0; c < PS_MAX_CPUS; c++) {
			int e = c;

			if (!(f->cpu[c / 64] >> (c % 64) & 1))
				continue;
			while (e + 1 < PS_MAX_CPUS && f->cpu[(e + 1) / 64] >> ((e + 1) % 64) & 1)
				e++;
			ADD(e > c ? "%s%d-%d" : "%s%d", first ? "" : ",", c, e);
			first = 0;
			c = e;
		}
	}
	if (f->has_time)
		ADD("%s--time %s,%s", n ? " " : "", f->time_arg[0], f->time_arg[1]);
	if (!n)
		snprintf(buf, len, "none");
#undef ADD
}

/* The timeline file. */

static char *u64_to(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *i64_to(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return u64_to(p, (uint64_t)0 - (uint64_t)v);
	}
	return u64_to(p, (uint64_t)v);
}

/* Seconds since the first event, with 9 decimals. */
static char *secs_to(char *p, uint64_t ns)
{
	uint64_t frac = ns % 1000000000ull;

	p = u64_to(p, ns / 1000000000ull);
	*p++ = '.';
	for (uint64_t d = 100000000ull; d; d /= 10)
		*p++ = (char)('0' + frac / d % 10);
	return p;
}

static void free_meta(struct ps_tl_out *w)
{
	for (int i = 0; w->meta && i < 2 * w->nr_meta; i++)
		free(w->meta[i]);
	free(w->meta);
	w->meta = NULL;
}

int ps_tl_out_open(struct ps_tl_out *w, const struct ps_view_opts *o, const char *const *meta, int nr_meta)
{
	struct ps_error err = { { 0 } };

	memset(w, 0, sizeof(*w));
	w->jsonl = o->jsonl;
	/* the header is written with the first row: keep copies */
	w->meta = calloc(2 * nr_meta + 1, sizeof(*w->meta));
	if (!w->meta) {
		ps_error("out of memory");
		return -1;
	}
	for (int i = 0; i < 2 * nr_meta; i++)
		if (!(w->meta[i] = strdup(meta[i] ? meta[i] : ""))) {
			ps_error("out of memory");
			free_meta(w);
			return -1;
		}
	w->nr_meta = nr_meta;
	if (ps_out_open(&w->out, o->timeline, &err) < 0) {
		free_meta(w);
		ps_error("--timeline: %s", err.msg);
		return -1;
	}
	setvbuf(w->out.f, NULL, _IOFBF, 1 << 20);
	return 0;
}

static void header(struct ps_tl_out *w, const struct ps_timeline *t)
{
	FILE *f = w->out.f;

	w->header_done = 1;
	if (w->jsonl) {
		fputs("{\"pagesim_timeline\": 1, \"pagesim\": \"" PAGESIM_VERSION "\"", f);
		for (int i = 0; i < w->nr_meta; i++) {
			fputs(", ", f);
			ps_print_json_str(f, w->meta[2 * i]);
			fputs(": ", f);
			ps_print_json_str(f, w->meta[2 * i + 1] ? w->meta[2 * i + 1] : "");
		}
		fprintf(f, ", \"interval_ns\": %" PRIu64 ", \"t0_ns\": %" PRIu64 ", \"columns\": [", t->interval_ns, t->t0);
		fputs("{\"name\": \"start_s\", \"kind\": \"time\", \"total\": \"\"}, "
		      "{\"name\": \"end_s\", \"kind\": \"time\", \"total\": \"\"}", f);
		for (int i = 0; i < t->nr; i++) {
			fputs(", {\"name\": ", f);
			ps_print_json_str(f, t->col[i].name);
			fprintf(f, ", \"kind\": \"%s\", \"total\": ", t->col[i].kind == PS_TL_DELTA ? "delta" : "level");
			ps_print_json_str(f, t->col[i].total);
			fputc('}', f);
		}
		fputs("]}\n", f);
		return;
	}
	fputs("# pagesim timeline\n# pagesim: " PAGESIM_VERSION "\n", f);
	for (int i = 0; i < w->nr_meta; i++)
		fprintf(f, "# %s: %s\n", w->meta[2 * i], w->meta[2 * i + 1] ? w->meta[2 * i + 1] : "");
	fprintf(f, "# interval_ns: %" PRIu64 "\n# t0_ns: %" PRIu64 "\n", t->interval_ns, t->t0);
	fputs("# start_s, end_s: the interval, in seconds after the trace's first event (t0_ns)\n"
	      "# a delta column: the counter's change over the interval (its rows sum to its total)\n"
	      "# a level column: the value at the interval's end (its last row is its value at the end)\n"
	      "# a column's total: the printed counters it sums or ends at ('+' adds them; a trailing '?':\n"
	      "# printed only when the trace has page-cache, LRU or reclaim events, else 0; stat:NAME pagesim\n"
	      "# stat's; zones:NAME summed over the zones' columns; pagetypeinfo:NODE:ZONE:TYPE:ORDER\n"
	      "# --state-dir's)\n", f);
	fputs("# kind: time,time", f);
	for (int i = 0; i < t->nr; i++)
		fputs(t->col[i].kind == PS_TL_DELTA ? ",delta" : ",level", f);
	fputs("\n# total: ,", f);
	for (int i = 0; i < t->nr; i++) {
		fputc(',', f);
		ps_csv_cell(f, t->col[i].total, 1);
	}
	fputs("\nstart_s,end_s", f);
	for (int i = 0; i < t->nr; i++) {
		fputc(',', f);
		ps_csv_cell(f, t->col[i].name, 1);
	}
	fputc('\n', f);
}

void ps_tl_out_row(void *ctx, const struct ps_timeline *t, uint64_t start_ns, uint64_t end_ns, const int64_t *row)
{
	struct ps_tl_out *w = ctx;
	size_t need = (size_t)t->nr * 96 + 128;
	char *p;

	if (!w->header_done)
		header(w, t);
	if (w->cap < need) {
		char *b = realloc(w->buf, need);

		if (!b) {
			w->failed = 1;
			return;
		}
		w->buf = b;
		w->cap = need;
	}
	p = w->buf;
	if (w->jsonl) {
		p += sprintf(p, "{\"start_s\": ");
		p = secs_to(p, start_ns - t->t0);
		p += sprintf(p, ", \"end_s\": ");
		p = secs_to(p, end_ns - t->t0);
		for (int i = 0; i < t->nr; i++) {
			size_t l = strlen(t->col[i].name);

			*p++ = ',';
			*p++ = ' ';
			*p++ = '"';
			memcpy(p, t->col[i].name, l);
			p += l;
			*p++ = '"';
			*p++ = ':';
			*p++ = ' ';
			p = i64_to(p, row[i]);
		}
		*p++ = '}';
	} else {
		p = secs_to(p, start_ns - t->t0);
		*p++ = ',';
		p = secs_to(p, end_ns - t->t0);
		for (int i = 0; i < t->nr; i++) {
			*p++ = ',';
			if (!row[i])
				*p++ = '0';
			else
				p = i64_to(p, row[i]);
		}
	}
	*p++ = '\n';
	fwrite(w->buf, 1, (size_t)(p - w->buf), w->out.f);
}

int ps_tl_out_close(struct ps_tl_out *w, const struct ps_timeline *t, struct ps_error *err)
{
	if (!w->header_done && t)
		header(w, t);
	free(w->buf);
	w->buf = NULL;
	free_meta(w);
	if (t && t->overflow) {
		ps_out_abort(&w->out);
		return ps_err(err, "--timeline: more than %llu rows of %.9g s (the trace spans %.9g s or more): "
			      "give a longer --interval; no timeline was written", PS_TL_MAX_ROWS, t->interval_ns / 1e9,
			      (double)PS_TL_MAX_ROWS * (t->interval_ns / 1e9));
	}
	if (w->failed) {
		ps_out_abort(&w->out);
		return ps_err(err, "--timeline: out of memory");
	}
	if (ps_out_commit(&w->out, err) < 0)
		return ps_err(err, "--timeline: %s", err->msg);
	return 0;
}

void ps_tl_out_abort(struct ps_tl_out *w)
{
	free_meta(w);
	free(w->buf);
	w->buf = NULL;
	ps_out_abort(&w->out);
}

int ps_view_select(void *ctx, const struct ps_event *ev)
{
	struct ps_view_run *v = ctx;

	return ps_filter_match(&v->o->f, ev);
}

void ps_view_counted(void *ctx, const struct ps_event *ev, const struct ps_counted *d)
{
	struct ps_view_run *v = ctx;

	ps_by_count(v->by, ev, d);
}

void ps_view_row(void *ctx, const struct ps_timeline *t, uint64_t start_ns, uint64_t end_ns, const int64_t *row)
{
	struct ps_view_run *v = ctx;

	ps_tl_out_row(&v->w, t, start_ns, end_ns, row);
}

int ps_view_count(struct ps_view_run *v, struct ps_reader *rd, struct ps_counters *c, struct ps_error *err)
{
	struct ps_timeline tl;
	const struct ps_event *evs;
	struct ps_cnt_snap snap;
	struct ps_counted d;
	int n;

	ps_tl_init(&tl, v->o->interval_ns, ps_view_row, v);
	if (v->have_w && ps_tl_add_counters(&tl, c, NULL, "", "") < 0) {
		ps_tl_free(&tl);
		return ps_err(err, "out of memory");
	}
	while ((n = ps_reader_next_batch(rd, &evs, err)) > 0) {
		for (int i = 0; i < n; i++) {
			const struct ps_event *ev = &evs[i];

			if (v->have_w) {
				if (!tl.started)
					ps_tl_start(&tl, ev->ts_ns);
				(void)ps_tl_advance(&tl, ev->ts_ns);	/* an overflow fails at the end */
			}
			if (v->o->f.on && !ps_filter_match(&v->o->f, ev))
				continue;
			if (!v->by) {
				ps_counters_event(c, ev);
				continue;
			}
			ps_cnt_snap_take(&snap, c);
			ps_counters_event(c, ev);
			if (ev->type != PS_EV_ALLOC && ev->type != PS_EV_FREE)
				continue;
			ps_counted_delta(&d, c, &snap);
			if (ev->type == PS_EV_FREE && d.free_pages) {
				int zi = ps_zone_table_lookup(&c->zt, ev->pfn);

				if (zi >= 0) {
					d.node = c->m->zones[zi].node;
					d.zone_type = c->m->zones[zi].type;
				}
			}
			d.cpu = ev->cpu;
			ps_by_count(v->by, ev, &d);
		}
	}
	if (n == 0 && v->have_w) {
		ps_tl_finish(&tl);
		v->have_w = 0;
		if (ps_tl_out_close(&v->w, &tl, err) < 0)
			n = -1;
	}
	ps_tl_free(&tl);
	return n;
}
