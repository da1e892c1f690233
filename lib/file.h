/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.h - whole small files read into memory. */
#ifndef PS_FILE_H
#define PS_FILE_H

#include <stddef.h>

#include "lib/error.h"

/* Reads a whole file (up to 64 MiB) into a NUL-terminated malloc'd buffer. */
char *ps_read_file(const char *path, size_t *len, struct ps_error *err);

#endif
