/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/diskstats: any text parses into sane lines, and fed sample after
 * sample (the input split at form feeds) the totals never decrease. */
#include "diskstats.h"
#include "fuzz.h"

typedef struct Run {
	DiskstatAccum acc;
	uint64_t prev[_DS_FIELD_MAX];
	unsigned lines;
} Run;

static void on_line(const DiskstatLine *l, void *userdata)
{
	Run *r = userdata;
	FUZZ_ASSERT(l->n_fields >= 11 && l->n_fields <= _DS_FIELD_MAX && l->n_fields != 16);
	FUZZ_ASSERT(l->name[0] && strlen(l->name) < DISKSTATS_NAME_MAX);
	r->lines++;
	diskstats_accumulate(&r->acc, l);
	for (int f = 0; f < _DS_FIELD_MAX; f++)
		if (f != DS_IN_FLIGHT && r->acc.n_fields == l->n_fields) {
			FUZZ_ASSERT(r->acc.total[f] >= r->prev[f] || r->prev[f] == 0 || f >= (int)l->n_fields);
			r->prev[f] = r->acc.total[f];
		}
}

/* A reader that skips a line with the same text as the last one it fed,
 * as the sampler does: it must end with the same totals as one that
 * parses every line. */
typedef struct Skipper {
	Run run;
	uint64_t hash;
	bool counted;
} Skipper;

static DiskstatWant want_unchanged(const DiskstatLine *l, void *userdata)
{
	Skipper *k = userdata;
	uint64_t h = diskstats_counters_hash(l);
	bool same = k->counted && k->hash == h;
	k->hash = h;
	k->counted = false;
	if (!same || !diskstats_accumulate_unchanged(&k->run.acc))
		return DISKSTAT_PARSE;
	k->counted = true;
	k->run.lines++;
	return DISKSTAT_SKIP;
}

static void on_line_skipper(const DiskstatLine *l, void *userdata)
{
	Skipper *k = userdata;
	k->run.lines++;
	diskstats_accumulate(&k->run.acc, l);
	k->counted = true;
}

static DiskstatWant want_none(const DiskstatLine *l, void *userdata)
{
	(void)l;
	(void)userdata;
	return DISKSTAT_CHECK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_text(data, size);
	Run r = {0};
	Skipper k = {0};
	for (char *s = text, *next; s; s = next) {	/* a form feed starts the next sample */
		next = strchr(s, '\f');
		if (next)
			*next++ = 0;
		unsigned bad = diskstats_parse(s, NULL, on_line, &r);
		FUZZ_ASSERT(bad <= size + 1);
		/* a line only checked is bad exactly when a parsed one is */
		FUZZ_ASSERT(diskstats_parse(s, want_none, on_line, &r) == bad);
		FUZZ_ASSERT(diskstats_parse(s, want_unchanged, on_line_skipper, &k) == bad);
		FUZZ_ASSERT(k.run.lines == r.lines);
		FUZZ_ASSERT(!memcmp(k.run.acc.total, r.acc.total, sizeof r.acc.total));
		FUZZ_ASSERT(!memcmp(k.run.acc.delta, r.acc.delta, sizeof r.acc.delta));
	}
	free(text);
	return 0;
}
