/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A disk's interval is measured from the previous sample, not assumed: a
 * late wake-up makes a longer interval, not inflated rates.
 */
#include "sampler.h"

#include <fcntl.h>

#include "diskstats.h"
#include "log.h"

#define DISKSTATS_MAX_BYTES (32 * 1024 * 1024)
#define WARN_EVERY 60		/* samples between repeated warnings */

struct Sampler {
	int procfs_fd;
	DiskRegistry *disks;
	SamplerStats st;
};

typedef struct SampleRun {
	Sampler *s;
	uint64_t now;
	unsigned duplicates;
} SampleRun;

int sampler_new(int procfs_fd, DiskRegistry *disks, Sampler **ret)
{
	Sampler *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	*s = (Sampler){.procfs_fd = procfs_fd, .disks = disks};
	*ret = s;
	return 0;
}

Sampler *sampler_free(Sampler *s)
{
	free(s);
	return NULL;
}

const SamplerStats *sampler_stats(const Sampler *s)
{
	static const SamplerStats none;
	return s ? &s->st : &none;
}

static void on_line(const DiskstatLine *l, void *userdata)
{
	SampleRun *run = userdata;
	Sampler *s = run->s;
	Disk *d = registry_get(s->disks, l->name);
	if (!d || d->sys.major != l->major || d->sys.minor != l->minor)
		return;
	if (d->seen) {
		run->duplicates++;	/* a second line for one device: the first counts */
		return;
	}
	d->seen = true;
	if (d->ds.primed && s->st.last_usec && run->now > s->st.last_usec)
		d->interval = (double)(run->now - s->st.last_usec) / 1e6;
	uint64_t resets = d->ds.resets;
	diskstats_accumulate(&d->ds, l);
	s->st.resets += d->ds.resets - resets;
}

int sampler_sample(Sampler *s, uint64_t now_usec, SamplerMissingFn missing, void *userdata)
{
	_cleanup_free_ char *text = NULL;
	int r = read_file_at(s->procfs_fd, "diskstats", DISKSTATS_MAX_BYTES, &text, NULL);
	if (r < 0) {
		if (s->st.read_errors++ % WARN_EVERY == 0)
			log_warning("Failed to read diskstats, keeping the last values: %s", read_error_string(r));
		return r;
	}
	for (size_t i = 0; i < registry_size(s->disks); i++)
		registry_at(s->disks, i)->seen = false;

	SampleRun run = {.s = s, .now = now_usec};
	unsigned bad = diskstats_parse(text, on_line, &run) + run.duplicates;
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
