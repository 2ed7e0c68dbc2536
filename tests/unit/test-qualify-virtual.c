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
#include "qualify-run.h"
#include "qualify-text.h"
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
 * idle second or more, what the drive cleaned meanwhile, and the fast
 * space it had at its end (emu_room). */
typedef struct Disk {
	EmuModel m;
	uint64_t idle_seq;
	double idle_s[MAX_IDLES];
	double idle_cleaned[MAX_IDLES];
	double idle_room[MAX_IDLES];
	unsigned n_idle;
} Disk;

static int disk_submit(void *userdata, double now, bool write, uint64_t off, uint64_t len, double *ret_done)
{
	Disk *d = userdata;
	uint64_t done = emu_submit(&d->m, (uint64_t)llround(now * 1e6), write ? EMU_WRITE : EMU_READ, off, len);
	if (d->m.idle_seq != d->idle_seq && d->n_idle < MAX_IDLES) {
		d->idle_s[d->n_idle] = (double)d->m.idle_us / 1e6;
		d->idle_cleaned[d->n_idle] = (double)d->m.idle_cleaned;
		d->idle_room[d->n_idle++] = (double)d->m.idle_room;
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

/* One qualification: qualify's own phases and conclusion (qualify-run.c)
 * on the model disk. */
typedef struct Qual {
	QualifyRun q;
	Disk disk;
	Engine *e;
	bool smr_like;
	const char *verdict;		/* the report's */
} Qual;

static void qual_done(Qual *q)
{
	qualify_run_done(&q->q);
	engine_free(q->e);
	emu_done(&q->disk.m);
}

static int qual_run(Qual *q)
{
	QualifyRun *r = &q->q;
	int k = engine_new_model(disk_submit, &q->disk, r->o.iodepth, 1, START_S, &q->e);
	if (k < 0)
		return k;
	r->size = q->disk.m.p.size;
	r->static_class = DISK_CLASS_UNKNOWN;
	r->interrupt = &never;
	r->rep = json_object_new_object();
	qualify_measure(r, q->e);
	qualify_conclude(r);
	const char *err = qualify_run_error(r);
	if (err) {
		printf("  %s\n", err);
		return -EIO;
	}
	json_object *v = json_object_object_get(r->rep, "verdict");
	q->smr_like = json_object_get_boolean(json_object_object_get(v, "smr_like"));
	q->verdict = json_object_get_string(json_object_object_get(v, "text"));
	return 0;
}

/* The emulator's options and qualify's, as the e2e test gives them. */
static int qual_setup(Qual *q, const char *model, char *emu_opts, const char *qualify_opts, FILE *out)
{
	char *eargv[MAX_ARGS] = {"smr-emu", "--model", (char *)model}, qbuf[512];
	int eargc = split(emu_opts, eargv, 3, MAX_ARGS), qargc;
	char *qargv[MAX_ARGS] = {"qualify"};
	const char *dev;
	snprintf(qbuf, sizeof qbuf, "%s", qualify_opts);
	if (eargc < 0 || (qargc = split(qbuf, qargv, 1, MAX_ARGS)) < 0)
		return -E2BIG;
	EmuParams p;
	if (emu_parse_model(eargc, eargv, &p) < 0 || qualify_parse_opts(qargc, qargv, false, &q->q.o, &dev) != 0)
		return -EINVAL;
	p.size = DISK_BYTES;	/* the glue takes it from the backing file */
	q->q.out = out;
	if (emu_init(&q->disk.m, &p) < 0)
		return -EINVAL;
	return qual_run(q);
}

static void report_done(const Qual *q)
{
	json_object *model = json_object_object_get(q->q.rep, "disk_model");
	char lines[QUALIFY_MODEL_LINES][QUALIFY_LINE];
	unsigned n = qualify_text_model_lines(model, lines, QUALIFY_MODEL_LINES);
	for (unsigned i = 0; i < n; i++)
		printf("  %s\n", lines[i]);
	printf("  verdict: %s\n  meaning: %s\n", q->verdict,
	       json_object_get_string(json_object_object_get(model, "meaning")));
}

/* The worst error of each figure over the draws, for the summary. */
typedef struct Errors {
	const char *name;
	double worst;
	unsigned n;
} Errors;

static Errors errors[] = {{.name = "media cache"}, {.name = "sustained rate"}, {.name = "rewrite time"},
			  {.name = "idle curve, points"}, {.name = "idle curve, fit"}, {.name = "idle recovery (longest rest)"}};

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

/* The model's idle period for each rest qualify took, in order: -1 for
 * one that does not match. */
static void rests_to_idles(const Qual *q, int *ret)
{
	const Disk *d = &q->disk;
	unsigned j = 0;
	for (unsigned i = 0; i < q->q.rec.n_fp; i++) {
		double rest = q->q.rec.refill[i].rest;
		ret[i] = -1;
		if (!(rest > 0))
			continue;
		while (j < d->n_idle && fabs(d->idle_s[j] - rest) > 0.5)
			j++;	/* an idle of qualify's own between phases */
		if (j < d->n_idle)
			ret[i] = (int)j++;
	}
}

/* The curve's point a refill gave, if it is one. */
static const IdlePoint *point_of(const QualifyModel *qm, const Refill *f)
{
	for (unsigned i = 0; i < qm->n_curve; i++)
		if (qm->curve[i].rest == f->rest && qm->curve[i].bytes == f->bytes)
			return &qm->curve[i];
	return NULL;
}

/* Idle recovery against the model: each point of the curve (and the fit
 * at its rest) against the fast space the model had when the writes
 * resumed after that rest, and the figure, the average over the longest
 * rest, against that rest's. A lower bound only below the truth. */
static void check_recovery(const Qual *q)
{
	const Disk *d = &q->disk;
	const QualifyModel *qm = &q->q.model;
	int idle[MAX_REFILLS];
	CHECK(qm->n_curve >= 2 && isfinite(qm->m.idle_recovery_bps) && idle_fit_known(&qm->m.curve));
	if (!(qm->n_curve >= 1) || !isfinite(qm->m.idle_recovery_bps)) {
		printf("  FAIL: idle recovery not measured (%u point(s), %u idle periods)\n", qm->n_curve, d->n_idle);
		return;
	}
	rests_to_idles(q, idle);
	for (unsigned i = 0; i < q->q.rec.n_fp; i++) {
		const IdlePoint *x = point_of(qm, &q->q.rec.refill[i]);
		if (!x)
			continue;
		CHECK(idle[i] >= 0);
		if (idle[i] < 0)
			continue;
		unsigned k = (unsigned)idle[i];
		double truth = d->idle_room[k], fit = idle_fit_bytes(&qm->m.curve, x->rest);
		printf("  rest %.1f s (the model idle %.2f s: cleaned %.0f, then %.0f fast): took %s%.0f, the fit %.0f\n",
		       x->rest, d->idle_s[k], d->idle_cleaned[k], truth, x->at_least ? "at least " : "", x->bytes, fit);
		if (x->at_least) {
			CHECK(x->bytes >= truth * (1 - RECOVERY_TOL));
			continue;
		}
		near(3, x->bytes, truth, RECOVERY_TOL);
		near(4, fit, truth, RECOVERY_TOL);
		if (x->rest == qm->m.recovery_rest && !qm->recovery_lower_bound)
			near(5, qm->m.idle_recovery_bps, truth / d->idle_s[k], RECOVERY_TOL);
	}
	char text[256];
	printf("  curve: %s (shape %.2f, worst misfit %.0f%%)\n", idle_fit_describe(&qm->m.curve, text, sizeof text),
	       qm->m.curve.shape, qm->m.curve.worst * 100);
}

static void check_figures(const Qual *q)
{
	const EmuModel *m = &q->disk.m;
	const DiskModel *dm = &q->q.model.m;
	json_object *model = json_object_object_get(q->q.rep, "disk_model");
	CHECK(q->smr_like);
	near(0, dm->media_cache_bytes, (double)m->cliff_written, CACHE_TOL);
	CHECK(m->slow_over && m->slow_end > m->cliff_at);	/* the slow phase is on record */
	if (m->slow_over && m->slow_end > m->cliff_at)
		near(1, dm->slow_write_bps, (double)m->slow_wait_bytes / ((double)(m->slow_end - m->cliff_at) / 1e6),
		     SUSTAINED_TOL);
	near(2, dm->rewrite_seconds, m->waits ? (double)m->wait_us / (double)m->waits / 1e6 : 0, REWRITE_TOL);
	check_recovery(q);
	/* a rebuild's rate: the sequential writes right after the random ones, not the random rate */
	const Phase *sp = &q->q.sp;
	CHECK(sp->duration > 0 && q->q.model.seq_bps == (double)sp->bytes / sp->duration);
	CHECK(q->q.model.seq_bps > 3 * dm->slow_write_bps);
	CHECK(strstr(json_object_get_string(json_object_object_get(model, "meaning")),
		     "a rebuild writing 1 TB in order in large writes would take") != NULL);
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
	int k = qual_setup(&q, "dm-smr", opts, qopts, stdout);
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
				   "--recovery-rest 8 --rest 0 --read-seconds 1 --write-budget 256M --no-report", stdout);
		CHECK_INT(k, 0);
		const DiskModel *m = &q.q.model.m;
		bool none = !isfinite(m->media_cache_bytes) && !isfinite(m->slow_write_bps) &&
			    !isfinite(m->rewrite_seconds) && !isfinite(m->idle_recovery_bps);
		printf("look-alike %s %s: %s; %s\n", disks[i][0], disks[i][1], q.verdict,
		       none ? "no media cache, no model figures" : "FAIL: model figures");
		CHECK(k == 0 && none);
		qual_done(&q);
	}
}

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
	(void)buf;
	*(size_t *)cookie += n;
	return (ssize_t)n;
}

/* --json builds no text: the whole run on a DM-SMR model with a stream
 * that counts what reaches it, nothing; the text mode's stream gets the
 * progress lines, and the record renders as the text a user reads. */
static void test_json_builds_no_text(void)
{
	static const char draw[] = "--seed 988343649 --cache-mib 18.88 --band-mib 4 --clean-mibs 13.4 --idle-ms 700 "
				   "--slow serial --high-water 0.9 --low-water 0.8";
	static const char qopts[] = "emu --destructive --yes-destroy emu --iodepth 1 --time-limit 300 --hold 8 "
				    "--seq-seconds 2 --recovery-rest 50 --rest 0 --read-seconds 1 --no-report";
	for (int json = 1; json >= 0; json--) {
		size_t written = 0;
		FILE *counting = fopencookie(&written, "w", (cookie_io_functions_t){.write = count_write});
		char opts[sizeof draw], q_opts[sizeof qopts + 8];
		snprintf(opts, sizeof opts, "%s", draw);
		snprintf(q_opts, sizeof q_opts, "%s%s", qopts, json ? " --json" : "");
		Qual q = {0};
		CHECK(counting != NULL);
		int k = counting ? qual_setup(&q, "dm-smr", opts, q_opts, counting) : -ENOMEM;
		CHECK_INT(k, 0);
		CHECK_INT(q.q.o.json, json);
		fflush(counting);
		printf("--json %s: %zu bytes of text while it ran; verdict: %s\n", json ? "on" : "off", written, q.verdict);
		if (json)
			CHECK_INT(written, 0);
		else
			CHECK(written > 0);	/* the progress lines: the counter sees what is written */
		CHECK(q.smr_like);
		/* what it prints at the end: the JSON document alone, or the
		 * text rendered from it */
		char *text = NULL;
		size_t len = 0;
		FILE *mem = open_memstream(&text, &len);
		q.q.out = mem;
		qualify_emit(&q.q);
		fclose(mem);
		json_object *back = text ? json_tokener_parse(text) : NULL;
		const char *doc = json_object_to_json_string_ext(q.q.rep, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
		if (json)	/* the record, and nothing before or after it */
			CHECK(back && text && strncmp(text, doc, strlen(doc)) == 0 && streq(text + strlen(doc), "\n"));
		else
			CHECK(!back && text && strstr(text, "\nverdict: behaves like DM-SMR") &&
			      strstr(text, "\ndisk model:\n  media cache ") && strstr(text, "\nread 4K "));
		json_object_put(back);
		if (!json)
			fputs(text, stdout);
		free(text);
		fclose(counting);
		qual_done(&q);
	}
}

/* A drive with hysteresis (serial slow phase, forced cleaning down to a
 * low-water mark): after the writes, rests of 1, 2, 4... s until a refill
 * takes something; the curve's first timed rest then starts from the threshold,
 * fuller than that warm-up began, so it is half as long again as the last
 * warm-up rest: at most one refill is wasted (it takes nothing, the drive
 * still cleaning) between the warm-up and the curve's first point. */
static void test_warm_rest_margin(void)
{
	static const char *const draws[] = {
		"--seed 7 --cache-mib 16 --band-mib 4 --clean-mibs 8 --idle-ms 700 --slow serial --high-water 0.95 --low-water 0.5",
		"--seed 8 --cache-mib 24 --band-mib 8 --clean-mibs 6 --idle-ms 1500 --slow serial --high-water 0.9 --low-water 0.4",
	};
	for (size_t i = 0; i < sizeof draws / sizeof *draws; i++) {
		char opts[256];
		snprintf(opts, sizeof opts, "%s", draws[i]);
		Qual q = {0};
		int k = qual_setup(&q, "dm-smr", opts, "emu --destructive --yes-destroy emu --iodepth 1 --time-limit 300 --hold 8 "
				   "--seq-seconds 2 --recovery-rest 50 --rest 0 --read-seconds 1 --no-report", stdout);
		CHECK_INT(k, 0);
		json_object *refills = NULL;
		json_object_object_get_ex(json_object_object_get(q.q.rep, "phases"), "refills", &refills);
		double warm = -1, shorter = -1;
		int warm_at = -1, shorter_at = -1;
		for (size_t j = 0; refills && j < json_object_array_length(refills); j++) {
			json_object *x = json_object_array_get_idx(refills, j);
			double rest = json_object_get_double(json_object_object_get(x, "rest_seconds"));
			long long took = json_object_get_int64(json_object_object_get(x, "bytes_before_wait"));
			if (warm_at < 0 && rest > 0 && took > 2 * 4096)
				warm = rest, warm_at = (int)j;
			if (shorter_at < 0 && streq(json_object_get_string(json_object_object_get(x, "used")), "curve"))
				shorter = rest, shorter_at = (int)j;
		}
		printf("hysteresis %s: warm-up ended at a %.0f s rest (refill %d), the first rest of the curve %.0f s (refill %d)\n",
		       draws[i], warm, warm_at, shorter, shorter_at);
		CHECK(warm >= 1);		/* the case is one: the drive made writes wait after the writes */
		CHECK(shorter >= 1.5 * warm);
		/* a greedy drive may still be cleaning after the margin once; a
		 * rest as long as the warm-up's (no margin) wastes one more */
		CHECK(shorter_at > warm_at && shorter_at <= warm_at + 2);
		check_recovery(&q);
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
	test_json_builds_no_text();
	test_warm_rest_margin();
	/* the run says up front how long it takes in all: every phase and rest */
	Opts o = {.destructive = true, .time_limit = 600, .seq_seconds = 10, .rest = 30, .read_seconds = 10, .n_sizes = 3};
	CHECK_NEAR(qualify_run_seconds(&o), 650, 1e-9);
	o.destructive = false;
	CHECK_NEAR(qualify_run_seconds(&o), 30, 1e-9);
	for (size_t i = 0; i < sizeof errors / sizeof *errors; i++)
		printf("%s: %u draw(s), worst error %.1f%%\n", errors[i].name, errors[i].n, errors[i].worst * 100);
	return test_done("qualify-virtual");
}
