/* SPDX-License-Identifier: GPL-2.0-or-later */
/* When the block_rq_issue program must run: only for a watched disk whose
 * completions come without the kernel's stamp, or one just watched whose
 * first completion has not said yet. */
#include "issuegate.h"
#include "test.h"

#define S (1000000ULL)

static void test_gate(void)
{
	IssueGateSlot s[4] = {{0}};
	uint64_t t = 1000 * S;
	/* nothing watched: nothing to time at issue */
	CHECK_INT(issue_gate_needed(s, 4, t), -1);
	CHECK_INT(issue_gate_needed(s, 0, t), -1);
	/* a disk just watched: on, until its first completion says */
	s[1] = (IssueGateSlot){.used = true, .watched_usec = t};
	CHECK_INT(issue_gate_needed(s, 4, t), 1);
	CHECK_INT(issue_gate_needed(s, 4, t + ISSUE_GATE_GRACE_USEC - 1), 1);
	/* its completions are stamped: off at once, not after the grace */
	s[1].stamped = true;
	CHECK_INT(issue_gate_needed(s, 4, t + 1), -1);
	/* a spare that did no I/O: off once the grace is over */
	s[2] = (IssueGateSlot){.used = true, .watched_usec = t};
	CHECK_INT(issue_gate_needed(s, 4, t + 5 * S), 2);
	CHECK_INT(issue_gate_needed(s, 4, t + ISSUE_GATE_GRACE_USEC), -1);
	/* a completion without the stamp: on, however old the disk, and
	 * even where a racing CPU left the stamped flag set too */
	s[2].unstamped = true;
	CHECK_INT(issue_gate_needed(s, 4, t + 3600 * S), 2);
	s[2].stamped = true;
	CHECK_INT(issue_gate_needed(s, 4, t + 3600 * S), 2);
	/* stamped again (the flag cleared by the stamped completion): off */
	s[2].unstamped = false;
	CHECK_INT(issue_gate_needed(s, 4, t + 3600 * S), -1);
	/* a slot let go keeps no flag alive */
	s[3] = (IssueGateSlot){.used = false, .unstamped = true, .watched_usec = t};
	CHECK_INT(issue_gate_needed(s, 4, t), -1);
	/* a clock before the watch (another clock's figure): young, so on */
	s[0] = (IssueGateSlot){.used = true, .watched_usec = t};
	CHECK_INT(issue_gate_needed(s, 4, 0), 0);
}

int main(void)
{
	test_gate();
	return test_done("test-issuegate");
}
