/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-disk settings by stable identity, the way smartd.conf and
 * /dev/disk/by-id name disks: "disk.<ID>.<setting> = value" in smrd.conf,
 * where ID is a WWN (0x5000c500a1b2c3d4 or wwn-0x5000c500a1b2c3d4), a
 * serial number, a /dev/disk/by-id name (with or without the directory),
 * or a kernel name (sdb, which changes across reboots). Pure: matching
 * takes the identity the caller read.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#define DISK_RULES_MAX 256
#define DISK_RULE_ID 96
#define DISK_LINKS_MAX 8

typedef struct DiskRule {
	char id[DISK_RULE_ID];
	int expect;			/* DiskClass the administrator declares, or -1 */
	double stall_threshold;		/* seconds, or NaN for the default */
	double media_cache;		/* bytes (media-cache = 24G): seeds the forecast; NaN */
	double rebuild_rate;		/* bytes/s of a rebuild's writes past the cache (rebuild-rate = 80M); NaN */
} DiskRule;

typedef struct DiskRules {
	unsigned n;
	DiskRule r[DISK_RULES_MAX];
} DiskRules;

/* Who a disk is: its kernel name, WWN, serial and by-id link names. */
typedef struct DiskIds {
	const char *name, *wwn, *serial;
	unsigned n_links;
	char links[DISK_LINKS_MAX][DISK_RULE_ID];	/* "ata-WDC_WD40EFAX-68JH4N0_WD-WX12D80K1234", "wwn-0x..." */
} DiskIds;

/* True if "disk.<rest>" is a setting this module knows (rest "ID.expect"). */
bool disk_rule_key_known(const char *rest);
/* Applies "disk.<rest> = value"; *ret_error says what is wrong. */
int disk_rule_set(DiskRules *rules, const char *rest, const char *value, char **ret_error);
void disk_rules_print(const DiskRules *rules, FILE *f);
bool disk_rule_matches(const DiskRule *rule, const DiskIds *who);
/* The first rule naming the disk, or NULL. */
const DiskRule *disk_rules_find(const DiskRules *rules, const DiskIds *who);
