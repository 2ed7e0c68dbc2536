/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Each connection owns a fixed input buffer (PROTO_MAX_REQUEST) and an output
 * buffer; writes that would block wait for EPOLLOUT. A client that sends
 * nothing is closed after CONTROL_IDLE_TIMEOUT_USEC; one that sends too much
 * gets an error reply and is closed. Nothing here blocks the loop.
 */
#include "control.h"

#include <grp.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "log.h"
#include "util.h"

typedef struct Conn Conn;

struct Control {
	sd_event *event;
	sd_event_source *listen_source;
	int listen_fd;
	char *path;		/* unlinked on free if we bound it */
	ControlHandler handler;
	void *userdata;
	Conn *conns;
	unsigned n_conns;
};

struct Conn {
	Control *ctl;
	Conn *next, *prev;
	int fd;
	struct ucred peer;
	sd_event_source *io, *idle;
	char in[PROTO_MAX_REQUEST];
	size_t in_len;
	Buf out;
	size_t out_off;
	bool closing;		/* close once the output is flushed */
};

static void conn_free(Conn *c)
{
	if (!c)
		return;
	if (c->prev)
		c->prev->next = c->next;
	else
		c->ctl->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->ctl->n_conns--;
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->idle);
	close(c->fd);
	buf_free(&c->out);
	free(c);
}

static void conn_touch(Conn *c)
{
	uint64_t now;
	sd_event_now(c->ctl->event, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(c->idle, now + CONTROL_IDLE_TIMEOUT_USEC);
	sd_event_source_set_enabled(c->idle, SD_EVENT_ONESHOT);
}

/* Writes what it can; returns <0 when the connection is finished with. */
static int conn_flush(Conn *c)
{
	while (c->out_off < c->out.len) {
		ssize_t k = write(c->fd, c->out.data + c->out_off, c->out.len - c->out_off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN) {
			sd_event_source_set_io_events(c->io, EPOLLIN | EPOLLOUT);
			return 0;
		}
		if (k < 0)
			return -errno;
		c->out_off += (size_t)k;
	}
	buf_free(&c->out);
	c->out_off = 0;
	sd_event_source_set_io_events(c->io, EPOLLIN);
	return c->closing ? -ECONNRESET : 0;
}

static void conn_queue(Conn *c, char *line)
{
	if (!line) {
		line = proto_encode_error(PROTO_ERR_INTERNAL, "out of memory");
		c->closing = true;
	}
	if (line) {
		if (c->out.len + strlen(line) > PROTO_MAX_REPLY)
			c->closing = true;	/* a client that never reads cannot grow us forever */
		else
			buf_put(&c->out, line, strlen(line));
		free(line);
	}
}

static void conn_handle_line(Conn *c, const char *line, size_t len)
{
	_cleanup_free_ char *cmd = NULL, *msg = NULL;
	json_object *args = NULL, *result = NULL;
	ProtoError err = PROTO_ERR_INTERNAL;

	if (proto_decode_request(line, len, &cmd, &args, &err, &msg) < 0) {
		log_debug("control: bad request from pid %d: %s", (int)c->peer.pid, msg ? msg : "?");
		conn_queue(c, proto_encode_error(err, msg));
		return;
	}
	int r = c->ctl->handler(c->ctl->userdata, cmd, args, &c->peer, &result, &err, &msg);
	json_object_put(args);
	conn_queue(c, r < 0 ? proto_encode_error(err, msg) : proto_encode_ok(result));
}

static int conn_read(Conn *c)
{
	ssize_t k = read(c->fd, c->in + c->in_len, sizeof c->in - c->in_len);
	if (k < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (k == 0)
		return -ECONNRESET;	/* a half-sent request is simply dropped */
	c->in_len += (size_t)k;

	char *nl;
	while (!c->closing && (nl = memchr(c->in, '\n', c->in_len))) {
		size_t len = (size_t)(nl - c->in) + 1;
		conn_handle_line(c, c->in, len);
		memmove(c->in, c->in + len, c->in_len - len);
		c->in_len -= len;
	}
	if (c->in_len == sizeof c->in) {
		conn_queue(c, proto_encode_error(PROTO_ERR_TOO_LARGE, "request larger than 8192 bytes"));
		c->closing = true;
		c->in_len = 0;
	}
	return 0;
}

static int on_conn_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Conn *c = userdata;
	(void)s, (void)fd;
	int r = 0;
	if (revents & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
		if (!c->closing)
			r = conn_read(c);
		else if (revents & (EPOLLHUP | EPOLLERR))
			r = -ECONNRESET;
	}
	if (r >= 0)
		r = conn_flush(c);
	if (r < 0) {
		conn_free(c);
		return 0;
	}
	conn_touch(c);
	return 0;
}

static int on_conn_idle(sd_event_source *s, uint64_t usec, void *userdata)
{
	(void)s, (void)usec;
	conn_free(userdata);
	return 0;
}

static void refuse_busy(int fd)
{
	_cleanup_free_ char *line = proto_encode_error(PROTO_ERR_BUSY, "too many clients, try again");
	/* Best effort: the client sees the close either way. */
	if (line)
		(void)!write(fd, line, strlen(line));
	close(fd);
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Control *ctl = userdata;
	(void)s, (void)revents;
	for (;;) {
		int cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (cfd < 0)
			return 0;
		if (ctl->n_conns >= CONTROL_MAX_CLIENTS) {
			refuse_busy(cfd);
			continue;
		}
		Conn *c = calloc(1, sizeof *c);
		if (!c) {
			close(cfd);
			continue;
		}
		*c = (Conn){.ctl = ctl, .fd = cfd, .next = ctl->conns};
		socklen_t sl = sizeof c->peer;
		if (getsockopt(cfd, SOL_SOCKET, SO_PEERCRED, &c->peer, &sl) < 0)
			c->peer = (struct ucred){.pid = 0, .uid = (uid_t)-1, .gid = (gid_t)-1};
		if (ctl->conns)
			ctl->conns->prev = c;
		ctl->conns = c;
		ctl->n_conns++;
		if (sd_event_add_io(ctl->event, &c->io, cfd, EPOLLIN, on_conn_io, c) < 0 ||
		    sd_event_add_time(ctl->event, &c->idle, CLOCK_MONOTONIC, 0, 100000, on_conn_idle, c) < 0) {
			conn_free(c);
			continue;
		}
		conn_touch(c);
	}
}

static int bind_socket(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof sa.sun_path)
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);

	_cleanup_free_ char *dir = strdup(path);
	if (!dir)
		return -ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	/* Replace a stale socket from a previous run, never any other file. */
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return -EEXIST;
		unlink(path);
	}
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	mode_t old = umask(0117);	/* 0660: the group may read, others may not connect */
	int r = bind(fd, (struct sockaddr *)&sa, sizeof sa);
	umask(old);
	if (r < 0 || listen(fd, 16) < 0)
		return -errno;
	return TAKE_FD(fd);
}

Control *control_free(Control *ctl)
{
	if (!ctl)
		return NULL;
	while (ctl->conns)
		conn_free(ctl->conns);
	sd_event_source_disable_unref(ctl->listen_source);
	if (ctl->listen_fd >= 0)
		close(ctl->listen_fd);
	if (ctl->path)
		unlink(ctl->path);
	free(ctl->path);
	sd_event_unref(ctl->event);
	free(ctl);
	return NULL;
}

static void control_freep(Control **c) { control_free(*c); }

int control_new(sd_event *e, const char *path, int fd, const char *group, ControlHandler handler,
		void *userdata, Control **ret)
{
	_cleanup_(control_freep) Control *ctl = calloc(1, sizeof *ctl);
	if (!ctl)
		return -ENOMEM;
	*ctl = (Control){.event = sd_event_ref(e), .listen_fd = -1, .handler = handler, .userdata = userdata};
	if (fd < 0) {
		fd = bind_socket(path);
		if (fd < 0)
			return fd;
		ctl->path = strdup(path);
		struct group *g = group && *group ? getgrnam(group) : NULL;
		/* smrctl users are that group's members; a missing group is not an error */
		if (g && chown(path, (uid_t)-1, g->gr_gid) < 0)
			log_warning_errno(-errno, "Cannot give %s to group %s: %m", path, group);
	} else {
		/* an inherited socket: the service manager owns its path and mode */
		int fl = fcntl(fd, F_GETFL);
		if (fl >= 0)
			fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	}
	ctl->listen_fd = fd;
	int r = sd_event_add_io(e, &ctl->listen_source, fd, EPOLLIN, on_accept, ctl);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(ctl);
	return 0;
}
