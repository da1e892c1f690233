// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fail-thread.c - an LD_PRELOAD shim for the tests: pthread_create fails
 * with EAGAIN at its FAIL_THREAD_AT-th call, as when a process reaches its
 * thread limit.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
	static _Atomic int n;
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	const char *at = getenv("FAIL_THREAD_AT");

	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(RTLD_NEXT, "pthread_create");
	if (at && ++n == atoi(at))
		return EAGAIN;
	return real(t, a, fn, arg);
}
