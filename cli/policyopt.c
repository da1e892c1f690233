// SPDX-License-Identifier: GPL-2.0-or-later
/* policyopt.c - the policy of a replay from the command line and the recorded machine (see policyopt.h). */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/configs.h"
#include "cli/policyopt.h"
#include "lib/kver.h"

int ps_policyopt_args(struct ps_replay_opts *ro, const char *cmd, const char *policy, const char *layout,
		      const char *const *sets, int nr_sets)
{
	struct ps_error err = { { 0 } };

	ps_policy_init(&ro->policy);
	ps_policy_init(&ro->recorded);
	if (policy) {
		struct stat st;
		int is_file = stat(policy, &st) == 0 && S_ISREG(st.st_mode);
		char policy_path[4096], where[2048];

		/* a path as given, a profile or release, a policy file by name (configs.h) */
		if (!is_file && (ro->policy.profile = ps_profile_by_name(policy))) {
			ro->policy.kver = ps_kver_parse(policy);
		} else {
			if (!is_file && ps_config_lookup("policies", ".policy", policy, policy_path, sizeof(policy_path)) < 0) {
				ps_config_where("policies", where, sizeof(where));
				return ps_usage_error(cmd, "--policy '%s' is neither a file, a profile (%s), a kernel "
						      "release, nor a policy in %s: 'pagesim help policies' lists them",
						      policy, ps_profile_names(), where);
			}
			if (!is_file)
				policy = policy_path;
			if (ps_policy_load(&ro->policy, policy, &err) < 0) {
				ps_error("%s", err.msg);
				return PS_EXIT_FAIL;
			}
		}
	}
	ps_lock_params_init(&ro->lock);
	if (layout) {
		struct stat st;

		if (stat(layout, &st) == 0 && S_ISREG(st.st_mode) ? ps_zone_layout_load(&ro->lock.layout, layout, &err) < 0
								  : ps_zone_layout_builtin(&ro->lock.layout, layout) < 0)
			return ps_usage_error(cmd, "--layout '%s': %s", layout,
					      err.msg[0] ? err.msg : "not a layout name (3.17, 4.0) nor a layout file");
	}
	for (int i = 0; i < nr_sets; i++) {
		char key[128];
		const char *eq = strchr(sets[i], '=');
		int lrc;

		if (!eq || eq == sets[i] || eq - sets[i] >= (int)sizeof(key))
			return ps_usage_error(cmd, "--set wants KEY=VALUE, not '%s'", sets[i]);
		snprintf(key, sizeof(key), "%.*s", (int)(eq - sets[i]), sets[i]);
		lrc = ps_lock_params_set(&ro->lock, key, eq + 1, "--set", &err);
		if (lrc < 0)
			return ps_usage_error(cmd, "%s", err.msg);
		if (lrc == 0)
			continue;	/* a lock-model key */
		if (ps_policy_set_kv(&ro->policy, sets[i], "--set", &err) < 0)
			return ps_usage_error(cmd, "%s", err.msg);
	}
	return 0;
}

/*
 * Follow mode keeps the kernel's placements: the keys that decide placement
 * and reclaim (not the counting rules, vm.numa_stat, nor the per-CPU lists'
 * sizes, which the lock model reads) change none of it.  Warns once, naming
 * those given.
 */
void ps_policyopt_follow_note(const struct ps_replay_opts *ro, const char *cmd, int quiet)
{
	char names[512] = "";
	size_t len = 0;
	int n = 0;

	if (ro->mode != PS_REPLAY_FOLLOW)
		return;
	for (int i = 0;; i++) {
		long lo, hi;
		const char *k = ps_policy_key(i, &lo, &hi);

		if (!k)
			break;
		if (!(ro->policy.given & (1ul << i)) || !strcmp(k, "vm.numa_stat") ||
		    !strcmp(k, "vm.percpu_pagelist_high_fraction") || !strncmp(k, "pcp.", 4))
			continue;
		if (len + strlen(k) + 3 < sizeof(names))
			len += (size_t)snprintf(names + len, sizeof(names) - len, "%s%s", n ? ", " : "", k);
		n++;
	}
	if (n && !quiet)
		ps_warn("%s --mode follow keeps the trace's placements: %s change%s no placement or reclaim "
			"(numa_*, pgalloc_* and pgsteal_* stay the kernel's); --mode simulate lets the model decide",
			cmd, names, n == 1 ? "s" : "");
}

/* The recorded sysctls that are policy keys too. */
static const char *const recorded_vm[] = {
	"vm.min_free_kbytes", "vm.watermark_scale_factor", "vm.watermark_boost_factor", "vm.zone_reclaim_mode",
	"vm.defrag_mode", "vm.percpu_pagelist_high_fraction", "vm.dirty_ratio", "vm.dirty_bytes",
	"vm.dirty_expire_centisecs", "vm.dirty_writeback_centisecs", "vm.min_unmapped_ratio", "vm.min_slab_ratio",
};

int ps_policyopt_recorded(struct ps_replay_opts *ro, struct ps_input *in, struct ps_error *err)
{
	for (size_t i = 0; i < sizeof(recorded_vm) / sizeof(recorded_vm[0]); i++) {
		char name[64], where[4200];
		long v;
		int rc;

		snprintf(name, sizeof(name), "vm/%s", recorded_vm[i] + 3);
		rc = ps_input_sysctl(in, name, &v, err);
		if (rc < 0)
			return -1;
		snprintf(where, sizeof(where), "%s/proc/sys/%s", in->sysroot, name);
		if (rc == 0 && (ps_policy_default(&ro->recorded, recorded_vm[i], v, where, err) < 0 ||
				ps_policy_default(&ro->policy, recorded_vm[i], v, where, err) < 0))
			return -1;
	}
	ro->profile = ro->policy.profile ? ro->policy.profile : ps_profile_for_kver(ps_reader_kver(in->reader));
	ro->kver = ro->policy.profile ? ro->policy.kver : 0;	/* 0: the recorded kernel's */
	ro->defrag_mode = ro->policy.defrag_mode == 1;
	return 0;
}

/*
 * The keys of policy.h (a long each in struct ps_policy), then the lock
 * model's.  test_policyopt checks that every name is one ps_policy_set()
 * takes, that it sets the field named here, and that no field is missing.
 */
enum kind { K_KERNEL, K_RELEASE, K_POLICY, K_LOCK_U64, K_LOCK_INT, K_LAYOUT };

#define POL(name, f) { name, K_POLICY, offsetof(struct ps_policy, f) }
#define LAY(name, f) { name, K_LAYOUT, offsetof(struct ps_zone_layout, f) }

static const struct pkey {
	const char *name;
	enum kind kind;
	size_t off;
} pkeys[] = {
	{ "kernel", K_KERNEL, 0 },
	/* the release whose rules the model follows within the profile ("-": the recorded kernel's) */
	{ "kernel.release", K_RELEASE, 0 },
	POL("vm.min_free_kbytes", min_free_kbytes),
	POL("vm.watermark_scale_factor", watermark_scale_factor),
	POL("vm.watermark_boost_factor", watermark_boost_factor),
	POL("vm.zone_reclaim_mode", zone_reclaim_mode),
	POL("vm.defrag_mode", defrag_mode),
	POL("vm.percpu_pagelist_high_fraction", percpu_pagelist_high_fraction),
	POL("vm.numa_stat", numa_stat),
	POL("vm.dirty_ratio", dirty_ratio),
	POL("vm.dirty_bytes", dirty_bytes),
	POL("vm.dirty_expire_centisecs", dirty_expire_centisecs),
	POL("vm.dirty_writeback_centisecs", dirty_writeback_centisecs),
	POL("vm.min_unmapped_ratio", min_unmapped_ratio),
	POL("vm.min_slab_ratio", min_slab_ratio),
	POL("pcp.batch", pcp_batch),
	POL("pcp.high", pcp_high),
	POL("pcp.batch_scale_max", pcp_batch_scale_max),
	POL("kswapd.reclaim_pages_per_ms", kswapd_rate),
	POL("node_reclaim.reclaim_pages_per_ms", node_reclaim_rate),
	POL("kswapd.wake_latency_us", kswapd_wake_latency_us),
	POL("watermark.legacy", wmark_legacy),
	POL("vmstat.drift", vmstat_drift),
	POL("kswapd.sleep_check", kswapd_sleep_check),
	POL("kswapd.nap_boost_check", kswapd_nap_boost_check),
	POL("pcp.snapshot_lists", pcp_snapshot_lists),
	POL("kswapd.traced_cpu", kswapd_traced_cpu),
	POL("kswapd.slice_us", kswapd_slice_us),
	{ "lock.acquire_ns", K_LOCK_U64, offsetof(struct ps_lock_params, acquire_ns) },
	{ "lock.page_ns", K_LOCK_U64, offsetof(struct ps_lock_params, page_ns) },
	{ "lock.carry", K_LOCK_INT, offsetof(struct ps_lock_params, carry) },
	LAY("layout.line_size", line_size),
	LAY("layout.lock.offset", lock_offset),
	LAY("layout.lock.size", lock_size),
	LAY("layout.free_area.offset", free_area_offset),
	LAY("layout.free_area.nr_mt", nr_mt),
	LAY("layout.watermark.offset", watermark_offset),
	LAY("layout.flags.offset", flags_offset),
	LAY("layout.vm_stat.offset", vm_stat_offset),
};

#define NR_PKEYS ((int)(sizeof(pkeys) / sizeof(pkeys[0])))

int ps_policyopt_nr_keys(void)
{
	return NR_PKEYS;
}

const char *ps_policyopt_key(int i)
{
	return i >= 0 && i < NR_PKEYS ? pkeys[i].name : NULL;
}

int ps_policyopt_value(const struct ps_replay_opts *ro, int i, char *buf, size_t len)
{
	const struct pkey *k;

	if (i < 0 || i >= NR_PKEYS)
		return -1;
	k = &pkeys[i];
	switch (k->kind) {
	case K_KERNEL: {
		const struct ps_profile *p = ro->profile ? ro->profile : ro->policy.profile;

		snprintf(buf, len, "%s", p ? p->name : "-");
		break;
	}
	case K_RELEASE: {
		int kv = ro->profile ? ro->kver : ro->policy.kver;

		if (kv)
			ps_kver_format(kv, buf, len);
		else
			snprintf(buf, len, "-");
		break;
	}
	case K_POLICY: {
		long v = *(const long *)((const char *)&ro->policy + k->off);

		if (v == PS_UNSET)
			snprintf(buf, len, "-");
		else
			snprintf(buf, len, "%ld", v);
		break;
	}
	case K_LOCK_U64:
		snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)((const char *)&ro->lock + k->off));
		break;
	case K_LOCK_INT:
		snprintf(buf, len, "%d", *(const int *)((const char *)&ro->lock + k->off));
		break;
	case K_LAYOUT:
		snprintf(buf, len, "%d", *(const int *)((const char *)&ro->lock.layout + k->off));
		break;
	}
	return 0;
}

int ps_policyopt_set(struct ps_replay_opts *ro, const char *key, const char *value, struct ps_error *err)
{
	for (int i = 0; i < NR_PKEYS; i++) {
		if (strcmp(pkeys[i].name, key))
			continue;
		if (pkeys[i].kind == K_RELEASE) {
			/* after "kernel", which sets the release its name says */
			ro->policy.kver = strcmp(value, "-") ? ps_kver_parse(value) : 0;
			if (strcmp(value, "-") && ro->policy.kver == PS_KVER_UNKNOWN)
				return ps_err(err, "the sweep manifest: kernel.release '%s' is not a release", value);
			return 0;
		}
		if (!strcmp(value, "-")) {
			if (pkeys[i].kind != K_POLICY && pkeys[i].kind != K_KERNEL)
				return ps_err(err, "%s has no model default: it wants a value", key);
			return 0;
		}
		if (pkeys[i].kind == K_KERNEL || pkeys[i].kind == K_POLICY)
			return ps_policy_set(&ro->policy, key, value, "the sweep manifest", 0, err);
		{
			int r = ps_lock_params_set(&ro->lock, key, value, "the sweep manifest", err);

			return r > 0 ? ps_err(err, "the sweep manifest: '%s' is not a lock-model key", key) : r;
		}
	}
	return ps_err(err, "the sweep manifest: unknown key '%s'", key);
}
