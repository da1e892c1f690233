/* SPDX-License-Identifier: GPL-2.0-or-later */
/* file.h - whole small files read into memory. */
#ifndef PS_FILE_H
#define PS_FILE_H

#include <stddef.h>
#include <sys/types.h>

#include "lib/error.h"

/*
 * Reads a whole regular file (up to 64 MiB) into a NUL-terminated malloc'd
 * buffer.  Anything else (a fifo, which would block the open for ever, a
 * directory, a device) is refused naming what it is.
 */
char *ps_read_file(const char *path, size_t *len, struct ps_error *err);

/*
 * The same for an input a user may pipe in (pagesim diff <(...) <(...)):
 * a pipe is read to its end too; a fifo with no writer reads as empty
 * instead of blocking.
 */
char *ps_read_input(const char *path, size_t *len, struct ps_error *err);

/* "a directory", "a pipe", "a device", ... for messages. */
const char *ps_file_kind(mode_t mode);

#endif
