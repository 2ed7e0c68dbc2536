/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The kinds of detector event, in one table: name (the history, smrctl,
 * metrics), journal MESSAGE_ID, syslog priority and the catalog's subject.
 * The journal catalog (contrib/systemd/smrd.catalog) and the list in
 * docs/detection.md are checked against it by test-events: a new kind
 * cannot reach the journal without an id, nor the docs without a line.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>

typedef enum DetectEventKind {
	EVENT_STORM_START,
	EVENT_STORM_END,
	EVENT_STALL,
	EVENT_TIMEOUT_RISK,
	EVENT_BANDS,
	EVENT_IDLE_START,
	EVENT_IDLE_END,
	EVENT_BEHAVIOUR,
	EVENT_MEDIA_CACHE,
	EVENT_STALL_IMMINENT,
	/* what zed reports (smrctl zevent, docs/zfs.md) and the rebuild guard */
	EVENT_REBUILD_WARNING,		/* a rebuild is about to write onto a disk that takes it slowly */
	EVENT_REBUILD_START,		/* zpool attach/replace (the disk), a resilver or scrub begins (the pool) */
	EVENT_REBUILD_END,
	EVENT_ZFS_DELAY,		/* an I/O slower than zio_slow_io_ms */
	EVENT_ZFS_DEADMAN,		/* an I/O ZFS takes for hung */
	EVENT_ZFS_SITOUT,		/* a RAIDZ child sat out of reads for being slow */
	EVENT_ZFS_STATECHANGE,		/* a vdev's state changed */
	EVENT_REBUILD_DONE,		/* a rebuild followed onto a disk ended: its real duration beside the estimate */
	EVENT_IDLE_RECOVERY,		/* a rest gave a point of the idle-recovery curve */
	_EVENT_KIND_MAX,
	_EVENT_KIND_INVALID = -EINVAL,
} DetectEventKind;

typedef struct EventKindInfo {
	const char *name;		/* storm-start */
	const char *message_id;		/* 32 hex digits, stable: journalctl MESSAGE_ID=... */
	int priority;			/* LOG_* */
	const char *severity;		/* crit, warning, notice, info: the word for priority */
	const char *subject;		/* the catalog's Subject:, with @SMRD_DEVICE@ */
} EventKindInfo;

/* The kind's entry; NULL outside the enum. */
const EventKindInfo *event_kind_info(DetectEventKind k);
const char *detect_event_kind_to_string(DetectEventKind k);
DetectEventKind detect_event_kind_from_string(const char *s);
const char *detect_event_severity(DetectEventKind k);
