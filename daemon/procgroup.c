/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Process groups by kill(-pgid): signal 0 says whether any process is left
 * in one, and /proc tells a zombie from the living (read only when one is).
 */
#include "procgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


bool procgroup_stat(const char *pid, char *ret_state, pid_t *ret_ppid, pid_t *ret_pgrp)
{
	char path[300], buf[512];
	snprintf(path, sizeof path, "/proc/%s/stat", pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	/* after the last ')': a command name may hold one */
	const char *p = strrchr(buf, ')');
	char state;
	int pp, pg;
	if (!p || sscanf(p + 1, " %c %d %d", &state, &pp, &pg) != 3)
		return false;
	*ret_state = state, *ret_ppid = pp, *ret_pgrp = pg;
	return true;
}

static bool living_member(const char *pid, pid_t pgid)
{
	char state;
	pid_t ppid, pgrp;
	return procgroup_stat(pid, &state, &ppid, &pgrp) && pgrp == pgid && state != 'Z' && state != 'X';
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

int procgroup_spawn(char *const argv[], char *const env[], bool search, bool with_stderr, pid_t *ret_pid,
		    int *ret_out)
{
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	if (with_stderr)
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDERR_FILENO);
	else
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	/* ours are close-on-exec; what smrd inherited without it (a caller's
	 * lock, a pipe) is not the child's */
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	/* the daemon blocks the signals sd-event handles; a child must not inherit that */
	sigset_t none, all;
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &all);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
	int r = (search ? posix_spawnp : posix_spawn)(ret_pid, argv[0], &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pipefd[1]);
	if (r) {
		close(pipefd[0]);
		*ret_pid = 0;
		return -r;
	}
	*ret_out = pipefd[0];
	fcntl(*ret_out, F_SETFL, O_NONBLOCK);
	return 0;
}
