/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The state directory's walk and lock, in a temporary directory: one smrd
 * at a time (the second is told the first's pid), no link or directory of
 * another user's on the way, no state directory others may write. The
 * cases with another user's files need root (to chown them). */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "statedir.h"
#include "test.h"
#include "util.h"

#define NOBODY 65534

static int try(const char *path, char **ret_error)
{
	StateDir *d = NULL;
	free(*ret_error);
	*ret_error = NULL;
	int r = statedir_open(path, &d, NULL, ret_error);
	statedir_free(d);
	return r;
}

static void others(const char *dir)
{
	char p[512], q[512], *err = NULL;
	/* a link above the state directory, made by another user (finding 13 of the audit) */
	snprintf(p, sizeof p, "%s/theirs", dir);
	CHECK_INT(mkdir(p, 0755), 0);
	CHECK_INT(chown(p, NOBODY, NOBODY), 0);
	snprintf(q, sizeof q, "%s/link", dir);
	CHECK_INT(symlink(p, q), 0);
	CHECK_INT(lchown(q, NOBODY, NOBODY), 0);
	snprintf(q, sizeof q, "%s/link/state", dir);
	CHECK_INT(try(q, &err), -ELOOP);
	CHECK(err && strstr(err, "/link is a symbolic link made by uid 65534"));
	/* the directory it points to, named plainly: another user's */
	snprintf(q, sizeof q, "%s/theirs/state", dir);
	CHECK_INT(try(q, &err), -EPERM);
	CHECK(err && strstr(err, "/theirs belongs to uid 65534"));
	snprintf(q, sizeof q, "%s/theirs/state", dir);
	struct stat st;
	CHECK(stat(q, &st) < 0);	/* nothing was made in it */
	/* a link of root's in a directory of root's is followed */
	snprintf(p, sizeof p, "%s/ours", dir);
	snprintf(q, sizeof q, "%s/rootlink", dir);
	CHECK_INT(symlink("ours", q), 0);
	snprintf(q, sizeof q, "%s/rootlink/state", dir);
	CHECK_INT(try(q, &err), 0);
	snprintf(q, sizeof q, "%s/ours/state", dir);
	CHECK_INT(stat(q, &st), 0);
	free(err);
}

int main(void)
{
	char dir[] = "/tmp/test-statedir-XXXXXX", p[512], *err = NULL;
	CHECK(mkdtemp(dir) != NULL);
	StateDir *a = NULL, *b = NULL;

	/* missing components are made; the state directory 0750 */
	snprintf(p, sizeof p, "%s/a/b/state", dir);
	CHECK_INT(statedir_open(p, &a, NULL, &err), 0);
	struct stat st;
	CHECK_INT(stat(p, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0750);

	/* a second smrd on it is refused, and told who has it (finding 4) */
	pid_t holder = 0;
	CHECK_INT(statedir_open(p, &b, &holder, &err), -EBUSY);
	CHECK(!b);
	CHECK_INT(holder, getpid());
	char want[64];
	snprintf(want, sizeof want, "in use by another smrd (pid %d)", (int)getpid());
	CHECK(err && strstr(err, want));
	a = statedir_free(a);
	CHECK_INT(try(p, &err), 0);	/* free again once the first one is gone */

	/* the state directory itself: never a link, never writable by others, sticky or not (finding 5) */
	snprintf(p, sizeof p, "%s/sticky", dir);
	CHECK_INT(mkdir(p, 0755), 0);
	CHECK_INT(chmod(p, 01777), 0);
	CHECK_INT(try(p, &err), -EPERM);
	CHECK(err && strstr(err, "is writable by others (group or world"));
	/* ... but a directory of ours inside a sticky one of root's (as in /tmp) is fine */
	snprintf(p, sizeof p, "%s/sticky/state", dir);
	CHECK_INT(try(p, &err), geteuid() == 0 ? 0 : -EPERM);
	snprintf(p, sizeof p, "%s/ww", dir);
	CHECK_INT(mkdir(p, 0755), 0);
	CHECK_INT(chmod(p, 0777), 0);
	snprintf(p, sizeof p, "%s/ww/state", dir);
	CHECK_INT(try(p, &err), -EPERM);
	CHECK(err && strstr(err, "/ww is writable by others and not a sticky directory"));
	snprintf(p, sizeof p, "%s/final-link", dir);
	CHECK_INT(symlink("a", p), 0);
	CHECK_INT(try(p, &err), -ELOOP);
	/* links of our own that go round: followed, but not for ever */
	snprintf(p, sizeof p, "%s/loop1", dir);
	CHECK_INT(symlink("loop2", p), 0);
	snprintf(p, sizeof p, "%s/loop2", dir);
	CHECK_INT(symlink("loop1", p), 0);
	snprintf(p, sizeof p, "%s/loop1/state", dir);
	CHECK_INT(try(p, &err), -ELOOP);
	CHECK(err && strstr(err, "one symbolic link too many"));
	snprintf(p, sizeof p, "%s/file", dir);
	CHECK_INT(close(open(p, O_CREAT | O_WRONLY, 0644)), 0);
	snprintf(p, sizeof p, "%s/file/state", dir);
	CHECK_INT(try(p, &err), -ENOTDIR);

	if (geteuid() == 0)
		others(dir);
	else
		printf("not root: the cases with another user's files are not run\n");
	free(err);
	snprintf(p, sizeof p, "rm -rf %s", dir);
	CHECK_INT(system(p), 0);
	return test_done("statedir");
}
