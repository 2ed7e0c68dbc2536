/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * history-seed STATE_DIR: writes the events on stdin into STATE_DIR's
 * history through smrd's own history module, for tests that need a daemon
 * with a known past (golden outputs, restore after restart). One event per
 * line, tab-separated:
 *   SECONDS_AGO KIND DEVICE IDENTITY OP SEVERITY DURATION LATENCY VALUE COUNT MESSAGE [BYTES SECTOR]
 * ("-" for an empty IDENTITY or OP; BYTES and SECTOR 0 when left out).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history.h"
#include "util.h"

static void field(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", streq(src, "-") ? "" : src);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: history-seed STATE_DIR < events.tsv\n");
		return 2;
	}
	History *h = NULL;
	char *err = NULL;
	int r = history_open(argv[1], &h, &err);
	if (r < 0) {
		fprintf(stderr, "history-seed: %s\n", err ? err : strerror(-r));
		return 1;
	}
	uint64_t now = now_usec(CLOCK_REALTIME);
	char line[2048];
	unsigned n = 0, lineno = 0;
	while (fgets(line, sizeof line, stdin)) {
		lineno++;
		line[strcspn(line, "\n")] = 0;
		if (!line[0] || line[0] == '#')
			continue;
		char *f[13];
		unsigned k = 0;
		for (char *save = NULL, *t = strtok_r(line, "\t", &save); t && k < 13; t = strtok_r(NULL, "\t", &save))
			f[k++] = t;
		if (k != 11 && k != 13) {
			fprintf(stderr, "history-seed: line %u: %u fields, expected 11 or 13\n", lineno, k);
			history_close(h);
			return 1;
		}
		HistoryEvent e = {
			.time_usec = now - (uint64_t)(atof(f[0]) * 1e6),
			.logged_usec = now - (uint64_t)(atof(f[0]) * 1e6),
			.duration = atof(f[6]), .latency = atof(f[7]), .value = atof(f[8]), .count = atoll(f[9]),
			.bytes = k == 13 ? atoll(f[11]) : 0, .sector = k == 13 ? atoll(f[12]) : 0,
		};
		field(e.kind, sizeof e.kind, f[1]);
		field(e.device, sizeof e.device, f[2]);
		field(e.serial, sizeof e.serial, f[3]);
		field(e.op, sizeof e.op, f[4]);
		field(e.severity, sizeof e.severity, f[5]);
		field(e.message, sizeof e.message, f[10]);
		if ((r = history_add(h, &e)) < 0) {
			fprintf(stderr, "history-seed: line %u: %s\n", lineno, strerror(-r));
			history_close(h);
			return 1;
		}
		n++;
	}
	history_close(h);
	printf("history-seed: %u event(s) written to %s/%s\n", n, argv[1], HISTORY_FILE);
	return 0;
}
