/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuilds module's parts (rebuilds.h): the shared state and the
 * steps every reading ends in (rebuilds.c), the btrfs readings
 * (rebuilds-btrfs.c). Included by those files only.
 */
#pragma once

#include "rebuilds.h"

#define JOINED_MAX 32

/* A device of a file system, as the last scan found it. */
typedef struct Member {
	char uuid[40];
	dev_t dev;
} Member;

typedef struct DiskWritten {
	unsigned major, minor;
	double bytes;
} DiskWritten;

/* A device remove followed: how many devices its file system had when it was first seen. */
typedef struct RemoveNote {
	char uuid[40];
	unsigned n_devs;
} RemoveNote;

/* A file system's figures at the last scan that found no move under way:
 * what the next one begins from (once one runs, a relocation holds a
 * chunk's old and new copies at once, and its new chunks before their
 * content). */
typedef struct QuietNote {
	char uuid[40];
	unsigned scan;			/* the scan that took it (Rebuilds.scans) */
	BtrfsFsFigures figures;
	BtrfsShow *show;
} QuietNote;

struct Rebuilds {
	DiskRegistry *disks;
	Recorder *recorder;
	DevMap *map;
	RebuildsCallbacks cb;
	/* btrfs */
	const char *sys_root, *mountinfo;
	RebuildsBtrfsOps ops;
	BtrfsFsList fs;			/* as last read */
	/* the last scan's devices of each file system, and the watched ones
	 * seen joining one since (btrfs device add), until a balance onto
	 * them is followed */
	Member *members;
	unsigned n_members;
	bool scanned;
	Member joined[JOINED_MAX];
	unsigned n_joined;
	/* each watched disk's write counter at the last interval's scan and
	 * the one before (a rebuild's first reading takes what its target
	 * wrote since the one before as its head start) */
	DiskWritten *written, *written_before;
	size_t n_written, n_written_before;
	RemoveNote *removes;
	unsigned n_removes;
	QuietNote *quiet;
	unsigned n_quiet;
	unsigned scans;			/* btrfs scans so far */
	bool sysfs;			/* no CAP_SYS_ADMIN: a replace and a balance told from sysfs */
};

/* rebuilds-btrfs.c: the btrfs state made and freed with the module */
void rebuilds_btrfs_init(Rebuilds *r);
void rebuilds_btrfs_done(Rebuilds *r);
/* A reading o of a rebuild onto d, at now: its state moved along, its
 * start and end told and recorded; source says what rebuilds, for the
 * warning (NULL: not a start's reading), path the device as the tool
 * names it. */
void rebuilds_apply(Rebuilds *r, Disk *d, const RebuildSample *o, const char *source, const char *path, double now);
/* d's rebuild ended at now: recorded (rebuild-done, the one event path). */
void rebuilds_record_end(Rebuilds *r, Disk *d, double now);
