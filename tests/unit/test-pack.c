/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Packing (raw DEFLATE): round trips of sparse, dense and edge-shaped
 * inputs, the bound held, and every damaged packing refused; and a disk's
 * SysfsDisk kept as DiskSys gives back what it was, buffers filled to the brim. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk.h"
#include "pack.h"
#include "test.h"

static uint64_t rng = 7;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(rng >> 33) % n;
}

static size_t round_trip(const uint8_t *src, size_t n)
{
	uint8_t *p = malloc(PACK_BOUND(n) + 1), *back = malloc(n + 1);
	size_t len = 0;
	CHECK_INT(pack_bytes(src, n, p, &len), 0);
	CHECK(len > 0 && len <= PACK_BOUND(n));
	CHECK_INT(unpack_bytes(p, len, back, n), 0);
	CHECK(n == 0 || memcmp(src, back, n) == 0);
	/* one byte short, a byte more, the wrong size: refused */
	CHECK_INT(unpack_bytes(p, len - 1, back, n), -EBADMSG);
	p[len] = 0;
	CHECK_INT(unpack_bytes(p, len + 1, back, n), -EBADMSG);
	CHECK_INT(unpack_bytes(p, len, back, n + 1), -EBADMSG);
	if (n > 0)
		CHECK_INT(unpack_bytes(p, len, back, n - 1), -EBADMSG);
	free(p);
	free(back);
	return len;
}

static void fill(char *s, size_t n, char c)
{
	memset(s, c, n - 1);
	s[n - 1] = 0;
}

static void test_disk_sys(void)
{
	SysfsDisk s = {.major = 8, .minor = 16, .size_sectors = 7814037168, .io_timeout_ms = 30000};
	fill(s.serial, sizeof s.serial, 's');
	fill(s.wwn, sizeof s.wwn, 'w');
	snprintf(s.model, sizeof s.model, "WDC WD40EFAX-68JH4N0");
	fill(s.firmware, sizeof s.firmware, 'f');
	disk_facts_init(&s.facts, "sdb");
	fill(s.facts.zoned, sizeof s.facts.zoned, 'z');
	fill(s.facts.admin_rule, sizeof s.facts.admin_rule, 'r');
	snprintf(s.facts.udev_model, sizeof s.facts.udev_model, "WDC_WD40EFAX-68JH4N0");
	s.facts.admin_class = DISK_CLASS_DM_SMR;
	s.facts.nr_zones = 55880;
	s.facts.zone_sectors = 524288;
	s.facts.transport = TRANSPORT_ATA;
	s.facts.size_status = -EIO;
	DiskSys ds = {0};
	CHECK_INT(disk_sys_set(&ds, &s), 0);
	CHECK_STR(ds.serial, s.serial);
	CHECK_STR(ds.wwn, s.wwn);
	CHECK_STR(ds.model, s.model);
	CHECK_STR(ds.firmware, s.firmware);
	CHECK_STR(ds.zoned, s.facts.zoned);
	CHECK(ds.nr_zones == 55880 && ds.zone_sectors == 524288 && ds.admin_class == DISK_CLASS_DM_SMR &&
	      ds.transport == TRANSPORT_ATA && ds.size_status == -EIO && ds.size_sectors == s.size_sectors);
	SysfsDisk back;
	disk_sys_get(&ds, &back);
	CHECK(memcmp(&back.facts, &s.facts, sizeof s.facts) == 0);
	CHECK(back.major == 8 && back.minor == 16 && back.io_timeout_ms == 30000);
	CHECK_STR(back.serial, s.serial);
	CHECK_STR(back.firmware, s.firmware);
	printf("pack: a SysfsDisk of %zu bytes kept in %zu (strings %u, facts %u)\n", sizeof s,
	       sizeof ds + ds.facts_at + ds.facts_len, ds.facts_at, ds.facts_len);
	/* replacing frees the old blob (ASan would say), an empty one is all "" */
	SysfsDisk empty = {0};
	disk_facts_init(&empty.facts, "sdc");
	CHECK_INT(disk_sys_set(&ds, &empty), 0);
	CHECK_STR(ds.serial, "");
	CHECK_STR(ds.zoned, empty.facts.zoned);
	disk_sys_free(&ds);
}

int main(void)
{
	test_disk_sys();
	uint8_t buf[2048];
	/* what it is for: strings at the start of fixed buffers */
	memset(buf, 0, sizeof buf);
	for (unsigned k = 0; k < 8; k++)
		snprintf((char *)buf + k * 96, 96, "WDC WD40EFAX-68JH4N0 %u", k);
	size_t len = round_trip(buf, 840);
	printf("pack: 840 bytes with 8 short strings in %zu\n", len);
	CHECK(len < 300);
	/* edges */
	round_trip(buf, 0);
	memset(buf, 0, sizeof buf);
	round_trip(buf, 1);
	round_trip(buf, 2);
	round_trip(buf, 128);
	round_trip(buf, 129);
	round_trip(buf, 2048);
	memset(buf, 0xff, sizeof buf);
	round_trip(buf, 1);
	round_trip(buf, 128);
	round_trip(buf, 129);
	CHECK(round_trip(buf, 2048) <= PACK_BOUND(2048));
	/* lone zeros, pairs, runs at both ends, random densities */
	for (int i = 0; i < 2000; i++) {
		size_t n = rnd(sizeof buf);
		unsigned density = rnd(100);
		for (size_t k = 0; k < n; k++)
			buf[k] = rnd(100) < density ? (uint8_t)(1 + rnd(255)) : 0;
		round_trip(buf, n);
	}
	/* garbage: never more than asked for, never a crash */
	for (int i = 0; i < 2000; i++) {
		uint8_t g[64], out[100];
		size_t n = rnd(sizeof g);
		for (size_t k = 0; k < n; k++)
			g[k] = (uint8_t)rnd(256);
		int r = unpack_bytes(g, n, out, 100);
		CHECK(r == 0 || r == -EBADMSG);
	}
	return test_done("test-pack");
}
