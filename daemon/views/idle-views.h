/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the exporter and the disk's page show of an SMR disk's idle time
 * (the record's curve and budget, core/disk/diskview.h; the JSON and the
 * sentences are core/output/idle-out.h's, shared with smrctl). Formatting
 * only; nothing for a disk without a curve (a CMR disk, an SSD, an SMR
 * disk that never stormed).
 */
#pragma once

#include "disk.h"
#include "metrics.h"
#include "util.h"

/* smrd_disk_idle_*: a few series per SMR disk with a curve, added in the
 * exporter's one pass over the disks. */
typedef struct IdleFamilies {
	MetricFamily *recovery, *points, *need, *got, *interval, *hours;
} IdleFamilies;
void idle_families(MetricSet *set, IdleFamilies *ret);
/* d's series; dev its {device="..."}. */
void idle_samples(const IdleFamilies *f, const Disk *d, MetricLabels dev);
/* The disk page's "Idle time" section: the day as a picture, the forecast
 * and the advice; nothing without a budget. */
void idle_page_section(Buf *b, const Disk *d);
