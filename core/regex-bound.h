/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded regular expressions (pure): glibc's regcomp() expands repetition
 * into copies of the automaton, so a short pattern such as
 * "A+++++++++++++++++++++++" or "(a{1,255}){1,255}" takes gigabytes and
 * seconds. Patterns come from the config file, flags and the model list:
 * each is checked for length and for the size its expansion would have
 * before it reaches regcomp().
 */
#pragma once

#include <regex.h>

#define REGEX_MAX_LENGTH 512
#define REGEX_MAX_EXPANSION 2048	/* automaton positions, roughly */

/* 0, or -E2BIG/-EINVAL with *ret_why (static text) saying what is wrong. */
int regex_check_bounds(const char *pattern, const char **ret_why);
/* regex_check_bounds(), then regcomp(); -EINVAL if regcomp refuses it. */
int regex_compile_bounded(regex_t *re, const char *pattern, int cflags, const char **ret_why);
