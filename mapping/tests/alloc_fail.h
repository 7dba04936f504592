/*
 * alloc_fail.h - allocation failure injection for the error-path tests.
 *
 * Include in exactly one file of a test program: it replaces malloc,
 * calloc and realloc (strdup goes through malloc) with versions that fail
 * the Nth allocation after alloc_fail_arm(N) and forward to glibc's
 * allocator otherwise.
 */
#ifndef RICHACL_TESTS_ALLOC_FAIL_H
#define RICHACL_TESTS_ALLOC_FAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t nmemb, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);

void *malloc(size_t size);

static long alloc_fail_countdown = -1;	/* -1: disarmed */
static bool alloc_fail_fired;

/* fail the nth allocation from now (0 = the next one), once */
static inline void alloc_fail_arm(long n)
{
	alloc_fail_countdown = n;
	alloc_fail_fired = false;
}

/* disarm; true if the armed failure happened */
static inline bool alloc_fail_disarm(void)
{
	alloc_fail_countdown = -1;
	return alloc_fail_fired;
}

static inline bool alloc_fail_now(void)
{
	if (alloc_fail_countdown < 0)
		return false;
	if (alloc_fail_countdown-- > 0)
		return false;
	alloc_fail_fired = true;
	return true;
}

/*
 * Can failures be injected?  Not when something else replaces malloc in
 * the executable, as valgrind does unless it runs with
 * --soname-synonyms=somalloc=nouserintercepts.
 */
static inline bool alloc_fail_available(void)
{
	void *(*volatile alloc)(size_t) = malloc;
	void *p;

	alloc_fail_arm(0);
	p = alloc(1);
	free(p);
	return alloc_fail_disarm() && !p;
}

void *malloc(size_t size)
{
	return alloc_fail_now() ? NULL : __libc_malloc(size);
}

void *calloc(size_t nmemb, size_t size)
{
	return alloc_fail_now() ? NULL : __libc_calloc(nmemb, size);
}

void *realloc(void *ptr, size_t size)
{
	return alloc_fail_now() ? NULL : __libc_realloc(ptr, size);
}

#endif
