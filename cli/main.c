// SPDX-License-Identifier: GPL-2.0-or-later
/* main.c - the pagesim command table. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

/* Each command has its man page, docs/man/pagesim-NAME.1.scd (a test checks they agree). */
static const struct ps_command commands[] = {
	{ "stat", cmd_stat, "count the kernel's counters straight from a trace" },
	{ "replay", cmd_replay, "replay a trace through the buddy model (follow or simulate)" },
	{ "convert", cmd_convert, "write a trace and its machine snapshots into one pagesim file" },
	{ "record", cmd_record, "record this machine's page events and layout into a pagesim file" },
	{ "diff", cmd_diff, "compare counters: the test robot's %change rows or mmtests' columns" },
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

/* pagesim help [COMMAND] */
static int help(int argc, char **argv)
{
	const struct ps_command *c;
	char *args[] = { NULL, "--help", NULL };

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return PS_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c || argc > 2) {
		fprintf(stderr, "pagesim help: %s%s%s\ntry 'pagesim help'\n", c ? "one command at a time, not " : "'",
			c ? "several" : argv[1], c ? "" : "' is not a pagesim command");
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
