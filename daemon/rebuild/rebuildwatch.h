/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rebuild watch as one piece for the daemon: the device path mapper
 * (devmap.h), the rebuild guard (rebuildguard.h), zed's events
 * (zfsevents.h), the watcher that runs zpool (scanwatch.h) and the
 * rebuilds it and btrfs's own figures show (rebuilds.h), wired to
 * each other here, so that the context holds one handle and tells it only
 * what it needs: where disks are read from, the configuration (read again
 * at rebuildwatch_configure()), the one event path its events take
 * (recorder.h) and the reaper for its children.
 */
#pragma once

#include <systemd/sd-event.h>

#include "config.h"
#include "devmap.h"
#include "recorder.h"
#include "reaper.h"
#include "rebuildguard.h"
#include "registry.h"
#include "sysdisk.h"
#include "zfsevents.h"

typedef struct RebuildWatch RebuildWatch;

/* cfg is the daemon's, kept (its zpool-command and rebuild-interval are
 * read again at rebuildwatch_configure()); src's
 * sysfs and udev roots are duplicated; recorder may be NULL (nothing recorded). */
int rebuildwatch_new(sd_event *e, const Config *cfg, DiskRegistry *disks, Recorder *recorder, const DiskSources *src,
		     Reaper *reaper, RebuildWatch **ret);
RebuildWatch *rebuildwatch_free(RebuildWatch *w);
/* After a reload: the commands and the interval from cfg. */
void rebuildwatch_configure(RebuildWatch *w);
/* The parts the views ask (NULL w: NULL). */
DevMap *rebuildwatch_devmap(const RebuildWatch *w);
ZfsEvents *rebuildwatch_zfs(const RebuildWatch *w);
RebuildGuard *rebuildwatch_guard(const RebuildWatch *w);
