/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.h - what the subcommands share: exit codes, usage, output files. */
#ifndef PS_CLI_H
#define PS_CLI_H

#include <getopt.h>
#include <stdio.h>

#include "lib/error.h"
#include "lib/kvfile.h"

#define PS_EXIT_OK 0
#define PS_EXIT_FAIL 1
#define PS_EXIT_USAGE 2

#ifndef PAGESIM_VERSION
#define PAGESIM_VERSION "0.0.0"
#endif

struct ps_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_stat(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_lockstat(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);

/* "pagesim: <msg>" on stderr */
void ps_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ps_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

struct ps_machine;
/* What a machine's reader found odd but accepted (lib/machine.h), as warnings. */
void ps_print_machine_warnings(const struct ps_machine *m);

/* The first of @n "KEY=VALUE" options whose key an earlier one gave (into @key), or -1. */
int ps_sets_repeated(const char *const *sets, int n, char *key, size_t len);

/* Prints "pagesim CMD: <msg>" and the usage hint; returns PS_EXIT_USAGE. */
int ps_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Every subcommand's table has this entry; ps_getopt() returns PS_OPT_VERSION for it. */
#define PS_OPT_VERSION 0x7ff0
#define PS_OPTION_VERSION { "version", no_argument, NULL, PS_OPT_VERSION }

/*
 * getopt_long() for subcommand @cmd with one message per bad option: an
 * unknown or ambiguous option, a missing argument, or an argument given to
 * an option that takes none is reported (with the usage hint) and '?'
 * returned; the caller returns PS_EXIT_USAGE.  @shortopts as for
 * getopt_long(), without a leading ':'.
 */
int ps_getopt(const char *cmd, int argc, char **argv, const char *shortopts, const struct option *longopts);

/* "pagesim VERSION" on stdout; returns PS_EXIT_OK. */
int ps_print_version(void);

/*
 * Output that never leaves a half-written file: writes go to a temporary
 * file beside the file @path names (a symbolic link is followed, never
 * replaced), renamed over it by ps_out_commit().  A device, a pipe or a
 * file descriptor (/dev/stdout, /proc/self/fd/1) is written in place.
 * NULL or "-" is stdout.
 */
struct ps_out {
	FILE *f;
	char *path;		/* as given, for messages */
	char *real;		/* the file replaced: links followed, directory resolved */
	char *tmp;
	int synced;		/* ps_out_sync() has flushed and synced it (1), or failed (-1) */
	int sync_errno;
};

int ps_out_open(struct ps_out *o, const char *path, struct ps_error *err);
/* A file the command reads: ps_out_open() refuses to replace it. */
void ps_note_input(const char *path);
/* The snapshot files of sysroot @dir (proc/vmstat, zoneinfo, buddyinfo, ...) as inputs. */
void ps_note_sysroot(const char *dir);
/* Flushes, checks for write errors (a full disk) and renames; 0 or -1. */
int ps_out_commit(struct ps_out *o, struct ps_error *err);
/*
 * The flush and fsync of ps_out_commit() alone, which touch no state but
 * @o's: threads may sync their files at once, then commit one at a time.
 * 0, or -1 (the file is left for ps_out_commit() to report and remove).
 */
int ps_out_sync(struct ps_out *o);
/* Removes the temporary file. */
void ps_out_abort(struct ps_out *o);

/* Counters as "name value" lines or as a JSON object. */
void ps_print_kv_vmstat(FILE *f, const struct ps_kv *kv);
void ps_print_json_str(FILE *f, const char *s);

/*
 * One CSV cell (RFC 4180): quoted when it holds a comma, a quote, CR or LF,
 * with quotes doubled.  @one_line: CR and LF become spaces, for files read a
 * line at a time (timelines).
 */
void ps_csv_cell(FILE *f, const char *s, int one_line);

/*
 * @s with every byte that is not part of valid UTF-8 (a path is any bytes)
 * replaced by U+FFFD, malloc'd (NULL on no memory): JSON must be UTF-8,
 * and json-c copies bytes as they are.
 */
char *ps_utf8_clean(const char *s);

struct json_object;
/* A json-c string of @s, cleaned by ps_utf8_clean(). */
struct json_object *ps_json_string(const char *s);
void ps_print_kv_json(FILE *f, const struct ps_kv *kv, const char *const *meta_kv, int nr_meta);

/*
 * Writes @kv to @path (NULL or "-": stdout) as "name value" lines, or as
 * JSON with @nr_meta name/value pairs of @meta first, through ps_out (never
 * half-written).  Returns 0, or prints the error and returns -1.
 */
int ps_write_counters(const char *path, int json, const struct ps_kv *kv, const char *const *meta, int nr_meta);

/*
 * replay --ensemble's output: per counter (the union of the @n members'
 * rows; one a member lacks counts 0 there) the mean and sample stddev, as
 * 'name mean stddev' lines after a '#' line saying so, or JSON ("counters":
 * name -> {"mean", "stddev"}, @meta's pairs beside).  0, or -1 after
 * printing why.
 */
int ps_write_ensemble(const char *path, int json, const struct ps_kv *kvs, int n, const char *const *meta, int nr_meta);

#endif
