// SPDX-License-Identifier: GPL-2.0-or-later
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/file.h"
#include "lib/kver.h"
#include "sim/config/policy.h"
#include "lib/strtrim.h"

struct key {
	const char *name;
	size_t off;		/* offset of the long in struct ps_policy; 0 for "kernel" */
	long min, max;
};

#define OFF(f) offsetof(struct ps_policy, f)

static const struct key keys[] = {
	{ "kernel", 0, 0, 0 },
	{ "vm.min_free_kbytes", OFF(min_free_kbytes), 0, 67108864 },
	{ "vm.watermark_scale_factor", OFF(watermark_scale_factor), 1, 3000 },
	{ "vm.watermark_boost_factor", OFF(watermark_boost_factor), 0, 1000000 },
	{ "vm.zone_reclaim_mode", OFF(zone_reclaim_mode), 0, 7 },
	{ "vm.defrag_mode", OFF(defrag_mode), 0, 1 },
	{ "vm.percpu_pagelist_high_fraction", OFF(percpu_pagelist_high_fraction), 0, 1000000 },
	{ "vm.numa_stat", OFF(numa_stat), 0, 1 },
	{ "vm.dirty_ratio", OFF(dirty_ratio), 0, 100 },
	{ "vm.dirty_bytes", OFF(dirty_bytes), 0, 1L << 50 },
	/* ages are kept in seconds mod 2^16 (page-writeback.c): 2^15 s at most */
	{ "vm.dirty_expire_centisecs", OFF(dirty_expire_centisecs), 0, 3276700 },
	{ "vm.dirty_writeback_centisecs", OFF(dirty_writeback_centisecs), 0, 3276700 },
	{ "vm.min_unmapped_ratio", OFF(min_unmapped_ratio), 0, 100 },
	{ "vm.min_slab_ratio", OFF(min_slab_ratio), 0, 100 },
	{ "pcp.batch", OFF(pcp_batch), 1, 1 << 20 },
	{ "pcp.high", OFF(pcp_high), 0, 1 << 24 },
	{ "pcp.batch_scale_max", OFF(pcp_batch_scale_max), 0, 24 },
	{ "kswapd.reclaim_pages_per_ms", OFF(kswapd_rate), 1, PS_KSWAPD_RATE_MAX },
	{ "node_reclaim.reclaim_pages_per_ms", OFF(node_reclaim_rate), 1, PS_KSWAPD_RATE_MAX },
	{ "kswapd.wake_latency_us", OFF(kswapd_wake_latency_us), 0, 1000000 },
	{ "watermark.legacy", OFF(wmark_legacy), 0, 1 },
	{ "vmstat.drift", OFF(vmstat_drift), 0, 1 },
	{ "kswapd.sleep_check", OFF(kswapd_sleep_check), 0, 1 },
	{ "kswapd.nap_boost_check", OFF(kswapd_nap_boost_check), 0, 1 },
	{ "pcp.snapshot_lists", OFF(pcp_snapshot_lists), 0, 1 },
	{ "kswapd.traced_cpu", OFF(kswapd_traced_cpu), 0, 1 },
	{ "kswapd.slice_us", OFF(kswapd_slice_us), 0, 1000000 },
};

const char *ps_policy_key(int i, long *min, long *max)
{
	if (i < 0 || i >= (int)(sizeof(keys) / sizeof(keys[0])))
		return NULL;
	*min = keys[i].min;
	*max = keys[i].max;
	return keys[i].name;
}

void ps_policy_init(struct ps_policy *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 1; i < sizeof(keys) / sizeof(keys[0]); i++)
		*(long *)((char *)p + keys[i].off) = PS_UNSET;
}

int ps_policy_set(struct ps_policy *p, const char *key, const char *value, const char *where, int no_dup,
		  struct ps_error *err)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char *end;
		long v;

		if (strcmp(keys[i].name, key))
			continue;
		if (no_dup && (p->given & (1ul << i)))
			return ps_err(err, "%s: key '%s' given twice", where, key);
		p->given |= 1ul << i;
		if (i == 0) {
			p->profile = ps_profile_by_name(value);
			if (!p->profile)
				return ps_err(err, "%s: kernel '%s' is neither a profile (%s) nor a release",
					      where, value, ps_profile_names());
			p->kver = ps_kver_parse(value);
			return 0;
		}
		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || end == value || *end)
			return ps_err(err, "%s: %s wants an integer, not '%s'", where, key, value);
		if (v < keys[i].min || v > keys[i].max)
			return ps_err(err, "%s: %s = %ld is out of range [%ld, %ld]", where, key, v, keys[i].min,
				      keys[i].max);
		if (keys[i].off == OFF(percpu_pagelist_high_fraction) && v > 0 && v < 8)
			return ps_err(err, "%s: %s = %ld: the kernel takes 0 (its default rule) or 8 and above (MIN_PERCPU_PAGELIST_HIGH_FRACTION)",
				      where, key, v);
		if (keys[i].off == OFF(numa_stat) && v == 0)
			return ps_err(err, "%s: %s = 0 (the kernel stops counting numa_* events) is not modelled: pagesim counts them as with 1",
				      where, key);
		*(long *)((char *)p + keys[i].off) = v;
		return 0;
	}
	if (!strcmp(key, "kswapd.takeover") || !strcmp(key, "kswapd.ahead"))
		return ps_err(err, "%s: '%s' is no longer a key: the model's reclaim takes its pages from its own "
			      "LRU lists, the recorded reclaim is not handed over", where, key);
	return ps_err(err, "%s: unknown key '%s' (known: kernel, vm.min_free_kbytes, vm.watermark_scale_factor, vm.watermark_boost_factor, vm.zone_reclaim_mode, vm.defrag_mode, vm.percpu_pagelist_high_fraction, vm.numa_stat, vm.dirty_ratio, vm.dirty_bytes, vm.dirty_expire_centisecs, vm.dirty_writeback_centisecs, vm.min_unmapped_ratio, vm.min_slab_ratio, pcp.batch, pcp.high, pcp.batch_scale_max, kswapd.reclaim_pages_per_ms, node_reclaim.reclaim_pages_per_ms, kswapd.wake_latency_us, watermark.legacy, vmstat.drift, kswapd.sleep_check, kswapd.nap_boost_check, pcp.snapshot_lists, kswapd.traced_cpu, kswapd.slice_us)",
		      where, key);
}

int ps_policy_set_kv(struct ps_policy *p, const char *kv, const char *where, struct ps_error *err)
{
	char buf[512], *eq, *k, *v;

	snprintf(buf, sizeof(buf), "%s", kv);
	eq = strchr(buf, '=');
	if (!eq)
		return ps_err(err, "%s: expected 'key = value', got '%s'", where, kv);
	*eq = 0;
	k = ps_trim(buf);
	v = ps_trim(eq + 1);
	if (!*k || !*v)
		return ps_err(err, "%s: expected 'key = value', got '%s'", where, kv);
	return ps_policy_set(p, k, v, where, 0, err);
}

int ps_policy_load(struct ps_policy *p, const char *path, struct ps_error *err)
{
	char *text = ps_read_file(path, NULL, err), *line;
	unsigned long given_before = p->given;
	int n = 0, ret = 0;

	if (!text)
		return -1;
	p->given = 0;
	for (line = text; line && *line;) {
		char where[4200], *nl = strchr(line, '\n'), *l, *eq, *k, *v;

		if (nl)
			*nl = 0;
		n++;
		l = ps_trim(line);
		line = nl ? nl + 1 : NULL;
		if (!*l || *l == '#')
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, n);
		eq = strchr(l, '=');
		if (!eq) {
			ret = ps_err(err, "%s: expected 'key = value', got '%.60s'", where, l);
			break;
		}
		*eq = 0;
		k = ps_trim(l);
		v = ps_trim(eq + 1);
		if (!*k || !*v) {
			ret = ps_err(err, "%s: expected 'key = value'", where);
			break;
		}
		if (ps_policy_set(p, k, v, where, 1, err) < 0) {
			ret = -1;
			break;
		}
	}
	p->given |= given_before;
	free(text);
	return ret;
}

int ps_policy_default(struct ps_policy *p, const char *key, long value, const char *where, struct ps_error *err)
{
	for (size_t i = 1; i < sizeof(keys) / sizeof(keys[0]); i++) {
		long *f = (long *)((char *)p + keys[i].off);

		if (strcmp(keys[i].name, key))
			continue;
		if (value < keys[i].min || value > keys[i].max)
			return ps_err(err, "%s: %ld is out of range for %s [%ld, %ld]", where, value, key, keys[i].min,
				      keys[i].max);
		if (*f == PS_UNSET)
			*f = value;
	}
	return 0;
}
