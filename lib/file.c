// SPDX-License-Identifier: GPL-2.0-or-later
/* file.c - whole small files read into memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/file.h"

const char *ps_file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a pipe";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return S_ISREG(mode) ? "a regular file" : "not a file";
}

/*
 * Opens @path for reading without waiting: a fifo with no writer would
 * block open() for ever.  Returns the fd (blocking again), or -1 with @err.
 */
static int open_now(const char *path, int pipe_ok, struct ps_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), fl;
	struct stat st;

	if (fd < 0)
		return ps_err(err, "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		ps_err(err, "cannot read '%s': %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) && !(pipe_ok && S_ISFIFO(st.st_mode))) {
		ps_err(err, "'%s' is not a regular file (%s): give the file itself", path, ps_file_kind(st.st_mode));
		close(fd);
		return -1;
	}
	/* a pipe reads as it comes; a fifo with no writer reads as empty */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

static char *read_fd(int fd, const char *path, size_t *lenp, struct ps_error *err)
{
	FILE *f = fdopen(fd, "r");
	size_t cap = 1 << 16, len = 0;
	char *buf;

	if (!f) {
		ps_err(err, "cannot read '%s': %s", path, strerror(errno));
		close(fd);
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

char *ps_read_file(const char *path, size_t *lenp, struct ps_error *err)
{
	int fd = open_now(path, 0, err);

	return fd < 0 ? NULL : read_fd(fd, path, lenp, err);
}

char *ps_read_input(const char *path, size_t *lenp, struct ps_error *err)
{
	int fd = open_now(path, 1, err);

	return fd < 0 ? NULL : read_fd(fd, path, lenp, err);
}
