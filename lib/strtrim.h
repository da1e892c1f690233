/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * strtrim.h - the one blank-trimmer of the "key = value" file parsers
 * (policy files, machine files, zone layout files).
 */
#ifndef PS_STRTRIM_H
#define PS_STRTRIM_H

#include <ctype.h>
#include <string.h>

/* @s without its leading and trailing white space (cut in place). */
static inline char *ps_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

#endif
