/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A pool's scan (resilver, scrub) as `zpool status` prints it, read into one
 * struct per pool (pure): the JSON of `zpool status -jp --json-int` (OpenZFS
 * 2.3 and later) and the text of `zpool status -p` (2.1, 2.2, whose scan
 * block prints sizes rounded to three digits whatever -p says). The grammar
 * is print_scan_scrub_resilver_status() and scan_status_nvlist() in
 * cmd/zpool/zpool_main.c; tests/fixtures/zpool/ holds real outputs. The
 * input is untrusted: bounded, and refused with a message, never a crash.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ZPOOL_INPUT_MAX (8u << 20)	/* bytes of output read: a pool of thousands of disks stays below */
#define ZPOOL_POOLS_MAX 64
#define ZPOOL_LEAVES_MAX 16		/* leaves being resilvered, per pool */
#define ZPOOL_NAME_MAX 255		/* ZFS_MAX_DATASET_NAME_LEN - 1 */
#define ZPOOL_PATH_MAX 255

typedef enum ZpoolScanFunc {
	ZPOOL_SCAN_NONE,		/* "none requested", or no scan_stats */
	ZPOOL_SCAN_SCRUB,
	ZPOOL_SCAN_RESILVER,
	ZPOOL_SCAN_ERRORSCRUB,		/* zpool scrub -e (JSON only: its text is another block) */
	_ZPOOL_SCAN_FUNC_MAX,
	_ZPOOL_SCAN_FUNC_INVALID = -EINVAL,
} ZpoolScanFunc;

typedef enum ZpoolScanState {
	ZPOOL_SCAN_STATE_NONE,
	ZPOOL_SCAN_SCANNING,		/* in progress (a paused scrub too: see paused) */
	ZPOOL_SCAN_FINISHED,
	ZPOOL_SCAN_CANCELED,
	_ZPOOL_SCAN_STATE_MAX,
	_ZPOOL_SCAN_STATE_INVALID = -EINVAL,
} ZpoolScanState;

/* A leaf vdev the scan is writing to: "(resilvering)" in the text,
 * scan_processed in the JSON. */
typedef struct ZpoolLeaf {
	char path[ZPOOL_PATH_MAX + 1];	/* as printed: the JSON's path, else its name; the text's name */
	uint64_t guid;			/* 0: not given (text) */
	double processed;		/* bytes it was written in this scan; NaN not given (text) */
} ZpoolLeaf;

/* Every figure NaN when the output does not give it. Text sizes are
 * zfs_nicebytes' (1024-based, three digits): exact to about 0.5%. */
typedef struct ZpoolScan {
	char pool[ZPOOL_NAME_MAX + 1];
	ZpoolScanFunc func;
	ZpoolScanState state;
	bool paused;			/* a scrub paused ("scrub paused since", scrub_pause) */
	double to_examine;		/* bytes the scan walks ("Z total" / "/ Z scanned") */
	double examined;		/* bytes walked ("X scanned") */
	double skipped;			/* JSON only */
	double issued_total;		/* to_examine - skipped ("/ W issued", 2.2+; JSON) */
	double issued;			/* bytes read and verified or copied ("Y issued") */
	double processed;		/* bytes repaired or resilvered */
	double issue_rate;		/* bytes/s over this pass as printed ("issued at R/s"); text only */
	double percent_done;		/* as printed; text only */
	double to_go;			/* seconds, zpool's own estimate; NaN: none ("no estimated completion time") */
	double pass_start;		/* JSON: the pass's start, seconds since the epoch */
	double pass_issued;		/* JSON: bytes issued in this pass */
	double start_time;		/* seconds since the epoch; see times_local */
	double end_time;		/* when finished or canceled */
	double duration;		/* finished: "in 1 days 02:55:32"; JSON: end - start */
	bool times_local;		/* from the text's ctime(): local wall-clock read as UTC, the
					 * caller shifts it by its UTC offset */
	uint64_t errors;
	ZpoolLeaf *leaves;		/* as many as there are, ZPOOL_LEAVES_MAX at most */
	unsigned n_leaves;
	bool leaves_truncated;		/* more than ZPOOL_LEAVES_MAX: the rest left out */
} ZpoolScan;

typedef struct ZpoolStatus {
	ZpoolScan *pools;		/* as many as there are, ZPOOL_POOLS_MAX at most */
	unsigned n_pools;
	bool pools_truncated;		/* more than ZPOOL_POOLS_MAX: the rest left out */
	bool json;			/* read from JSON */
} ZpoolStatus;

/* "none", "scrub", "resilver", "errorscrub"; NULL outside the enum. */
/* A pool name as zpool create takes it (zfs_namecheck.c, pool_namecheck):
 * a letter first, then letters, digits and "_-:. "; never an option. */
bool zpool_name_ok(const char *pool);
const char *zpool_scan_func_to_string(ZpoolScanFunc f);
/* "none", "scanning", "finished", "canceled"; NULL outside the enum. */
const char *zpool_scan_state_to_string(ZpoolScanState s);

/* Reads either form (JSON when the first non-blank byte is '{'). text need
 * not be NUL-terminated. 0 and *ret (zpool_status_free it); -EINVAL with
 * *ret_error (free it) on output it cannot read, -E2BIG over
 * ZPOOL_INPUT_MAX, -ENOMEM. */
int zpool_status_parse(const char *text, size_t len, ZpoolStatus **ret, char **ret_error);
int zpool_status_parse_json(const char *text, size_t len, ZpoolStatus **ret, char **ret_error);
int zpool_status_parse_text(const char *text, size_t len, ZpoolStatus **ret, char **ret_error);
/* NULL is fine; returns NULL. */
ZpoolStatus *zpool_status_free(ZpoolStatus *s);
static inline void zpool_status_freep(ZpoolStatus **s) { zpool_status_free(*s); }
/* The pool named so, NULL when absent. */
const ZpoolScan *zpool_status_find(const ZpoolStatus *s, const char *pool);
