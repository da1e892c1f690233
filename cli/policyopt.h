/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * policyopt.h - what replay and sweep share to build the policy a replay
 * runs under: --policy, --layout and --set into the options, the recorded
 * machine's /proc/sys/vm as the defaults, and the whole policy in force as
 * key = value pairs (every tunable, for sweep's manifest and cell files).
 */
#ifndef PS_POLICYOPT_H
#define PS_POLICYOPT_H

#include <stddef.h>

#include "cli/input.h"
#include "sim/replay/replay.h"

/*
 * Initialises @ro's policy and lock parameters, then applies --policy
 * NAME|FILE (@policy, may be NULL), --layout NAME|FILE (@layout, may be
 * NULL) and each --set KEY=VALUE of @sets in order.  Returns 0, or prints
 * the error (usage errors as "pagesim @cmd: ...") and returns the exit status.
 */
int ps_policyopt_args(struct ps_replay_opts *ro, const char *cmd, const char *policy, const char *layout,
		      const char *const *sets, int nr_sets);

/*
 * In follow mode (@ro->mode), a warning naming the keys given that decide
 * placement or reclaim, which follow mode does not let them do (none:
 * silence; @quiet: none either).
 */
void ps_policyopt_follow_note(const struct ps_replay_opts *ro, const char *cmd, int quiet);

/*
 * The recorded /proc/sys/vm of @in as the defaults of what is still unset in
 * @ro->policy, and as @ro->recorded; then @ro->profile (the policy's kernel,
 * else the trace's) and @ro->defrag_mode.  -1 with @err when a recorded
 * sysctl is not a number, out of its key's range, or not a readable file.
 */
int ps_policyopt_recorded(struct ps_replay_opts *ro, struct ps_input *in, struct ps_error *err);

/*
 * Every tunable of a replay, in a fixed order: "kernel" (the profile), the
 * policy keys (policy.h), the lock model's (lock.*) and the zone layout's
 * (layout.*).  ps_policyopt_value() writes the value in force after
 * ps_policyopt_recorded(), or "-" for a key left to the model (computed per
 * zone, or the model's own default); -1 if @i is out of range.
 */
int ps_policyopt_nr_keys(void);
const char *ps_policyopt_key(int i);
int ps_policyopt_value(const struct ps_replay_opts *ro, int i, char *buf, size_t len);

/*
 * Sets one key of the list above on @ro (as --set would, "-" leaving it to
 * the model).  Returns 0, or -1 with @err.
 */
int ps_policyopt_set(struct ps_replay_opts *ro, const char *key, const char *value, struct ps_error *err);

#endif
