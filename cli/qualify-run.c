/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The phases in the order qualify.c's comment gives, each adding its part
 * of the report; the text says only where the run is (a progress line),
 * everything it learnt is rendered from the report afterwards.
 */
#include "qualify-run.h"

#include <math.h>
#include <stdarg.h>
#include <unistd.h>

#include "format.h"
#include "protocol.h"
#include "qualify-report.h"
#include "qualify-text.h"
#include "qualify-verdict.h"

#define SEQ_BLOCK (1u << 20)

void qualify_say(const QualifyRun *r, const char *fmt, ...)
{
	if (r->o.json)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(r->out, fmt, ap);
	va_end(ap);
}

static bool live(const QualifyRun *r)
{
	return !r->o.json && isatty(STDERR_FILENO);
}

void qualify_run_done(QualifyRun *r)
{
	json_object_put(r->rep);
	r->rep = NULL;
	phase_free(&r->wp);
	phase_free(&r->sp);
	recovery_done(&r->rec);
	for (unsigned i = 0; i < MAX_SIZES; i++) {
		phase_free(&r->rp[i]);
		free((char *)r->rp[i].name);
		r->rp[i].name = NULL;
	}
}

const char *qualify_run_error(const QualifyRun *r)
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

static int write_phase(QualifyRun *r, Engine *e, json_object *phases)
{
	char b1[FORMAT_MAX], b2[FORMAT_MAX];
	qualify_say(r, "writing random %s blocks at queue depth %u until the write cliff, %s or %.0f s\n",
		    format_size(b1, (double)r->o.bs), r->o.iodepth, format_size(b2, (double)r->budget), r->o.time_limit);
	int k = qualify_write_run(e, &r->wp, &r->o, r->size, r->budget, r->interrupt, live(r), &r->cliff);
	r->learned = r->wp.n > 0;
	json_object_object_add(phases, "write", report_write_phase(&r->wp, &r->cliff));
	if (k < 0)
		fprintf(stderr, "smrctl: qualify: writing failed: %s\n", strerror(-k));
	return k;
}

/* Sequential 1 MiB writes right after the random ones: past a media cache
 * a DM-SMR disk still streams them to the shingles at speed; an SSD past
 * its SLC cache writes them as slowly as the random ones. */
static int seq_phase(QualifyRun *r, Engine *e, json_object *phases)
{
	char b[FORMAT_MAX];
	if (r->o.seq_seconds <= 0 || *r->interrupt)
		return 0;
	qualify_say(r, "writing sequential %s blocks for %.0f s\n", format_size(b, SEQ_BLOCK), r->o.seq_seconds);
	/* the write budget covers both phases: a fast SSD would otherwise
	 * write 10 s x 3 GB/s, and wrap around a small disk; and what a media
	 * cache's idle-recovery refills need (each up to one and a half of
	 * it, three at least) is kept for them */
	uint64_t left = r->budget > r->wp.bytes ? r->budget - r->wp.bytes : 0;
	double keep = isfinite(r->model.m.media_cache_bytes) ? RECOVERY_KEEP * r->model.m.media_cache_bytes : 0;
	left = (double)left > 2 * keep ? left - (uint64_t)keep : left / 2;
	int k = qualify_seq_run(e, &r->sp, &r->o, r->size, left, r->interrupt, live(r));
	if (k == -ENOSPC)
		return 0;
	if (k < 0)
		fprintf(stderr, "smrctl: qualify: sequential writing failed: %s\n", strerror(-k));
	json_object_object_add(phases, "sequential", report_seq_phase(&r->sp));
	return k;
}

static void recovery_phases(QualifyRun *r, Engine *e, json_object *phases)
{
	uint64_t written = r->wp.bytes + r->sp.bytes;
	r->rec = (Recovery){.o = &r->o, .size = r->size, .out = r->o.json ? NULL : r->out, .interrupt = r->interrupt,
			    .live = live(r), .model = &r->model, .cliff = &r->cliff,
			    .time_left = r->o.time_limit - r->wp.duration - r->sp.duration,
			    .bytes_left = r->budget > written ? (double)(r->budget - written) : 0};
	recovery_run(&r->rec, e, phases);
}

static void rest(QualifyRun *r, Engine *e)
{
	if (*r->interrupt || r->o.rest <= 0)
		return;
	qualify_say(r, "resting %.0f s (the drive may clean its cache now)\n", r->o.rest);
	engine_rest(e, r->o.rest, r->interrupt);
}

/* Reads: every size in read-only mode; 4 KiB after the writes. */
static void read_phases(QualifyRun *r, Engine *e, json_object *phases)
{
	unsigned n = r->o.destructive ? 1 : r->o.n_sizes;
	json_object *reads = json_object_new_object();
	for (unsigned i = 0; i < n && !*r->interrupt; i++) {
		uint64_t bs = r->o.destructive ? 4096 : r->o.sizes[i];
		char nm[32], b[FORMAT_MAX], key[32];
		snprintf(nm, sizeof nm, "read %s", format_size(b, (double)bs));
		r->rp[i] = (Phase){.name = strdup(nm), .io_bytes = bs};
		int k = engine_run(e, &r->rp[i], r->size, r->o.read_seconds, NULL, NULL, r->interrupt, live(r));
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

/* How long the whole run may take, said before it starts: the writes,
 * the sequential writes and the idle-recovery rests and refills keep
 * within --time-limit (the sequential ones may end past it), then a rest
 * and the reads. */
double qualify_run_seconds(const Opts *o)
{
	unsigned reads = o->destructive ? 1 : o->n_sizes;
	double t = reads * o->read_seconds;
	if (o->destructive)
		t += o->time_limit + o->seq_seconds + fmax(o->rest, 0);
	return t;
}

static void say_plan(const QualifyRun *r)
{
	char all[FORMAT_MAX], b[FORMAT_MAX];
	format_duration(all, qualify_run_seconds(&r->o));
	if (!r->o.destructive) {
		qualify_say(r, "the run: random reads, %.0f s for each of %u block size(s): about %s in all\n",
			    r->o.read_seconds, r->o.n_sizes, all);
		return;
	}
	qualify_say(r, "the run, at most %s in all: random writes until the write cliff (at most %s or %.0f s, which "
		       "also bound what follows), %.0f s of sequential writes, idle-recovery rests and refills, a %.0f s "
		       "rest and %.0f s of random reads\n",
		    all, format_size(b, (double)r->budget), r->o.time_limit, r->o.seq_seconds, fmax(r->o.rest, 0),
		    r->o.read_seconds);
}

void qualify_measure(QualifyRun *r, Engine *e)
{
	json_object *phases = json_object_new_object();
	json_object_object_add(r->rep, "phases", phases);
	if (r->o.destructive)
		r->budget = qualify_write_budget(&r->o, r->size);
	say_plan(r);
	if (r->o.destructive && write_phase(r, e, phases) >= 0 && !qualify_run_error(r)) {
		qualify_model_writes(r->wp.rec, r->wp.n, r->wp.duration, &r->cliff, r->o.bs, r->o.iodepth, &r->model);
		if (seq_phase(r, e, phases) >= 0 && !qualify_run_error(r)) {
			/* right after the random writes fell: past the cache */
			if (r->cliff.fell && r->sp.n > 0 && r->sp.duration > 0)
				r->model.seq_bps = (double)r->sp.bytes / r->sp.duration;
			recovery_phases(r, e, phases);
		}
		if (!qualify_run_error(r))
			rest(r, e);
	}
	if (!qualify_run_error(r))
		read_phases(r, e, phases);
}

void qualify_conclude(QualifyRun *r)
{
	/* An I/O error says the disk (or what is under it) failed: what was
	 * measured up to it is kept, but no verdict rests on a run cut short */
	const char *err = qualify_run_error(r);
	bool interrupted = *r->interrupt;
	if (err) {
		json_object_object_add(r->rep, "error", json_object_new_string(err));
		json_object_object_add(r->rep, "verdict", NULL);
		json_object_object_add(r->rep, "interrupted", json_object_new_boolean(interrupted));
		return;
	}
	/* Nor on a run stopped by the user: what it measured is kept, and
	 * said to be no verdict, not a pass (the phases it never ran would
	 * have been the ones to show the cliff) */
	if (interrupted) {
		json_object_object_add(r->rep, "verdict", NULL);
		json_object_object_add(r->rep, "interrupted", json_object_new_boolean(true));
		if (r->o.destructive)
			json_object_object_add(r->rep, "disk_model", report_model(&r->model));
		return;
	}
	QualifyFacts f = {.destructive = r->o.destructive, .interrupted = interrupted, .static_class = r->static_class,
			  .wrote = r->o.destructive, .cliff = r->cliff, .block_size = r->o.bs, .written = r->wp.bytes,
			  .seq_ran = r->sp.n > 0, .seq_rate = r->sp.duration > 0 ? (double)r->sp.bytes / r->sp.duration : 0,
			  .reads = r->rp[0].n ? &r->rp[0].hist : NULL};
	QualifyVerdict v;
	qualify_verdict(&f, &v);
	json_object_object_add(r->rep, "verdict", report_verdict(&v));
	json_object_object_add(r->rep, "interrupted", json_object_new_boolean(interrupted));
	if (!r->o.destructive)
		return;
	char meaning[512];
	json_object *m = report_model(&r->model);
	if (*qualify_model_meaning(&r->model, meaning, sizeof meaning))
		json_object_object_add(m, "meaning", json_object_new_string(meaning));
	json_object_object_add(r->rep, "disk_model", m);
}

void qualify_emit(const QualifyRun *r)
{
	if (r->o.json)
		fprintf(r->out, "%s\n", json_object_to_json_string_ext(r->rep, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	else
		qualify_text_result(r->out, r->rep);
}

/* A phase with seconds to draw; one with none passes its rest on. */
static void plot_add(ReportPlot *p, const Phase *ph, double *rest)
{
	if (p->n >= REPORT_PHASES || !ph->n_sec)
		return;
	p->rest_before[p->n] = *rest;
	p->phase[p->n++] = ph;
	*rest = 0;
}

void qualify_plot(const QualifyRun *r, ReportPlot *ret)
{
	*ret = (ReportPlot){.cliff_t = NAN};
	double rest = 0;
	if (r->o.destructive) {
		plot_add(ret, &r->wp, &rest);
		if (ret->n && r->cliff.fell)
			ret->cliff_t = r->cliff.cliff_t;
		plot_add(ret, &r->sp, &rest);
		for (unsigned i = 0; i < r->rec.n_fp; i++) {
			rest += r->rec.refill[i].rest;
			plot_add(ret, &r->rec.fp[i], &rest);
		}
		rest += r->o.rest > 0 ? r->o.rest : 0;
	}
	for (unsigned i = 0; i < MAX_SIZES && r->rp[i].name; i++)
		plot_add(ret, &r->rp[i], &rest);
	json_object *v = json_object_object_get(r->rep, "verdict"), *err = json_object_object_get(r->rep, "error");
	ret->verdict = v ? json_object_get_string(json_object_object_get(v, "text"))
		     : err ? "no verdict: the run stopped at an I/O error"
			   : "no verdict: the run was interrupted";
}
