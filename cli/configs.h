/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * configs.h - machine and policy files found by name (--machine
 * ivb-ep-2s-64g, --policy wsf-100).  The directories, in order: configs/
 * beside the binary (a build directory links the source tree's), the data
 * directory relative to the binary (an installed tree wherever it sits:
 * DESTDIR, an unpacked package), the data directory it was built for.
 */
#ifndef PS_CONFIGS_H
#define PS_CONFIGS_H

#include <stddef.h>
#include <stdio.h>

#define PS_CONFIG_MAX_DIRS 3

/* The directories that may hold @kind ("machines", "policies"), in lookup order; how many. */
int ps_config_dirs(const char *kind, char dirs[][4096], int max);

/*
 * NAME or NAME@ext (".machine") in the first of ps_config_dirs(@kind) that
 * has it, into @out; 0, or -1 if none has (a name with a '/' is a path,
 * never looked up).
 */
int ps_config_lookup(const char *kind, const char *ext, const char *name, char *out, size_t len);

/* "DIR, DIR or DIR", each missing one marked so: where ps_config_lookup() looks. */
void ps_config_where(const char *kind, char *buf, size_t len);

/*
 * "NAME  summary" lines of the @ext files of @kind (a directory's files
 * under a '#' line naming it; a name an earlier directory has is left out).
 * The summary is the file's @key value (e.g. "description"), else its first
 * comment.  Returns how many.
 */
int ps_config_list(FILE *f, const char *kind, const char *ext, const char *key);

#endif
