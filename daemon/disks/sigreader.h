/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a disk and its partitions are members of, read off the event loop:
 * for a disk udev knows nothing about, libblkid reads the signatures from
 * the device itself, and a disk that answers a read in 1.5 s held the loop
 * for 76 s at start (51 reads). Each read runs in a thread of its own, a
 * few at a time, and its result comes back to the loop through a socket.
 * A read past its deadline is given up on (its thread still finishes,
 * alone: a thread in the kernel cannot be stopped) and the next one starts.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "membership.h"

typedef struct SigReader SigReader;

/* On the loop: a read of name (major:minor) finished with r (0 or -errno)
 * and, when 0, what it is a member of. */
typedef void (*SigReadDone)(const char *name, unsigned major, unsigned minor, int r, const Memberships *ms,
			    void *userdata);

#define SIGREADER_RUNNING 4		/* reads at once */
#define SIGREADER_ABANDONED 16		/* reads past their deadline still in the kernel, at most */
#define SIGREADER_DEADLINE_USEC (30 * UINT64_C(1000000))

/* sysfs_fd and udev_fd are duplicated for the threads. */
int sigreader_new(sd_event *e, int sysfs_fd, int udev_fd, SigReadDone done, void *userdata, SigReader **ret);
SigReader *sigreader_free(SigReader *s);
/* Queues a read; false when one for name is already queued or running, or
 * when too many reads are stuck in the kernel to start another. */
bool sigreader_queue(SigReader *s, const char *name, unsigned major, unsigned minor);
bool sigreader_pending(const SigReader *s, const char *name);
/* Reads given up on because they passed their deadline. */
unsigned sigreader_abandoned(const SigReader *s);
