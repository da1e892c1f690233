// SPDX-License-Identifier: GPL-2.0-or-later
/* file.c - whole small files read into memory. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"

char *ps_read_file(const char *path, size_t *lenp, struct ps_error *err)
{
	FILE *f = fopen(path, "re");
	size_t cap = 1 << 16, len = 0;
	char *buf;

	if (!f) {
		ps_err(err, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(cap + 1);
	while (buf) {
		size_t n = fread(buf + len, 1, cap - len, f);

		len += n;
		if (n == 0)
			break;
		if (len == cap) {
			char *p;

			if (cap >= (64u << 20)) {
				ps_err(err, "'%s' is larger than 64 MiB: not a kernel text file", path);
				free(buf);
				fclose(f);
				return NULL;
			}
			cap *= 2;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				buf = NULL;
			}
			buf = p;
		}
	}
	if (!buf) {
		ps_err(err, "out of memory reading '%s'", path);
		fclose(f);
		return NULL;
	}
	if (ferror(f)) {
		ps_err(err, "cannot read '%s': %s", path, strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	if (memchr(buf, 0, len)) {
		ps_err(err, "'%s' holds binary data: expected the kernel's text file", path);
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	if (lenp)
		*lenp = len;
	return buf;
}
