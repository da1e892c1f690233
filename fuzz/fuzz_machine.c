// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_machine.c - libFuzzer target: machine files (configs/machines/,
 * `key = value` lines) through ps_machine_parse(), and on a machine it
 * accepts, what replay derives from it: the zonelists of an old and a new
 * kernel and the watermarks and lowmem_reserve under the boot defaults.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/machfile.h"
#include "sim/mm/watermark.h"
#include "sim/mm/zonelist.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ps_machine m;
	static struct ps_zonelists zl;
	static struct ps_wmarks w;
	static const int kvers[] = { PS_KVER(4, 4, 0), PS_KVER(6, 8, 0) };
	struct ps_wmark_tunables t;
	struct ps_error err;
	char *s = fuzz_str(data, size);

	if (ps_machine_parse(s, "fuzz", &m, &err) == 0) {
		for (size_t i = 0; i < sizeof(kvers) / sizeof(kvers[0]); i++) {
			ps_zonelists_build(&zl, &m, kvers[i], ps_zonelist_default_order(&m, kvers[i]));
			ps_wmark_tunables_default(&t, kvers[i]);
			ps_wmark_setup(&w, &m, &t);
		}
	}
	free(s);
	return 0;
}
