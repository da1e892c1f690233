/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tep_formats.h - what pagesim hands libtraceevent of the event formats a
 * trace carries (tep_formats.c): tep_parse_event() takes the place of
 * libtraceevent's in the whole process, so that libtracecmd, libtracefs
 * and the perf.data reader parse only the formats pagesim reads.
 */
#ifndef PS_TEP_FORMATS_H
#define PS_TEP_FORMATS_H

#include <traceevent/event-parse.h>

/* The name of event @id of @tep that was kept unparsed, or NULL. */
const char *ps_tep_other_name(const struct tep_handle *tep, int id);

/*
 * A handle whose event @id has its whole print format: @tep itself, or,
 * for an event handed to @tep without it, a second handle into which that
 * format is parsed on the first call (NULL when that fails).
 */
struct tep_handle *ps_tep_print_handle(struct tep_handle *tep, int id);

/* Whether PAGESIM_TDAT_SYMBOLS=1 asks for the kallsyms and printk sections to be parsed. */
int ps_tep_symbols_wanted(void);

/* libtraceevent's own tep_parse_event(): @buf's format whole. */
enum tep_errno ps_tep_parse_whole(struct tep_handle *tep, const char *buf, unsigned long size, const char *sys);

/* Forgets what was kept of @tep; call before tep_free(@tep). */
void ps_tep_forget(const struct tep_handle *tep);

#endif
