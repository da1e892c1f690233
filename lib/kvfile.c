// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/kvfile.h"
#include "lib/file.h"

void ps_kv_init(struct ps_kv *kv)
{
	memset(kv, 0, sizeof(*kv));
}

void ps_kv_free(struct ps_kv *kv)
{
	free(kv->items);
	free(kv->idx);
	memset(kv, 0, sizeof(*kv));
}

static uint32_t name_hash(const char *name)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

/* The index slot holding @name, or the empty slot where it would go. */
static int *slot_of(const struct ps_kv *kv, const char *name)
{
	uint32_t mask = kv->idx_cap - 1, h = name_hash(name) & mask;

	while (kv->idx[h] && strcmp(kv->items[kv->idx[h] - 1].name, name))
		h = (h + 1) & mask;
	return &kv->idx[h];
}

int ps_kv_reindex(struct ps_kv *kv)
{
	int cap = 64;

	while (cap < 2 * kv->cap)
		cap *= 2;
	free(kv->idx);
	kv->idx = calloc(cap, sizeof(*kv->idx));
	kv->idx_cap = kv->idx ? cap : 0;
	if (!kv->idx)
		return -1;
	for (int i = 0; i < kv->nr; i++) {
		int *sl = slot_of(kv, kv->items[i].name);

		if (!*sl)	/* a name given twice: the first one answers */
			*sl = i + 1;
	}
	return 0;
}

const struct ps_kv_item *ps_kv_get(const struct ps_kv *kv, const char *name)
{
	int *sl;

	if (!kv->idx_cap)
		return NULL;
	sl = slot_of(kv, name);
	return *sl ? &kv->items[*sl - 1] : NULL;
}

int ps_kv_set(struct ps_kv *kv, const char *name, int64_t value)
{
	struct ps_kv_item *it;
	int *sl;

	if (kv->idx_cap) {
		sl = slot_of(kv, name);
		if (*sl) {
			kv->items[*sl - 1].value = value;
			return 0;
		}
	}
	if (kv->nr == kv->cap) {
		int cap = kv->cap ? kv->cap * 2 : 64;
		struct ps_kv_item *p = realloc(kv->items, cap * sizeof(*p));

		if (!p)
			return -1;
		kv->items = p;
		kv->cap = cap;
		if (ps_kv_reindex(kv) < 0)
			return -1;
	}
	it = &kv->items[kv->nr];
	snprintf(it->name, sizeof(it->name), "%s", name);
	it->value = value;
	sl = slot_of(kv, it->name);
	*sl = ++kv->nr;
	return 0;
}

int ps_kv_parse(struct ps_kv *kv, const char *text, const char *file, const char *prefix,
		struct ps_error *err)
{
	int line = 0, first_new = kv->nr;

	while (*text) {
		const char *eol = strchr(text, '\n');
		int len = eol ? (int)(eol - text) : (int)strlen(text);
		char buf[256], name[64], full[128], extra[8];
		const struct ps_kv_item *it;
		long long v;

		line++;
		if (len >= (int)sizeof(buf))
			return ps_err(err, "%s:%d: line too long for a 'name value' line", file, line);
		memcpy(buf, text, len);
		buf[len] = 0;
		text += len + (eol ? 1 : 0);
		if (buf[strspn(buf, " \t\r")] == 0 || buf[strspn(buf, " \t")] == '#')
			continue;
		if (sscanf(buf, "%63s %lld %7s", name, &v, extra) != 2)
			return ps_err(err, "%s:%d: expected 'name value' (an integer), got '%.60s'", file, line, buf);
		/* sscanf's %lld clamps silently (or worse) past 64 bits: read the value again */
		errno = 0;
		v = strtoll(strstr(buf, name) + strlen(name), NULL, 10);
		if (errno == ERANGE)
			return ps_err(err, "%s:%d: the value of '%s' is out of the 64-bit range", file, line, name);
		snprintf(full, sizeof(full), "%s%s", prefix ? prefix : "", name);
		/* the kernel prints each counter once: a repeat is a damaged or pasted-together file */
		it = ps_kv_get(kv, full);
		if (it && it - kv->items >= first_new)
			return ps_err(err, "%s:%d: counter '%s' appears twice", file, line, name);
		if (ps_kv_set(kv, full, v) < 0)
			return ps_err(err, "out of memory");
	}
	return 0;
}

int ps_kv_load(struct ps_kv *kv, const char *path, const char *prefix, struct ps_error *err)
{
	char *text = ps_read_file(path, NULL, err);
	int ret;

	if (!text)
		return -1;
	ret = ps_kv_parse(kv, text, path, prefix, err);
	free(text);
	return ret;
}

int ps_kv_counter_rises(const char *name)
{
	/* event counters of /proc/vmstat and nodeN/numastat (nr_* and workingset_nodes are gauges) */
	static const char *const rising[] = {
		"numa_", "local_node", "other_node", "interleave_hit", "pgalloc_", "pgfree", "pgfault",
		"pgmajfault", "pgsteal_", "pgscan_", "allocstall_", "compact_", "pgpgin", "pgpgout", "pswpin",
		"pswpout", "thp_", "pgmigrate_", "oom_kill",
	};
	const char *p = name;

	if (!strncmp(p, "node", 4) && p[4] >= '0' && p[4] <= '9') {
		p += 4 + strspn(p + 4, "0123456789");
		if (*p != '.')
			return 0;
		p++;
	}
	for (size_t i = 0; i < sizeof(rising) / sizeof(rising[0]); i++)
		if (!strncmp(p, rising[i], strlen(rising[i])))
			return 1;
	return 0;
}

int ps_kv_check_rises(const struct ps_kv *before, const struct ps_kv *after, const char *bname, const char *aname,
		      struct ps_error *err)
{
	for (int i = 0; i < after->nr; i++) {
		const struct ps_kv_item *a = &after->items[i], *b = ps_kv_get(before, a->name);

		if (b && a->value < b->value && ps_kv_counter_rises(a->name))
			return ps_err(err, "%s counts %s %lld, fewer than the %lld of %s, and the kernel only ever adds to it: are the snapshots swapped, or from another boot?",
				      aname, a->name, (long long)a->value, (long long)b->value, bname);
	}
	return 0;
}
