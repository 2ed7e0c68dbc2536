/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one place smrd writes log lines. The log level is process-wide state by
 * nature (like syslog's mask); everything else lives in the daemon context.
 */
#include "log.h"

#include <stdarg.h>

static int max_level = LOG_INFO;

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
	if (getenv("JOURNAL_STREAM"))
		fprintf(stderr, "<%d>%s\n", level, msg);
	else
		fprintf(stderr, "smrd[%s]: %s\n", names[level & 7], msg);
	errno = saved;
	return r < 0 ? r : -r;
}
