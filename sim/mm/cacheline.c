// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cacheline.c - the cache lines of struct zone of every zone: which CPU
 * wrote each last and which CPUs hold a valid copy, counting transfers.
 *
 * Simplifies (MESI without the E/S distinction that moves no data): an
 * access transfers a line when another CPU wrote it last and the accessing
 * CPU has no valid copy since.  A store to a line others only read (an
 * invalidation, no data) is not counted.  A CPU spinning on a line re-reads
 * it after every store to it by another CPU.  Transfers are counted, never
 * turned into time.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/mm/cacheline.h"

struct ps_cl {
	int nr_zones, nr_cpus, words;
	int16_t *last_writer;		/* [zone][line], -1: never written */
	uint64_t *valid;		/* [zone][line][words]: CPUs holding a valid copy */
	uint64_t *count;		/* [zone][tag] */
	/* spinners */
	int *spin_zone, *spin_line, *spin_tag, *spin_pos;	/* per CPU; spin_zone -1 when not spinning */
	int *spinners;			/* [zone][nr_cpus] */
	int *nr_spin;			/* [zone] */
};

struct ps_cl *ps_cl_create(int nr_zones, int nr_cpus)
{
	struct ps_cl *cl = calloc(1, sizeof(*cl));
	size_t lines = (size_t)nr_zones * PS_CL_MAX_LINES;

	if (!cl)
		return NULL;
	cl->nr_zones = nr_zones;
	cl->nr_cpus = nr_cpus;
	cl->words = (nr_cpus + 63) / 64;
	cl->last_writer = malloc(lines * sizeof(int16_t));
	cl->valid = calloc(lines * cl->words, sizeof(uint64_t));
	cl->count = calloc((size_t)nr_zones * PS_CL_NR_TAGS, sizeof(uint64_t));
	cl->spin_zone = malloc(nr_cpus * sizeof(int));
	cl->spin_line = calloc(nr_cpus, sizeof(int));
	cl->spin_tag = calloc(nr_cpus, sizeof(int));
	cl->spin_pos = calloc(nr_cpus, sizeof(int));
	cl->spinners = calloc((size_t)nr_zones * nr_cpus, sizeof(int));
	cl->nr_spin = calloc(nr_zones, sizeof(int));
	if (!cl->last_writer || !cl->valid || !cl->count || !cl->spin_zone || !cl->spin_line || !cl->spin_tag ||
	    !cl->spin_pos || !cl->spinners || !cl->nr_spin) {
		ps_cl_destroy(cl);
		return NULL;
	}
	for (size_t i = 0; i < lines; i++)
		cl->last_writer[i] = -1;
	for (int c = 0; c < nr_cpus; c++)
		cl->spin_zone[c] = -1;
	return cl;
}

void ps_cl_destroy(struct ps_cl *cl)
{
	if (!cl)
		return;
	free(cl->last_writer);
	free(cl->valid);
	free(cl->count);
	free(cl->spin_zone);
	free(cl->spin_line);
	free(cl->spin_tag);
	free(cl->spin_pos);
	free(cl->spinners);
	free(cl->nr_spin);
	free(cl);
}

/*
 * The rule for one access by @cpu to line @li (zone-major index): a
 * transfer (counted in *@count) when another CPU wrote the line last and
 * @cpu has no valid copy since; a write leaves @cpu the only valid copy.
 * Returns the transfers (0 or 1).  Spinners are the caller's.
 */
static inline int line_access(struct ps_cl *cl, size_t li, int cpu, int write, uint64_t *count)
{
	uint64_t *v = cl->valid + li * cl->words, bit = 1ull << (cpu & 63);
	int lw = cl->last_writer[li], n = 0;

	if (lw >= 0 && lw != cpu && !(v[cpu >> 6] & bit)) {
		(*count)++;
		n = 1;
	}
	if (write) {
		if (cl->words == 1)
			v[0] = 0;	/* up to 64 CPUs: no call to memset */
		else
			memset(v, 0, cl->words * sizeof(uint64_t));
		cl->last_writer[li] = (int16_t)cpu;
	}
	v[cpu >> 6] |= bit;
	return n;
}

int ps_cl_access(struct ps_cl *cl, int zone, int line, int cpu, int write, int tag)
{
	size_t li = (size_t)zone * PS_CL_MAX_LINES + line;
	uint64_t *v = cl->valid + li * cl->words;
	int n = line_access(cl, li, cpu, write, &cl->count[zone * PS_CL_NR_TAGS + tag]);

	if (!write)
		return n;
	/* every CPU spinning on this line misses and fetches it again */
	for (int i = 0; i < cl->nr_spin[zone]; i++) {
		int s = cl->spinners[(size_t)zone * cl->nr_cpus + i];

		if (s == cpu || cl->spin_line[s] != line)
			continue;
		cl->count[zone * PS_CL_NR_TAGS + cl->spin_tag[s]]++;
		v[s >> 6] |= 1ull << (s & 63);
		n++;
	}
	return n;
}

void ps_cl_access_quiet(struct ps_cl *cl, int zone, int cpu, int tag, const struct ps_cl_use *use, int n)
{
	uint64_t *count = &cl->count[zone * PS_CL_NR_TAGS + tag];

	for (int i = 0; i < n; i++)
		line_access(cl, (size_t)zone * PS_CL_MAX_LINES + use[i].line, cpu, use[i].write, count);
}

void ps_cl_spin_begin(struct ps_cl *cl, int zone, int line, int cpu, int tag)
{
	if (cl->spin_zone[cpu] >= 0)
		ps_cl_spin_end(cl, cl->spin_zone[cpu], cpu);
	cl->spin_zone[cpu] = zone;
	cl->spin_line[cpu] = line;
	cl->spin_tag[cpu] = tag;
	cl->spin_pos[cpu] = cl->nr_spin[zone];
	cl->spinners[(size_t)zone * cl->nr_cpus + cl->nr_spin[zone]++] = cpu;
	/* the first read of the spin loop */
	ps_cl_access(cl, zone, line, cpu, 0, tag);
}

void ps_cl_spin_end(struct ps_cl *cl, int zone, int cpu)
{
	int *sp = cl->spinners + (size_t)zone * cl->nr_cpus, pos = cl->spin_pos[cpu], last;

	if (cl->spin_zone[cpu] != zone)
		return;
	last = sp[--cl->nr_spin[zone]];
	sp[pos] = last;
	cl->spin_pos[last] = pos;
	cl->spin_zone[cpu] = -1;
}

int ps_cl_spinners(const struct ps_cl *cl, int zone)
{
	return cl->nr_spin[zone];
}

uint64_t ps_cl_transfers(const struct ps_cl *cl, int zone, int tag)
{
	return cl->count[zone * PS_CL_NR_TAGS + tag];
}
