/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io-record MAJOR:MINOR SECONDS: every I/O of one block device, through
 * smrd's own BPF tracer with its slow threshold at zero, so that each
 * completion reaches user space. For the corpus of real host traffic
 * (tests/fixtures/real): one line per I/O, in completion order,
 *   ISSUE_US LATENCY_US OP SECTORS
 * (OP one of R W D F; times from the first completion seen), then a last
 * line "# lost N" with what the kernel could not hand over (ring buffer
 * full, table full): a recording with losses is not a faithful one.
 *
 * io-record --slots FILE: such a recording in the corpus's own format
 * (tests/unit/replay.h), on standard output.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>

#include "replay.h"
#include "trace.h"
#include "util.h"

typedef struct Rec {
	uint32_t dev;
	uint64_t t0;
	uint64_t n;
	FILE *out;
} Rec;

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static void on_slow(const struct trace_slow *s, void *userdata)
{
	Rec *r = userdata;
	if (s->dev != r->dev || s->op >= TRACE_OPS)
		return;
	uint64_t issue = s->done_ns - s->lat_ns;
	if (!r->t0)
		r->t0 = issue;
	/* an I/O issued before the first one seen completes later: clamp */
	uint64_t at = issue > r->t0 ? (issue - r->t0) / 1000 : 0;
	fprintf(r->out, "%llu %llu %c %u\n", (unsigned long long)at, (unsigned long long)(s->lat_ns / 1000),
		"RWDF"[s->op], s->bytes / 512);
	r->n++;
}

static int to_slots(const char *path)
{
	ReplayTrace t;
	int r = replay_trace_load(path, &t);
	if (r < 0) {
		fprintf(stderr, "io-record: %s: %s\n", path, strerror(-r));
		return 1;
	}
	r = replay_trace_write(&t, stdout);
	fprintf(stderr, "io-record: %llu I/Os in %zu slots of %g s, %zu of %g s or more kept\n",
		(unsigned long long)t.ios, t.n_slots, REPLAY_SLOT, t.n_slow, REPLAY_KEEP);
	replay_trace_free(&t);
	return r < 0 ? 1 : 0;
}

int main(int argc, char **argv)
{
	unsigned maj, min;
	if (argc == 3 && streq(argv[1], "--slots"))
		return to_slots(argv[2]);
	double secs;
	if (argc != 3 || sscanf(argv[1], "%u:%u", &maj, &min) != 2 || parse_double(argv[2], &secs) < 0) {
		fprintf(stderr, "usage: io-record MAJOR:MINOR SECONDS > trace\n       io-record --slots TRACE > slots\n");
		return 2;
	}
	TraceBackend *b = NULL;
	char *why = NULL;
	int r = trace_bpf_ops.open(&b, 0, &why);
	if (r < 0) {
		fprintf(stderr, "io-record: %s\n", why ? why : strerror(-r));
		return 1;
	}
	Rec rec = {.dev = trace_dev(maj, min), .out = stdout};
	if ((r = trace_bpf_ops.watch(b, rec.dev, true)) < 0 || (r = trace_bpf_ops.commit(b)) < 0) {
		fprintf(stderr, "io-record: cannot watch %u:%u: %s\n", maj, min, strerror(-r));
		trace_bpf_ops.close(b);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	int fd;
	trace_bpf_ops.fds(b, &fd, 1);
	TraceCounters before;
	trace_bpf_ops.counters(b, &before);
	fprintf(stderr, "io-record: recording %u:%u for %g s\n", maj, min, secs);
	uint64_t end = now_usec(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e6);
	while (!stop && now_usec(CLOCK_MONOTONIC) < end) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		poll(&p, 1, 50);
		trace_bpf_ops.poll(b, NULL, on_slow, &rec);
	}
	trace_bpf_ops.poll(b, NULL, on_slow, &rec);
	TraceCounters c;
	trace_bpf_ops.counters(b, &c);
	uint64_t lost = (c.slow_dropped - before.slow_dropped) + (c.inflight_full - before.inflight_full);
	printf("# lost %llu\n", (unsigned long long)lost);
	fprintf(stderr, "io-record: %llu I/Os, %llu lost\n", (unsigned long long)rec.n, (unsigned long long)lost);
	trace_bpf_ops.close(b);
	return lost ? 3 : 0;
}
