/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Pure parser for a tracepoint's `format` file (tracefs events/<sys>/<name>/
 * format): the event id and where each field sits in the raw record. The
 * block events changed across kernels (rwbs grew from 8 to 10 bytes, ioprio
 * appeared, `errors` became `error`), so offsets are never hard-coded.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define TP_FIELDS_MAX 32

typedef struct TpField {
	char name[32];
	char type[48];
	unsigned offset, size;
	bool is_signed;
} TpField;

typedef struct TpFormat {
	char name[64];
	unsigned id;
	unsigned n_fields;
	TpField fields[TP_FIELDS_MAX];
} TpFormat;

/* -EINVAL when the text has no name, no id or a malformed field line. */
int tpformat_parse(const char *text, TpFormat *ret);
/* The first field named any of the NULL-terminated names; NULL if none. */
const TpField *tpformat_field(const TpFormat *f, const char *const *names);

/* What smrd needs from block_rq_issue / block_rq_complete, checked. */
typedef struct BlockRqLayout {
	unsigned id;
	unsigned dev, sector, nr_sector, rwbs, rwbs_size;
	int bytes;			/* issue only; -1 when absent */
	int error, error_size;		/* complete only ("error" or "errors"); -1 when absent */
	unsigned min_size;		/* the record must hold at least this much */
} BlockRqLayout;

/* -EPROTO when a needed field is missing or has an unexpected size. */
int block_rq_layout(const TpFormat *f, BlockRqLayout *ret);

/* The op from an rwbs string ("WS", "RA", "D", "FWS", "N"...):
 * 0 read, 1 write, 2 discard, 3 flush, -1 other. A write that also carries
 * a preflush ("FWS") is a write. */
int rwbs_op(const char *rwbs, unsigned len);
