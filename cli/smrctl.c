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

#include "events.h"
#include "incidents.h"
#include "output.h"
#include "output-notify.h"
#include "qualify.h"
#include "since.h"
#include "protocol.h"
#include "util.h"
#include "zevent-cmd.h"

#define SMRCTL_TIMEOUT_MS 10000
#define EXIT_REFUSED 1
#define EXIT_USAGE 2
#define EXIT_NO_DAEMON 3
#define EXIT_RESTART_NEEDED 4	/* reloaded, but a changed option needs a restart */
#define EXIT_REBUILD_WARNING 1	/* rebuild-check: a warning */
#define EXIT_REBUILD_ERROR 2	/* rebuild-check: no answer (no such disk, no daemon, a bad target) */

/* Options that belong to one command or another (Command.options). */
enum {
	OPT_COUNT = 1 << 0,
	OPT_DEVICE = 1 << 1,
	OPT_SINCE = 1 << 2,
	OPT_FOLLOW = 1 << 3,
	OPT_LIMIT = 1 << 4,
	OPT_FOR = 1 << 5,
	OPT_KIND = 1 << 6,
	OPT_ALL = 1 << 7,
};

typedef struct Options {
	const char *socket_path;
	bool json, follow, help;
	long count;		/* top: screens to print; 0 = until interrupted */
	const char *device, *since;
	long limit;
	const char *ack_for;	/* ack --for: a span, or "forever" */
	const char *kind;	/* events --kind: an event kind; incidents --kind: an incident kind */
	bool all;		/* events --all: the rows alone, no incidents */
	unsigned given;		/* OPT_* seen on the command line */
} Options;

typedef struct Command Command;
struct Command {
	const char *name;
	unsigned n_args;
	const char *args_help;
	unsigned options;	/* OPT_* it takes */
	bool own_options;	/* parses everything after its name itself */
	/* A command smrctl runs itself (argv: the command's name, then its
	 * arguments); NULL: ask the daemon and render its reply. */
	int (*run)(const Command *c, int argc, char **argv, const Options *o);
	void (*render)(FILE *f, json_object *r);
	const char *help;
	unsigned n_optional;	/* arguments it may take after n_args */
	bool hidden;		/* an old name kept for a release: accepted, not listed */
};

static int run_top(const Command *c, int argc, char **argv, const Options *o);
static int run_qualify(const Command *c, int argc, char **argv, const Options *o);
static int run_zevent(const Command *c, int argc, char **argv, const Options *o);
static int run_notify_test(const Command *c, int argc, char **argv, const Options *o);
static int run_rebuild_check(const Command *c, int argc, char **argv, const Options *o);

static const Command commands[] = {
	{"status", 0, "", 0, false, NULL, output_status, "daemon state, sampling, disks by class", 0, false},
	{"disks", 0, "", 0, false, NULL, output_disks, "one line per watched disk: class, SMR confidence, rates, latency", 0, false},
	{"show", 1, "DEVICE", 0, false, NULL, output_show,
	 "one disk in depth: verdict with every piece of evidence, latency, counters", 0, false},
	{"top", 0, "", OPT_COUNT, false, run_top, output_top,
	 "a line per disk every second, like iostat: rates, p50/p99 per op", 0, false},
	{"events", 0, "", OPT_DEVICE | OPT_SINCE | OPT_FOLLOW | OPT_LIMIT | OPT_KIND | OPT_ALL, false, NULL, output_events,
	 "what happened: incidents (storms, rebuilds, slow I/Os) with their steps, and the other events", 0, false},
	{"incidents", 0, "", OPT_DEVICE | OPT_SINCE | OPT_LIMIT | OPT_KIND, false, NULL, output_incidents,
	 "storms, rebuilds and slow I/Os each as one incident: its span, counts, worst, steps", 0, false},
	{"reload", 0, "", 0, false, NULL, output_reload, "re-read smrd.conf (root)", 0, false},
	{"reread", 1, "DEVICE", 0, false, NULL, output_reread,
	 "re-read a disk's sysfs, VPD pages and udev data and classify it again (root)", 0, false},
	{"probe", 1, "DEVICE", 0, false, NULL, output_reread, "the old name of reread, kept for a release", 0, true},
	{"forget", 1, "DEVICE", 0, false, NULL, output_forget,
	 "reset a disk's detector state and delete its events, e.g. after replacing it (root)", 0, false},
	{"ack", 1, "DEVICE [KIND]", OPT_FOR, false, NULL, output_ack,
	 "stop notifying of a disk's KIND (storm-start, stall, ...), or all, for 24 h or --for, while its class "
	 "stays (root)", 1, false},
	{"unack", 1, "DEVICE [KIND]", 0, false, NULL, output_unack,
	 "withdraw an ack: notify of the disk's KIND, or all, again (root)", 1, false},
	{"acks", 0, "", 0, false, NULL, output_acks, "the acks in force: disk, kind, class, until when", 0, false},
	{"notify-test", 0, "", 0, false, run_notify_test, NULL,
	 "send one test notification through notify-command; show how the hook ended and what it printed (root)", 0,
	 false},
	{"qualify", 1, "DEVICE", 0, true, run_qualify, NULL,
	 "test a disk for hidden SMR: read-only, or --destructive (smrctl qualify --help)", 0, false},
	{"rebuild-check", 1, "DEVICE [POOL|MOUNT]", 0, false, run_rebuild_check, output_rebuild_check,
	 "before zpool replace (POOL or POOL/VDEV) or btrfs replace (its mount point): what a rebuild onto this disk "
	 "would write, how long, what to do (exit 0 fine, 1 warning, 2 error)", 1, false},
	{"rebuilds", 0, "", 0, false, NULL, output_rebuilds,
	 "rebuilds (ZFS resilvers, btrfs replaces) onto watched disks: progress, rate, ETA from the disk's model", 0, false},
	{"zevent", 0, "", 0, false, run_zevent, NULL,
	 "hand the ZFS event in zed's ZEVENT_* environment to smrd (what the zedlets run; root)", 0, true},
};

static const struct {
	unsigned opt;
	const char *name, *help;
} option_help[] = {
	{OPT_COUNT, "--count N", "print N screens, then exit"},
	{OPT_DEVICE, "--device D", "only this disk's"},
	{OPT_SINCE, "--since T", "since T, as journalctl takes it (2 hours ago, 1h30m ago, -30m, today, yesterday,\n"
					"               2026-11-30 07:15, @EPOCH; systemd.time(7))"},
	{OPT_FOLLOW, "--follow", "keep printing new ones (JSON Lines with --json)"},
	{OPT_LIMIT, "--limit N", "the newest N (default 1000)"},
	{OPT_FOR, "--for SPAN", "how long: 30m, 8h, 7d (default 24h), or forever (until smrctl unack)"},
	{OPT_KIND, "--kind K", "only these: an event kind (events: storm-start, stall, rebuild-warning, ...: its\n"
			       "               rows) or an incident kind (incidents: stalls, storm, rebuild)"},
	{OPT_ALL, "--all", "every row as stored, the incidents' steps among them, no incident lines"},
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: smrctl [--socket PATH] [--json] COMMAND [ARGS] [OPTIONS]\n\nCommands:\n");
	int width = 0;

	/* The column fits the longest arguments, so adding a command never breaks the alignment. */
	int name_width = 8;
	for (size_t i = 0; i < ELEMENTSOF(commands); i++) {
		width = (int)strlen(commands[i].args_help) > width ? (int)strlen(commands[i].args_help) : width;
		if (!commands[i].hidden && (int)strlen(commands[i].name) > name_width)
			name_width = (int)strlen(commands[i].name);
	}
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (!commands[i].hidden)
			fprintf(f, "  %-*s %-*s %s\n", name_width, commands[i].name, width, commands[i].args_help,
				commands[i].help);
	fprintf(f, "\nOptions:\n  --socket PATH  smrd's control socket (default /run/smrd/smrd.sock)\n"
		   "  --json         print the daemon's reply as JSON\n"
		   "  --help         this text; after a command, that command's\n"
		   "  --version      smrctl's version\n"
		   "\nsmrctl COMMAND --help lists a command's own options.\n");
}

static void command_usage(FILE *f, const Command *c)
{
	fprintf(f, "Usage: smrctl [--socket PATH] [--json] %s%s%s", c->name, *c->args_help ? " " : "", c->args_help);
	for (size_t i = 0; i < ELEMENTSOF(option_help); i++)
		if (c->options & option_help[i].opt)
			fprintf(f, " [%s]", option_help[i].name);
	fprintf(f, "\n\n%s\n", c->help);
	if (!c->options)
		return;
	fprintf(f, "\nOptions:\n");
	for (size_t i = 0; i < ELEMENTSOF(option_help); i++)
		if (c->options & option_help[i].opt)
			fprintf(f, "  %-12s %s\n", option_help[i].name, option_help[i].help);
}

static const Command *find_command(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(commands); i++)
		if (streq(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Non-blocking: a daemon that stopped accepting (its backlog full) must
 * not hang smrctl; the connect is retried until SMRCTL_TIMEOUT_MS. */
static int connect_daemon(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	for (int waited = 0;; waited += 50) {
		if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
			return TAKE_FD(fd);
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (waited >= SMRCTL_TIMEOUT_MS)
			return -ETIMEDOUT;
		poll(NULL, 0, 50);
	}
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
		if (k < 0 && errno != EINTR && errno != EAGAIN)
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
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
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

static void say_unreachable(const char *path, int r)
{
	if (r == -EACCES || r == -EPERM)
		fprintf(stderr, "smrctl: permission denied on %s: its group may use it (ls -l %s); run as root or "
				"as a member of that group (usually smrd)\n", path, path);
	else if (r == -ENOENT || r == -ECONNREFUSED)
		fprintf(stderr, "smrctl: cannot reach smrd at %s: %s (is smrd running? see --socket)\n", path, strerror(-r));
	else
		fprintf(stderr, "smrctl: cannot reach smrd at %s: %s\n", path, strerror(-r));
}

/* One request, one reply: 0 with *ret, -EREMOTE with the daemon's code and
 * message, or another -errno (said already). */
static int exchange(const char *socket_path, const char *cmd, json_object *args, json_object **ret, char **ret_code,
		    char **ret_msg)
{
	_cleanup_close_ int fd = connect_daemon(socket_path);
	if (fd < 0) {
		say_unreachable(socket_path, fd);
		return fd;
	}
	_cleanup_free_ char *req = proto_encode_request(cmd, args), *line = NULL;
	int r = req ? send_all(fd, req) : -ENOMEM;
	/* A daemon at its client limit answers "busy" and closes before it
	 * reads: the request then meets a closed socket, the answer is there. */
	if (r >= 0 || r == -EPIPE || r == -ECONNRESET) {
		int k = recv_line(fd, &line);
		r = r >= 0 || k >= 0 ? k : r;
	}
	if (r < 0) {
		fprintf(stderr, "smrctl: no answer from smrd at %s: %s\n", socket_path, strerror(-r));
		return r;
	}
	r = proto_decode_reply(line, ret, ret_code, ret_msg);
	if (r < 0 && r != -EREMOTE)
		fprintf(stderr, "smrctl: malformed reply from smrd\n");
	return r;
}

/* A daemon at its client limit says "busy": that is worth a retry, for as
 * long as smrctl waits for any answer. */
static int call(const char *socket_path, const char *cmd, json_object *args, json_object **ret)
{
	for (int waited = 0;; waited += 100) {
		_cleanup_free_ char *code = NULL, *msg = NULL;
		int r = exchange(socket_path, cmd, args, ret, &code, &msg);
		if (r == -EREMOTE && streq_ptr(code, "busy") && waited < SMRCTL_TIMEOUT_MS) {
			poll(NULL, 0, 100);
			continue;
		}
		if (r == -EREMOTE) {
			_cleanup_free_ char *safe = output_escape(msg && *msg ? msg : code ? code : "");
			fprintf(stderr, "smrctl: %s: %s\n", cmd, safe);
			return EXIT_REFUSED;
		}
		/* permission denied: a daemon is there and refused us (1, as
		 * the man page says), not "no daemon" (3) */
		return r == -EACCES || r == -EPERM ? EXIT_REFUSED : r < 0 ? EXIT_NO_DAEMON : 0;
	}
}

/* top asks for `disks` every second; on a terminal each screen replaces the last. */
static int run_top(const Command *c, int argc, char **argv, const Options *o)
{
	(void)c, (void)argc, (void)argv;
	bool tty = isatty(STDOUT_FILENO) && !o->json;
	for (long i = 0; !o->count || i < o->count; i++) {
		if (i)
			sleep(1);
		json_object *result = NULL;
		int r = call(o->socket_path, "disks", NULL, &result);
		if (r != 0)
			return r;
		if (tty)
			printf("\033[H\033[2J");
		time_t now = time(NULL);
		char t[32];
		strftime(t, sizeof t, "%H:%M:%S", localtime(&now));
		if (o->json)
			output_json(stdout, result);
		else {
			printf("smrctl top  %s\n", t);
			output_make_safe(result);
			output_top(stdout, result);
		}
		fflush(stdout);
		json_object_put(result);
	}
	return 0;
}

/* qualify runs here, not in the daemon, and parses its own options. */
static int run_qualify(const Command *c, int argc, char **argv, const Options *o)
{
	(void)c;
	return qualify_main(argc, argv, o->json);
}

/* zevent reads its event from the environment zed gave the zedlet. */
static int run_zevent(const Command *c, int argc, char **argv, const Options *o)
{
	(void)c, (void)argc, (void)argv;
	return zevent_main(o->socket_path, environ, o->json);
}

/* notify-test: started, then asked after until the hook ended (it may run
 * notify-timeout, longer than one reply is waited for). Exits 0 when the
 * hook exited 0, else EXIT_REFUSED. */
static int run_notify_test(const Command *c, int argc, char **argv, const Options *o)
{
	(void)c, (void)argc, (void)argv;
	json_object *res = NULL, *none = json_object_new_object();
	int r = call(o->socket_path, "notify-test", none, &res);
	json_object_put(none);
	while (r == 0 && json_object_get_boolean(output_get(res, "running"))) {
		json_object *args = json_object_new_object();
		json_object_object_add(args, "id", json_object_new_int64((int64_t)output_num(res, "id")));
		json_object_put(res);
		res = NULL;
		(void)poll(NULL, 0, 200);
		r = call(o->socket_path, "notify-test", args, &res);
		json_object_put(args);
	}
	if (r != 0)
		return r;
	json_object *st = output_get(res, "exit_status");
	bool ok = st && json_object_get_int(st) == 0;
	if (o->json)
		output_json(stdout, res);
	else
		output_notify_test(stdout, res);	/* escapes what it prints */
	json_object_put(res);
	return ok ? 0 : EXIT_REFUSED;
}

/* rebuild-check gates a script: 0 fine, 1 warning, 2 error. While smrd
 * reads the pool's figures (zpool, in the background) it is asked again. */
static int run_rebuild_check(const Command *c, int argc, char **argv, const Options *o)
{
	(void)c;
	json_object *args = json_object_new_object(), *result = NULL;
	json_object_object_add(args, "device", json_object_new_string(argv[1]));
	if (argc > 2)
		json_object_object_add(args, "target", json_object_new_string(argv[2]));
	int r = 0;
	for (int waited = 0;; waited += 250) {
		r = call(o->socket_path, "rebuild-check", args, &result);
		json_object *w = r == 0 ? output_get(result, "waiting") : NULL;
		if (r != 0 || !w || !json_object_get_boolean(w) || waited >= SMRCTL_TIMEOUT_MS)
			break;
		json_object_put(result);
		result = NULL;
		poll(NULL, 0, 250);
	}
	json_object_put(args);
	if (r != 0)
		return EXIT_REBUILD_ERROR;
	if (o->json)
		output_json(stdout, result);
	else {
		output_make_safe(result);
		output_rebuild_check(stdout, result);
	}
	bool warn = streq(output_str(result, "verdict"), "warning");
	json_object_put(result);
	return warn ? EXIT_REBUILD_WARNING : 0;
}

static json_object *build_args(const Command *c, char **argv, const Options *o, double since)
{
	json_object *a = json_object_new_object();
	if (!a)
		return NULL;
	if (c->n_args == 1)	/* show, probe, forget, ack */
		json_object_object_add(a, "device", json_object_new_string(argv[0]));
	if (c->n_optional && argv[c->n_args])	/* ack's KIND */
		json_object_object_add(a, "kind", json_object_new_string(argv[c->n_args]));
	if (o->device)
		json_object_object_add(a, "device", json_object_new_string(o->device));
	if (o->since)
		json_object_object_add(a, "since", json_number(since, 6));
	if (o->limit)
		json_object_object_add(a, "limit", json_object_new_int64(o->limit));
	if (o->kind)
		json_object_object_add(a, "kind", json_object_new_string(o->kind));
	if (o->all)
		json_object_object_add(a, "all", json_object_new_boolean(true));
	return a;
}

/* events --follow: what is there, then every new event, polling once a
 * second by id; a daemon restart is waited out, not fatal. */
static int follow(const char *socket_path, json_object *args, bool json)
{
	int64_t after = -1;
	bool gone = false;
	for (;;) {
		json_object *result = NULL;
		if (after >= 0)
			json_object_object_add(args, "after", json_object_new_int64(after));
		int r = call(socket_path, "events", args, &result);
		if (r == EXIT_REFUSED)
			return r;
		if (r != 0) {
			if (!gone)
				fprintf(stderr, "smrctl: waiting for smrd to come back\n");
			gone = true;
			sleep(1);
			continue;
		}
		gone = false;
		json_object *a = NULL;
		json_object_object_get_ex(result, "events", &a);
		size_t n = a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
		for (size_t i = 0; i < n; i++) {
			json_object *e = json_object_array_get_idx(a, i), *id;
			if (json_object_object_get_ex(e, "id", &id) && json_object_get_int64(id) > after)
				after = json_object_get_int64(id);
		}
		if (after < 0)
			after = 0;
		if (json) {
			for (size_t i = 0; i < n; i++)
				printf("%s\n", json_object_to_json_string_ext(json_object_array_get_idx(a, i),
									      JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
		} else {
			json_object_object_del(result, "persistent");	/* no "-- No events --" every second */
			output_make_safe(result);
			output_events(stdout, result);
		}
		fflush(stdout);
		json_object_put(result);
		sleep(1);
	}
}

static int parse_count(const char *s, const char *what, long *ret)
{
	char *e;
	*ret = strtol(s, &e, 10);
	if (*e || *ret < 1 || (streq(what, "--limit") && *ret > 10000)) {
		fprintf(stderr, "smrctl: %s takes a positive number%s\n", what,
			streq(what, "--limit") ? " up to 10000" : "");
		return -EINVAL;
	}
	return 0;
}

static const struct option long_options[] = {
	{"socket", required_argument, NULL, 's'},
	{"json", no_argument, NULL, 'j'},
	{"count", required_argument, NULL, 'c'},
	{"device", required_argument, NULL, 'd'},
	{"since", required_argument, NULL, 'S'},
	{"follow", no_argument, NULL, 'f'},
	{"limit", required_argument, NULL, 'l'},
	{"for", required_argument, NULL, 'F'},
	{"kind", required_argument, NULL, 'k'},
	{"all", no_argument, NULL, 'a'},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{},
};

/* Where the command's name is in argv (0 if none): the first word that is
 * neither an option nor an option's value. */
static int command_index(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (streq(argv[i], "--"))
			return i + 1 < argc ? i + 1 : 0;
		if (argv[i][0] != '-' || !argv[i][1])
			return i;
		if (startswith(argv[i], "--") && !strchr(argv[i], '='))
			for (const struct option *o = long_options; o->name; o++)
				if (streq(argv[i] + 2, o->name) && o->has_arg == required_argument)
					i++;
	}
	return 0;
}

/* Global options, and the command's own, before or after the command, as
 * users type them; positional words into pos. -1 after a usage error
 * (said), 1 when --help or --version was answered. */
static int parse_options(int argc, char **argv, Options *o, char **pos, int max_pos, int *ret_npos)
{
	int c, npos = 0;
	optind = 0;	/* 0, not 1: glibc forgets an earlier scan of another argv only then */
	opterr = 1;
	while ((c = getopt_long(argc, argv, "-hjf", long_options, NULL)) >= 0)
		switch (c) {
		case 1:
			if (npos == max_pos) {
				fprintf(stderr, "smrctl: too many arguments\n");
				return -1;
			}
			pos[npos++] = optarg;
			break;
		case 's': o->socket_path = optarg; break;
		case 'j': o->json = true; break;
		case 'f': o->follow = true; o->given |= OPT_FOLLOW; break;
		case 'd': o->device = optarg; o->given |= OPT_DEVICE; break;
		case 'S': o->since = optarg; o->given |= OPT_SINCE; break;
		case 'F': o->ack_for = optarg; o->given |= OPT_FOR; break;
		case 'k': o->kind = optarg; o->given |= OPT_KIND; break;
		case 'a': o->all = true; o->given |= OPT_ALL; break;
		case 'c':
			o->given |= OPT_COUNT;
			if (parse_count(optarg, "--count", &o->count) < 0)
				return -1;
			break;
		case 'l':
			o->given |= OPT_LIMIT;
			if (parse_count(optarg, "--limit", &o->limit) < 0)
				return -1;
			break;
		case 'h': o->help = true; break;
		case 'V': printf("smrctl %s\n", SMRD_VERSION); return 1;
		default: usage(stderr); return -1;
		}
	*ret_npos = npos;
	return 0;
}

/* The command's own options, said by name when one does not belong. */
static int check_options(const Command *cmd, const Options *o)
{
	for (size_t i = 0; i < ELEMENTSOF(option_help); i++) {
		unsigned opt = option_help[i].opt;
		if (!(o->given & opt) || (cmd->options & opt))
			continue;
		char name[32];
		snprintf(name, sizeof name, "%s", option_help[i].name);
		name[strcspn(name, " ")] = 0;
		const Command *owner = NULL;
		for (size_t k = 0; k < ELEMENTSOF(commands) && !owner; k++)
			if (commands[k].options & opt)
				owner = &commands[k];
		fprintf(stderr, "smrctl: %s goes with %s, not %s (smrctl %s --help)\n", name, owner ? owner->name : "?",
			cmd->name, cmd->name);
		return -EINVAL;
	}
	return 0;
}

int main(int argc, char **argv)
{
	Options o = {.socket_path = "/run/smrd/smrd.sock"};
	int at = command_index(argc, argv);
	const Command *cmd = at ? find_command(argv[at]) : NULL;

	/* A command that parses its own options gets everything after its
	 * name; before it only smrctl's global options may stand. */
	if (cmd && cmd->own_options) {
		char *pos[1];
		int npos, r = parse_options(at, argv, &o, pos, 0, &npos);
		if (r)
			return r > 0 ? 0 : EXIT_USAGE;
		if (check_options(cmd, &o) < 0)
			return EXIT_USAGE;
		if (o.help) {	/* smrctl --help qualify */
			char *help[] = {argv[at], (char *)"--help", NULL};
			return cmd->run(cmd, 2, help, &o);
		}
		return cmd->run(cmd, argc - at, argv + at, &o);
	}

	char *pos[8] = {0};
	int npos, r = parse_options(argc, argv, &o, pos, (int)ELEMENTSOF(pos), &npos);
	if (r)
		return r > 0 ? 0 : EXIT_USAGE;
	if (npos == 0) {
		usage(o.help ? stdout : stderr);
		return o.help ? 0 : EXIT_USAGE;
	}
	cmd = find_command(pos[0]);
	if (!cmd) {
		fprintf(stderr, "smrctl: unknown command '%s'\n", pos[0]);
		usage(stderr);
		return EXIT_USAGE;
	}
	if (o.help) {
		command_usage(stdout, cmd);
		return 0;
	}
	if ((unsigned)(npos - 1) < cmd->n_args || (unsigned)(npos - 1) > cmd->n_args + cmd->n_optional) {
		fprintf(stderr, "smrctl: %s takes %s\n", cmd->name, *cmd->args_help ? cmd->args_help : "no arguments");
		command_usage(stderr, cmd);
		return EXIT_USAGE;
	}
	if (check_options(cmd, &o) < 0)
		return EXIT_USAGE;
	/* a kind that does not exist is a usage error, told before asking */
	if ((streq(cmd->name, "ack") || streq(cmd->name, "unack")) && npos > 2 && !streq(pos[2], "all") &&
	    detect_event_kind_from_string(pos[2]) < 0) {
		fprintf(stderr, "smrctl: %s: '%s' is not an event kind: storm-start, storm-end, stall, timeout-risk, "
			"bands, behaviour, stall-imminent, rebuild-warning or all\n", cmd->name, pos[2]);
		return EXIT_USAGE;
	}
	if (o.kind && (streq(cmd->name, "events") ? detect_event_kind_from_string(o.kind) < 0
						  : incident_kind_from_string(o.kind) < 0)) {
		fprintf(stderr, "smrctl: --kind '%s' is not %s\n", o.kind, streq(cmd->name, "events")
			? "an event kind (storm-start, storm-end, stall, rebuild-warning, zfs-delay, ...: docs/detection.md)"
			: "an incident kind: stalls, storm or rebuild");
		return EXIT_USAGE;
	}
	if (streq(cmd->name, "probe"))	/* on stderr: a script reading stdout is not broken by it */
		fprintf(stderr, "smrctl: 'probe' is now 'reread'; the old name goes in the next release\n");
	double since = 0;
	double ack_for = -1;
	if (o.ack_for && output_parse_for(o.ack_for, &ack_for) < 0) {
		fprintf(stderr, "smrctl: --for '%s': use e.g. 30m, 8h, 7d (at most a year), or forever\n", o.ack_for);
		return EXIT_USAGE;
	}
	if (o.since && parse_since(o.since, time(NULL), &since) < 0) {
		fprintf(stderr, "smrctl: --since '%s': use e.g. 1h, 30m ago, today, 2026-11-30 07:15, 07:15 or @EPOCH\n",
			o.since);
		return EXIT_USAGE;
	}
	if (cmd->run)
		return cmd->run(cmd, npos, pos, &o);
	json_object *args = build_args(cmd, pos + 1, &o, since), *result = NULL;
	if (args && ack_for >= 0)
		json_object_object_add(args, "for_seconds", json_number(ack_for, 0));
	if (o.follow) {
		r = follow(o.socket_path, args, o.json);
		json_object_put(args);
		return r;
	}
	r = call(o.socket_path, cmd->name, args, &result);
	json_object_put(args);
	if (r != 0)
		return r;
	if (o.json)
		output_json(stdout, result);
	else {
		output_make_safe(result);
		cmd->render(stdout, result);
	}
	r = streq(cmd->name, "reload") && output_reload_incomplete(result) ? EXIT_RESTART_NEEDED : 0;
	json_object_put(result);
	return r;
}
