/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Process groups by kill(-pgid): signal 0 says whether any process is left
 * in one, and /proc tells a zombie from the living (read only when one is).
 */
#include "procgroup.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>


/* Of /proc/PID/stat, the state and the process group: after the last ')'
 * (a command name may hold one). */
static bool living_member(const char *pid, pid_t pgid)
{
	char path[64], buf[512];
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	const char *p = strrchr(buf, ')');
	char state;
	int ppid, pgrp;
	if (!p || sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
		return false;
	return pgrp == pgid && state != 'Z' && state != 'X';
}

bool procgroup_alive(pid_t pgid)
{
	if (pgid <= 1)
		return false;
	if (kill(-pgid, 0) < 0 && errno != EPERM)
		return false;
	DIR *d = opendir("/proc");
	if (!d)
		return true;	/* no /proc: whatever is there counts */
	bool alive = false;
	struct dirent *de;
	while (!alive && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9')
			alive = living_member(de->d_name, pgid);
	closedir(d);
	return alive;
}

int procgroup_kill(pid_t pgid, int sig)
{
	if (pgid <= 1)
		return -EINVAL;
	return kill(-pgid, sig) < 0 ? -errno : 0;
}
