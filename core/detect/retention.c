/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules of retention.h on two clocks read by the caller.
 */
#include "retention.h"

#include <stddef.h>

void retention_init(Retention *r, uint64_t now_mono, uint64_t now_real, uint64_t prior_newest)
{
	*r = (Retention){.started = now_mono, .steady_since = now_mono, .prior_newest = prior_newest,
			 .offset = (int64_t)now_real - (int64_t)now_mono};
}

int64_t retention_watch(Retention *r, uint64_t now_mono, uint64_t now_real)
{
	int64_t offset = (int64_t)now_real - (int64_t)now_mono, jump = offset - r->offset;
	r->offset = offset;
	if (jump > -RETENTION_JUMP_USEC && jump < RETENTION_JUMP_USEC)
		return 0;
	r->steady_since = now_mono;
	return jump;
}

bool retention_due(Retention *r, uint64_t now_mono, uint64_t now_real, double keep_days, uint64_t *ret_before,
		   const char **ret_why)
{
	if (now_mono - r->started < RETENTION_FIRST_USEC ||
	    (r->last_prune && now_mono - r->last_prune < RETENTION_EVERY_USEC))
		return false;
	r->last_prune = now_mono;
	uint64_t keep = (uint64_t)(keep_days * 86400e6);
	uint64_t before = now_real > keep ? now_real - keep : 0;
	const char *why = NULL;
	if (r->steady_since != r->started && now_mono - r->steady_since < RETENTION_STEADY_USEC)
		why = "the wall clock jumped less than an hour ago";
	else if (before && r->prior_newest && r->prior_newest < before)
		why = "that would delete every event stored before this start: the wall clock is far ahead of them, or "
		      "smrd was off that long";
	*ret_before = why ? 0 : before;
	*ret_why = why;
	return true;
}
