/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seagate's FARM log (Field Access Reliability Metrics) as smartctl prints
 * it in JSON (`smartctl -n standby -l farm --json`, smartmontools 7.4 and
 * later): its "Drive Recording Type", the only recording type a vendor
 * states for one drive rather than for a model number. Pure: it takes
 * smartctl's output and exit status, and the disk's model strings.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

typedef enum FarmState {
	FARM_NOT_READ,		/* never asked: not a Seagate disk, no smartctl-command, a captured tree */
	FARM_SMR,		/* the log says SMR */
	FARM_CMR,		/* the log says CMR */
	FARM_UNKNOWN,		/* the log says UNKNOWN: it does not tell */
	FARM_UNSUPPORTED,	/* smartctl found no FARM log on the drive */
	FARM_STANDBY,		/* the drive was spun down: not read, not woken (-n standby) */
	FARM_NO_OPTION,		/* a smartctl without -l farm (before 7.4) */
	FARM_FAILED,		/* smartctl could not read the drive, or said nothing that parses */
	_FARM_STATE_MAX,
	_FARM_STATE_INVALID = -EINVAL,
} FarmState;

#define FARM_TEXT 96

typedef struct FarmReading {
	FarmState state;
	char smartctl[16];		/* smartctl's version ("7.4"), "" when it printed no JSON */
	char serial[32];		/* the log's page 1 serial number, "" if none */
	char detail[FARM_TEXT];		/* why it failed, or smartctl's own words */
} FarmReading;

/* smartctl's output (len bytes, NUL-terminated) and how it ended (its
 * exit status, or -1 when a signal ended it); always fills *ret. */
void farm_parse(const char *out, size_t len, int exit_status, FarmReading *ret);
/* Whether smartctl reads FARM from such a disk: smartctl's own rule
 * (farmcmds.cpp): an ATA model "ST" + 3-5 digits + 2 letters + 3-5
 * letters or digits (then "-" and anything), or the SCSI vendor SEAGATE. */
bool farm_vendor_supports(const char *model, const char *scsi_vendor);
const char *farm_state_to_string(FarmState s);
