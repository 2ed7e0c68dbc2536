/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A disk's interval is measured from the previous sample, not assumed: a
 * late wake-up makes a longer interval, not inflated rates.
 */
#include "sampler.h"

#include <assert.h>
#include <fcntl.h>
#include <math.h>
#include <unistd.h>

#include "diskstats.h"
#include "log.h"
#include "procstat.h"

#define DISKSTATS_MAX_BYTES (32 * 1024 * 1024)
#define WARN_EVERY 60		/* samples between repeated warnings */
#define STAT_MAX_BYTES (4 * 1024 * 1024)	/* /proc/stat: ~150 bytes per CPU, and the interrupts */

/* What line i of the last diskstats named, and the disk it was (its index
 * in the registry, -1 for none: a partition, a device not watched). The
 * kernel lists devices in the same order sample after sample, so a line is
 * matched by one comparison of names instead of a search of the registry;
 * the matches hold while the registry's generation does. */
typedef struct LineMatch {
	char name[DISKSTATS_NAME_MAX];
	int32_t disk;
	/* Most lines are a quiet disk's, the same text sample after sample:
	 * the hash of the text last counted for this disk tells it is again,
	 * and the line is not parsed. (Were a changed line to hash the same,
	 * its I/O would be counted at the next change, the counters being
	 * totals: moved to a later interval, not lost.) */
	uint64_t hash;
	bool counted;		/* hash is of a line counted for disk (a line no disk
				 * reads: of one that passed the check) */
} LineMatch;

struct Sampler {
	int procfs_fd;
	DiskRegistry *disks;
	LineMatch *lines;
	size_t n_lines;
	uint64_t lines_generation;
	SamplerStats st;
	HostSteal steal;
	ProcStatSteal read;
	bool steal_said;
	/* /proc/stat's and diskstats' text, read every sample: kept, not
	 * allocated and faulted in again each time */
	ReadBuf text;
};

typedef struct SampleRun {
	Sampler *s;
	uint64_t now;
	unsigned duplicates;
	size_t line;		/* the index of the line being read */
	Disk *disk;		/* the disk it is, if want_line() wanted it */
	LineMatch *match;	/* its entry in s->lines (NULL: none) */
	bool matches_good;	/* s->lines were made against this registry */
} SampleRun;

int sampler_new(int procfs_fd, DiskRegistry *disks, Sampler **ret)
{
	Sampler *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	*s = (Sampler){.procfs_fd = procfs_fd, .disks = disks};
	s->st.steal_last = NAN;
	long hz = sysconf(_SC_CLK_TCK);
	host_steal_init(&s->steal, hz > 0 ? (double)hz : 100);
	*ret = s;
	return 0;
}

Sampler *sampler_free(Sampler *s)
{
	if (s) {
		free(s->lines);
		read_buf_done(&s->text);
	}
	free(s);
	return NULL;
}

const SamplerStats *sampler_stats(const Sampler *s)
{
	assert(s);
	return &s->st;
}

/* A line of d's counted: its interval measured from the last sample. */
static void count_line(SampleRun *run, Disk *d)
{
	Sampler *s = run->s;
	d->seen = true;
	if (d->ds.primed && s->st.last_usec && run->now > s->st.last_usec)
		d->interval = (double)(run->now - s->st.last_usec) / 1e6;
}

/* The disk line l names, if it is one we watch: matched where it was last
 * time, else searched (and remembered for the next sample). */
static DiskstatWant want_line(const DiskstatLine *l, void *userdata)
{
	SampleRun *run = userdata;
	Sampler *s = run->s;
	size_t i = run->line++;
	Disk *d;
	run->match = NULL;
	if (run->matches_good && i < s->n_lines && streq(s->lines[i].name, l->name))
		d = s->lines[i].disk >= 0 ? registry_at(s->disks, (size_t)s->lines[i].disk) : NULL;
	else {
		d = registry_get(s->disks, l->name);
		if (i >= s->n_lines) {
			LineMatch *n = realloc(s->lines, (i + 1) * sizeof *n);
			if (!n)
				goto matched;	/* searched again next time: slower, not wrong */
			s->lines = n;
			s->n_lines = i + 1;
		}
		snprintf(s->lines[i].name, sizeof s->lines[i].name, "%s", l->name);
		s->lines[i].disk = d ? registry_index(s->disks, d) : -1;
		s->lines[i].counted = false;
	}
	run->match = &s->lines[i];
matched:
	run->disk = d && d->sys.major == l->major && d->sys.minor == l->minor ? d : NULL;
	if (!run->match)
		return run->disk ? DISKSTAT_PARSE : DISKSTAT_CHECK;
	uint64_t h = diskstats_counters_hash(l);
	bool same = run->match->counted && run->match->hash == h;
	run->match->hash = h;
	run->match->counted = false;	/* until counted */
	/* A line nobody reads (a partition, a device not watched) is still
	 * checked, so that a bad one is counted: parsed when it changed (the
	 * parse is the check), skipped while its text is one that passed. */
	if (!run->disk) {
		run->match->counted = same;
		return same ? DISKSTAT_SKIP : DISKSTAT_PARSE;
	}
	if (!same || d->seen || !diskstats_accumulate_unchanged(&d->ds))
		return DISKSTAT_PARSE;
	count_line(run, d);
	run->match->counted = true;
	return DISKSTAT_SKIP;
}

static void on_line(const DiskstatLine *l, void *userdata)
{
	SampleRun *run = userdata;
	Sampler *s = run->s;
	Disk *d = run->disk;
	if (!d) {		/* parsed only to check it: good */
		run->match->counted = true;
		return;
	}
	if (d->seen) {
		run->duplicates++;	/* a second line for one device: the first counts */
		return;
	}
	count_line(run, d);
	uint64_t resets = d->ds.resets;
	diskstats_accumulate(&d->ds, l);
	s->st.resets += d->ds.resets - resets;
	if (run->match)
		run->match->counted = true;
}

/* The CPU time the hypervisor took since the last sample. Unknown (NaN)
 * on bare metal's old kernels and on a /proc/stat that cannot be read:
 * the disks' figures do not depend on it. */
static void sample_steal(Sampler *s)
{
	unsigned bad = 0;
	int r = read_file_buf(s->procfs_fd, "stat", STAT_MAX_BYTES, &s->text, NULL);
	if (r >= 0)
		r = procstat_steal_parse(s->text.data, &s->read, &bad);
	if (r < 0) {
		if (!s->steal_said)
			log_notice("No CPU steal from /proc/stat (%s): waits while the host held the CPUs cannot be told "
				   "from a disk's", r == -ENODATA ? "no steal figure" : read_error_string(r));
		s->steal_said = true;
		s->steal.primed = false;	/* the next good read starts again */
		s->st.steal_last = NAN;
		return;
	}
	if (bad && !s->steal_said)
		log_warning("/proc/stat has %u malformed cpu line(s), ignoring them", bad);
	s->steal_said = bad > 0;
	bool primed = s->steal.primed;
	double most = host_steal_update(&s->steal, &s->read);
	s->st.steal_last = primed ? most : NAN;
	s->st.steal_total = s->steal.total;
}

int sampler_sample(Sampler *s, uint64_t now_usec, SamplerMissingFn missing, void *userdata)
{
	sample_steal(s);
	int r = read_file_buf(s->procfs_fd, "diskstats", DISKSTATS_MAX_BYTES, &s->text, NULL);
	if (r < 0) {
		if (s->st.read_errors++ % WARN_EVERY == 0)
			log_warning("Failed to read diskstats, keeping the last values: %s", read_error_string(r));
		return r;
	}
	for (size_t i = 0; i < registry_size(s->disks); i++)
		registry_at(s->disks, i)->seen = false;

	SampleRun run = {.s = s, .now = now_usec,
			 .matches_good = s->lines_generation == registry_generation(s->disks)};
	s->lines_generation = registry_generation(s->disks);
	unsigned bad = diskstats_parse(s->text.data, want_line, on_line, &run) + run.duplicates;
	if (bad && s->st.bad_lines == 0)
		log_warning("diskstats has %u malformed or repeated line(s), ignoring them", bad);
	s->st.bad_lines += bad;
	s->st.last_usec = now_usec;
	s->st.samples++;

	/* A disk missing from diskstats may be gone: the callback may drop it,
	 * so walk backwards and copy the name first. */
	for (size_t i = registry_size(s->disks); missing && i-- > 0;) {
		Disk *d = registry_at(s->disks, i);
		if (d && !d->seen) {
			char name[sizeof d->name];
			snprintf(name, sizeof name, "%s", d->name);
			missing(name, userdata);
		}
	}
	return 0;
}
