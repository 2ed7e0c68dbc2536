/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A history database as smrd wrote it before the notifier had tables of
 * its own (schema version 0): events, and the notifier's bookkeeping as
 * "notify:KIND" / "ack:KIND" pseudo-events with the incident id in the
 * message. For the tests of the migration (test-history, test-daemon-notifier).
 */
#pragma once

#include <stdint.h>

/* The disks of the old past (identity: wwn, serial, or none). */
#define V0_SDB_ID "0x5000c500a1b2c3d5"
#define V0_SDC_ID "SER-C"
#define V0_STORM_CLOSED "storm-00000000000000a1"
#define V0_STORM_OPEN "storm-00000000000000a2"
#define V0_STALL_NEWEST "stall-00000000000000c2"
#define V0_EVENTS 3	/* real events among the rows */
#define V0_SENDS 7	/* notify: rows */
#define V0_ACKS 2	/* ack: rows */

/* Writes dir/events.db in the old schema with rows dated around now_usec
 * (CLOCK_REALTIME); 0 or -EIO. */
int history_v0_write(const char *dir, uint64_t now_usec);
