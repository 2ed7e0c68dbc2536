/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "issuegate.h"

int issue_gate_needed(const IssueGateSlot *s, size_t n, uint64_t now_usec)
{
	for (size_t i = 0; i < n; i++) {
		if (!s[i].used)
			continue;
		/* first, and even where it is stamped too (two CPUs raced on
		 * the switch): the issue side is the one that loses nothing */
		if (s[i].unstamped)
			return (int)i;
		bool young = now_usec < s[i].watched_usec + ISSUE_GATE_GRACE_USEC;
		if (!s[i].stamped && young)
			return (int)i;
	}
	return -1;
}
