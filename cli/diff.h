/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * diff.h - pagesim diff's tables, shared with pagesim sweep --report: columns
 * of repeats side by side (lkp, columns, csv, json or vmstat form), with the
 * default row set, --include/--exclude, labels and Welch's t-test.
 */
#ifndef PS_DIFF_H
#define PS_DIFF_H

#include <getopt.h>
#include <regex.h>
#include <stdio.h>

enum ps_diff_fmt { PS_DIFF_LKP, PS_DIFF_COLUMNS, PS_DIFF_JSON, PS_DIFF_CSV, PS_DIFF_VMSTAT };

struct ps_diff_opts {
	enum ps_diff_fmt fmt;
	int order;		/* input, name, change */
	int all;
	double min_change;
	int per_node;
	int node;		/* of numastat files whose path does not say; -1 */
	const char *output;	/* -o; NULL: stdout */
	int has_include, has_exclude;
	regex_t include, exclude;
};

/* One column: a label and its repeats (a file each). */
struct ps_diff_col {
	const char *label;
	char **paths;
	int nr;
};

void ps_diff_opts_init(struct ps_diff_opts *o);

/* The options of the tables (format, rows, order), for sweep --report to take too. */
extern const struct option ps_diff_report_options[];

/*
 * One option of ps_diff_report_options: 0 when taken, -1 when it is not
 * one of them, else the exit status after a usage error naming @cmd.
 */
int ps_diff_opts_parse(struct ps_diff_opts *o, int opt, const char *arg, const char *cmd);

/* Loads the columns' files and prints the table to @f.  0, or -1 after printing why. */
int ps_diff_print(const struct ps_diff_opts *o, struct ps_diff_col *cols, int n, FILE *f);

#endif
