// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kvfile.h"
#include "sysroot.h"

void ps_kv_init(struct ps_kv *kv)
{
	memset(kv, 0, sizeof(*kv));
}

void ps_kv_free(struct ps_kv *kv)
{
	free(kv->items);
	memset(kv, 0, sizeof(*kv));
}

const struct ps_kv_item *ps_kv_get(const struct ps_kv *kv, const char *name)
{
	for (int i = 0; i < kv->nr; i++)
		if (!strcmp(kv->items[i].name, name))
			return &kv->items[i];
	return NULL;
}

int ps_kv_set(struct ps_kv *kv, const char *name, int64_t value)
{
	struct ps_kv_item *it = (struct ps_kv_item *)ps_kv_get(kv, name);

	if (it) {
		it->value = value;
		return 0;
	}
	if (kv->nr == kv->cap) {
		int cap = kv->cap ? kv->cap * 2 : 64;
		struct ps_kv_item *p = realloc(kv->items, cap * sizeof(*p));

		if (!p)
			return -1;
		kv->items = p;
		kv->cap = cap;
	}
	it = &kv->items[kv->nr++];
	snprintf(it->name, sizeof(it->name), "%s", name);
	it->value = value;
	return 0;
}

int ps_kv_parse(struct ps_kv *kv, const char *text, const char *file, const char *prefix,
		struct ps_error *err)
{
	int line = 0;

	while (*text) {
		const char *eol = strchr(text, '\n');
		int len = eol ? (int)(eol - text) : (int)strlen(text);
		char buf[256], name[64], full[128], extra[8];
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
		snprintf(full, sizeof(full), "%s%s", prefix ? prefix : "", name);
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
