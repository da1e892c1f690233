// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tep_formats.c - the event formats pagesim lets libtraceevent parse.
 *
 * A trace.dat from 'trace-cmd extract' or 'record' carries every system's
 * formats (about 100 systems, 2,000 events on a 6.x kernel), libtracefs
 * parses every local one, and each goes through tep_parse_event().  This
 * definition takes the place of libtraceevent's in the whole process (the
 * libraries call it through their PLT; the executable's own definition
 * comes first) and hands the real one only what pagesim reads:
 *
 *   - the events of lib/event.h (under their older names too), with their
 *     fields; their print formats only where tep_kmem.c decodes gfp_flags
 *     through them, and those lazily: the format is kept, and parsed into a
 *     second handle the first time a gfp value has to be decoded
 *     (ps_tep_print_handle()).  The __print_flags table of show_gfp_flags()
 *     costs libtraceevent 2.6 M instructions an event, and a trace without
 *     reclaim never needs the vmscan events' ones;
 *   - of every other event, ftrace's included, only its id and name, which
 *     name the skipped events of other kinds (ps_tep_other_name()).
 *     libtracecmd's blktrace guess (tracecmd_blk_hack) then finds no ftrace
 *     event to place blktrace after and gives up: pagesim reads no
 *     blktrace records.  Parsing ftrace's 18 formats' fields was a ninth
 *     of `stat`'s instructions on a small trace.dat.
 *
 * Parsing every format in full was a third of `stat`'s time on a small
 * trace.dat.  The kallsyms, printk-format and cmdlines sections that
 * libtracecmd hands libtraceevent have stand-ins here too (below).  PAGESIM_TDAT_ALL_FORMATS=1 hands every format over whole; the
 * tests compare the two.  The lists are per tep handle and locked: sweeps
 * open traces on several threads.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "lib/event.h"
#include "trace/tep_formats.h"

struct other_event {
	const struct tep_handle *tep;
	int id;
	char *name;
};

/* A print format handed over empty, kept for ps_tep_print_handle(). */
struct kept_format {
	const struct tep_handle *tep;
	int id;
	char *text, *sys;
	unsigned long len;
};

/* The second handle of a tep, which holds the kept formats parsed whole. */
struct print_handle {
	const struct tep_handle *tep;
	struct tep_handle *print;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct other_event *others;
static int n_others, cap_others;
static struct kept_format *kept;
static int n_kept, cap_kept;
static struct print_handle *prints;
static int n_prints, cap_prints;

static enum tep_errno (*real_parse_event)(struct tep_handle *, const char *, unsigned long, const char *);

/* *@arr, or a copy with room for one more of @size bytes when it has n == *@cap: NULL out of memory. */
static void *grow(void *arr, int n, int *cap, size_t size)
{
	void *p;
	int c;

	if (n < *cap)
		return arr;
	c = *cap ? 2 * *cap : 64;
	p = realloc(arr, c * size);
	if (p)
		*cap = c;
	return p;
}

static int all_formats(void)
{
	static int all = -1;

	if (all < 0) {
		const char *env = getenv("PAGESIM_TDAT_ALL_FORMATS");

		all = env && *env && strcmp(env, "0");
	}
	return all;
}

/* The value of the line "KEY: value" among the first lines of a format, or NULL; *len its length. */
static const char *format_line(const char *buf, unsigned long size, const char *key, size_t *len)
{
	size_t kl = strlen(key);
	const char *p = buf, *end = buf + size;

	for (int line = 0; line < 4 && p < end; line++) {
		const char *nl = memchr(p, '\n', end - p);
		const char *e = nl ? nl : end;

		if ((size_t)(e - p) > kl && !memcmp(p, key, kl)) {
			*len = e - p - kl;
			return p + kl;
		}
		p = e + 1;
	}
	return NULL;
}

/* The event id of a format, or -1. */
static int format_id(const char *buf, unsigned long size)
{
	size_t ilen;
	const char *id = format_line(buf, size, "ID: ", &ilen);
	char num[16], *end;
	long v;

	if (!id || ilen >= sizeof(num))
		return -1;
	memcpy(num, id, ilen);
	num[ilen] = 0;
	v = strtol(num, &end, 10);
	return end == num || v < 0 || v > 0x7fffffff ? -1 : (int)v;
}

static void keep_other(struct tep_handle *tep, const char *buf, unsigned long size)
{
	size_t nlen;
	const char *name = format_line(buf, size, "name: ", &nlen);
	int id = format_id(buf, size);
	struct other_event *p;
	char *copy;

	if (!name || id < 0 || !(copy = strndup(name, nlen)))
		return;
	pthread_mutex_lock(&lock);
	p = grow(others, n_others, &cap_others, sizeof(*others));
	if (!p) {
		free(copy);
	} else {
		others = p;
		others[n_others].tep = tep;
		others[n_others].id = id;
		others[n_others++].name = copy;
	}
	pthread_mutex_unlock(&lock);
}

/* Keeps the whole format of @buf for ps_tep_print_handle(); 0, or -1 out of memory. */
static int keep_format(struct tep_handle *tep, const char *buf, unsigned long size, const char *sys)
{
	int id = format_id(buf, size), ret = -1;
	char *text = malloc(size + 1), *s = strdup(sys);
	struct kept_format *k;

	if (id >= 0 && text && s) {
		memcpy(text, buf, size);
		text[size] = 0;
		pthread_mutex_lock(&lock);
		k = grow(kept, n_kept, &cap_kept, sizeof(*kept));
		if (k) {
			kept = k;
			kept[n_kept++] = (struct kept_format){ tep, id, text, s, size };
			text = s = NULL;
			ret = 0;
		}
		pthread_mutex_unlock(&lock);
	}
	free(text);
	free(s);
	return ret;
}

enum { FORMAT_SKIP, FORMAT_FIELDS, FORMAT_GFP, FORMAT_FULL };

static int format_use(const char *buf, unsigned long size, const char *sys)
{
	size_t nlen;
	const char *name = format_line(buf, size, "name: ", &nlen);
	int type;

	if (all_formats() || !sys)
		return FORMAT_FULL;
	if (!name)
		return FORMAT_FULL;	/* libtraceevent's to refuse */
	type = ps_event_type_from_name(name, (int)nlen);
	if (type < 0 && nlen == strlen("mm_vmscan_writepage") && !memcmp(name, "mm_vmscan_writepage", nlen))
		type = PS_EV_WRITE_FOLIO;
	if (type < 0 || strcmp(sys, ps_event_systems[type]))
		return FORMAT_SKIP;
	switch (type) {
	case PS_EV_ALLOC:
	case PS_EV_WAKEUP_KSWAPD:
	case PS_EV_DIRECT_BEGIN:
	case PS_EV_NODE_RECLAIM_BEGIN:
		return FORMAT_GFP;	/* tep_kmem.c's decode_gfp() */
	default:
		return FORMAT_FIELDS;
	}
}

/* @buf's format with an empty print format. */
static enum tep_errno parse_fields(struct tep_handle *tep, const char *buf, unsigned long size, const char *sys)
{
	static const char key[] = "\nprint fmt:", empty[] = "\nprint fmt: \"\"\n";
	const char *pf = memmem(buf, size, key, sizeof(key) - 1);
	enum tep_errno ret;
	size_t head;
	char *copy;

	if (!pf)
		return real_parse_event(tep, buf, size, sys);
	head = pf - buf;
	copy = malloc(head + sizeof(empty));
	if (!copy)
		return TEP_ERRNO__MEM_ALLOC_FAILED;
	memcpy(copy, buf, head);
	memcpy(copy + head, empty, sizeof(empty));
	ret = real_parse_event(tep, copy, head + sizeof(empty) - 1, sys);
	free(copy);
	return ret;
}

static int have_real(void)
{
	if (!real_parse_event)
		*(void **)&real_parse_event = dlsym(RTLD_NEXT, "tep_parse_event");
	return real_parse_event != NULL;
}

enum tep_errno ps_tep_parse_whole(struct tep_handle *tep, const char *buf, unsigned long size, const char *sys)
{
	return have_real() ? real_parse_event(tep, buf, size, sys) : TEP_ERRNO__MEM_ALLOC_FAILED;
}

__attribute__((used, visibility("default"))) enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf,
									unsigned long size, const char *sys)
{
	if (!have_real())
		return TEP_ERRNO__MEM_ALLOC_FAILED;
	switch (format_use(buf, size, sys)) {
	case FORMAT_FULL:
		return real_parse_event(tep, buf, size, sys);
	case FORMAT_GFP:
		if (keep_format(tep, buf, size, sys) < 0)
			return real_parse_event(tep, buf, size, sys);	/* whole, then */
		return parse_fields(tep, buf, size, sys);
	case FORMAT_FIELDS:
		return parse_fields(tep, buf, size, sys);
	default:
		keep_other(tep, buf, size);
		return 0;
	}
}

const char *ps_tep_other_name(const struct tep_handle *tep, int id)
{
	const char *name = NULL;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_others && !name; i++)
		if (others[i].tep == tep && others[i].id == id)
			name = others[i].name;
	pthread_mutex_unlock(&lock);
	return name;
}

/* The second handle of @tep, made like it; NULL out of memory.  Under the lock. */
static struct tep_handle *print_handle_of(struct tep_handle *tep)
{
	struct print_handle *ph;
	struct tep_handle *p;

	for (int i = 0; i < n_prints; i++)
		if (prints[i].tep == tep)
			return prints[i].print;
	ph = grow(prints, n_prints, &cap_prints, sizeof(*prints));
	if (!ph)
		return NULL;
	prints = ph;
	p = tep_alloc();
	if (!p)
		return NULL;
	tep_set_file_bigendian(p, tep_is_file_bigendian(tep) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(p, tep_is_local_bigendian(tep) ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_long_size(p, tep_get_long_size(tep));
	tep_set_page_size(p, tep_get_page_size(tep));
	prints[n_prints++] = (struct print_handle){ tep, p };
	return p;
}

struct tep_handle *ps_tep_print_handle(struct tep_handle *tep, int id)
{
	struct tep_handle *ret = tep;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < n_kept; i++) {
		struct tep_handle *p;

		if (kept[i].tep != tep || kept[i].id != id)
			continue;
		p = print_handle_of(tep);
		if (p && !tep_find_event(p, id) && (!have_real() || real_parse_event(p, kept[i].text, kept[i].len, kept[i].sys)))
			p = NULL;
		ret = p;
		break;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

void ps_tep_forget(const struct tep_handle *tep)
{
	int n;

	pthread_mutex_lock(&lock);
	n = 0;
	for (int i = 0; i < n_others; i++)
		if (others[i].tep == tep)
			free(others[i].name);
		else
			others[n++] = others[i];
	n_others = n;
	n = 0;
	for (int i = 0; i < n_kept; i++)
		if (kept[i].tep == tep) {
			free(kept[i].text);
			free(kept[i].sys);
		} else {
			kept[n++] = kept[i];
		}
	n_kept = n;
	n = 0;
	for (int i = 0; i < n_prints; i++)
		if (prints[i].tep == tep)
			tep_free(prints[i].print);
		else
			prints[n++] = prints[i];
	n_prints = n;
	if (!n_others) {
		free(others);
		others = NULL;
		cap_others = 0;
	}
	if (!n_kept) {
		free(kept);
		kept = NULL;
		cap_kept = 0;
	}
	if (!n_prints) {
		free(prints);
		prints = NULL;
		cap_prints = 0;
	}
	pthread_mutex_unlock(&lock);
}

/*
 * Opening a trace.dat, libtracecmd parses the file's kallsyms and
 * printk-format sections with libtraceevent (a sscanf per line of
 * /proc/kallsyms: 40% of pagesim's time on a half-million-event file).
 * pagesim prints no kernel address as a symbol and no printk string, so
 * these two definitions stand in for libtraceevent's in the whole process
 * (libtracecmd calls them through its PLT, and the executable's own
 * definition comes first) and parse nothing.  PAGESIM_TDAT_SYMBOLS=1 hands
 * the sections to libtraceevent's own functions; the tests compare the two.
 */
int ps_tep_symbols_wanted(void)
{
	const char *env = getenv("PAGESIM_TDAT_SYMBOLS");

	return env && *env && strcmp(env, "0");
}

static int parse_section(const char *parser, struct tep_handle *tep, const char *buf)
{
	int (*real)(struct tep_handle *, const char *);

	if (!ps_tep_symbols_wanted())
		return 0;
	*(void **)&real = dlsym(RTLD_NEXT, parser);
	return real ? real(tep, buf) : 0;
}

__attribute__((used, visibility("default"))) int tep_parse_kallsyms(struct tep_handle *tep, const char *kallsyms)
{
	return parse_section("tep_parse_kallsyms", tep, kallsyms);
}

__attribute__((used, visibility("default"))) int tep_parse_printk_formats(struct tep_handle *tep, const char *buf)
{
	return parse_section("tep_parse_printk_formats", tep, buf);
}

/*
 * libtraceevent's tep_parse_saved_cmdlines() takes each "pid comm" line of
 * the cmdlines section with sscanf and two allocations (a seventh of
 * `stat`'s instructions on a small file).  This one registers the lines
 * of the kernel's own form (a decimal pid of up to 9 digits, one space, a
 * name without a newline) itself, through tep_register_comm() as the real
 * one does, and hands the rest of the buffer from the first other line to
 * the real one, which parses it as it would have.
 */
__attribute__((used, visibility("default"))) int tep_parse_saved_cmdlines(struct tep_handle *tep, const char *buf)
{
	static int (*real)(struct tep_handle *, const char *);
	char comm[256];
	const char *p = buf;

	while (*p) {
		const char *q = p, *nl;
		int pid = 0, digits = 0;
		size_t len;

		if (*p == '\n') {	/* strtok_r's empty tokens */
			p++;
			continue;
		}
		while (*q >= '0' && *q <= '9' && digits < 9) {
			pid = pid * 10 + (*q++ - '0');
			digits++;
		}
		if (!digits || *q != ' ' || !q[1] || strchr(" \t\n\v\f\r", q[1]))
			break;	/* sscanf's %d, its whitespace and %[^\n] would read it otherwise */
		q++;
		nl = strchr(q, '\n');
		len = nl ? (size_t)(nl - q) : strlen(q);
		if (len >= sizeof(comm))
			break;
		memcpy(comm, q, len);
		comm[len] = 0;
		tep_register_comm(tep, comm, pid);
		p = q + len;
	}
	if (!*p)
		return 0;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "tep_parse_saved_cmdlines");
	return real ? real(tep, p) : -1;
}
