/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a btrfs balance or device remove writes (pure): btrfs's chunk
 * allocator replayed over the move, from what any process may read (each
 * device's size and chunks from DEV_INFO, each chunk type's figures from
 * /sys/fs/btrfs/UUID/allocation/). A relocation copies what a chunk holds,
 * not its size, packed into new chunks, each put on the devices with the
 * most unallocated space at the moment it is made, while the chunks not
 * yet moved still take theirs (fs/btrfs/volumes.c btrfs_create_chunk(),
 * relocation.c). docs/zfs.md, "How smrd follows a rebuild".
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

/* The profile bits of the kernel's block groups (BTRFS_BLOCK_GROUP_*, and
 * BTRFS_AVAIL_ALLOC_BIT_SINGLE for single), as -v prints a convert target */
#define BTRFS_PROFILE_RAID0 (1ULL << 3)
#define BTRFS_PROFILE_RAID1 (1ULL << 4)
#define BTRFS_PROFILE_DUP (1ULL << 5)
#define BTRFS_PROFILE_RAID10 (1ULL << 6)
#define BTRFS_PROFILE_RAID5 (1ULL << 7)
#define BTRFS_PROFILE_RAID6 (1ULL << 8)
#define BTRFS_PROFILE_RAID1C3 (1ULL << 9)
#define BTRFS_PROFILE_RAID1C4 (1ULL << 10)
#define BTRFS_PROFILE_SINGLE (1ULL << 48)

/* The move's bound on the chunks it replays (a file system of 100 TiB in
 * chunks of 1 GiB): past it, where they go is not foreseen. */
#define BTRFS_ALLOC_CHUNKS_MAX 100000

typedef enum BtrfsChunkType {
	BTRFS_CHUNK_DATA,
	BTRFS_CHUNK_METADATA,
	BTRFS_CHUNK_SYSTEM,
	_BTRFS_CHUNK_TYPE_MAX,
} BtrfsChunkType;

/* One chunk type as sysfs tells it (allocation/TYPE/). */
typedef struct BtrfsTypeFigures {
	uint64_t profile;		/* BTRFS_PROFILE_* of the chunks that hold the most; 0 unknown */
	double used;			/* bytes_used: what its chunks hold; NaN unknown */
	double total;			/* total_bytes: its chunks' size */
	double disk_total;		/* disk_total: what they take on the devices */
	double chunk_size;		/* chunk_size (Linux 6.0 and later): a new chunk's most; NaN: the kernel's default */
} BtrfsTypeFigures;

/* A move as it begins. */
typedef struct BtrfsMove {
	unsigned n_devs;
	const double *size;		/* each device's size now: 0 for one being removed */
	const double *used;		/* the bytes its chunks took when the move began */
	int removed;			/* the device a remove empties; -1: a balance, which moves every chunk */
	bool acts_on[_BTRFS_CHUNK_TYPE_MAX];	/* the types it moves */
	uint64_t convert_to[_BTRFS_CHUNK_TYPE_MAX];	/* the profile it makes them; 0 their own */
	const BtrfsTypeFigures *type;	/* [_BTRFS_CHUNK_TYPE_MAX] */
} BtrfsMove;

/* A profile's name as sysfs and the tools spell it ("raid1", "single"):
 * its BTRFS_PROFILE_* bit; 0 unknown. */
uint64_t btrfs_profile_from_name(const char *name);
/*
 * The move replayed: ret_written[i], the bytes it writes onto device i (the
 * new chunks' stripes there, as full as the chunks moved were); ret_after[i],
 * the bytes of chunks device i holds once it is over. 0; -ENOSPC when the
 * devices cannot take it (the replay as far as it went); -ERANGE past
 * BTRFS_ALLOC_CHUNKS_MAX; -EINVAL on a bad input or the data chunks'
 * figures unknown (metadata and system ones unknown are left out).
 */
int btrfs_move_replay(const BtrfsMove *m, double ret_written[], double ret_after[]);
