// SPDX-License-Identifier: GPL-2.0-or-later
/* util.c - messages, usage errors and atomic output files for the subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

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

int ps_out_open(struct ps_out *o, const char *path, struct ps_error *err)
{
	int fd;

	memset(o, 0, sizeof(*o));
	if (!path || !strcmp(path, "-")) {
		o->f = stdout;
		return 0;
	}
	o->path = strdup(path);
	if (!o->path || asprintf(&o->tmp, "%s.tmp.XXXXXX", path) < 0)
		return ps_err(err, "out of memory");
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		ps_err(err, "cannot create '%s': %s (does the directory exist and is it writable?)", o->tmp,
		       strerror(errno));
		free(o->tmp);
		o->tmp = NULL;
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
		return ps_err(err, "cannot write '%s': %s", o->tmp, strerror(errno));
	}
	return 0;
}

int ps_out_commit(struct ps_out *o, struct ps_error *err)
{
	int bad;

	if (!o->tmp) {
		if (fflush(o->f) != 0 || ferror(o->f))
			return ps_err(err, "cannot write the output: %s", strerror(errno));
		return 0;
	}
	bad = fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0;
	if (bad) {
		int e = errno;

		ps_out_abort(o);
		return ps_err(err, "cannot write '%s': %s; nothing was written", o->path, strerror(e));
	}
	if (fclose(o->f) != 0 || rename(o->tmp, o->path) != 0) {
		int e = errno;

		o->f = NULL;
		ps_out_abort(o);
		return ps_err(err, "cannot write '%s': %s; nothing was written", o->path, strerror(e));
	}
	o->f = NULL;
	free(o->tmp);
	free(o->path);
	o->tmp = o->path = NULL;
	return 0;
}

void ps_out_abort(struct ps_out *o)
{
	if (o->tmp) {
		if (o->f)
			fclose(o->f);
		unlink(o->tmp);
		free(o->tmp);
	}
	free(o->path);
	memset(o, 0, sizeof(*o));
}

void ps_print_kv_vmstat(FILE *f, const struct ps_kv *kv)
{
	for (int i = 0; i < kv->nr; i++)
		fprintf(f, "%s %lld\n", kv->items[i].name, (long long)kv->items[i].value);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

void ps_print_kv_json(FILE *f, const struct ps_kv *kv, const char *const *meta, int nr_meta)
{
	fputs("{\n", f);
	for (int i = 0; i + 1 < nr_meta * 2; i += 2) {
		fputs("  ", f);
		json_str(f, meta[i]);
		fputs(": ", f);
		json_str(f, meta[i + 1] ? meta[i + 1] : "");
		fputs(",\n", f);
	}
	fputs("  \"counters\": {\n", f);
	for (int i = 0; i < kv->nr; i++) {
		fputs("    ", f);
		json_str(f, kv->items[i].name);
		fprintf(f, ": %lld%s\n", (long long)kv->items[i].value, i + 1 < kv->nr ? "," : "");
	}
	fputs("  }\n}\n", f);
}
