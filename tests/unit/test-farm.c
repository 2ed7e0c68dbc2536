/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Seagate's FARM recording type as smartctl prints it, on the recordings of
 * tests/fixtures/smartctl (each with its .source): a real IronWolf Pro's
 * CMR log, the same document saying SMR, a drive in standby, Debian 12's
 * smartctl 7.3 refusing -l farm and failing to open a device; then bad
 * output of every shape; then where the log ranks among the sources: above
 * the model list and TRIM, below a zoned declaration and smrd.conf, and
 * speaking only when it says SMR or CMR.
 */
#include <fcntl.h>

#include "classify.h"
#include "farm.h"
#include "test.h"
#include "util.h"

static const char *fixtures;
static ModelList *db;

static void parse_fixture(const char *name, int status, FarmReading *ret)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", fixtures, name);
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r = read_file_at(AT_FDCWD, path, 1 << 20, &text, &len);
	CHECK_INT(r, 0);
	if (r < 0) {
		*ret = (FarmReading){.state = _FARM_STATE_INVALID};
		return;
	}
	farm_parse(text, len, status, ret);
}

static void parse_text(const char *text, int status, FarmReading *ret)
{
	farm_parse(text, strlen(text), status, ret);
}

static void test_recordings(void)
{
	FarmReading r;
	parse_fixture("farm-ata-cmr.json", 0, &r);
	CHECK_INT(r.state, FARM_CMR);
	CHECK_STR(r.smartctl, "7.5");
	CHECK_STR(r.serial, "K3S00FJF");
	CHECK_STR(r.detail, "Drive Recording Type: CMR");

	parse_fixture("farm-ata-smr.json", 0, &r);
	CHECK_INT(r.state, FARM_SMR);

	parse_fixture("farm-standby.json", 2, &r);
	CHECK_INT(r.state, FARM_STANDBY);
	CHECK_STR(r.smartctl, "7.4");
	CHECK(strstr(r.detail, "STANDBY") != NULL);

	parse_fixture("farm-7.3-refused.txt", 1, &r);
	CHECK_INT(r.state, FARM_NO_OPTION);
	CHECK_STR(r.smartctl, "");

	parse_fixture("open-failed-7.3.json", 1, &r);
	CHECK_INT(r.state, FARM_FAILED);
	CHECK_STR(r.smartctl, "7.3");
	CHECK(strstr(r.detail, "Unable to detect device type") != NULL);
}

static void test_shapes(void)
{
	FarmReading r;
	/* a drive that is not a Seagate one, or keeps no log (ataprint.cpp) */
	parse_text("{\"smartctl\":{\"version\":[7,4],\"exit_status\":0},\"seagate_farm_log\":{\"supported\":false}}", 0, &r);
	CHECK_INT(r.state, FARM_UNSUPPORTED);
	/* the log read, the type not stated: nothing told */
	parse_text("{\"seagate_farm_log\":{\"page_1_drive_information\":{\"drive_recording_type\":\"UNKNOWN\"}}}", 0, &r);
	CHECK_INT(r.state, FARM_UNKNOWN);
	/* SCSI's form, its padding trimmed */
	parse_text("{\"seagate_farm_log\":{\"drive_information\":{\"serial_number\":\"ZA000000    \"},"
		   "\"drive_information_continued\":{\"drive_recording_type\":\"SMR\"}}}", 0, &r);
	CHECK_INT(r.state, FARM_SMR);
	CHECK_STR(r.serial, "ZA000000");
	/* 7.5's power_mode with the message both versions write */
	parse_text("{\"smartctl\":{\"messages\":[{\"string\":\"Device is in STANDBY (OS) mode, exit(2)\"}],"
		   "\"exit_status\":2},\"power_mode\":{\"name\":\"STANDBY\"}}", 2, &r);
	CHECK_INT(r.state, FARM_STANDBY);
	/* an absent device also exits 2: not spun down */
	parse_text("{\"smartctl\":{\"messages\":[{\"string\":\"Smartctl open device: /dev/sdz failed: No such device\","
		   "\"severity\":\"error\"}],\"exit_status\":2}}", 2, &r);
	CHECK_INT(r.state, FARM_FAILED);
	CHECK(strstr(r.detail, "No such device") != NULL);

	/* whatever comes back, a reading that says why, never a class */
	static const char *const bad[] = {
		"", "{", "[]", "null", "\"SMR\"", "{\"seagate_farm_log\":{}}",
		"{\"seagate_farm_log\":{\"page_1_drive_information\":{\"drive_recording_type\":7}}}",
		"{\"seagate_farm_log\":\"SMR\"}", "{\"smartctl\":{\"messages\":\"Device is in STANDBY mode, exit(2)\"}}",
		"{\"seagate_farm_log\":{\"page_1_drive_information\":{\"drive_recording_type\":\"SMR\"}}",	/* cut short */
		"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		parse_text(bad[i], 0, &r);
		if (r.state != FARM_FAILED && r.state != FARM_UNKNOWN)
			fprintf(stderr, "bad output %zu: %s\n", i, farm_state_to_string(r.state));
		CHECK(r.state == FARM_FAILED || r.state == FARM_UNKNOWN);
		CHECK(r.detail[0] != 0);
	}
	parse_text("", -1, &r);		/* killed */
	CHECK_INT(r.state, FARM_FAILED);
	CHECK(strstr(r.detail, "killed") != NULL);
	/* a value with control bytes is shown printable */
	parse_text("{\"seagate_farm_log\":{\"page_1_drive_information\":{\"drive_recording_type\":\"S\\u0007MR\"}}}", 0, &r);
	CHECK_INT(r.state, FARM_UNKNOWN);
	CHECK(strchr(r.detail, '\a') == NULL);
}

static void test_vendor(void)
{
	static const char *const yes[] = {"ST8000DM004-2CX188", "ST16000NT001", "ST4000VN006-3CW104", "ST1000LM049-2GH172",
					  "ST500DM009", "ST10000DM0004-1ZC101", "ST4000LM024-2AN17V"};
	static const char *const no[] = {"ST", "STX", "ST12AB123", "ST123456AB123", "ST8000D1004", "ST8000DM004X23",
					 "ST8000DM00", "ST8000dm004", "WDC WD40EFAX-68JH4N0", "TOSHIBA HDWD120", "",
					 "ST8000DM004 2CX188"};
	for (size_t i = 0; i < ELEMENTSOF(yes); i++)
		CHECK(farm_vendor_supports(yes[i], "ATA"));
	for (size_t i = 0; i < ELEMENTSOF(no); i++) {
		if (farm_vendor_supports(no[i], "ATA"))
			fprintf(stderr, "taken for Seagate: \"%s\"\n", no[i]);
		CHECK(!farm_vendor_supports(no[i], "ATA"));
	}
	CHECK(farm_vendor_supports("ST8000NM0075", "SEAGATE "));	/* SAS: the vendor field */
	CHECK(farm_vendor_supports("Expansion Desk", "SEAGATE"));
	CHECK(!farm_vendor_supports("Expansion Desk", "Seagate"));	/* smartctl compares "SEAGATE" */
	CHECK(!farm_vendor_supports(NULL, NULL));

	DiskFacts f;
	disk_facts_init(&f, "sdb");
	f.transport = TRANSPORT_ATA;
	snprintf(f.udev_model, sizeof f.udev_model, "ST8000DM004-2CX188");
	CHECK(classify_farm_supported(&f));
	f.transport = TRANSPORT_USB;		/* smartctl reaches it through SAT */
	CHECK(classify_farm_supported(&f));
	f.scsi_type = SCSI_TYPE_ROM;		/* not a disk */
	CHECK(!classify_farm_supported(&f));
	f.scsi_type = -1;
	snprintf(f.stacked, sizeof f.stacked, "slaves/");	/* its log is its members' */
	CHECK(!classify_farm_supported(&f));
	f.stacked[0] = 0;
	snprintf(f.udev_model, sizeof f.udev_model, "WDC_WD40EFAX-68JH4N0");
	CHECK(!classify_farm_supported(&f));
}

/* A Seagate BarraCuda drivedb.h marks SMR, rotating, with TRIM. */
static DiskFacts barracuda(void)
{
	DiskFacts f;
	disk_facts_init(&f, "sdb");
	f.transport = TRANSPORT_ATA;
	f.rotational = 1;
	f.discard_max_bytes = 0;
	snprintf(f.zoned, sizeof f.zoned, "none");
	snprintf(f.udev_model, sizeof f.udev_model, "ST8000DM004-2CX188");
	return f;
}

static Verdict verdict(const DiskFacts *f, FarmState s)
{
	ModelMatch m;
	classify_match(f, db, &m);
	FarmReading r = {.state = s};
	snprintf(r.smartctl, sizeof r.smartctl, "7.4");
	snprintf(r.detail, sizeof r.detail, "Drive Recording Type: %s", s == FARM_SMR ? "SMR" : "CMR");
	Verdict v;
	classify_verdict(f, &m, &r, &v);
	classify_match_release(&m);
	return v;
}

static const Evidence *decisive(const Verdict *v)
{
	for (unsigned i = 0; i < v->n_evidence; i++)
		if (v->evidence[i].decisive)
			return &v->evidence[i];
	return NULL;
}

static void test_rank(void)
{
	DiskFacts f = barracuda();
	Verdict listed;
	classify_disk(&f, db, &listed);
	CHECK_INT(listed.class, DISK_CLASS_DM_SMR);
	CHECK(decisive(&listed) && decisive(&listed)->rank == EVIDENCE_MODEL_LIST);

	/* the drive's own word outranks the model number's */
	Verdict v = verdict(&f, FARM_CMR);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	CHECK_NEAR(v.smr_confidence, SMR_CONF_KNOWN_CMR, 1e-9);
	const Evidence *e = decisive(&v);
	CHECK(e && e->rank == EVIDENCE_VENDOR_LOG && e->class == DISK_CLASS_CMR && streq(e->source, "Seagate FARM log"));
	v = verdict(&f, FARM_SMR);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK_NEAR(v.smr_confidence, SMR_CONF_VENDOR_LOG, 1e-9);
	CHECK(SMR_CONF_DECLARED > SMR_CONF_VENDOR_LOG && SMR_CONF_VENDOR_LOG > SMR_CONF_MODEL_LIST);
	CHECK(decisive(&v) && decisive(&v)->rank == EVIDENCE_VENDOR_LOG);

	/* what says nothing changes nothing: the verdict is the model list's, one fact more */
	static const FarmState silent[] = {FARM_UNKNOWN, FARM_UNSUPPORTED, FARM_STANDBY, FARM_NO_OPTION, FARM_FAILED};
	for (size_t i = 0; i < ELEMENTSOF(silent); i++) {
		v = verdict(&f, silent[i]);
		CHECK_INT(v.class, listed.class);
		CHECK_NEAR(v.smr_confidence, listed.smr_confidence, 1e-9);
		CHECK_INT(v.n_evidence, listed.n_evidence + 1);
		CHECK(decisive(&v) && decisive(&v)->rank == EVIDENCE_MODEL_LIST);
	}
	/* never read: not a word of it */
	v = verdict(&f, FARM_NOT_READ);
	CHECK(memcmp(&v, &listed, sizeof v) == 0);

	/* above TRIM: an unlisted Seagate that takes TRIM and says CMR */
	f = barracuda();
	snprintf(f.udev_model, sizeof f.udev_model, "ST4000VN006-3CW104");
	f.discard_max_bytes = 1 << 30;
	CHECK_INT(verdict(&f, FARM_NOT_READ).class, DISK_CLASS_DM_SMR);
	CHECK_INT(verdict(&f, FARM_CMR).class, DISK_CLASS_CMR);

	/* below a zoned declaration and below smrd.conf */
	f = barracuda();
	snprintf(f.zoned_cap, sizeof f.zoned_cap, "drive-managed");
	v = verdict(&f, FARM_CMR);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(decisive(&v) && decisive(&v)->rank == EVIDENCE_DECLARED);
	f = barracuda();
	f.admin_class = DISK_CLASS_CMR;
	snprintf(f.admin_rule, sizeof f.admin_rule, "disk.ZA000000.expect");
	v = verdict(&f, FARM_SMR);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	CHECK(decisive(&v) && decisive(&v)->rank == EVIDENCE_ADMIN);

	/* what the disk keeps for the metric: one source per rank and class */
	VerdictSummary s;
	verdict_summarize(&v, &s);
	bool admin = false, vendor = false;
	for (unsigned i = 0; i < s.n_sources; i++) {
		admin |= s.sources[i].rank == EVIDENCE_ADMIN && s.sources[i].decisive;
		vendor |= s.sources[i].rank == EVIDENCE_VENDOR_LOG && s.sources[i].class == DISK_CLASS_DM_SMR &&
			  !s.sources[i].decisive;
	}
	CHECK(admin && vendor);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-farm SRCDIR\n");
		return 2;
	}
	char path[512], dbpath[512];
	snprintf(path, sizeof path, "%s/tests/fixtures/smartctl", argv[1]);
	snprintf(dbpath, sizeof dbpath, "%s/tests/fixtures/drivedb.h", argv[1]);
	fixtures = path;
	char *err = NULL;
	if (modellist_load_drivedb(dbpath, &db, NULL, &err) < 0) {
		fprintf(stderr, "%s: %s\n", dbpath, err ? err : "?");
		return 1;
	}
	test_recordings();
	test_shapes();
	test_vendor();
	test_rank();
	modellist_free(db);
	return test_done("test-farm");
}
