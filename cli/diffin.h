/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diffin.h - the inputs of pagesim diff, recognised by content: "name value"
 * counter files (pagesim stat's vmstat output, raw /proc/vmstat), raw
 * nodeN/numastat files, pagesim stat's JSON output, and directories (a run
 * with before/ and after/ sysroots, reduced to after - before; or one
 * sysroot read as a snapshot).  Counter names come out as pagesim stat
 * names them: vmstat names as they are, node counters as "node<N>.<name>".
 */
#ifndef PS_DIFFIN_H
#define PS_DIFFIN_H

#include "lib/error.h"
#include "lib/kvfile.h"

enum ps_diffin_kind {
	PS_DIFFIN_VMSTAT,	/* "name value" lines: pagesim output or a raw /proc/vmstat */
	PS_DIFFIN_NUMASTAT,	/* a raw nodeN/numastat (counts since boot) */
	PS_DIFFIN_JSON,		/* pagesim stat --format json */
	PS_DIFFIN_RUN,		/* a run directory: after/ - before/ */
	PS_DIFFIN_SNAPSHOT,	/* a sysroot directory (proc/vmstat, node numastat) as it is */
	PS_DIFFIN_ENSEMBLE,	/* replay --ensemble: 'name mean stddev' lines over N replays */
};

struct json_object;

/*
 * @text (the contents of @file) as one JSON object, parsed strictly (no
 * comments, no single quotes, no trailing commas) with nothing after it;
 * NULL with @err naming the file and the line where it goes wrong, or
 * saying that the value is not an object.  The caller puts the object.
 */
struct json_object *ps_json_parse_object(const char *text, const char *file, struct ps_error *err);

/* "vmstat file", "run directory (after - before)", ... for messages and headers. */
const char *ps_diffin_kind_name(enum ps_diffin_kind kind);

/*
 * Loads @path into @kv (initialised by the caller, freed by the caller) and
 * says what it was in @kind.  @node is the node of a numastat file whose
 * path does not end in nodeN/numastat (-1: not given).  Returns 0, or -1
 * with @err naming the file and line.
 */
int ps_diffin_load(const char *path, int node, struct ps_kv *kv, enum ps_diffin_kind *kind,
		   struct ps_error *err);

/* What a file says of itself: a sweep cell's '#' lines, the members of stat's or replay's JSON. */
struct ps_diffin_meta {
	char version[32];	/* the pagesim that wrote it; "" when it does not say */
	char trace[200];
	char policy[200];	/* a sweep cell's label, or replay's profile */
	char kernel[64];	/* the profile a sweep cell ran under */
	char mode[16];
	int ensemble;		/* replay --ensemble's N; 0 for any other file */
};

/* ps_diffin_load(), and what the file says of itself into @meta ("" for what it does not say). */
int ps_diffin_load_meta(const char *path, int node, struct ps_kv *kv, enum ps_diffin_kind *kind,
			struct ps_diffin_meta *meta, struct ps_error *err);

/*
 * ps_diffin_load_meta(), and for replay --ensemble's output the stddevs:
 * with @sd (initialised by the caller) @kv and @sd get each counter's mean
 * and stddev in thousandths; without it @kv gets the means rounded.
 */
int ps_diffin_load_full(const char *path, int node, struct ps_kv *kv, struct ps_kv *sd, enum ps_diffin_kind *kind,
			struct ps_diffin_meta *meta, struct ps_error *err);

/* The header line replay --ensemble's text output starts with, up to its N. */
#define PS_ENSEMBLE_HEADER "# pagesim replay --ensemble "

/* Exposed for tests: replay --ensemble's text into @kv (means) and @sd (NULL: means rounded). */
int ps_diffin_parse_ensemble(const char *text, const char *file, struct ps_kv *kv, struct ps_kv *sd, int *n,
			     struct ps_error *err);

/*
 * Expands one column argument: items joined with commas, each expanded with
 * glob(3) when it holds * ? or [.  Returns the number of paths (> 0) and a
 * malloc'd array of malloc'd strings in *@paths (free with
 * ps_diffin_paths_free), or -1 when an item matches nothing or is empty.
 */
int ps_diffin_expand(const char *arg, char ***paths, struct ps_error *err);
void ps_diffin_paths_free(char **paths, int n);

/* Exposed for tests. */
/* N of a path ending in nodeN/numastat, else -1. */
int ps_diffin_path_node(const char *path);
/* 1 when every name is a numastat name (numa_hit, local_node, ...) and one is numastat-only. */
int ps_diffin_is_numastat(const struct ps_kv *kv);
/* The "counters" object of pagesim stat's JSON output; other members are skipped. */
int ps_diffin_parse_json(const char *text, const char *file, struct ps_kv *kv,
			  struct ps_error *err);
int ps_diffin_parse_json_meta(const char *text, const char *file, struct ps_kv *kv, struct ps_diffin_meta *meta,
			      struct ps_error *err);
/* @after - @before into @out, in @after's order; a name missing from @before is an error. */
int ps_diffin_delta(const struct ps_kv *before, const struct ps_kv *after, struct ps_kv *out,
		    const char *before_name, const char *after_name, struct ps_error *err);

#endif
