/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place smrd writes log lines. The log level is process-wide state by
 * nature (like syslog's mask); everything else lives in the daemon context.
 */
#include "log.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static int max_level = LOG_INFO;

bool log_stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	uintmax_t dev, ino;
	struct stat st;
	if (!e || sscanf(e, "%ju:%ju", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (uintmax_t)st.st_dev == dev && (uintmax_t)st.st_ino == ino;
}

void log_set_max_level(int level) { max_level = level; }
int log_get_max_level(void) { return max_level; }

int log_full_errno(int level, int r, const char *fmt, ...)
{
	if (level > max_level)
		return r < 0 ? r : -r;
	int saved = errno;
	char msg[2048];
	if (r != 0)
		errno = r < 0 ? -r : r;	/* so %m names the error we were given */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	static const char *const names[] = {"emerg", "alert", "crit", "error",
					    "warning", "notice", "info", "debug"};
	/* one line, whatever a message carries (a mount point's newline, a
	 * pool's escape sequence): journald takes each line, and a leading
	 * <N>, for an entry of its own */
	char line[sizeof msg * 2];
	str_escape_control(msg, line, sizeof line);
	if (log_stderr_is_journal())
		fprintf(stderr, "<%d>%s\n", level, line);
	else
		fprintf(stderr, "smrd[%s]: %s\n", names[level & 7], line);
	errno = saved;
	return r < 0 ? r : -r;
}
