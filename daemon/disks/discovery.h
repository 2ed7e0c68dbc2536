/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Finds the whole disks to watch: libudev enumeration and a uevent monitor on
 * the real /sys, a directory scan of <root>/block under --sysfs-root. It owns
 * nothing but its udev handles: it fills the registry it is given and tells
 * whoever wired it (context.c) through its callbacks when a disk comes or
 * goes, so that the tracer and the detector follow.
 */
#pragma once

#include <stdbool.h>
#include <systemd/sd-event.h>

#include "registry.h"
#include "filter.h"
#include "modellist.h"
#include "reaper.h"
#include "sysfs.h"

typedef struct Discovery Discovery;

typedef struct DiscoveryCallbacks {
	void (*added)(Disk *d, void *userdata);		/* watched from now on */
	void (*removed)(Disk *d, void *userdata);	/* about to be dropped; still valid during the call */
	void (*changed)(void *userdata);		/* after the set of disks changed */
	void *userdata;
} DiscoveryCallbacks;

/* uevents: listen to the kernel's or udev's events (the live /sys only). */
int discovery_new(sd_event *e, const DiskSources *src, DiskRegistry *disks, const DiscoveryCallbacks *cb,
		  bool uevents, Discovery **ret);
Discovery *discovery_free(Discovery *d);
/* Which devices to watch and how to classify them; the caller keeps both
 * alive (set again after a reload, before discovery_reclassify()). */
void discovery_set_rules(Discovery *d, const DeviceFilter *filter, const ModelList *models);
/* Enumerates every block device, adds new disks and drops vanished ones. */
int discovery_scan(Discovery *d);
/* The same, but only `budget` of the disks already known are re-read (in
 * turn, scan after scan). For a captured tree, rescanned every sample since
 * nothing reports its changes: block/ is listed only when it changed since
 * the last listing (so a disk added or removed is found at once), and with
 * fewer disks than the budget, always; the cost of a sample stays bounded
 * however many disks it has. A device already listed that becomes a disk
 * (a medium inserted) waits for the next discovery_scan(). */
int discovery_scan_some(Discovery *d, unsigned budget);
/* Re-reads one device: adds, updates or removes it. */
void discovery_reread(Discovery *d, const char *name);
/* Probes a new disk fully; for a known one only checks that it still exists
 * with a medium (changes to known disks arrive as uevents). Cheap enough to
 * call for every disk on every scan. */
void discovery_check(Discovery *d, const char *name);
/* Re-reads what every watched disk is a member of (pools, arrays, volume
 * groups) from udev's database and holders/; done on every scan and when
 * an array or volume comes or goes. A disk's own uevents (and its
 * partitions') re-read it, with libblkid where udev knows nothing. */
void discovery_refresh_members(Discovery *d);
/* The administrator's per-disk settings (smrd.conf disk.<ID>.*), kept
 * alive by the caller; applied at the next probe or reclassify. */
void discovery_set_disk_rules(Discovery *d, const DiskRules *rules);
/* Warns about each per-disk setting that names no watched disk; returns
 * how many (at start and after a reload: a typo in a serial is silent
 * otherwise). */
unsigned discovery_report_disk_rules(Discovery *d);
/* Re-applies the rules to every watched disk (after a reload). */
void discovery_reclassify(Discovery *d);
/* Reads Seagate's FARM recording type of the disks smartctl reads it from
 * with *smartctl (the configuration's smartctl-command, read at each run;
 * "" never), their nodes under dev_dir, its runs' groups owned in reaper:
 * of every disk watched now, then as often as the model list is matched
 * for a disk (when it is found, when its model strings change, on a
 * reload), off the loop (farmreader.h). The live /sys only: a captured
 * tree's device names are not this kernel's. 0 or -ENOMEM. */
int discovery_read_farm(Discovery *d, char *const *smartctl, const char *dev_dir, Reaper *reaper);
/* Kills a FARM read under way and reads no more (before the reaper goes). */
void discovery_stop_farm(Discovery *d);
/* Asks for the disk's FARM log now (smrctl reread): its answer comes later. */
void discovery_ask_farm(Discovery *d, const char *name);
/* What smartctl read of the vendor's log of the device that was
 * major:minor when asked: kept with the disk (if it still is that device),
 * which is classified again. */
void discovery_set_farm(Discovery *d, const char *name, unsigned major, unsigned minor, const FarmReading *r);
/* Failed reads of a disk's sysfs attributes, since start. */
uint64_t discovery_read_errors(const Discovery *d);
