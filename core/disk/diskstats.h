/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parser for /proc/diskstats and wrap-aware counter accumulation.
 * No I/O: the caller hands in the file's text and gets plain structs back.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

typedef enum DiskstatField {
	DS_READS,		/* reads completed */
	DS_READS_MERGED,
	DS_READ_SECTORS,
	DS_READ_MS,
	DS_WRITES,
	DS_WRITES_MERGED,
	DS_WRITE_SECTORS,
	DS_WRITE_MS,
	DS_IN_FLIGHT,		/* the only gauge */
	DS_IO_MS,
	DS_WEIGHTED_MS,
	DS_DISCARDS,		/* 4.18+ */
	DS_DISCARDS_MERGED,
	DS_DISCARD_SECTORS,
	DS_DISCARD_MS,
	DS_FLUSHES,		/* 5.5+ */
	DS_FLUSH_MS,
	_DS_FIELD_MAX,
	_DS_FIELD_INVALID = -EINVAL,
} DiskstatField;

#define DISKSTATS_NAME_MAX 32

typedef struct DiskstatLine {
	unsigned major, minor;
	char name[DISKSTATS_NAME_MAX];
	/* for want: the line's text after the name, to its end (not parsed yet) */
	const char *counters;
	size_t counters_len;
	unsigned n_fields;		/* 11, 15 or 17 (more are ignored) */
	uint64_t v[_DS_FIELD_MAX];
} DiskstatLine;

/* Parses one line; -EINVAL for a malformed one (short, non-numeric, overlong name). */
int diskstats_parse_line(const char *line, DiskstatLine *ret);

/* Lines longer than this are bad (the kernel's are under 300 bytes). */
#define DISKSTATS_LINE_MAX 1024

/* What to do with a line, decided from its id columns and its text (l's
 * major, minor, name and counters; nothing parsed yet). */
typedef enum DiskstatWant {
	DISKSTAT_CHECK,		/* nobody reads it: only checked, so that a bad one is counted */
	DISKSTAT_PARSE,		/* parsed, and cb called */
	DISKSTAT_SKIP,		/* the caller has it already (the same text as a line it parsed) */
} DiskstatWant;
typedef DiskstatWant (*DiskstatWantFn)(const DiskstatLine *l, void *userdata);

/* Calls cb for every well-formed line of a whole file that want (NULL: all)
 * asks to parse. Returns the number of bad lines among those parsed or
 * checked. */
unsigned diskstats_parse(const char *text, DiskstatWantFn want, void (*cb)(const DiskstatLine *l, void *userdata),
			 void *userdata);

/* Monotonic view of one device's counters across samples. The kernel
 * prints the *_ms fields as 32-bit values, which wrap; every other counter
 * is 64-bit and never wraps in practice. A counter that goes backwards
 * otherwise is a reset (or a glitch): it is counted, and the exported total
 * never decreases. A backwards value is held as suspect: if the counter
 * comes back to its old value it was a glitch (a duplicated or stale line)
 * and nothing is lost; once it grows from the low value, the device
 * restarted its counters and counting resumes there. */
typedef struct DiskstatAccum {
	bool primed;
	unsigned n_fields;
	uint64_t last[_DS_FIELD_MAX];	/* raw value counted up to */
	uint64_t total[_DS_FIELD_MAX];	/* exported, never decreasing (in-flight: raw) */
	uint64_t delta[_DS_FIELD_MAX];	/* increase over the last interval */
	uint64_t suspect[_DS_FIELD_MAX];	/* a backwards value awaiting confirmation */
	uint32_t suspect_mask;		/* bit f: suspect[f] is set */
	uint64_t wraps, resets;
} DiskstatAccum;

/* Feeds one sample. The first sample only primes (deltas are zero). */
void diskstats_accumulate(DiskstatAccum *a, const DiskstatLine *l);
/* Feeds a sample whose line has the same text as the last one fed: what
 * diskstats_accumulate would do with it (nothing moved). False, and
 * nothing done, where that needs the values (not primed, or a backwards
 * value awaiting confirmation): parse the line and feed it. */
bool diskstats_accumulate_unchanged(DiskstatAccum *a);
/* A 64-bit hash of a line's counter text, to tell a line that changed
 * from one that did not without parsing it. */
uint64_t diskstats_counters_hash(const DiskstatLine *l);

/* True for the fields the kernel prints as 32-bit milliseconds. */
bool diskstats_field_is_ms(DiskstatField f);
/* Delta of a counter: a 32-bit milliseconds field wraps from above 2^31 to
 * below it; false when the counter went backwards otherwise (a reset). */
bool diskstats_counter_delta(DiskstatField f, uint64_t prev, uint64_t cur, uint64_t *ret);

const char *diskstat_field_to_string(DiskstatField f);
