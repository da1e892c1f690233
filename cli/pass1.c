// SPDX-License-Identifier: GPL-2.0-or-later
/* pass1.c - see pass1.h. */
#include <stdlib.h>

#include "cli/cli.h"
#include "cli/pass1.h"

static void observe(void *ctx, const struct ps_event *ev)
{
	ps_pass1_summary_event(ctx, ev);
}

struct ps_pass1_summary *ps_pass1_attach(struct ps_pgs_writer *w, const struct ps_machine *m)
{
	struct ps_pass1_summary *s = ps_pass1_summary_create(m);

	if (s)
		ps_pgs_set_observer(w, observe, s);
	return s;
}

int ps_pass1_store(struct ps_pgs_writer *w, struct ps_pass1_summary *s, struct ps_error *err)
{
	size_t len = 0;
	void *b;
	int rc = 0;

	if (!s)
		return 0;
	ps_pgs_set_observer(w, NULL, NULL);
	b = ps_pass1_summary_finish(s, &len);
	ps_pass1_summary_free(s);
	if (b)
		rc = ps_pgs_write_blob(w, PS_PASS1_BLOB, b, len, err);
	free(b);
	return rc;
}

static int task_of(void *ctx, int32_t pid, const char **comm)
{
	int t = ps_reader_task_of(ctx, pid, comm);

	return t < 0 ? PS_TASK_OTHER : t;
}

int ps_pass1_from_summary(struct ps_input *in, struct ps_replay *r, int with_comm, uint64_t *events)
{
	const char *comm;
	size_t len = 0;
	char *b;
	int rc;

	/* only a back-end that names tasks by pid can start naming them now */
	if (ps_reader_task_of(in->reader, 0, &comm) < 0)
		return 0;
	b = ps_reader_snapshot(in->reader, PS_PASS1_BLOB, &len);
	if (!b)
		return 0;
	rc = ps_replay_prepass_summary(r, b, len, with_comm, task_of, in->reader, events);
	free(b);
	if (rc < 0)
		ps_warn("%s: its pass-1 summary is damaged: reading the trace twice", in->trace);
	if (rc <= 0)
		return 0;
	ps_reader_add_comm(in->reader);
	return 1;
}
