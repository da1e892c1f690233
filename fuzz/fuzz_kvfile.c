// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_kvfile.c - libFuzzer target: "name value" files (/proc/vmstat,
 * nodeN/numastat, pagesim's vmstat output) through ps_kv_parse(), with and
 * without a name prefix.
 */
#include <stdint.h>
#include <stdlib.h>

#include "lib/kvfile.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ps_error err;
	struct ps_kv kv;
	char *s = fuzz_str(data, size);

	ps_kv_init(&kv);
	if (ps_kv_parse(&kv, s, "fuzz", size & 1 ? "node12." : NULL, &err) == 0) {
		for (int i = 0; i < kv.nr; i++)
			if (ps_kv_get(&kv, kv.items[i].name) == NULL)
				abort();
	}
	ps_kv_free(&kv);
	free(s);
	return 0;
}
