// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_policy.c - libFuzzer target: policy files (`key = value` lines)
 * through ps_policy_load() on the input as a file, and each line of it
 * as a --set KEY=VALUE.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/policy.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_policy p;
	struct ps_error err;
	char *s, *line, *save;

	ps_policy_init(&p);
	ps_policy_load(&p, fuzz_file(data, size), &err);
	s = fuzz_str(data, size);
	ps_policy_init(&p);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		ps_policy_set_kv(&p, line, "--set", &err);
	free(s);
	return 0;
}
