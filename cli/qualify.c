/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run: what the disk says about itself, then (destructive) one open of
 * the device with O_EXCL, every safety check on that fd, the confirmation,
 * every check again on the same fd, and only then O_DIRECT and the writes,
 * through that same fd. Afterwards, only on request and never after an
 * interrupt, a discard of exactly the blocks this run wrote. The I/O is in
 * qualify-engine.c, the verdict in qualify-verdict.c, the report in
 * qualify-report.c. Exit codes: 0 done (whatever the verdict), 1 refused or
 * failed, 2 usage, 130 interrupted before anything was learned.
 */
#include "qualify.h"

#include <fcntl.h>
#include <json-c/json.h>
#include <linux/fs.h>
#include <math.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>

#include "classify.h"
#include "format.h"
#include "cliff.h"
#include "modellist.h"
#include "output.h"
#include "qualify-engine.h"
#include "qualify-model.h"
#include "qualify-opts.h"
#include "qualify-recovery.h"
#include "qualify-report.h"
#include "qualify-verdict.h"
#include "safety.h"
#include "sysfs.h"
#include "util.h"
#include "verdict-json.h"

#ifndef SMRD_MODEL_LIST_PATH
#define SMRD_MODEL_LIST_PATH "/usr/share/smrd/smr-models.tsv"
#endif
extern const char smrd_builtin_models[];

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) { (void)sig; interrupted++; }

#define SEQ_BLOCK (1u << 20)

static void say_refusal(const char *node, const SafetyReport *s)
{
	fprintf(stderr, "smrctl: qualify: refusing to write to %s:\n", node);
	for (unsigned i = 0; i < s->n; i++)
		fprintf(stderr, "  - %s\n", s->reason[i]);
	if (s->n > s->n_nonzero) {
		fprintf(stderr, "Empty the disk first (remove it from its pool or array, unmount it, wipefs -a) if you mean it.\n");
		return;
	}
	/* only data: wipefs erases signatures, not this */
	fprintf(stderr, "Nothing uses it and it has no signature, but it holds data (wipefs -a erases signatures only).\n"
			"To overwrite it anyway, add --force-nonzero; or zero exactly the regions checked:\n");
	for (unsigned i = 0; i < s->n_nonzero; i++)
		fprintf(stderr, "  dd if=/dev/zero of=%s bs=%" PRIu64 " count=1 seek=%" PRIu64 " oflag=seek_bytes,direct conv=notrunc\n",
			node, s->nonzero_len[i], s->nonzero_off[i]);
}

/* The typed confirmation: the serial number, or the name if it has none. */
static bool confirmed(const Opts *o, const char *node, const DiskIdentity *id, const char *name)
{
	const char *token = *id->serial ? id->serial : name;
	char typed[256] = "", b[32];
	if (o->confirm)
		snprintf(typed, sizeof typed, "%s", o->confirm);
	else if (isatty(STDIN_FILENO)) {
		fprintf(stderr, "This OVERWRITES %s (%s, %s). Type its %s (%s) to go on: ", node,
			*id->model ? id->model : "no model", fmt_bytes(b, sizeof b, (double)id->size),
			*id->serial ? "serial number" : "name (it reports no serial)", token);
		if (!fgets(typed, sizeof typed, stdin))
			typed[0] = 0;
		typed[strcspn(typed, "\n")] = 0;
	}
	if (streq(typed, token))
		return true;
	const char *what = *id->serial ? "serial number" : "name (it reports no serial)";
	if (o->confirm)
		fprintf(stderr, "smrctl: qualify: not confirmed: --yes-destroy must be the disk's %s, %s; nothing was written\n",
			what, token);
	else if (isatty(STDIN_FILENO))
		fprintf(stderr, "smrctl: qualify: not confirmed: the answer was not the disk's %s (%s); nothing was written\n",
			what, token);
	else
		fprintf(stderr, "smrctl: qualify: not confirmed: no terminal to ask on; give --yes-destroy %s (the disk's %s)\n",
			token, what);
	return false;
}

/* Checks, confirmation, checks again on the same fd: 0 to go on. */
static int make_sure(const Opts *o, int fd, const SafetyTarget *t, const char *node, const DiskIdentity *before)
{
	SafetyReport s;
	safety_check(fd, t, before, o->force_nonzero, &s);
	if (s.n) {
		say_refusal(node, &s);
		return -EPERM;
	}
	if (!confirmed(o, node, before, t->name))
		return -EPERM;
	/* Whatever happened while we waited for the answer is looked at now. */
	DiskIdentity after;
	char why[400];
	int r = safety_identity(fd, t, &after);
	if (r < 0 || !safety_same_disk(before, &after, why, sizeof why)) {
		fprintf(stderr, "smrctl: qualify: refusing to write to %s: it is not the disk that was checked: %s\n", node,
			r < 0 ? strerror(-r) : why);
		return -EPERM;
	}
	safety_check(fd, t, &after, o->force_nonzero, &s);
	if (s.n) {
		fprintf(stderr, "smrctl: qualify: %s changed while waiting for the confirmation.\n", node);
		say_refusal(node, &s);
		return -EPERM;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Discards exactly the blocks the write phase wrote, merged where they touch. */
static const char *discard_written(int fd, const Phase *w, uint64_t *ret_ranges, uint64_t *ret_bytes)
{
	*ret_ranges = *ret_bytes = 0;
	if (!w->n)
		return "nothing was written";
	_cleanup_free_ uint64_t *off = malloc(w->n * sizeof *off);
	if (!off)
		return "out of memory";
	memcpy(off, w->offsets, w->n * sizeof *off);
	qsort(off, w->n, sizeof *off, cmp_u64);
	for (size_t i = 0; i < w->n;) {
		uint64_t start = off[i], end = off[i] + w->io_bytes;
		for (i++; i < w->n && off[i] <= end; i++)
			if (off[i] + w->io_bytes > end)
				end = off[i] + w->io_bytes;
		uint64_t range[2] = {start, end - start};
		if (ioctl(fd, BLKDISCARD, range) < 0)
			return errno == EOPNOTSUPP ? "not supported by the disk" : "failed";
		(*ret_ranges)++;
		*ret_bytes += end - start;
	}
	return "done";
}

typedef struct Run {
	Opts o;
	const char *name;
	char node[64];
	FILE *out;
	SysfsDisk sys;
	Verdict v;
	DiskIdentity id;
	json_object *rep;
	Phase wp, sp, rp[MAX_SIZES];
	Recovery rec;		/* the refills */
	QualifyModel model;
	uint64_t budget;	/* bytes all the writes together may write */
	CliffResult cliff;
	bool learned;
} Run;

static void run_done(Run *r)
{
	json_object_put(r->rep);
	phase_free(&r->wp);
	phase_free(&r->sp);
	recovery_done(&r->rec);
	for (unsigned i = 0; i < MAX_SIZES; i++) {
		phase_free(&r->rp[i]);
		free((char *)r->rp[i].name);
	}
}

static int write_phase(Run *r, Engine *e, json_object *phases)
{
	char b1[32], b2[32];
	uint64_t budget = qualify_write_budget(&r->o, r->id.size);
	fprintf(r->out, "writing random %s blocks at queue depth %u until the write cliff, %s or %.0f s\n",
		fmt_bytes(b1, sizeof b1, (double)r->o.bs), r->o.iodepth, fmt_bytes(b2, sizeof b2, (double)budget),
		r->o.time_limit);
	r->budget = budget;
	int k = qualify_write_run(e, &r->wp, &r->o, r->id.size, budget, &interrupted, !r->o.json && isatty(STDERR_FILENO),
				  &r->cliff);
	r->learned = r->wp.n > 0;
	json_object_object_add(phases, "write", report_write_phase(&r->wp, &r->cliff));
	if (k < 0)
		fprintf(stderr, "smrctl: qualify: writing failed: %s\n", strerror(-k));
	return k;
}

/* Sequential 1 MiB writes right after the random ones: past a media cache
 * a DM-SMR disk still streams them to the shingles at speed; an SSD past
 * its SLC cache writes them as slowly as the random ones. */
static int seq_phase(Run *r, Engine *e, json_object *phases)
{
	if (r->o.seq_seconds <= 0 || interrupted)
		return 0;
	fprintf(r->out, "writing sequential 1 MiB blocks for %.0f s\n", r->o.seq_seconds);
	/* the write budget covers both phases: a fast SSD would otherwise
	 * write 10 s x 3 GB/s, and wrap around a small disk */
	uint64_t left = r->budget > r->wp.bytes ? r->budget - r->wp.bytes : 0;
	int k = qualify_seq_run(e, &r->sp, &r->o, r->id.size, left, &interrupted, !r->o.json && isatty(STDERR_FILENO));
	if (k == -ENOSPC)
		return 0;
	if (k < 0)
		fprintf(stderr, "smrctl: qualify: sequential writing failed: %s\n", strerror(-k));
	json_object_object_add(phases, "sequential", report_seq_phase(&r->sp));
	return k;
}

static void recovery_phases(Run *r, Engine *e, json_object *phases)
{
	uint64_t written = r->wp.bytes + r->sp.bytes;
	r->rec = (Recovery){.o = &r->o, .size = r->id.size, .out = r->out, .interrupt = &interrupted,
			    .live = !r->o.json && isatty(STDERR_FILENO), .model = &r->model, .cliff = &r->cliff,
			    .time_left = r->o.time_limit - r->wp.duration - r->sp.duration,
			    .bytes_left = r->budget > written ? (double)(r->budget - written) : 0};
	recovery_run(&r->rec, e, phases);
}

static void rest(Run *r)
{
	if (interrupted || r->o.rest <= 0)
		return;
	fprintf(r->out, "resting %.0f s (the drive may clean its cache now)\n", r->o.rest);
	for (double t0 = now_seconds(CLOCK_MONOTONIC); !interrupted && now_seconds(CLOCK_MONOTONIC) - t0 < r->o.rest;)
		usleep(100000);
}

/* Reads: every size in read-only mode; 4 KiB after the writes. */
static void read_phases(Run *r, Engine *e, json_object *phases)
{
	unsigned n = r->o.destructive ? 1 : r->o.n_sizes;
	json_object *reads = json_object_new_object();
	for (unsigned i = 0; i < n && !interrupted; i++) {
		uint64_t bs = r->o.destructive ? 4096 : r->o.sizes[i];
		char nm[32], b[32], key[32];
		snprintf(nm, sizeof nm, "read %s", fmt_bytes(b, sizeof b, (double)bs));
		r->rp[i] = (Phase){.name = strdup(nm), .io_bytes = bs};
		int k = engine_run(e, &r->rp[i], r->id.size, r->o.read_seconds, NULL, NULL, &interrupted,
				   !r->o.json && isatty(STDERR_FILENO));
		if (k < 0) {
			fprintf(stderr, "smrctl: qualify: reading failed: %s\n", strerror(-k));
			break;
		}
		r->learned |= r->rp[i].n > 0;
		snprintf(key, sizeof key, "%" PRIu64, bs);
		json_object_object_add(reads, key, report_read_phase(&r->rp[i]));
		if (r->rp[i].error[0])
			break;
	}
	json_object_object_add(phases, "reads", reads);
}

/* PREFIX.json and PREFIX.svg, both new: the default name gets -2, -3 ...
 * when taken, a name the user gave is never overwritten. */
static int create_pair(const char *given, const char *base, FILE **json, FILE **svg, char *ret, size_t n)
{
	for (unsigned k = 1; k < 100; k++) {
		char path[700];
		if (given)
			snprintf(ret, n, "%s", given);
		else if (k == 1)
			snprintf(ret, n, "%s", base);
		else
			snprintf(ret, n, "%s-%u", base, k);
		snprintf(path, sizeof path, "%s.json", ret);
		int r = report_create(path, json);
		if (r == -EEXIST && !given)
			continue;
		if (r < 0)
			return r;
		snprintf(path, sizeof path, "%s.svg", ret);
		if ((r = report_create(path, svg)) == 0)
			return 0;
		fclose(*json);
		snprintf(path, sizeof path, "%s.json", ret);
		unlink(path);
		if (r != -EEXIST || given)
			return r;
	}
	return -EEXIST;
}

static int write_files(Run *r, const char *stamp)
{
	char base[256], safe[80], prefix[512], title[256];
	report_safe_name(*r->id.serial ? r->id.serial : r->name, safe, sizeof safe);
	snprintf(base, sizeof base, "qualify-%s-%s", safe, stamp);
	FILE *json = NULL, *svg = NULL;
	int k = create_pair(r->o.report_prefix, base, &json, &svg, prefix, sizeof prefix);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: cannot create %s.json and .svg: %s%s\n", r->o.report_prefix ? prefix : base,
			strerror(-k), k == -EEXIST || k == -ELOOP ? " (an existing file or link is never overwritten)" : "");
		return 1;
	}
	int rc = 0;
	const char *text = json_object_to_json_string_ext(r->rep, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (fputs(text, json) < 0 || fputc('\n', json) < 0 || fclose(json) != 0)
		fprintf(stderr, "smrctl: qualify: cannot write %s.json\n", prefix), rc = 1;
	else
		fprintf(r->out, "report: %s.json", prefix);
	snprintf(title, sizeof title, "%s %s: %s", r->name, r->sys.model, r->o.destructive ? "random writes" : r->rp[0].name);
	if (report_svg(svg, r->o.destructive ? &r->wp : &r->rp[0], title, r->o.destructive ? &r->model : NULL) < 0)
		fprintf(stderr, "\nsmrctl: qualify: cannot write %s.svg\n", prefix), rc = 1;
	else
		fprintf(r->out, ", %s.svg\n", prefix);
	return rc;
}

/* What the disk says about itself, printed; 0 or an exit code. */
static int describe(Run *r, int sysfs_fd, int udev_fd)
{
	int k = sysfs_fd < 0 ? -errno : sysfs_read_disk(sysfs_fd, udev_fd, r->name, &r->sys, NULL);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: %s: %s\n", r->name,
			k == -ENOENT ? "no such disk" : k == -ENOTBLK ? "a partition: give the whole disk" : strerror(-k));
		return 1;
	}
	ModelList *ml = NULL;
	_cleanup_free_ char *err = NULL;
	if (modellist_load(SMRD_MODEL_LIST_PATH, &ml, &err) < 0) {
		free(err);
		err = NULL;
		modellist_parse(smrd_builtin_models, &ml, &err);
	}
	/* smartmontools' families first, as smrd's default */
	ModelList *db = NULL;
	_cleanup_free_ char *db_path = NULL, *db_err = NULL;
	if (modellist_load_drivedb_setting("auto", &db, &db_path, NULL, &db_err) == 0 && db) {
		modellist_concat(db, ml);	/* on failure db alone, ml freed */
		ml = db;
	}
	classify_disk(&r->sys.facts, ml, &r->v);
	modellist_free(ml);
	char b[32];
	fprintf(r->out, "%s: %s, %s, serial %s\n", r->name, *r->sys.model ? r->sys.model : "(no model)",
		fmt_bytes(b, sizeof b, (double)r->sys.size_sectors * 512), *r->sys.serial ? r->sys.serial : "(none)");
	fprintf(r->out, "static classification: %s (confidence %.2f): %s\n", disk_class_to_string(r->v.class),
		r->v.confidence, r->v.basis);
	for (unsigned i = 0; i < r->v.n_evidence; i++)
		fprintf(r->out, "  %s %-34s %-22s -> %s\n", r->v.evidence[i].decisive ? "*" : " ", r->v.evidence[i].source,
			r->v.evidence[i].value, r->v.evidence[i].implies);
	return 0;
}

/* The one fd: O_EXCL and read-write when destructive; checked against sysfs. */
static int open_disk(Run *r, const SafetyTarget *t, int *ret_fd)
{
	_cleanup_close_ int fd = open(r->node, (r->o.destructive ? O_RDWR | O_EXCL : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		fprintf(stderr, "smrctl: qualify: cannot open %s%s: %s\n", r->node, r->o.destructive ? " for writing" : "",
			e == EBUSY ? "it is in use (mounted, or claimed by a filesystem, md or device-mapper)" : strerror(e));
		return 1;
	}
	int k = safety_identity(fd, t, &r->id);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: %s is not the block device %u:%u that sysfs describes%s%s\n", r->node,
			t->major, t->minor, k == -ENODEV ? "" : ": ", k == -ENODEV ? "" : strerror(-k));
		return 1;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static void start_report(Run *r)
{
	r->rep = json_object_new_object();
	json_object_object_add(r->rep, "device", json_object_new_string(r->name));
	json_object_object_add(r->rep, "model", json_object_new_string(r->sys.model));
	json_object_object_add(r->rep, "serial", json_object_new_string(r->sys.serial));
	json_object_object_add(r->rep, "size_bytes", json_object_new_int64((int64_t)r->id.size));
	json_object_object_add(r->rep, "started", json_object_new_int64((int64_t)time(NULL)));
	json_object_object_add(r->rep, "mode", json_object_new_string(r->o.destructive ? "destructive" : "read-only"));
	json_object_object_add(r->rep, "iodepth", json_object_new_int((int)r->o.iodepth));
	json_object_object_add(r->rep, "classification", verdict_to_json(&r->v));
}

/* The I/O error that ended a phase, if one did: the run stops there. */
static const char *run_error(const Run *r)
{
	if (r->wp.error[0])
		return r->wp.error;
	if (r->sp.error[0])
		return r->sp.error;
	for (unsigned i = 0; i < r->rec.n_fp; i++)
		if (r->rec.fp[i].error[0])
			return r->rec.fp[i].error;
	for (unsigned i = 0; i < MAX_SIZES; i++)
		if (r->rp[i].error[0])
			return r->rp[i].error;
	return NULL;
}

static void finish_discard(Run *r, int fd)
{
	if (!r->o.destructive || !r->wp.n)
		return;
	const char *what = !r->o.discard ? "not asked for (--discard)" : interrupted ? "skipped: the run was interrupted"
			 : run_error(r) ? "skipped: the run ended on an I/O error"
			 : r->sys.facts.discard_max_bytes == 0 ? "not supported by the disk" : NULL;
	uint64_t ranges = 0, bytes = 0, sr = 0, sb = 0;
	if (!what)
		what = discard_written(fd, &r->wp, &ranges, &bytes);
	/* and the sequential phase's and the refills' blocks, if they ran */
	for (unsigned i = 0; i <= r->rec.n_fp; i++) {
		const Phase *p = i ? &r->rec.fp[i - 1] : &r->sp;
		if (p->n && streq(what, "done")) {
			what = discard_written(fd, p, &sr, &sb);
			ranges += sr;
			bytes += sb;
		}
	}
	char b[32];
	fprintf(r->out, "discard of the blocks this run wrote: %s", what);
	if (ranges)
		fprintf(r->out, " (%" PRIu64 " range(s), %s)", ranges, fmt_bytes(b, sizeof b, (double)bytes));
	fprintf(r->out, "\n");
	json_object *d = json_object_new_object();
	json_object_object_add(d, "result", json_object_new_string(what));
	json_object_object_add(d, "ranges", json_object_new_int64((int64_t)ranges));
	json_object_object_add(d, "bytes", json_object_new_int64((int64_t)bytes));
	json_object_object_add(r->rep, "discard", d);
}

static int measure(Run *r, int fd)
{
	Engine *e = NULL;
	uint64_t maxbuf = r->o.bs > SEQ_BLOCK ? r->o.bs : SEQ_BLOCK;
	for (unsigned i = 0; i < r->o.n_sizes; i++)
		maxbuf = r->o.sizes[i] > maxbuf ? r->o.sizes[i] : maxbuf;
	/* Only now, checks passed: the page cache must not answer our I/O. */
	int fl = fcntl(fd, F_GETFL);
	int k = fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) < 0 ? -errno : engine_new(fd, r->o.iodepth, maxbuf, (uint64_t)time(NULL), &e);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: cannot set up direct I/O on %s: %s\n", r->node, strerror(-k));
		return 1;
	}
	json_object *phases = json_object_new_object();
	json_object_object_add(r->rep, "phases", phases);
	if (r->o.destructive && write_phase(r, e, phases) >= 0 && !run_error(r)) {
		qualify_model_writes(r->wp.rec, r->wp.n, r->wp.duration, &r->cliff, r->o.bs, r->o.iodepth, &r->model);
		if (seq_phase(r, e, phases) >= 0 && !run_error(r))
			recovery_phases(r, e, phases);
		if (!run_error(r))
			rest(r);
	}
	if (!run_error(r))
		read_phases(r, e, phases);
	engine_free(e);
	return 0;
}

/* The disk model, its meaning for a pool, and how to seed smrd with it. */
static void conclude_model(Run *r)
{
	char lines[8][REPORT_LINE], meaning[512], b[FORMAT_MAX];
	json_object_object_add(r->rep, "disk_model", report_model(&r->model));
	unsigned n = report_model_lines(&r->model, lines, 8);
	fprintf(r->out, "disk model:\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(r->out, "  %s\n", lines[i]);
	qualify_model_meaning(&r->model, meaning, sizeof meaning);
	if (*meaning) {
		fprintf(r->out, "what it means: %s\n", meaning);
		json_object_object_add(json_object_object_get(r->rep, "disk_model"), "meaning", json_object_new_string(meaning));
	}
	if (isfinite(r->model.m.media_cache_bytes) && !interrupted) {
		/* an ID that survives reboots, as smrd.conf(5) takes it: the WWN,
		 * else the serial if it is a plain word, else the kernel name */
		char safe[80];
		report_safe_name(r->id.serial, safe, sizeof safe);
		const char *id = *r->id.wwn ? r->id.wwn : *r->id.serial && streq(safe, r->id.serial) ? r->id.serial : r->name;
		fprintf(r->out, "smrd's stall forecast can start from it: disk.%s.media-cache = %s in smrd.conf(5)\n", id,
			format_size(b, r->model.m.media_cache_bytes));
	}
}

static void conclude(Run *r)
{
	/* An I/O error says the disk (or what is under it) failed: what was
	 * measured up to it is kept, but no verdict rests on a run cut short */
	const char *err = run_error(r);
	if (err) {
		json_object_object_add(r->rep, "error", json_object_new_string(err));
		json_object_object_add(r->rep, "verdict", NULL);
		json_object_object_add(r->rep, "interrupted", json_object_new_boolean(interrupted));
		fprintf(r->out, "\nno verdict: the run ended on an I/O error: %s\n", err);
		return;
	}
	QualifyFacts f = {.destructive = r->o.destructive, .interrupted = interrupted, .static_class = r->v.class,
			  .wrote = r->o.destructive, .cliff = r->cliff, .block_size = r->o.bs, .written = r->wp.bytes,
			  .seq_ran = r->sp.n > 0, .seq_rate = r->sp.duration > 0 ? (double)r->sp.bytes / r->sp.duration : 0,
			  .reads = r->rp[0].n ? &r->rp[0].hist : NULL};
	QualifyVerdict v;
	qualify_verdict(&f, &v);
	json_object_object_add(r->rep, "verdict", report_verdict(&v));
	json_object_object_add(r->rep, "interrupted", json_object_new_boolean(interrupted));
	fprintf(r->out, "\n");
	for (unsigned i = 0; i < MAX_SIZES; i++)
		if (r->rp[i].n)
			report_read_line(r->out, &r->rp[i]);
	fprintf(r->out, "verdict: %s\n", v.text);
	for (unsigned i = 0; i < v.n_limits; i++)
		fprintf(r->out, "  limit: %s\n", v.limits[i]);
	if (r->o.destructive)
		conclude_model(r);
}

int qualify_main(int argc, char **argv, bool json)
{
	Run r = {0};
	int k = qualify_parse_opts(argc, argv, json, &r.o, &r.name);
	if (k)
		return k > 0 ? 0 : 2;
	if (!sysfs_valid_name(r.name)) {
		fprintf(stderr, "smrctl: qualify: '%.64s' is not a disk name\n", r.name);
		return 2;
	}
	/* with --json, stdout carries only the JSON and nothing else is said but errors */
	_cleanup_fclose_ FILE *devnull = r.o.json ? fopen("/dev/null", "we") : NULL;
	r.out = devnull ? devnull : stdout;
	snprintf(r.node, sizeof r.node, "/dev/%s", r.name);
	_cleanup_close_ int sysfs_fd = open(r.o.sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int udev_fd = open(r.o.udev_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if ((k = describe(&r, sysfs_fd, udev_fd)) != 0)
		return k;
	SafetyTarget t = {.sysfs_root = r.o.sysfs_root, .udev_root = r.o.udev_root, .mountinfo = r.o.mountinfo,
			  .swaps = r.o.swaps, .proc_root = r.o.proc_root, .name = r.name, .major = r.sys.major,
			  .minor = r.sys.minor};
	_cleanup_close_ int fd = -1;
	if ((k = open_disk(&r, &t, &fd)) != 0)
		return k;
	if (r.o.destructive && make_sure(&r.o, fd, &t, r.node, &r.id) < 0)
		return 1;

	struct sigaction sa = {.sa_handler = on_sigint};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	time_t started = time(NULL);
	char stamp[32];
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&started));
	start_report(&r);
	if ((k = measure(&r, fd)) != 0) {
		run_done(&r);
		return k;
	}
	finish_discard(&r, fd);
	conclude(&r);
	int rc = run_error(&r) ? 1 : r.learned ? 0 : interrupted ? 130 : 1;
	if (r.o.report && r.learned && write_files(&r, stamp))
		rc = 1;
	if (r.o.json)
		printf("%s\n", json_object_to_json_string_ext(r.rep, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	run_done(&r);
	return rc;
}
