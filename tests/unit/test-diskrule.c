/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Per-disk settings by identity (smrd.conf disk.<ID>.*): parsing, the
 * forms of an identity smartd.conf and /dev/disk/by-id users write, what
 * must not match, and what classify makes of a declared class.
 */
#include <math.h>
#include <string.h>

#include "classify.h"
#include "config.h"
#include "diskrule.h"
#include "test.h"

static DiskIds ids(const char *name, const char *wwn, const char *serial, const char *link)
{
	DiskIds w = {.name = name, .wwn = wwn, .serial = serial};
	if (link)
		snprintf(w.links[w.n_links++], DISK_RULE_ID, "%s", link);
	return w;
}

static void test_parse(void)
{
	DiskRules r = {0};
	char *err = NULL;
	CHECK_INT(disk_rule_set(&r, "0x50014ee2bbbbbbbb.expect", "dm-smr", &err), 0);
	CHECK_INT(disk_rule_set(&r, "0x50014ee2bbbbbbbb.stall-threshold", "5", &err), 0);
	CHECK_INT(r.n, 1);
	CHECK_INT(r.r[0].expect, DISK_CLASS_DM_SMR);
	CHECK_NEAR(r.r[0].stall_threshold, 5, 0);
	/* an NVMe EUI has dots: the setting is after the last one */
	CHECK_INT(disk_rule_set(&r, "eui.0025385891b12345.expect", "ssd", &err), 0);
	CHECK_STR(r.r[1].id, "eui.0025385891b12345");
	CHECK(isnan(r.r[1].stall_threshold));
	CHECK(isnan(r.r[1].media_cache));
	/* the media cache as qualify prints it, or a datasheet's */
	CHECK_INT(disk_rule_set(&r, "0x50014ee2bbbbbbbb.media-cache", "24G", &err), 0);
	CHECK_NEAR(r.r[0].media_cache, 24.0 * 1073741824, 0);
	CHECK_INT(disk_rule_set(&r, "eui.0025385891b12345.media-cache", "512MiB", &err), 0);
	CHECK_NEAR(r.r[1].media_cache, 512.0 * 1048576, 0);
	CHECK(disk_rule_key_known("WD-WX12D80K1234.media-cache"));
	static const char *const bad[][2] = {
		{"sdb.media-cache", "lots"}, {"sdb.media-cache", "1k"}, {"sdb.media-cache", "9T"}, {"sdb.media-cache", "-1G"},
		{"sdb.expect", "smr"}, {"sdb.expect", "unknown"}, {"sdb.stall-threshold", "0"},
		{"sdb.stall-threshold", "5s"}, {"sdb.colour", "red"}, {".expect", "cmr"}, {"expect", "cmr"},
		{"a b.expect", "cmr"}, {"a\"b.expect", "cmr"},
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		err = NULL;
		CHECK(disk_rule_set(&r, bad[i][0], bad[i][1], &err) == -EINVAL);
		CHECK(err && strstr(err, "disk.") == err);
		free(err);
	}
	CHECK_INT(r.n, 2);
	CHECK(disk_rule_key_known("WD-WX12D80K1234.expect"));
	CHECK(!disk_rule_key_known("WD-WX12D80K1234.nope"));

	/* through the config: the keys, the printout that reads back */
	Config c;
	CHECK_INT(config_init(&c), 0);
	CHECK(config_has_key("disk.wwn-0x5000cca2.expect"));
	err = NULL;
	CHECK_INT(config_parse_text(&c, "disk.ata-WDC_WD40EFAX-68JH4N0_WD-WX12D80K1234.expect = dm-smr\n"
				       "disk.sdz.stall-threshold = 0.5\n", &err), 0);
	free(err);
	CHECK_INT(c.disks.n, 2);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	config_print(&c, f);
	fclose(f);
	CHECK(strstr(text, "disk.ata-WDC_WD40EFAX-68JH4N0_WD-WX12D80K1234.expect = dm-smr\n") != NULL);
	CHECK(strstr(text, "disk.sdz.stall-threshold = 0.5\n") != NULL);
	free(text);
	Config copy;
	CHECK_INT(config_copy(&c, &copy), 0);
	CHECK_INT(copy.disks.n, 2);
	config_done(&copy);
	config_done(&c);
}

static void test_match(void)
{
	DiskRules r = {0};
	DiskIds efax = ids("sdc", "0x50014ee2bbbbbbbb", "WD-WX12D80K1234", "ata-WDC_WD40EFAX-68JH4N0_WD-WX12D80K1234");
	DiskIds other = ids("sdd", "0x50014ee2cccccccc", "WD-WX99", "ata-WDC_WD40EFRX-68N32N0_WD-WX99");
	static const char *const forms[] = {
		"0x50014ee2bbbbbbbb.expect", "wwn-0x50014ee2bbbbbbbb.expect", "WD-WX12D80K1234.expect",
		"ata-WDC_WD40EFAX-68JH4N0_WD-WX12D80K1234.expect",
		"/dev/disk/by-id/ata-WDC_WD40EFAX-68JH4N0_WD-WX12D80K1234.expect", "sdc.expect", "/dev/sdc.expect",
	};
	for (size_t i = 0; i < ELEMENTSOF(forms); i++) {
		r = (DiskRules){0};
		CHECK_INT(disk_rule_set(&r, forms[i], "dm-smr", NULL), 0);
		CHECK(disk_rules_find(&r, &efax) == &r.r[0]);
		CHECK(disk_rules_find(&r, &other) == NULL);
	}
	/* no partial matches, and an empty identity matches nothing */
	static const char *const wrong[] = {"WD-WX12.expect", "0x50014ee2.expect", "sd.expect", "wwn-.expect",
					    "/dev/disk/by-id/.expect"};
	DiskIds bare = ids("sdx", "", "", NULL);
	for (size_t i = 0; i < ELEMENTSOF(wrong); i++) {
		r = (DiskRules){0};
		CHECK_INT(disk_rule_set(&r, wrong[i], "cmr", NULL), 0);
		CHECK(disk_rules_find(&r, &efax) == NULL);
		CHECK(disk_rules_find(&r, &bare) == NULL);
	}
}

static void test_classify(void)
{
	DiskFacts f;
	Verdict v;
	disk_facts_init(&f, "sdc");
	f.rotational = 1;
	f.transport = TRANSPORT_ATA;
	classify_disk(&f, NULL, &v);
	CHECK_INT(v.class, DISK_CLASS_CMR);	/* nothing says SMR */
	f.admin_class = DISK_CLASS_DM_SMR;
	snprintf(f.admin_rule, sizeof f.admin_rule, "disk.WD-WX12D80K1234.expect");
	classify_disk(&f, NULL, &v);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK_NEAR(v.smr_confidence, SMR_CONF_DECLARED, 0);
	CHECK_STR(v.basis, "declared in smrd.conf by the administrator");
	bool listed = false;
	for (unsigned i = 0; i < v.n_evidence; i++)
		if (streq(v.evidence[i].source, "smrd.conf")) {
			listed = true;
			CHECK(v.evidence[i].decisive);
			CHECK_STR(v.evidence[i].value, "disk.WD-WX12D80K1234.expect = dm-smr");
		}
	CHECK(listed);
	f.admin_class = DISK_CLASS_CMR;		/* declared CMR: known, not suspected */
	classify_disk(&f, NULL, &v);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	CHECK_NEAR(v.smr_confidence, SMR_CONF_KNOWN_CMR, 0);
}

int main(void)
{
	test_parse();
	test_match();
	test_classify();
	return test_done("diskrule");
}
