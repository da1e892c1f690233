// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - the pagesim command table. */
#include <stdio.h>
#include <string.h>

#include "sim/config/policy.h"
#include "sim/mm/profile.h"
#include "cli/cli.h"
#include "cli/configs.h"

/* Each command has its man page, docs/man/pagesim-NAME.1.scd (a test checks they agree). */
static const struct ps_command commands[] = {
	{ "stat", cmd_stat, "count the kernel's counters straight from a trace" },
	{ "replay", cmd_replay, "replay a trace through the buddy model (follow or simulate)" },
	{ "convert", cmd_convert, "write a trace and its machine snapshots into one pagesim file" },
	{ "record", cmd_record, "record this machine's page events and layout into a pagesim file" },
	{ "diff", cmd_diff, "compare counters: the test robot's %change rows or mmtests' columns" },
	{ "sweep", cmd_sweep, "many policies over many traces: here, as a Slurm job array or GNU parallel jobs; reports" },
	{ "plot", cmd_plot, "draw timelines, final pageblocks and diffs through gnuplot" },
	{ "lockstat", cmd_lockstat, "zone->lock and struct zone cache-line model over a trace's lock sections" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fprintf(f, "usage: pagesim [--version] [--help] COMMAND [ARGS]\n"
		   "       pagesim help [COMMAND]\n\n"
		   "pagesim replays Linux page-allocator traces (the kmem page events) through a\n"
		   "model of the buddy allocator and prints the kernel's counters.\n\ncommands:\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-10s %s\n", "help", "this text, or a command's ('pagesim help replay')");
	fprintf(f, "\nhelp topics (one name and what it is per line):\n"
		   "  policies   --policy: the kernel profiles and the policy files found by name\n"
		   "  machines   --machine: the machine files found by name\n"
		   "  keys       --set: the policy and lock-model keys\n");
	fprintf(f, "\noptions:\n"
		   "  -h, --help     this text\n"
		   "  -V, --version  pagesim's version\n"
		   "\n'pagesim COMMAND --help' or 'pagesim help COMMAND' describes a command;\n"
		   "'man pagesim-COMMAND' has the details.\n");
}

static const struct ps_command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/* pagesim help policies|machines|keys: names a completion (or a user) can use */
static int help_topic(const char *topic)
{
	long min, max;
	const char *k;

	if (!strcmp(topic, "policies")) {
		printf("# kernel profiles (built in; a kernel release such as 6.1.0-57-amd64 picks its own)\n");
		for (int i = 0; ps_profiles[i]; i++)
			printf("%-24s %s\n", ps_profiles[i]->name, ps_profiles[i]->summary);
		ps_config_list(stdout, "policies", ".policy", "");
	} else if (!strcmp(topic, "machines")) {
		ps_config_list(stdout, "machines", ".machine", "description");
	} else if (!strcmp(topic, "keys")) {
		printf("# policy keys (replay --set KEY=VALUE, policy files)\n");
		for (int i = 0; (k = ps_policy_key(i, &min, &max)); i++)
			if (i == 0)
				printf("%-36s a profile name or kernel release\n", k);
			else
				printf("%-36s %ld..%ld\n", k, min, max);
		printf("# lock model (replay and lockstat --set; layout keys: docs/lock-model.md)\n"
		       "%-36s ns per zone->lock acquisition\n%-36s ns per block moved under the lock\n"
		       "%-36s 0 or 1\n", "lock.acquire_ns", "lock.page_ns", "lock.carry");
	} else {
		return -1;
	}
	return PS_EXIT_OK;
}

/* pagesim help [COMMAND|TOPIC] */
static int help(int argc, char **argv)
{
	const struct ps_command *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return PS_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c && argc == 2 && help_topic(argv[1]) == 0)
		return PS_EXIT_OK;
	if (!c || argc > 2) {
		fprintf(stderr, "pagesim help: %s%s%s\ntry 'pagesim help'\n", c ? "one command at a time, not " : "'",
			c ? "several" : argv[1], c ? "" : "' is not a pagesim command or help topic");
		return PS_EXIT_USAGE;
	}
	args[0] = argv[1];
	return c->fn(2, args);
}

int main(int argc, char **argv)
{
	const struct ps_command *c;

	if (argc < 2) {
		usage(stderr);
		return PS_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return ps_print_version();
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return help(1, argv + 1);
	if (!strcmp(argv[1], "help"))
		return help(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	if (argv[1][0] == '-')
		fprintf(stderr, "pagesim: unknown option '%s'\ntry 'pagesim --help'\n", argv[1]);
	else
		fprintf(stderr, "pagesim: '%s' is not a pagesim command\ntry 'pagesim --help'\n", argv[1]);
	return PS_EXIT_USAGE;
}
