/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Shared by the libFuzzer harnesses: each feeds one parser or decoder
 * bytes it has never seen and checks what must hold whatever the input
 * (not only that nothing crashes). A broken invariant aborts, which
 * libFuzzer reports with the input that did it.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_ASSERT(c) do { if (!(c)) { fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #c); abort(); } } while (0)

/* A NUL-terminated copy of the input (parsers of text get text). */
static inline char *fuzz_text(const uint8_t *d, size_t n)
{
	char *s = malloc(n + 1);
	if (!s)
		abort();
	memcpy(s, d, n);
	s[n] = 0;
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
