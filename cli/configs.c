// SPDX-License-Identifier: GPL-2.0-or-later
/* configs.c - machine and policy files found by name (configs.h). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/strtrim.h"
#include "cli/configs.h"
#include "cli/paths.h"

/* @p with "." and "dir/.." taken out, in place (the directories need not exist). */
static void normalize(char *p)
{
	char *comp[512], *save = NULL, *tok, buf[4096];
	int n = 0, abs = p[0] == '/';

	snprintf(buf, sizeof(buf), "%s", p);
	for (tok = strtok_r(buf, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..") && n && strcmp(comp[n - 1], ".."))
			n--;
		else if (n < 512)
			comp[n++] = tok;
	}
	p[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(p + strlen(p), 4096 - strlen(p), "%s%s", i || abs ? "/" : "", comp[i]);
	if (!p[0])
		strcpy(p, abs ? "/" : ".");
}

static int is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int ps_config_dirs(const char *kind, char dirs[][4096], int max)
{
	char exe[4096], cand[PS_CONFIG_MAX_DIRS][4096];
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int nc = 0, n = 0;

	if (l > 0)
		exe[l] = 0;
	if (l > 0 && strrchr(exe, '/')) {
		*strrchr(exe, '/') = 0;
		/* only a build directory has configs/ beside the binary */
		snprintf(cand[nc], sizeof(cand[nc]), "%s/configs/%s", exe, kind);
		if (is_dir(cand[nc]))
			nc++;
		else if (PAGESIM_BINDIR_TO_DATADIR[0])
			snprintf(cand[nc++], sizeof(cand[0]), "%s/%s/%s", exe, PAGESIM_BINDIR_TO_DATADIR, kind);
	}
	snprintf(cand[nc++], sizeof(cand[0]), "%s/%s", PAGESIM_DATADIR, kind);
	for (int i = 0; i < nc && n < max; i++) {
		int dup = 0;

		normalize(cand[i]);
		for (int j = 0; j < n; j++)
			dup |= !strcmp(dirs[j], cand[i]);
		if (!dup)
			strcpy(dirs[n++], cand[i]);
	}
	return n;
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int ps_config_lookup(const char *kind, const char *ext, const char *name, char *out, size_t len)
{
	char dirs[PS_CONFIG_MAX_DIRS][4096];
	int n = ps_config_dirs(kind, dirs, PS_CONFIG_MAX_DIRS);
	size_t nl = strlen(name), el = strlen(ext);

	for (int i = 0; i < n && !strchr(name, '/') && name[0]; i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (is_file(out))
			return 0;
		if (nl < el || strcmp(name + nl - el, ext)) {
			snprintf(out, len, "%s/%s%s", dirs[i], name, ext);
			if (is_file(out))
				return 0;
		}
	}
	return -1;
}

void ps_config_where(const char *kind, char *buf, size_t len)
{
	char dirs[PS_CONFIG_MAX_DIRS][4096];
	int n = ps_config_dirs(kind, dirs, PS_CONFIG_MAX_DIRS);

	buf[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
			 dirs[i], is_dir(dirs[i]) ? "" : " (missing)");
}

/* The value of "@key = ..." in @path, else its first comment, into @buf. */
static void summary(const char *path, const char *key, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	char line[512], comment[512] = "";

	buf[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *s = ps_trim(line), *eq = strchr(s, '=');

		if (s[0] == '#') {
			if (!comment[0])
				snprintf(comment, sizeof(comment), "%s", ps_trim(s + 1));
			continue;
		}
		if (!eq || !key[0])
			continue;
		*eq = 0;
		if (!strcmp(ps_trim(s), key)) {
			snprintf(buf, len, "%s", ps_trim(eq + 1));
			break;
		}
	}
	if (f)
		fclose(f);
	if (!buf[0])
		snprintf(buf, len, "%s", comment);
}

static int ext_filter_len;
static const char *ext_filter;

static int has_ext(const struct dirent *d)
{
	size_t l = strlen(d->d_name);

	return d->d_name[0] != '.' && l > (size_t)ext_filter_len && !strcmp(d->d_name + l - ext_filter_len, ext_filter);
}

int ps_config_list(FILE *f, const char *kind, const char *ext, const char *key)
{
	char dirs[PS_CONFIG_MAX_DIRS][4096], seen[256][128];
	int n = ps_config_dirs(kind, dirs, PS_CONFIG_MAX_DIRS), nr_seen = 0;

	ext_filter = ext;
	ext_filter_len = (int)strlen(ext);
	for (int i = 0; i < n; i++) {
		struct dirent **ents;
		int ne = scandir(dirs[i], &ents, has_ext, alphasort), head = 0;

		for (int e = 0; e < ne; e++) {
			char name[128], path[4096 + 256], sum[256];
			int dup = 0;

			snprintf(name, sizeof(name), "%.*s", (int)(strlen(ents[e]->d_name) - ext_filter_len),
				 ents[e]->d_name);
			for (int s = 0; s < nr_seen; s++)
				dup |= !strcmp(seen[s], name);
			if (!dup && nr_seen < 256)
				strcpy(seen[nr_seen++], name);
			snprintf(path, sizeof(path), "%s/%s", dirs[i], ents[e]->d_name);
			if (!dup && is_file(path)) {
				if (!head++)
					fprintf(f, "# %s in %s\n", kind, dirs[i]);
				summary(path, key, sum, sizeof(sum));
				fprintf(f, "%-24s %s\n", name, sum);
			}
			free(ents[e]);
		}
		if (ne >= 0)
			free(ents);
	}
	return nr_seen;
}
