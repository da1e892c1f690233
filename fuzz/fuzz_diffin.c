// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_diffin.c - libFuzzer target: the inputs of pagesim diff as files
 * (recognition by content: vmstat lines, numastat, pagesim stat's JSON)
 * through ps_diffin_load(), and the JSON parser directly.
 */
#include <stdint.h>
#include <stdlib.h>

#include "cli/diffin.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum ps_diffin_kind kind;
	struct ps_error err;
	struct ps_kv kv, after, delta;
	char *s;

	ps_kv_init(&kv);
	if (ps_diffin_load(fuzz_file(data, size), size & 1 ? 3 : -1, &kv, &kind, &err) == 0) {
		ps_diffin_kind_name(kind);
		ps_diffin_is_numastat(&kv);
		/* the run reduction against itself must give zeros */
		ps_kv_init(&after);
		ps_kv_init(&delta);
		for (int i = 0; i < kv.nr; i++)
			ps_kv_set(&after, kv.items[i].name, kv.items[i].value);
		if (ps_diffin_delta(&kv, &after, &delta, "a", "b", &err) == 0)
			for (int i = 0; i < delta.nr; i++)
				if (delta.items[i].value)
					abort();
		ps_kv_free(&after);
		ps_kv_free(&delta);
	}
	ps_kv_free(&kv);
	s = fuzz_str(data, size);
	ps_kv_init(&kv);
	ps_diffin_parse_json(s, "fuzz", &kv, &err);
	ps_kv_free(&kv);
	free(s);
	return 0;
}
