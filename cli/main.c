// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - the pagesim command table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static const struct ps_command commands[] = {
	{ "stat", cmd_stat, "count the kernel's counters straight from a trace" },
	{ "replay", cmd_replay, "replay a trace through the buddy model (follow or simulate)" },
	{ "convert", cmd_convert, "write a trace and its machine snapshots into one pagesim file" },
	{ "record", cmd_record, "record this machine's page events and layout into a pagesim file" },
	{ "diff", cmd_diff, "compare counters: the test robot's %change rows or mmtests' columns" },
	{ "sweep", cmd_sweep, "many policies over many traces: here, as a Slurm job array or GNU parallel jobs; reports" },
	{ "lockstat", cmd_lockstat, "zone->lock and struct zone cache-line model over a trace's lock sections" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: pagesim [--version] [--help] COMMAND [ARGS]\n\n"
		   "pagesim replays Linux page-allocator traces (the kmem page events) through a\n"
		   "model of the buddy allocator and prints the kernel's counters.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'pagesim COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return PS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("pagesim %s\n", PAGESIM_VERSION);
		return PS_EXIT_OK;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return PS_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "pagesim: '%s' is not a pagesim command\n", argv[1]);
	usage(stderr);
	return PS_EXIT_USAGE;
}
