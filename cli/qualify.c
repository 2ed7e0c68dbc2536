/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run: what the disk says about itself, then (destructive) one open of
 * the device with O_EXCL, every safety check on that fd, the confirmation,
 * every check again on the same fd (the identity read afresh), and only
 * then O_DIRECT and the writes, through that same fd. Afterwards, only on
 * request and never after an interrupt, a discard of exactly the blocks this
 * run wrote. The phases are in qualify-run.c (the I/O in qualify-engine.c),
 * the verdict in qualify-verdict.c; everything goes into one report record,
 * printed as JSON with --json, else rendered as text (qualify-text.c).
 * Exit codes: 0 done (whatever the verdict), 1 refused or failed, 2 usage,
 * 130 interrupted (no verdict; what was measured is reported).
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
#include "modellist.h"
#include "qualify-engine.h"
#include "qualify-opts.h"
#include "qualify-report.h"
#include "qualify-run.h"
#include "qualify-text.h"
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
			"If an earlier smrctl qualify --destructive ran on this disk without --discard, this is most likely "
			"its own random writes, which it leaves on the disk.\n"
			"To overwrite it anyway, add --force-nonzero; or zero exactly the regions checked:\n");
	for (unsigned i = 0; i < s->n_nonzero; i++)
		fprintf(stderr, "  dd if=/dev/zero of=%s bs=%" PRIu64 " count=1 seek=%" PRIu64 " oflag=seek_bytes,direct conv=notrunc\n",
			node, s->nonzero_len[i], s->nonzero_off[i]);
}

/* The typed confirmation: the serial number, or the name if it has none. */
static bool confirmed(const Opts *o, const char *node, const DiskIdentity *id, const char *name)
{
	const char *token = *id->serial ? id->serial : name;
	char typed[256] = "", b[FORMAT_MAX];
	if (o->confirm)
		snprintf(typed, sizeof typed, "%s", o->confirm);
	else if (isatty(STDIN_FILENO)) {
		fprintf(stderr, "This OVERWRITES %s (%s, %s). Type its %s (%s) to go on: ", node,
			*id->model ? id->model : "no model", format_size(b, (double)id->size),
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

/* Whether fd is still the disk that was checked: said when it is not. */
static bool still_same(int fd, const SafetyTarget *t, const char *node, const DiskIdentity *before, DiskIdentity *ret)
{
	char why[400];
	int r = safety_identity_again(fd, t, ret);
	if (r == 0 && safety_same_disk(before, ret, why, sizeof why))
		return true;
	fprintf(stderr, "smrctl: qualify: refusing to write to %s: it is not the disk that was checked: %s\n", node,
		r < 0 ? strerror(-r) : why);
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
	if (!still_same(fd, t, node, before, &after))
		return -EPERM;
	safety_check(fd, t, &after, o->force_nonzero, &s);
	if (s.n) {
		fprintf(stderr, "smrctl: qualify: %s changed while waiting for the confirmation.\n", node);
		say_refusal(node, &s);
		return -EPERM;
	}
	/* and once more as the last thing before the first write: the checks
	 * above take a while, and a loop device can be moved meanwhile */
	DiskIdentity last;
	return still_same(fd, t, node, before, &last) ? 0 : -EPERM;
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
	QualifyRun q;			/* the measurement, and the report */
	const char *name;
	char node[64];
	SysfsDisk sys;			/* what the disk says about itself: read once */
	DiskIdentity id;
} Run;

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
	const QualifyRun *q = &r->q;
	char base[256], safe[80], prefix[512], title[256];
	report_safe_name(*r->id.serial ? r->id.serial : r->name, safe, sizeof safe);
	snprintf(base, sizeof base, "qualify-%s-%s", safe, stamp);
	FILE *json = NULL, *svg = NULL;
	int k = create_pair(q->o.report_prefix, base, &json, &svg, prefix, sizeof prefix);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: cannot create %s.json and .svg: %s%s\n", q->o.report_prefix ? prefix : base,
			strerror(-k), k == -EEXIST || k == -ELOOP ? " (an existing file or link is never overwritten)" : "");
		return 1;
	}
	int rc = 0;
	const char *text = json_object_to_json_string_ext(q->rep, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (fputs(text, json) < 0 || fputc('\n', json) < 0 || fclose(json) != 0)
		fprintf(stderr, "smrctl: qualify: cannot write %s.json\n", prefix), rc = 1;
	else
		qualify_say(q, "report: %s.json", prefix);
	ReportPlot plot;
	qualify_plot(q, &plot);
	char date[48];
	unsigned Y, M, D, h, m, s;	/* the stamp, 20250131-143000, as a person reads a date */
	if (sscanf(stamp, "%4u%2u%2u-%2u%2u%2u", &Y, &M, &D, &h, &m, &s) == 6)
		snprintf(date, sizeof date, "%04u-%02u-%02u %02u:%02u:%02u", Y, M, D, h, m, s);
	else
		snprintf(date, sizeof date, "%s", stamp);
	snprintf(title, sizeof title, "smrctl qualify%s: %s, %s", q->o.destructive ? " --destructive" : "", r->name,
		 *r->sys.model ? r->sys.model : "model unknown");
	plot.title = title;
	plot.serial = r->id.serial;
	plot.date = date;
	plot.model = q->o.destructive ? json_object_object_get(q->rep, "disk_model") : NULL;
	if (report_svg(svg, &plot) < 0)
		fprintf(stderr, "\nsmrctl: qualify: cannot write %s.svg\n", prefix), rc = 1;
	else
		qualify_say(q, ", %s.svg\n", prefix);
	return rc;
}

/* The model lists smrd would classify with by default: its installed
 * list (else the built-in one) and smartmontools' drivedb.h. */
static ModelList *load_models(void)
{
	ModelSettings s = {.model_list = SMRD_MODEL_LIST_PATH, .installed = SMRD_MODEL_LIST_PATH,
			   .builtin = smrd_builtin_models, .drivedb = "auto"};
	ModelLists m;
	_cleanup_free_ char *err = NULL;
	if (modellist_load_settings(&s, &m, &err) < 0) {
		fprintf(stderr, "smrctl: qualify: %s; classifying with the built-in model list\n", err ? err : "out of memory");
		free(err);
		err = NULL;
		s.model_list = "builtin";
		s.drivedb = "none";
		if (modellist_load_settings(&s, &m, &err) < 0)
			return NULL;
	}
	ModelList *list = TAKE_PTR(m.list);
	modellists_done(&m);
	return list;
}

/* What the disk says about itself, the report begun with it; 0 or an exit code. */
static int describe(Run *r, int sysfs_fd, int udev_fd)
{
	int k = sysfs_fd < 0 ? -errno : sysfs_read_disk(sysfs_fd, udev_fd, r->name, &r->sys, NULL);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: %s: %s\n", r->name,
			k == -ENOENT ? "no such disk" : k == -ENOTBLK ? "a partition: give the whole disk" : strerror(-k));
		return 1;
	}
	Verdict v;
	ModelList *ml = load_models();
	classify_disk(&r->sys.facts, ml, &v);
	modellist_free(ml);
	r->q.static_class = v.class;
	json_object *rep = r->q.rep = json_object_new_object();
	json_object_object_add(rep, "device", json_object_new_string(r->name));
	json_object_object_add(rep, "model", json_object_new_string(r->sys.model));
	json_object_object_add(rep, "serial", json_object_new_string(r->sys.serial));
	json_object_object_add(rep, "wwn", json_object_new_string(r->sys.wwn));
	json_object_object_add(rep, "size_bytes", json_object_new_int64((int64_t)(r->sys.size_sectors * 512)));
	json_object_object_add(rep, "mode", json_object_new_string(r->q.o.destructive ? "destructive" : "read-only"));
	json_object_object_add(rep, "iodepth", json_object_new_int((int)r->q.o.iodepth));
	json_object_object_add(rep, "classification", verdict_to_json(&v));
	if (!r->q.o.json)
		qualify_text_disk(r->q.out, rep);
	return 0;
}

/* The one fd: O_EXCL and read-write when destructive; checked against
 * what sysfs said of the disk. */
static int open_disk(Run *r, const SafetyTarget *t, int *ret_fd)
{
	_cleanup_close_ int fd = open(r->node, (r->q.o.destructive ? O_RDWR | O_EXCL : O_RDONLY) | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		fprintf(stderr, "smrctl: qualify: cannot open %s%s: %s\n", r->node, r->q.o.destructive ? " for writing" : "",
			e == EBUSY ? "it is in use (mounted, or claimed by a filesystem, md or device-mapper)" : strerror(e));
		return 1;
	}
	int k = safety_identity(fd, t, &r->sys, &r->id);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: %s is not the block device %u:%u that sysfs describes%s%s\n", r->node,
			t->major, t->minor, k == -ENODEV ? "" : ": ", k == -ENODEV ? "" : strerror(-k));
		return 1;
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static void finish_discard(Run *r, int fd)
{
	QualifyRun *q = &r->q;
	if (!q->o.destructive || !q->wp.n)
		return;
	const char *what = !q->o.discard ? "not asked for (--discard)" : interrupted ? "skipped: the run was interrupted"
			 : qualify_run_error(q) ? "skipped: the run ended on an I/O error"
			 : r->sys.facts.discard_max_bytes == 0 ? "not supported by the disk" : NULL;
	uint64_t ranges = 0, bytes = 0, sr = 0, sb = 0;
	if (!what)
		what = discard_written(fd, &q->wp, &ranges, &bytes);
	/* and the sequential phase's and the refills' blocks, if they ran */
	for (unsigned i = 0; i <= q->rec.n_fp; i++) {
		const Phase *p = i ? &q->rec.fp[i - 1] : &q->sp;
		if (p->n && streq(what, "done")) {
			what = discard_written(fd, p, &sr, &sb);
			ranges += sr;
			bytes += sb;
		}
	}
	json_object *d = json_object_new_object();
	json_object_object_add(d, "result", json_object_new_string(what));
	json_object_object_add(d, "ranges", json_object_new_int64((int64_t)ranges));
	json_object_object_add(d, "bytes", json_object_new_int64((int64_t)bytes));
	json_object_object_add(q->rep, "discard", d);
}

static int measure(Run *r, int fd)
{
	QualifyRun *q = &r->q;
	Engine *e = NULL;
	uint64_t maxbuf = q->o.bs > (1u << 20) ? q->o.bs : (1u << 20);	/* the sequential phase's blocks */
	for (unsigned i = 0; i < q->o.n_sizes; i++)
		maxbuf = q->o.sizes[i] > maxbuf ? q->o.sizes[i] : maxbuf;
	/* Only now, checks passed: the page cache must not answer our I/O. */
	int fl = fcntl(fd, F_GETFL);
	int k = fl < 0 || fcntl(fd, F_SETFL, fl | O_DIRECT) < 0 ? -errno : engine_new(fd, q->o.iodepth, maxbuf, (uint64_t)time(NULL), &e);
	if (k < 0) {
		fprintf(stderr, "smrctl: qualify: cannot set up direct I/O on %s: %s\n", r->node, strerror(-k));
		return 1;
	}
	qualify_measure(q, e);
	engine_free(e);
	return 0;
}

/* Describe, open, check, confirm, measure, conclude: the exit code. */
static int run(Run *r)
{
	QualifyRun *q = &r->q;
	snprintf(r->node, sizeof r->node, "/dev/%s", r->name);
	_cleanup_close_ int sysfs_fd = open(q->o.sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int udev_fd = open(q->o.udev_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int k = describe(r, sysfs_fd, udev_fd);
	if (k != 0)
		return k;
	SafetyTarget t = {.sysfs_root = q->o.sysfs_root, .udev_root = q->o.udev_root, .mountinfo = q->o.mountinfo,
			  .swaps = q->o.swaps, .proc_root = q->o.proc_root, .name = r->name, .major = r->sys.major,
			  .minor = r->sys.minor};
	_cleanup_close_ int fd = -1;
	if ((k = open_disk(r, &t, &fd)) != 0)
		return k;
	if (q->o.destructive && make_sure(&q->o, fd, &t, r->node, &r->id) < 0)
		return 1;

	struct sigaction sa = {.sa_handler = on_sigint};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	time_t started = time(NULL);
	char stamp[32];
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&started));
	q->size = r->id.size;
	json_object_object_add(q->rep, "size_bytes", json_object_new_int64((int64_t)r->id.size));
	json_object_object_add(q->rep, "started", json_object_new_int64((int64_t)started));
	if ((k = measure(r, fd)) != 0)
		return k;
	finish_discard(r, fd);
	qualify_conclude(q);
	int rc = qualify_run_error(q) ? 1 : interrupted ? 130 : q->learned ? 0 : 1;
	if (!q->o.json)
		qualify_emit(q);
	/* the files' line after the text, and the JSON after the files are written */
	if (q->o.report && q->learned && write_files(r, stamp))
		rc = 1;
	if (q->o.json)
		qualify_emit(q);
	return rc;
}

int qualify_main(int argc, char **argv, bool json)
{
	Run r = {.q = {.interrupt = &interrupted, .out = stdout}};
	int k = qualify_parse_opts(argc, argv, json, &r.q.o, &r.name);
	if (k)
		return k > 0 ? 0 : 2;
	if (!sysfs_valid_name(r.name)) {
		fprintf(stderr, "smrctl: qualify: '%.64s' is not a disk name\n", r.name);
		return 2;
	}
	k = run(&r);
	qualify_run_done(&r.q);
	return k;
}
