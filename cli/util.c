// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - messages, usage errors and atomic output files for the subcommands. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/stats.h"
#include "cli/cli.h"
#include "lib/machine.h"

void ps_error(const char *fmt, ...)
{
	va_list ap;

	fputs("pagesim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ps_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("pagesim: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void ps_print_machine_warnings(const struct ps_machine *m)
{
	for (int i = 0; i < m->nr_warnings; i++)
		ps_warn("%s", m->warnings[i]);
}

/* The key of "KEY=VALUE" (spaces around it dropped) into @key; its length. */
static size_t set_key(const char *set, char *key, size_t len)
{
	const char *eq = strchr(set, '='), *end = eq ? eq : set + strlen(set);

	while (*set == ' ')
		set++;
	while (end > set && end[-1] == ' ')
		end--;
	snprintf(key, len, "%.*s", (int)(end - set), set);
	return end - set;
}

int ps_sets_repeated(const char *const *sets, int n, char *key, size_t len)
{
	char a[256], b[256];

	for (int i = 1; i < n; i++) {
		set_key(sets[i], a, sizeof(a));
		for (int j = 0; j < i; j++) {
			set_key(sets[j], b, sizeof(b));
			if (a[0] && !strcmp(a, b)) {
				snprintf(key, len, "%s", a);
				return i;
			}
		}
	}
	return -1;
}

int ps_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pagesim %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'pagesim %s --help'\n", cmd);
	return PS_EXIT_USAGE;
}

int ps_print_version(void)
{
	printf("pagesim %s\n", PAGESIM_VERSION);
	return PS_EXIT_OK;
}

/*
 * The entries of @lo that "--@name" (@len characters) names: the exact one,
 * else every one it is a prefix of.  Returns how many, *@first the first.
 */
static int long_matches(const struct option *lo, const char *name, size_t len, const struct option **first)
{
	int n = 0;

	*first = NULL;
	for (const struct option *o = lo; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len)) {
			*first = o;
			return 1;
		}
	for (const struct option *o = lo; o->name; o++)
		if (!strncmp(o->name, name, len) && !n++)
			*first = o;
	return n;
}

int ps_getopt(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts)
{
	char opts[128], list[512] = "";
	const struct option *o;
	const char *el, *name;
	int plus = shortopts[0] == '+', before = optind, opt, n;
	size_t len;

	/* a leading ':' tells a missing argument (':') from an unknown option ('?') */
	snprintf(opts, sizeof(opts), "%s:%s", plus ? "+" : "", shortopts + plus);
	opterr = 0;
	opt = getopt_long(argc, argv, opts, longopts, NULL);
	if (opt != '?' && opt != ':')
		return opt;
	/* a long option is always the element just passed; a short one may sit inside a group */
	el = optind > before && optind <= argc ? argv[optind - 1] : NULL;
	if (!el || strncmp(el, "--", 2)) {
		if (opt == ':')
			ps_usage_error(cmd, "option '-%c' needs an argument", optopt);
		else if (optopt > ' ' && optopt < 127)
			ps_usage_error(cmd, "unknown option '-%c'", optopt);
		else
			ps_usage_error(cmd, "unknown option '%s'", el ? el : "?");
		return '?';
	}
	name = el + 2;
	len = strcspn(name, "=");
	n = long_matches(longopts, name, len, &o);
	if (n == 1 && opt == ':')
		ps_usage_error(cmd, "option '--%s' needs an argument", o->name);
	else if (n == 1 && o->has_arg == no_argument && name[len] == '=')
		ps_usage_error(cmd, "option '--%s' takes no argument", o->name);
	else if (n > 1) {
		for (const struct option *p = longopts; p->name; p++)
			if (!strncmp(p->name, name, len))
				snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s--%s", list[0] ? ", " : "",
					 p->name);
		ps_usage_error(cmd, "option '--%.*s' is ambiguous: %s", (int)len, name, list);
	} else {
		ps_usage_error(cmd, "unknown option '--%.*s'", (int)len, name);
	}
	return '?';
}

/*
 * Temporary files of open outputs, removed if a signal whose default is to
 * end the process arrives before ps_out_commit() (a subcommand with its own
 * handlers, like record's SIGINT, SIGTERM and SIGHUP, keeps them and aborts
 * its outputs itself).  SIGKILL and SIGSTOP cannot be caught.
 */
#define NR_TMP 8
static char tmp_paths[NR_TMP][4096];
static volatile sig_atomic_t tmp_used[NR_TMP];

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < NR_TMP; i++)
		if (tmp_used[i])
			unlink(tmp_paths[i]);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void tmp_track(const char *tmp, int on)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGUSR1,
				    SIGSEGV, SIGUSR2, SIGPIPE, SIGALRM, SIGTERM, SIGSTKFLT, SIGXCPU, SIGXFSZ,
				    SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSYS };
	static int installed;

	if (!installed) {
		struct sigaction old, sa = { .sa_handler = on_fatal_signal };

		/* a handler already there (record's, a sanitizer's) or an ignored signal stays */
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
				sigaction(sigs[i], &sa, NULL);
		for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
			if (sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
				sigaction(sig, &sa, NULL);
		installed = 1;
	}
	for (int i = 0; i < NR_TMP; i++) {
		if (on && !tmp_used[i] && strlen(tmp) < sizeof(tmp_paths[i])) {
			strcpy(tmp_paths[i], tmp);
			tmp_used[i] = 1;
			return;
		}
		if (!on && tmp_used[i] && !strcmp(tmp_paths[i], tmp)) {
			tmp_used[i] = 0;
			return;
		}
	}
}

static char *input_paths[256];	/* copies, held to the end (reachable, not leaked) */
static int nr_input_paths;

void ps_note_input(const char *path)
{
	if (path && strcmp(path, "-") && nr_input_paths < (int)(sizeof(input_paths) / sizeof(input_paths[0])) &&
	    (input_paths[nr_input_paths] = strdup(path)))
		nr_input_paths++;
}

void ps_note_sysroot(const char *dir)
{
	/* the ones an output of pagesim could be mistaken for: counters (-o) and --state-dir's files */
	static const char *const files[] = { "vmstat", "zoneinfo", "buddyinfo", "pagetypeinfo" };
	char path[4096];

	for (size_t i = 0; dir && i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/proc/%s", dir, files[i]);
		ps_note_input(path);
	}
}

/* @p names a file descriptor: /proc/<pid>/fd/N, /dev/fd/N. */
static int names_fd(const char *p)
{
	const char *q;

	if (!strncmp(p, "/dev/fd/", 8))
		q = p + 8;
	else if (!strncmp(p, "/proc/", 6) && (q = strchr(p + 6, '/')) && !strncmp(q, "/fd/", 4))
		q += 4;
	else
		return 0;
	return *q && strspn(q, "0123456789") == strlen(q);
}

/*
 * Follows the symbolic links of @path's last component: 1 if one of them
 * names a file descriptor (/dev/stdout, /proc/self/fd/1), which is written
 * in place; into @out the last name of the chain (the file a link points
 * to, which may not exist yet).  -1 for a loop.
 */
static int follow_links(const char *path, char *out, size_t len)
{
	char cur[4096], link[4096], *slash;
	struct stat st;

	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 40; hops++) {
		ssize_t n;

		if (names_fd(cur))
			return 1;
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode)) {
			snprintf(out, len, "%s", cur);
			return 0;
		}
		n = readlink(cur, link, sizeof(link) - 1);
		if (n < 0) {
			snprintf(out, len, "%s", cur);
			return 0;
		}
		link[n] = 0;
		if (link[0] == '/' || !(slash = strrchr(cur, '/'))) {
			snprintf(cur, sizeof(cur), "%s", link);
		} else {
			char dir[4096];

			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cur), cur);
			snprintf(cur, sizeof(cur), "%s/%s", dir, link);
		}
	}
	return -1;
}

/*
 * The file an output replaces: @path with its symbolic links followed and
 * its directory resolved (realpath), so that the temporary file goes beside
 * the real file and the rename replaces it, never a link to it.
 */
static int resolve_output(const char *path, char **real, struct ps_error *err)
{
	char last[4096], *dir, *base, *rdir;

	if (follow_links(path, last, sizeof(last)) < 0)
		return ps_err(err, "cannot write '%s': too many levels of symbolic links", path);
	*real = realpath(last, NULL);
	if (*real)
		return 0;
	if (errno != ENOENT)
		return ps_err(err, "cannot write '%s': %s", path, strerror(errno));
	/* a new file: its directory must exist */
	base = strrchr(last, '/');
	dir = base ? strndup(last, base == last ? 1 : base - last) : strdup(".");
	base = base ? base + 1 : last;
	rdir = dir ? realpath(dir, NULL) : NULL;
	free(dir);
	if (!rdir)
		return ps_err(err, "cannot create '%s': %s (does the directory exist and is it writable?)", path, strerror(errno));
	if (asprintf(real, "%s%s%s", rdir, strcmp(rdir, "/") ? "/" : "", base) < 0) {
		free(rdir);
		return ps_err(err, "out of memory");
	}
	free(rdir);
	return 0;
}

int ps_out_open(struct ps_out *o, const char *path, struct ps_error *err)
{
	struct stat st, in;
	char last[4096], *real = NULL;
	int fd, r;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	r = follow_links(path, last, sizeof(last));
	if (r == 0 && resolve_output(path, &real, err) < 0)
		return -1;
	if (r > 0 || (stat(real, &st) == 0 && !S_ISREG(st.st_mode))) {
		/* a descriptor, device or pipe (/dev/stdout, /dev/null, /dev/full, a fifo): written in place */
		free(real);
		if (r == 0 && S_ISDIR(st.st_mode))
			return ps_err(err, "cannot write '%s': it is a directory (give a file name)", path);
		o->f = fopen(path, "w");
		if (!o->f)
			return ps_err(err, "cannot write '%s': %s", path, strerror(errno));
		o->path = strdup(path);
		return 0;
	}
	/* -o naming the input would rename the output over the user's trace */
	if (stat(real, &st) == 0)
		for (int i = 0; i < nr_input_paths; i++)
			if (stat(input_paths[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
				free(real);
				return ps_err(err, "will not write '%s': it is the input %s, which the output would replace (give another file)",
					      path, input_paths[i]);
			}
	o->path = strdup(path);
	o->real = real;
	if (!o->path || asprintf(&o->tmp, "%s.tmp.XXXXXX", real) < 0) {
		ps_out_abort(o);
		return ps_err(err, "out of memory");
	}
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ps_err(err, "cannot create '%s': %s (does the directory exist and is it writable?)", o->tmp,
		       strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		ps_out_abort(o);
		return -1;
	}
	{
		/* mkstemp makes 0600 files: give the output the usual mode */
		mode_t mask = umask(0);

		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		ps_err(err, "cannot write '%s': %s", o->tmp, strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
		ps_out_abort(o);
		return -1;
	}
	tmp_track(o->tmp, 1);
	return 0;
}

int ps_out_commit(struct ps_out *o, struct ps_error *err)
{
	int e = 0;

	if (!o->tmp) {
		int failed = fflush(o->f) != 0 || ferror(o->f);

		e = errno;
		if (o->f != stdout && fclose(o->f) != 0 && !failed) {
			failed = 1;
			e = errno;
		}
		o->f = NULL;
		if (failed)
			ps_err(err, "cannot write '%s': %s", o->path ? o->path : "standard output", strerror(e));
		free(o->path);
		o->path = NULL;
		return failed ? -1 : 0;
	}
	if (!o->synced)
		ps_out_sync(o);
	if (o->synced < 0)
		e = o->sync_errno;
	else if (fclose(o->f) != 0)
		e = errno;
	else if (rename(o->tmp, o->real) != 0)
		e = errno;
	if (e) {
		/* the message before ps_out_abort(), which forgets the path */
		ps_err(err, "cannot write '%s': %s; nothing was written", o->path, strerror(e));
		if (o->synced < 0)
			fclose(o->f);	/* else fclose() has been called, whatever it returned */
		o->f = NULL;
		ps_out_abort(o);
		return -1;
	}
	o->f = NULL;
	tmp_track(o->tmp, 0);
	free(o->tmp);
	free(o->path);
	free(o->real);
	o->tmp = o->path = o->real = NULL;
	return 0;
}

int ps_out_sync(struct ps_out *o)
{
	if (!o->tmp)
		return 0;	/* written in place: ps_out_commit() flushes it */
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0) {
		o->synced = -1;
		o->sync_errno = errno ? errno : EIO;	/* ferror() of an earlier write sets none */
		return -1;
	}
	o->synced = 1;
	return 0;
}

void ps_out_abort(struct ps_out *o)
{
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		tmp_track(o->tmp, 0);
		free(o->tmp);
	} else if (o->f && o->f != stdout) {
		fclose(o->f);
	}
	free(o->path);
	free(o->real);
	memset(o, 0, sizeof(*o));
}

void ps_print_kv_vmstat(FILE *f, const struct ps_kv *kv)
{
	for (int i = 0; i < kv->nr; i++)
		fprintf(f, "%s %lld\n", kv->items[i].name, (long long)kv->items[i].value);
}

/* The length of the valid UTF-8 sequence at @s (no overlong form, no surrogate, at most U+10FFFF), or 0. */
static int utf8_len(const unsigned char *s)
{
	uint32_t c;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, c = s[0] & 0x07;
	else
		return 0;
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (c < 0x800 || (c >= 0xd800 && c <= 0xdfff))) || (n == 4 && (c < 0x10000 || c > 0x10ffff)))
		return 0;
	return n;
}

char *ps_utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	char *out = malloc(3 * strlen(s) + 1), *q = out;

	if (!out)
		return NULL;
	while (*p) {
		int n = utf8_len(p);

		if (n) {
			memcpy(q, p, n);
			q += n;
			p += n;
		} else {
			memcpy(q, "\xef\xbf\xbd", 3);	/* U+FFFD */
			q += 3;
			p++;
		}
	}
	*q = 0;
	return out;
}

json_object *ps_json_string(const char *s)
{
	char *clean = ps_utf8_clean(s);
	json_object *o = json_object_new_string(clean ? clean : "");

	free(clean);
	return o;
}

/* JSON through json-c: its escaping, its layout (two spaces a level, "key": value). */
#define JSON_FLAGS (JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE)

void ps_csv_cell(FILE *f, const char *s, int one_line)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(one_line && (*s == '\n' || *s == '\r') ? ' ' : *s, f);
	}
	fputc('"', f);
}

void ps_print_json_str(FILE *f, const char *s)
{
	json_object *o = ps_json_string(s);

	fputs(json_object_to_json_string_ext(o, JSON_FLAGS), f);
	json_object_put(o);
}

void ps_print_kv_json(FILE *f, const struct ps_kv *kv, const char *const *meta, int nr_meta)
{
	json_object *root = json_object_new_object(), *ctrs = json_object_new_object();

	for (int i = 0; i + 1 < nr_meta * 2; i += 2)
		json_object_object_add(root, meta[i], ps_json_string(meta[i + 1] ? meta[i + 1] : ""));
	/* names are unique in a ps_kv: no lookup per add */
	for (int i = 0; i < kv->nr; i++)
		json_object_object_add_ex(ctrs, kv->items[i].name, json_object_new_int64(kv->items[i].value),
					  JSON_C_OBJECT_ADD_KEY_IS_NEW);
	json_object_object_add(root, "counters", ctrs);
	fputs(json_object_to_json_string_ext(root, JSON_FLAGS), f);
	fputc('\n', f);
	json_object_put(root);
}

/* The union of the members' names, the first member's order first. */
static int ensemble_names(const struct ps_kv *kvs, int n, struct ps_kv *names)
{
	ps_kv_init(names);
	for (int m = 0; m < n; m++)
		for (int i = 0; i < kvs[m].nr; i++)
			if (!ps_kv_get(names, kvs[m].items[i].name) && ps_kv_set(names, kvs[m].items[i].name, 0) < 0)
				return -1;
	return 0;
}

int ps_write_ensemble(const char *path, int json, const struct ps_kv *kvs, int n, const char *const *meta, int nr_meta)
{
	struct ps_error err = { { 0 } };
	struct ps_kv names;
	struct ps_out out;
	int64_t *v = malloc((size_t)n * sizeof(*v));
	json_object *root = NULL, *ctrs = NULL;

	if (!v || ensemble_names(kvs, n, &names) < 0) {
		free(v);
		ps_error("out of memory");
		return -1;
	}
	if (ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", err.msg);
		ps_kv_free(&names);
		free(v);
		return -1;
	}
	if (json) {
		root = json_object_new_object();
		ctrs = json_object_new_object();
		for (int i = 0; i + 1 < nr_meta * 2; i += 2)
			json_object_object_add(root, meta[i], json_object_new_string(meta[i + 1] ? meta[i + 1] : ""));
	} else {
		fprintf(out.f, "# pagesim replay --ensemble %d: each counter's mean and sample stddev over %d perturbed replays\n",
			n, n);
	}
	for (int i = 0; i < names.nr; i++) {
		const char *name = names.items[i].name;
		struct ps_stat st;
		int k = 0;

		for (int m = 0; m < n; m++) {
			const struct ps_kv_item *it = ps_kv_get(&kvs[m], name);

			/* a row a member lacks counts as 0 there: it printed none, it had none */
			v[k++] = it ? it->value : 0;
		}
		ps_stat_compute(v, k, &st);
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "mean", json_object_new_double(st.mean));
			json_object_object_add(o, "stddev", json_object_new_double(st.sd > 0 ? st.sd : 0));
			json_object_object_add_ex(ctrs, name, o, JSON_C_OBJECT_ADD_KEY_IS_NEW);
		} else {
			fprintf(out.f, "%s %.1f %.1f\n", name, st.mean, st.sd > 0 ? st.sd : 0.0);
		}
	}
	if (json) {
		json_object_object_add(root, "counters", ctrs);
		fputs(json_object_to_json_string_ext(root, JSON_FLAGS), out.f);
		fputc('\n', out.f);
		json_object_put(root);
	}
	ps_kv_free(&names);
	free(v);
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	return 0;
}

int ps_write_counters(const char *path, int json, const struct ps_kv *kv, const char *const *meta, int nr_meta)
{
	struct ps_error err = { { 0 } };
	struct ps_out out;

	if (ps_out_open(&out, path, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	if (json)
		ps_print_kv_json(out.f, kv, meta, nr_meta);
	else
		ps_print_kv_vmstat(out.f, kv);
	if (ps_out_commit(&out, &err) < 0) {
		ps_error("%s", err.msg);
		return -1;
	}
	return 0;
}
