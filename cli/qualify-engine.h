/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qualification's I/O engine: libaio on the one fd that was checked
 * (O_DIRECT set on it once the checks passed: the page cache must not
 * answer), a fixed queue depth, random or sequential offsets, every I/O's
 * submit time and latency kept for the analysis, the offset of every write
 * kept so that exactly those blocks can be discarded afterwards, and
 * per-second samples for the live line and the plot. A model engine
 * takes each I/O's completion time from a callback instead, on a virtual
 * clock, so that a test runs the same phases and rests in model time.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cliff.h"
#include "hist.h"

#define ENGINE_MAX_IOS (8u << 20)	/* per phase: 128 MiB of records at most */
#define ENGINE_MAX_QD 256

typedef struct Second {
	double t, iops, lat_mean, lat_max;
} Second;

typedef struct Phase {
	const char *name;
	bool write, sequential;
	IoRec *rec;
	uint64_t *offsets;		/* writes only: where each went */
	size_t n;
	double duration;
	uint64_t bytes, io_bytes;
	Second *sec;
	size_t n_sec;
	Hist hist;
	bool interrupted;
	const char *stopped;		/* why it ended */
	char error[160];		/* the I/O error that ended it, "" if none */
} Phase;

typedef struct Engine Engine;

/* Called about once a second and after each batch of completions: true stops the phase. */
typedef bool (*EngineStopFn)(Phase *p, double elapsed, void *userdata);

/* A model disk: an I/O submitted at `now` (seconds on the engine's
 * clock) completes at *ret_done; 0, or -errno for an I/O that failed. */
typedef int (*EngineSubmitFn)(void *userdata, double now, bool write, uint64_t off, uint64_t len,
			      double *ret_done);

/* Queue depth qd, buffers of up to bufsize, filled with incompressible data. */
int engine_new(int fd, unsigned qd, uint64_t bufsize, uint64_t seed, Engine **ret);
/* Queue depth qd on a model disk; its clock starts at `start` seconds
 * and moves only as I/Os complete and rests pass. */
int engine_new_model(EngineSubmitFn submit, void *userdata, unsigned qd, uint64_t seed, double start,
		     Engine **ret);
Engine *engine_free(Engine *e);
/* Seconds on the engine's clock: CLOCK_MONOTONIC, or the model's. */
double engine_now(const Engine *e);
/* Idle for `seconds`, ended early by *interrupt (NULL: never). */
void engine_rest(Engine *e, double seconds, const volatile sig_atomic_t *interrupt);
/* I/Os of p->io_bytes over [0, range), random or (p->sequential) in order,
 * until stop(), *interrupt, the time limit or an I/O error (in p->error).
 * live: a progress line on stderr. */
int engine_run(Engine *e, Phase *p, uint64_t range, double limit, EngineStopFn stop, void *userdata,
	       const volatile sig_atomic_t *interrupt, bool live);
void phase_free(Phase *p);
