/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Loads bench/floor.bpf.c (empty programs on block_rq_issue and
 * block_rq_complete) and holds them attached until SIGINT or SIGTERM, so
 * that bench/trace-overhead can read their bpf_stats next to smrd's.
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "floor.skel.h"

int main(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	struct floor *skel = floor__open_and_load();
	if (!skel) {
		fprintf(stderr, "trace-floor: cannot load the empty programs: %s\n", strerror(errno));
		return 1;
	}
	if (floor__attach(skel) < 0) {
		fprintf(stderr, "trace-floor: cannot attach: %s\n", strerror(errno));
		floor__destroy(skel);
		return 1;
	}
	printf("attached\n");
	fflush(stdout);
	sigwait(&set, &sig);
	floor__destroy(skel);
	return 0;
}
