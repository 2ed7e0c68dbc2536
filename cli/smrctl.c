/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl: asks a running smrd over its control socket and prints the answer.
 * Commands come from one table; output goes through output.c.
 * Exit codes: 0 ok, 1 the daemon refused the request, 2 usage, 3 no daemon.
 */
#include <getopt.h>
#include <time.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "output.h"
#include "protocol.h"
#include "util.h"

#define SMRCTL_TIMEOUT_MS 10000
#define EXIT_REFUSED 1
#define EXIT_USAGE 2
#define EXIT_NO_DAEMON 3

typedef struct Command {
	const char *name;
	unsigned n_args;
	const char *args_help;
	void (*render)(FILE *f, json_object *r);
	const char *help;
} Command;

static const Command commands[] = {
	{"status", 0, "", output_status, "daemon state, sampling, disks by class"},
	{"disks", 0, "", output_disks, "one line per watched disk: class, SMR confidence, rates, latency"},
	{"show", 1, "DEVICE", output_show, "one disk in depth: verdict with every piece of evidence, latency, counters"},
	{"top", 0, "", output_top, "a line per disk every second, like iostat: rates, p50/p99 per op (--count N)"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: smrctl [--socket PATH] [--json] COMMAND [ARGS]\n\nCommands:\n");
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		fprintf(f, "  %-6s %-8s %s\n", commands[i].name, commands[i].args_help, commands[i].help);
	fprintf(f, "\nOptions:\n  --socket PATH  smrd's control socket (default /run/smrd/smrd.sock)\n"
		   "  --json         print the daemon's reply as JSON\n"
		   "  --count N      top: print N screens, then exit\n");
}

static int connect_daemon(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		int r = -errno;
		close(fd);
		return r;
	}
	return fd;
}

static int wait_fd(int fd, short events)
{
	struct pollfd p = {.fd = fd, .events = events};
	int r = poll(&p, 1, SMRCTL_TIMEOUT_MS);
	return r < 0 ? -errno : r == 0 ? -ETIMEDOUT : 0;
}

static int send_all(int fd, const char *s)
{
	size_t len = strlen(s);
	for (size_t off = 0; off < len;) {
		int r = wait_fd(fd, POLLOUT);
		if (r < 0)
			return r;
		ssize_t k = send(fd, s + off, len - off, MSG_NOSIGNAL);
		if (k < 0 && errno != EINTR)
			return -errno;
		off += k > 0 ? (size_t)k : 0;
	}
	return 0;
}

/* Reads one reply line. */
static int recv_line(int fd, char **ret)
{
	Buf b = {0};
	for (;;) {
		char chunk[4096];
		int r = wait_fd(fd, POLLIN);
		if (r < 0) {
			buf_free(&b);
			return r;
		}
		ssize_t k = read(fd, chunk, sizeof chunk);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			buf_free(&b);
			return k < 0 ? -errno : -ECONNRESET;
		}
		buf_put(&b, chunk, (size_t)k);
		if (b.oom || b.len > PROTO_MAX_REPLY) {
			buf_free(&b);
			return -EMSGSIZE;
		}
		if (memchr(chunk, '\n', (size_t)k)) {
			*ret = b.data;
			return 0;
		}
	}
}

static int call(const char *socket_path, const char *cmd, json_object *args, json_object **ret)
{
	_cleanup_close_ int fd = connect_daemon(socket_path);
	if (fd < 0) {
		fprintf(stderr, "smrctl: cannot reach smrd at %s: %s (is smrd running? see --socket)\n",
			socket_path, strerror(-fd));
		return EXIT_NO_DAEMON;
	}
	_cleanup_free_ char *req = proto_encode_request(cmd, args), *line = NULL;
	int r = req ? send_all(fd, req) : -ENOMEM;
	if (r >= 0)
		r = recv_line(fd, &line);
	if (r < 0) {
		fprintf(stderr, "smrctl: no answer from smrd at %s: %s\n", socket_path, strerror(-r));
		return EXIT_NO_DAEMON;
	}
	_cleanup_free_ char *code = NULL, *msg = NULL;
	r = proto_decode_reply(line, ret, &code, &msg);
	if (r == -EREMOTE) {
		fprintf(stderr, "smrctl: %s: %s\n", cmd, msg && *msg ? msg : code);
		return EXIT_REFUSED;
	}
	if (r < 0) {
		fprintf(stderr, "smrctl: malformed reply from smrd\n");
		return EXIT_NO_DAEMON;
	}
	return 0;
}

/* top asks for `disks` every second; on a terminal each screen replaces the last. */
static int top(const char *socket_path, bool json, long count)
{
	bool tty = isatty(STDOUT_FILENO) && !json;
	for (long i = 0; !count || i < count; i++) {
		if (i)
			sleep(1);
		json_object *result = NULL;
		int r = call(socket_path, "disks", NULL, &result);
		if (r != 0)
			return r;
		if (tty)
			printf("\033[H\033[2J");
		time_t now = time(NULL);
		char t[32];
		strftime(t, sizeof t, "%H:%M:%S", localtime(&now));
		if (json)
			output_json(stdout, result);
		else {
			printf("smrctl top  %s\n", t);
			output_top(stdout, result);
		}
		fflush(stdout);
		json_object_put(result);
	}
	return 0;
}

static json_object *build_args(const Command *c, char **argv)
{
	json_object *a = json_object_new_object();
	if (a && streq(c->name, "show"))
		json_object_object_add(a, "device", json_object_new_string(argv[0]));
	return a;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"socket", required_argument, NULL, 's'},
		{"json", no_argument, NULL, 'j'},
		{"count", required_argument, NULL, 'c'},
		{"help", no_argument, NULL, 'h'},
		{},
	};
	const char *socket_path = "/run/smrd/smrd.sock";
	bool json = false;
	long count = 0;		/* top: screens to print; 0 = until interrupted */
	int c;

	while ((c = getopt_long(argc, argv, "+hj", opts, NULL)) >= 0)
		switch (c) {
		case 's': socket_path = optarg; break;
		case 'j': json = true; break;
		case 'c': {
			char *e;
			count = strtol(optarg, &e, 10);
			if (*e || count < 1) {
				fprintf(stderr, "smrctl: --count takes a positive number\n");
				return EXIT_USAGE;
			}
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	/* --json and --count are also accepted after the command, as users type them. */
	for (int i = optind; i < argc; i++) {
		int take = 0;
		if (streq(argv[i], "--json")) {
			json = true;
			take = 1;
		} else if (streq(argv[i], "--count") && i + 1 < argc) {
			char *e;
			count = strtol(argv[i + 1], &e, 10);
			if (*e || count < 1) {
				fprintf(stderr, "smrctl: --count takes a positive number\n");
				return EXIT_USAGE;
			}
			take = 2;
		}
		if (take) {
			memmove(argv + i, argv + i + take, (size_t)(argc - i - take) * sizeof *argv);
			argc -= take, i--;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const Command *cmd = NULL;
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(commands[i].name, argv[optind]))
			cmd = &commands[i];
	if (!cmd || (unsigned)(argc - optind - 1) != cmd->n_args) {
		fprintf(stderr, cmd ? "smrctl: %s takes %s\n" : "smrctl: unknown command '%s'%s\n",
			argv[optind], cmd ? cmd->args_help : "");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (streq(cmd->name, "top"))
		return top(socket_path, json, count);
	json_object *args = build_args(cmd, argv + optind + 1), *result = NULL;
	int r = call(socket_path, cmd->name, args, &result);
	json_object_put(args);
	if (r != 0)
		return r;
	if (json)
		output_json(stdout, result);
	else
		cmd->render(stdout, result);
	json_object_put(result);
	return 0;
}
