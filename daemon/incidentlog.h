/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each disk's incidents (core/incidents.h) kept by the recorder: the open
 * one per disk, in memory and in the history (written when it opens, at
 * each step, when it ends, and once a sample while only its counts grow),
 * taken back from the history at start so that a restart continues it
 * (what the database would not take the history keeps in memory until it
 * does). A disk is known by its key (registry_disk_key(): its identity,
 * which outlives a rename), else its name.
 */
#pragma once

#include <stdint.h>

#include "history.h"
#include "incidents.h"
#include "registry.h"

typedef struct IncidentLog IncidentLog;

/* history may be NULL (nothing kept but in memory); disks for the keys. */
int incidentlog_new(History *history, DiskRegistry *disks, IncidentLog **ret);
IncidentLog *incidentlog_free(IncidentLog *l);
/* Takes one event of d (whose followed rebuild, if any, counts):
 * what it did, *ret the incident it is in (after INCIDENT_CLOSED the one it
 * ended) or NULL. An incident ended by its quiet first goes to ended(). */
typedef void (*IncidentEndedFn)(Disk *d, const Incident *i, void *userdata);
IncidentChange incidentlog_take(IncidentLog *l, Disk *d, const IncidentInput *in, const Incident **ret,
				IncidentEndedFn ended, void *userdata);
/* Once a sample: incidents quiet too long end (ended() hears of each, d
 * NULL for a disk no longer watched), grown counts written. */
void incidentlog_upkeep(IncidentLog *l, uint64_t now_usec, IncidentEndedFn ended, void *userdata);
/* d's open incident, NULL none. */
const Incident *incidentlog_open_of(const IncidentLog *l, const Disk *d);
/* The open incident with this id, as it is now (its counts are written
 * once a sample); NULL none. */
const Incident *incidentlog_find(const IncidentLog *l, const char *id);
/* Opened since start, and open now, by kind. */
uint64_t incidentlog_opened(const IncidentLog *l, IncidentKind k);
unsigned incidentlog_open(const IncidentLog *l, IncidentKind k);
