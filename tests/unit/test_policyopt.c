// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_policyopt.c - the list of every tunable that sweep's manifest and cell
 * files record: each key is one the policy or the lock model takes, setting it
 * changes what is read back, and no field of struct ps_policy is left out.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli/policyopt.h"
#include "check.h"

int main(void)
{
	struct ps_replay_opts ro;
	struct ps_error err;
	char buf[96];
	int nk = ps_policyopt_nr_keys(), policy_keys = 0;

	memset(&ro, 0, sizeof(ro));
	CHECK_EQ(ps_policyopt_args(&ro, "test", NULL, NULL, NULL, 0), 0);
	CHECK(!strcmp(ps_policyopt_key(0), "kernel"));
	CHECK(ps_policyopt_key(nk) == NULL);
	CHECK(ps_policyopt_value(&ro, nk, buf, sizeof(buf)) < 0);
	for (int k = 1; k < nk; k++) {
		const char *key = ps_policyopt_key(k);
		char want[32];
		/* a value in every key's range: 1 (a flag, a count), or the lock model's own */
		const char *v = !strcmp(key, "layout.free_area.nr_mt") ? "4" : !strcmp(key, "layout.line_size") ? "128"
			      : !strcmp(key, "layout.lock.size") ? "8" : !strcmp(key, "kernel.release") ? "5.15.0"
			      : !strcmp(key, "vm.percpu_pagelist_high_fraction") ? "8" : "1";

		CHECK(ps_policyopt_set(&ro, key, v, &err) == 0);
		CHECK(ps_policyopt_value(&ro, k, buf, sizeof(buf)) == 0);
		snprintf(want, sizeof(want), "%s", v);
		if (strcmp(buf, want))
			fprintf(stderr, "%s: set %s, read %s\n", key, v, buf);
		CHECK(!strcmp(buf, want));
		policy_keys += strncmp(key, "lock.", 5) && strncmp(key, "layout.", 7) && strcmp(key, "kernel.release");
	}
	/* every long of struct ps_policy after the profile, before the given-bits, has a key */
	CHECK_EQ(policy_keys, (offsetof(struct ps_policy, given) - offsetof(struct ps_policy, min_free_kbytes)) / sizeof(long));
	/* "-" leaves a policy key to the model; a lock-model key has no such default */
	memset(&ro, 0, sizeof(ro));
	ps_policyopt_args(&ro, "test", NULL, NULL, NULL, 0);
	CHECK(ps_policyopt_set(&ro, "pcp.batch", "-", &err) == 0);
	for (int k = 0; k < nk; k++)
		if (!strcmp(ps_policyopt_key(k), "pcp.batch")) {
			ps_policyopt_value(&ro, k, buf, sizeof(buf));
			CHECK(!strcmp(buf, "-"));
		}
	CHECK(ps_policyopt_set(&ro, "lock.carry", "-", &err) < 0);
	CHECK(ps_policyopt_set(&ro, "vm.no_such_key", "1", &err) < 0);
	CHECK(ps_policyopt_set(&ro, "vm.watermark_scale_factor", "0", &err) < 0);
	/* the kernel key names a profile, kernel.release the release within it ("-": the recorded one) */
	CHECK(ps_policyopt_set(&ro, "kernel", "4.4", &err) == 0);
	ps_policyopt_value(&ro, 0, buf, sizeof(buf));
	CHECK(!strcmp(buf, "4.4"));
	CHECK(ps_policyopt_set(&ro, "kernel.release", "-", &err) == 0);
	ps_policyopt_value(&ro, 1, buf, sizeof(buf));
	CHECK(!strcmp(ps_policyopt_key(1), "kernel.release") && !strcmp(buf, "-"));
	CHECK(ps_policyopt_set(&ro, "kernel.release", "4.6", &err) == 0);
	ps_policyopt_value(&ro, 1, buf, sizeof(buf));
	CHECK(!strcmp(buf, "4.6.0"));
	CHECK(ps_policyopt_set(&ro, "kernel.release", "x", &err) < 0);
	CHECK_DONE();
}
