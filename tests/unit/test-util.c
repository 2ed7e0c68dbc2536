/* SPDX-License-Identifier: GPL-2.0-or-later */
/* common/util: device names in lsblk's order, and flags' relative paths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "registry.h"
#include "test.h"
#include "util.h"

static int cmp(const void *a, const void *b) { return devname_cmp(*(const char *const *)a, *(const char *const *)b); }

static void test_devname_order(void)
{
	/* what lsblk lists, scrambled, then sorted back */
	const char *want[] = {"dm-0", "dm-2", "dm-10", "loop0", "loop2", "loop10", "md0", "md127", "nvme0n1", "nvme0n2",
			      "nvme0n10", "nvme2n1", "nvme10n1", "sda", "sdb", "sdz", "sdaa", "sdab", "sdaz", "sdba",
			      "sdzz", "sdaaa", "sr0", "vda", "vdb", "vdaa", "xvda", "xvdz", "xvdaa", "zd0", "zd16"};
	size_t n = sizeof want / sizeof *want;
	const char *got[sizeof want / sizeof *want];
	for (size_t i = 0; i < n; i++)
		got[i] = want[(i * 7 + 3) % n];	/* 7 is prime to 31: a permutation */
	qsort(got, n, sizeof *got, cmp);
	for (size_t i = 0; i < n; i++)
		CHECK_STR(got[i], want[i]);
	/* a total order: equal only when the same, antisymmetric */
	CHECK(devname_cmp("sd01", "sd1") != 0);
	CHECK(devname_cmp("sd01", "sd1") == -devname_cmp("sd1", "sd01"));
	CHECK_INT(devname_cmp("sdb", "sdb"), 0);
	CHECK(devname_cmp("sd", "sda") < 0 && devname_cmp("", "a") < 0);
}

/* the registry keeps that order, and finds each name in it */
static void test_registry_order(void)
{
	DiskRegistry *r = registry_new();
	const char *names[] = {"sdaa", "sdz", "sda", "loop10", "loop2"};
	for (size_t i = 0; i < 5; i++) {
		Disk d = {0}, *got = NULL;
		snprintf(d.name, sizeof d.name, "%s", names[i]);
		CHECK_INT(registry_add(r, &d, &got), 0);
	}
	const char *want[] = {"loop2", "loop10", "sda", "sdz", "sdaa"};
	for (size_t i = 0; i < 5; i++) {
		CHECK_STR(registry_at(r, i)->name, want[i]);
		CHECK(registry_get(r, want[i]) == registry_at(r, i));
	}
	CHECK(registry_get(r, "sdb") == NULL);
	registry_free(r);
}

static void test_absolute_path(void)
{
	char *cwd = getcwd(NULL, 0), want[4096];
	char *p = absolute_path("sys");
	snprintf(want, sizeof want, "%s/sys", cwd);
	CHECK_STR(p, want);
	free(p);
	p = absolute_path("./capture/sys");
	snprintf(want, sizeof want, "%s/capture/sys", cwd);
	CHECK_STR(p, want);
	free(p);
	p = absolute_path("/sys");
	CHECK_STR(p, "/sys");
	free(p);
	free(cwd);
}

/* One printable line from any bytes: control bytes as \xNN, UTF-8 kept,
 * cut only at a whole escape. */
static void test_escape_control(void)
{
	char out[64];
	CHECK_STR(str_escape_control("/mnt/a\n<2>smrd: x\x1b[31m\x07\x7f", out, sizeof out),
		  "/mnt/a\\x0a<2>smrd: x\\x1b[31m\\x07\\x7f");
	CHECK_STR(str_escape_control("caf\xc3\xa9 \t", out, sizeof out), "caf\xc3\xa9 \\x09");
	CHECK_STR(str_escape_control(NULL, out, sizeof out), "");
	CHECK_STR(str_escape_control("ab\ncd", out, 7), "ab\\x0a");
	CHECK_STR(str_escape_control("ab\ncd", out, 6), "ab");
}

int main(void)
{
	test_escape_control();
	test_devname_order();
	test_registry_order();
	test_absolute_path();
	return test_done("util");
}
