/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * qualify's disk model in model time: its writes to the cliff, the
 * sequential writes, the idle-recovery rests and refills (qualify-recovery.c)
 * and a second of reads run through a model Engine on the emulator's pure
 * model (tests/emu/smr-emu.c, model half), on a virtual clock, so a 50 s
 * rest costs nothing. Each figure is judged against the model's own
 * counters as 86-qualify-model judges it against `smr-emu --stats`, with
 * its tolerances; the draws are tests/emu/qmodel.py's, of the checked-in
 * seeds (tests/seeds/qmodel.txt). argv[1..]: files of draws, one a line,
 * `qmodel.py table`'s 'SEED I|SMR-EMU OPTIONS|QD|BACK'.
 */
#define SMR_EMU_MODEL_ONLY
#include "../emu/smr-emu.c"

#include <json-c/json.h>
#include <signal.h>

#include "qualify-engine.h"
#include "qualify-model.h"
#include "qualify-opts.h"
#include "qualify-recovery.h"
#include "qualify-report.h"
#include "qualify-verdict.h"
#include "test.h"

/* 86-qualify-model's tolerances, each figure against the model's counter. */
#define CACHE_TOL 0.15
#define SUSTAINED_TOL 0.25
#define REWRITE_TOL 0.25
#define RECOVERY_TOL 0.30
#define DISK_BYTES (512ULL << 20)	/* 86's EMU_SIZE */
#define START_S 1000.0			/* the virtual clock's start: anywhere */
#define MAX_IDLES 64
#define MAX_ARGS 48

static const volatile sig_atomic_t never;

/* The emulated disk, and what `smr-emu --stats` would log of it: every
 * idle second or more, and what the drive cleaned meanwhile. */
typedef struct Disk {
	EmuModel m;
	uint64_t idle_seq;
	double idle_s[MAX_IDLES];
	double idle_cleaned[MAX_IDLES];
	unsigned n_idle;
} Disk;

static int disk_submit(void *userdata, double now, bool write, uint64_t off, uint64_t len, double *ret_done)
{
	Disk *d = userdata;
	uint64_t done = emu_submit(&d->m, (uint64_t)llround(now * 1e6), write ? EMU_WRITE : EMU_READ, off, len);
	if (d->m.idle_seq != d->idle_seq && d->n_idle < MAX_IDLES) {
		d->idle_s[d->n_idle] = (double)d->m.idle_us / 1e6;
		d->idle_cleaned[d->n_idle++] = (double)d->m.idle_cleaned;
	}
	d->idle_seq = d->m.idle_seq;
	*ret_done = (double)done / 1e6;
	return 0;
}

/* Splits a line of options into argv after `first` (kept by the caller). */
static int split(char *line, char **argv, int argc, int max)
{
	for (char *save = NULL, *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (argc == max)
			return -E2BIG;
		argv[argc++] = w;
	}
	return argc;
}

/* One qualification, as qualify.c's measure() runs it with --rest 0. */
typedef struct Qual {
	Opts o;
	Disk disk;
	Engine *e;
	Phase wp, sp, rp;
	CliffResult cliff;
	QualifyModel model;
	Recovery rec;
	json_object *phases;
	QualifyVerdict verdict;
} Qual;

static void qual_done(Qual *q)
{
	phase_free(&q->wp);
	phase_free(&q->sp);
	phase_free(&q->rp);
	recovery_done(&q->rec);
	json_object_put(q->phases);
	engine_free(q->e);
	emu_done(&q->disk.m);
}

static bool phase_ok(const Phase *p, const char *what)
{
	if (p->error[0])
		printf("  %s: %s\n", what, p->error);
	return !p->error[0];
}

static void qual_verdict(Qual *q)
{
	QualifyFacts f = {.destructive = true, .static_class = DISK_CLASS_UNKNOWN, .wrote = true, .cliff = q->cliff,
			  .block_size = q->o.bs, .written = q->wp.bytes, .seq_ran = q->sp.n > 0,
			  .seq_rate = q->sp.duration > 0 ? (double)q->sp.bytes / q->sp.duration : 0,
			  .reads = q->rp.n ? &q->rp.hist : NULL};
	qualify_verdict(&f, &q->verdict);
}

/* The phases on the model disk: the writes, the model of them, the
 * sequential writes, idle recovery, a read phase, the verdict. */
static int qual_run(Qual *q)
{
	uint64_t size = q->disk.m.p.size, budget = qualify_write_budget(&q->o, size);
	int k = engine_new_model(disk_submit, &q->disk, q->o.iodepth, 1, START_S, &q->e);
	if (k < 0)
		return k;
	q->phases = json_object_new_object();
	if ((k = qualify_write_run(q->e, &q->wp, &q->o, size, budget, &never, false, &q->cliff)) < 0 ||
	    !phase_ok(&q->wp, "write"))
		return k < 0 ? k : -EIO;
	qualify_model_writes(q->wp.rec, q->wp.n, q->wp.duration, &q->cliff, q->o.bs, q->o.iodepth, &q->model);
	if ((k = qualify_seq_run(q->e, &q->sp, &q->o, size, budget - q->wp.bytes, &never, false)) < 0 && k != -ENOSPC)
		return k;
	if (!phase_ok(&q->sp, "sequential"))
		return -EIO;
	uint64_t written = q->wp.bytes + q->sp.bytes;
	q->rec = (Recovery){.o = &q->o, .size = size, .out = stdout, .interrupt = &never, .model = &q->model,
			    .cliff = &q->cliff, .time_left = q->o.time_limit - q->wp.duration - q->sp.duration,
			    .bytes_left = budget > written ? (double)(budget - written) : 0};
	recovery_run(&q->rec, q->e, q->phases);
	for (unsigned i = 0; i < q->rec.n_fp; i++)
		if (!phase_ok(&q->rec.fp[i], "refill"))
			return -EIO;
	q->rp = (Phase){.name = "read 4 KiB", .io_bytes = 4096};
	if ((k = engine_run(q->e, &q->rp, size, q->o.read_seconds, NULL, NULL, &never, false)) < 0)
		return k;
	qual_verdict(q);
	return 0;
}

/* The emulator's options and qualify's, as the e2e test gives them. */
static int qual_setup(Qual *q, const char *model, char *emu_opts, const char *qualify_opts)
{
	char *eargv[MAX_ARGS] = {"smr-emu", "--model", (char *)model}, qbuf[512];
	int eargc = split(emu_opts, eargv, 3, MAX_ARGS), qargc;
	char *qargv[MAX_ARGS] = {"qualify"};
	const char *dev;
	snprintf(qbuf, sizeof qbuf, "%s", qualify_opts);
	if (eargc < 0 || (qargc = split(qbuf, qargv, 1, MAX_ARGS)) < 0)
		return -E2BIG;
	EmuParams p;
	if (emu_parse_model(eargc, eargv, &p) < 0 || qualify_parse_opts(qargc, qargv, false, &q->o, &dev) != 0)
		return -EINVAL;
	p.size = DISK_BYTES;	/* the glue takes it from the backing file */
	if (emu_init(&q->disk.m, &p) < 0)
		return -EINVAL;
	return qual_run(q);
}

static void report_done(const Qual *q)
{
	char lines[8][REPORT_LINE], meaning[512];
	unsigned n = report_model_lines(&q->model, lines, 8);
	for (unsigned i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	for (unsigned i = 0; i < q->model.n_skipped; i++)
		printf("  skipped: %s\n", q->model.skipped[i]);
	json_object_put(report_model(&q->model));	/* the report's own path, under the sanitizers */
	printf("  verdict: %s\n  meaning: %s\n", q->verdict.text, qualify_model_meaning(&q->model, meaning, sizeof meaning));
}

/* The worst error of each figure over the draws, for the summary. */
typedef struct Errors {
	const char *name;
	double worst;
	unsigned n;
} Errors;

static Errors errors[] = {{.name = "media cache"}, {.name = "sustained rate"}, {.name = "rewrite time"}, {.name = "idle recovery"}};

static void near(unsigned which, double got, double want, double tol)
{
	Errors *e = &errors[which];
	test_checks++;
	if (!isfinite(got) || !(want > 0)) {
		test_failures++;
		printf("  FAIL: %s: measured %g, the model's %g\n", e->name, got, want);
		return;
	}
	double err = got / want - 1;
	bool ok = fabs(err) <= tol;
	test_failures += !ok;
	e->worst = fmax(e->worst, fabs(err));
	e->n++;
	printf("  %s: %s: %.6g against the model's %.6g (%+.1f%%, within %.0f%%)\n", ok ? "ok" : "FAIL", e->name, got,
	       want, err * 100, tol * 100);
}

/* The disk's idle period closest in length to a rest. */
static unsigned closest_idle(const Disk *d, double rest)
{
	unsigned best = 0;
	for (unsigned i = 1; i < d->n_idle; i++)
		if (fabs(d->idle_s[i] - rest) < fabs(d->idle_s[best] - rest))
			best = i;
	return best;
}

/* The rests of the refills idle recovery used: shorter, longer. */
static bool used_rests(const Qual *q, double *ret_shorter, double *ret_longer)
{
	json_object *refills, *x, *used, *rest;
	unsigned found = 0;
	if (!json_object_object_get_ex(q->phases, "refills", &refills))
		return false;
	for (size_t i = 0; i < json_object_array_length(refills); i++) {
		x = json_object_array_get_idx(refills, i);
		if (!json_object_object_get_ex(x, "used", &used) || !json_object_object_get_ex(x, "rest_seconds", &rest))
			continue;
		if (streq(json_object_get_string(used), "shorter"))
			*ret_shorter = json_object_get_double(rest), found |= 1;
		else if (streq(json_object_get_string(used), "longer"))
			*ret_longer = json_object_get_double(rest), found |= 2;
	}
	return found == 3;
}

/* Idle recovery against what the model cleaned over the longer rest less
 * the shorter; a lower bound only below the truth. */
static void check_recovery(const Qual *q)
{
	const Disk *d = &q->disk;
	double rs = NAN, rl = NAN, got = q->model.m.idle_recovery_bps;
	bool have = used_rests(q, &rs, &rl) && d->n_idle >= 2;
	CHECK(have && isfinite(got));
	if (!have || !isfinite(got)) {
		printf("  FAIL: idle recovery not measured (%u idle periods)\n", d->n_idle);
		return;
	}
	unsigned a = closest_idle(d, rs), b = closest_idle(d, rl);
	double d1 = d->idle_s[a], c1 = d->idle_cleaned[a], d2 = d->idle_s[b], c2 = d->idle_cleaned[b];
	printf("  rests %.1f s and %.1f s; the model was idle %.2f s (cleaned %.0f bytes) and %.2f s (cleaned %.0f)\n", rs,
	       rl, d1, c1, d2, c2);
	if (!q->model.recovery_lower_bound) {
		near(3, got, (c2 - c1) / (d2 - d1), RECOVERY_TOL);
		return;
	}
	/* a rest that cleaned it all ran out of dirty data: the truth is at
	 * least both the slope and the shorter rest's own rate */
	double truth = fmax((c2 - c1) / (d2 - d1), c1 / d1);
	printf("  idle recovery: a lower bound, %.0f against the truth %.0f\n", got, truth);
	CHECK(got <= truth * (1 + RECOVERY_TOL));
}

static void check_figures(const Qual *q)
{
	const EmuModel *m = &q->disk.m;
	const DiskModel *dm = &q->model.m;
	char meaning[512];
	CHECK(q->verdict.smr_like);
	near(0, dm->media_cache_bytes, (double)m->cliff_written, CACHE_TOL);
	CHECK(m->slow_over && m->slow_end > m->cliff_at);	/* the slow phase is on record */
	if (m->slow_over && m->slow_end > m->cliff_at)
		near(1, dm->slow_write_bps, (double)m->slow_wait_bytes / ((double)(m->slow_end - m->cliff_at) / 1e6),
		     SUSTAINED_TOL);
	near(2, dm->rewrite_seconds, m->waits ? (double)m->wait_us / (double)m->waits / 1e6 : 0, REWRITE_TOL);
	check_recovery(q);
	CHECK(strstr(qualify_model_meaning(&q->model, meaning, sizeof meaning), "a resilver") != NULL);
}

#define DRAW_QUALIFY "emu --destructive --yes-destroy emu --iodepth %s --time-limit 300 --hold 8 --seq-seconds 2 " \
	"--recovery-rest 50 --rest 0 --read-seconds 1 --no-report"

/* One draw: 'SEED I|SMR-EMU OPTIONS|QD|BACK'. */
static void run_draw(char *line)
{
	char *seed = strtok(line, "|"), *opts = strtok(NULL, "|"), *qd = strtok(NULL, "|"), *back = strtok(NULL, "|\n");
	char qopts[512];
	if (!seed || !opts || !qd || !back) {
		CHECK(!"a draw is 'SEED I|OPTIONS|QD|BACK'");
		return;
	}
	printf("draw %s: dm-smr %s, queue depth %s, fast again after %s s of idle\n", seed, opts, qd, back);
	snprintf(qopts, sizeof qopts, DRAW_QUALIFY, qd);
	Qual q = {0};
	int k = qual_setup(&q, "dm-smr", opts, qopts);
	CHECK_INT(k, 0);
	if (k == 0) {
		report_done(&q);
		check_figures(&q);
		printf("  %.0f s of model time (a live run takes as long)\n", engine_now(q.e) - START_S);
	}
	qual_done(&q);
}

/* 86's look-alikes: a CMR disk, a fast fixed-latency disk, an SSD with an
 * SLC cache. None has a media cache, so no figure of the model. */
static void test_lookalikes(void)
{
	static const char *const disks[][2] = {
		{"cmr", "--seed 61"},
		{"ssd", "--ssd-us 40"},
		{"slc-ssd", "--seed 62 --slc-mib 48 --slc-mibs 200 --slow-mibs 8"},
	};
	for (size_t i = 0; i < sizeof disks / sizeof *disks; i++) {
		char opts[256];
		snprintf(opts, sizeof opts, "%s", disks[i][1]);
		Qual q = {0};
		int k = qual_setup(&q, disks[i][0], opts,
				   "emu --destructive --yes-destroy emu --time-limit 20 --hold 4 --seq-seconds 2 "
				   "--recovery-rest 8 --rest 0 --read-seconds 1 --write-budget 256M --no-report");
		CHECK_INT(k, 0);
		const DiskModel *m = &q.model.m;
		bool none = !isfinite(m->media_cache_bytes) && !isfinite(m->slow_write_bps) &&
			    !isfinite(m->rewrite_seconds) && !isfinite(m->idle_recovery_bps);
		printf("look-alike %s %s: %s; %s\n", disks[i][0], disks[i][1], q.verdict.text,
		       none ? "no media cache, no model figures" : "FAIL: model figures");
		CHECK(k == 0 && none);
		qual_done(&q);
	}
}

int main(int argc, char **argv)
{
	unsigned draws = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "re");
		CHECK(f != NULL);
		char line[1024];
		while (f && fgets(line, sizeof line, f))
			if (line[0] != '#' && line[0] != '\n')
				run_draw(line), draws++;
		if (f)
			fclose(f);
	}
	CHECK(draws > 0);
	test_lookalikes();
	for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
		printf("%s: %u draw(s), worst error %.1f%%\n", errors[i].name, errors[i].n, errors[i].worst * 100);
	return test_done("qualify-virtual");
}
