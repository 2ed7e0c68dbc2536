/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The service handle alone, with the test as the service manager: a
 * datagram socket as NOTIFY_SOCKET that records what smrd says, the
 * watchdog asked for through WATCHDOG_USEC, and sockets passed as
 * LISTEN_FDS with their names.
 */
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include "log.h"
#include "service.h"
#include "test.h"
#include "unit-tree.h"

/* Every datagram waiting on fd, joined by '|'. */
static void drain(int fd, char *buf, size_t n)
{
	buf[0] = 0;
	for (;;) {
		char m[1024];
		ssize_t k = recv(fd, m, sizeof m - 1, MSG_DONTWAIT);
		if (k <= 0)
			return;
		m[k] = 0;
		size_t len = strlen(buf);
		snprintf(buf + len, n - len, "%s%s", len ? "|" : "", m);
	}
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static int listening(int domain)
{
	int fd = socket(domain, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	struct sockaddr_un un = {.sun_family = AF_UNIX};	/* autobind: an abstract name */
	int r = domain == AF_INET ? bind(fd, (struct sockaddr *)&in, sizeof in)
				  : bind(fd, (struct sockaddr *)&un, sizeof(sa_family_t));
	if (r < 0 || listen(fd, 4) < 0) {
		close(fd);
		return -1;
	}
	/* above the fds the test lays out as the manager's (3, 4, 5) */
	int high = fcntl(fd, F_DUPFD_CLOEXEC, 10);
	close(fd);
	return high;
}

/* Runs first: fds 3-5 must be free for the manager's layout. */
static void test_listen_fds(void)
{
	for (int fd = 3; fd <= 5; fd++)
		CHECK(fcntl(fd, F_GETFD) < 0);
	int unix_fd = listening(AF_UNIX), inet_fd = listening(AF_INET), pipe_fds[2];
	CHECK(unix_fd >= 0 && inet_fd >= 0);
	CHECK_INT(pipe(pipe_fds), 0);
	for (int i = 0; i < 2; i++) {
		int high = fcntl(pipe_fds[i], F_DUPFD_CLOEXEC, 10);
		close(pipe_fds[i]);
		pipe_fds[i] = high;
	}
	/* the manager's layout: fds 3, 4, 5 in the order of LISTEN_FDNAMES */
	CHECK_INT(dup2(inet_fd, 3), 3);
	CHECK_INT(dup2(unix_fd, 4), 4);
	CHECK_INT(dup2(pipe_fds[0], 5), 5);
	close(unix_fd), close(inet_fd), close(pipe_fds[0]), close(pipe_fds[1]);
	char pid[32];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "3", 1);
	setenv("LISTEN_FDNAMES", "http:control:junk", 1);
	int ctl = -2, http = -2;
	CHECK_INT(service_listen_fds(&ctl, &http), 0);
	CHECK_INT(ctl, 4);
	CHECK_INT(http, 3);
	CHECK(fcntl(5, F_GETFD) < 0);	/* the unknown one is closed, not leaked */
	CHECK(getenv("LISTEN_FDS") == NULL);
	close(3), close(4);

	/* unnamed: recognised by family */
	unix_fd = listening(AF_UNIX);
	CHECK_INT(dup2(unix_fd, 3), 3);
	close(unix_fd);
	setenv("LISTEN_PID", pid, 1);
	setenv("LISTEN_FDS", "1", 1);
	unsetenv("LISTEN_FDNAMES");
	CHECK_INT(service_listen_fds(&ctl, &http), 0);
	CHECK_INT(ctl, 3);
	CHECK_INT(http, -1);
	close(3);

	/* nothing passed */
	CHECK_INT(service_listen_fds(&ctl, &http), 0);
	CHECK_INT(ctl, -1);
	CHECK_INT(http, -1);
}

static void test_caps(void)
{
	/* in a child: the test keeps its own capabilities */
	pid_t pid = fork();
	if (pid == 0) {
		int first = service_drop_tracing_caps(), second = service_drop_tracing_caps();
		_exit(first == 1 && second == 0 ? 0 : 1);
	}
	int status = -1;
	CHECK_INT(waitpid(pid, &status, 0), pid);
	if (geteuid() == 0)
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

int main(void)
{
	log_set_max_level(LOG_CRIT);
	test_listen_fds();
	sd_event *e = NULL;
	CHECK_INT(sd_event_new(&e), 0);
	char said[8192];

	/* outside a service manager: nothing to say, nothing computed */
	unsetenv("NOTIFY_SOCKET");
	unsetenv("WATCHDOG_USEC");
	Service *s = NULL;
	CHECK_INT(service_new(e, &s), 0);
	CHECK(!service_wants_status(s));
	service_sampled(s, 1, 0, 0);
	s = service_free(s);

	/* the manager's notify socket */
	_cleanup_(unit_tree_freep) char *dir = unit_tree_empty();
	CHECK(dir != NULL);
	if (!dir)
		return test_done("daemon-service");
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s/notify", dir);
	int nfd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	CHECK_INT(bind(nfd, (struct sockaddr *)&a, sizeof a), 0);
	setenv("NOTIFY_SOCKET", a.sun_path, 1);

	CHECK_INT(service_new(e, &s), 0);
	CHECK(service_wants_status(s));
	service_sampled(s, 3, 1, 0);
	drain(nfd, said, sizeof said);
	CHECK_STR(said, "READY=1\nSTATUS=Watching 3 disks: 1 SMR suspect, 0 destage storms active");
	/* the same counts again: silence */
	service_sampled(s, 3, 1, 0);
	drain(nfd, said, sizeof said);
	CHECK_STR(said, "");
	/* a change: STATUS= only (READY=1 is said once) */
	service_sampled(s, 1, 1, 1);
	drain(nfd, said, sizeof said);
	CHECK_STR(said, "STATUS=Watching 1 disk: 1 SMR suspect, 1 destage storm active");
	/* a reload: RELOADING=1 with the clock systemd checks, then READY=1 */
	service_reloading(s);
	service_reloaded(s, 2, 0, 0, NULL);
	drain(nfd, said, sizeof said);
	CHECK(startswith(said, "RELOADING=1\nSTATUS=Reloading the configuration\nMONOTONIC_USEC="));
	CHECK(strstr(said, "|READY=1\nSTATUS=Watching 2 disks: 0 SMR suspects, 0 destage storms active") != NULL);
	/* what the reload said is remembered: the next equal sample is silent */
	service_sampled(s, 2, 0, 0);
	drain(nfd, said, sizeof said);
	CHECK_STR(said, "");
	/* a failed reload says why in STATUS=, and keeps saying it until one succeeds */
	service_reloading(s);
	service_reloaded(s, 2, 0, 0, "/etc/smrd/smrd.conf:3: unknown key 'intervall'");
	drain(nfd, said, sizeof said);
	CHECK(strstr(said, "READY=1\nSTATUS=Watching 2 disks: 0 SMR suspects, 0 destage storms active; the last reload "
			   "FAILED: /etc/smrd/smrd.conf:3: unknown key 'intervall'") != NULL);
	service_sampled(s, 3, 0, 0);
	drain(nfd, said, sizeof said);
	CHECK(strstr(said, "STATUS=Watching 3 disks") && strstr(said, "unknown key 'intervall'"));
	service_reloading(s);
	service_reloaded(s, 3, 0, 0, NULL);
	drain(nfd, said, sizeof said);
	CHECK(strstr(said, "READY=1\nSTATUS=Watching 3 disks") && !strstr(said, "FAILED"));
	service_stopping(s);
	drain(nfd, said, sizeof said);
	CHECK_STR(said, "STOPPING=1\nSTATUS=Stopping");
	s = service_free(s);

	/* the watchdog: WATCHDOG_USEC=400 ms is pinged every 100 ms from the loop */
	char pid[32];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	setenv("WATCHDOG_USEC", "400000", 1);
	setenv("WATCHDOG_PID", pid, 1);
	CHECK_INT(service_new(e, &s), 0);
	/* Three pings come at 0, 100 and 200 ms: never sooner (a period too
	 * short), and well within 10 s however loaded the machine. */
	uint64_t start = now_usec(CLOCK_MONOTONIC), end = start + 10000000;
	unsigned pings = 0;
	while (pings < 3 && now_usec(CLOCK_MONOTONIC) < end) {
		sd_event_run(e, 50000);
		drain(nfd, said, sizeof said);
		pings += count(said, "WATCHDOG=1");
	}
	double took = (double)(now_usec(CLOCK_MONOTONIC) - start) / 1e6;
	printf("watchdog: %u pings in %.3f s for WatchdogSec=400ms\n", pings, took);
	CHECK(pings >= 3);
	CHECK(took >= 0.19);
	s = service_free(s);
	/* a watchdog meant for another process is not ours */
	setenv("WATCHDOG_PID", "1", 1);
	CHECK_INT(service_new(e, &s), 0);
	for (int i = 0; i < 5; i++)
		sd_event_run(e, 50000);
	drain(nfd, said, sizeof said);
	CHECK_INT(count(said, "WATCHDOG=1"), 0);
	s = service_free(s);
	unsetenv("WATCHDOG_USEC");
	unsetenv("WATCHDOG_PID");
	unsetenv("NOTIFY_SOCKET");
	close(nfd);

	test_caps();
	sd_event_unref(e);
	return test_done("daemon-service");
}
