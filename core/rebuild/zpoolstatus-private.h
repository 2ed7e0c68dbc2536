/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the two readers of zpool status (text, JSON) share: the figures'
 * formats as zpool prints them and the pool records. Not for other modules.
 */
#pragma once

#include "util.h"
#include "zpoolstatus.h"

/* zfs_nicebytes(): "0B", "126K", "7,87M" (the decimal sign is the
 * locale's), "16.0E"; or plain digits. 0 or -EINVAL. */
int zpool_parse_size(const char *s, size_t len, double *ret);
/* ctime() without its newline: "Mon Jun 22 12:58:29 2020", read as UTC. */
int zpool_parse_ctime(const char *s, size_t len, double *ret);
/* secs_to_dhms(): "02:55:32", "1 days 02:55:32". */
int zpool_parse_dhms(const char *s, size_t len, double *ret);
/* No control byte (a name or path shown to people and logs). */
bool zpool_printable(const char *s, size_t len);
/* A new pool record, its figures unknown; NULL when full (truncated set). */
ZpoolScan *zpool_status_add(ZpoolStatus *s, const char *name, size_t len);
/* A leaf being resilvered; false when full (leaves_truncated set). */
bool zpool_scan_add_leaf(ZpoolScan *p, const char *path, size_t len, uint64_t guid, double processed);
