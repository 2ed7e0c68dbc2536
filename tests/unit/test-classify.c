/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The classifier's evidence ordering on hand-built facts. */
#include <stdlib.h>

#include "classify.h"
#include "test.h"

extern const char smrd_builtin_models[];
static ModelList *ml;

static DiskFacts rotating(void)
{
	DiskFacts f;
	disk_facts_init(&f, "sda");
	f.transport = TRANSPORT_ATA;
	f.rotational = 1;
	f.discard_max_bytes = 0;
	snprintf(f.zoned, sizeof f.zoned, "none");
	snprintf(f.sysfs_vendor, sizeof f.sysfs_vendor, "ATA");
	snprintf(f.sysfs_model, sizeof f.sysfs_model, "SOME DISK");
	return f;
}

static Verdict run(const DiskFacts *f)
{
	Verdict v;
	classify_disk(f, ml, &v);
	return v;
}

static bool has_decisive(const Verdict *v, const char *source)
{
	for (unsigned i = 0; i < v->n_evidence; i++)
		if (v->evidence[i].decisive && strcmp(v->evidence[i].source, source) == 0)
			return true;
	return false;
}

static void test_ordering(void)
{
	DiskFacts f = rotating();
	Verdict none = run(&f);
	CHECK_INT(none.class, DISK_CLASS_CMR);

	f.discard_max_bytes = 2147450880;
	Verdict trim = run(&f);
	CHECK_INT(trim.class, DISK_CLASS_DM_SMR);
	CHECK(has_decisive(&trim, "sysfs queue/discard_max_hw_bytes"));

	snprintf(f.udev_model, sizeof f.udev_model, "WDC_WD60EZAZ-00SF3B0");
	Verdict model = run(&f);
	CHECK_INT(model.class, DISK_CLASS_DM_SMR);
	CHECK(has_decisive(&model, "udev ID_MODEL"));

	snprintf(f.zoned_cap, sizeof f.zoned_cap, "drive-managed");
	Verdict declared = run(&f);
	CHECK_INT(declared.class, DISK_CLASS_DM_SMR);
	CHECK(has_decisive(&declared, "sysfs zoned_cap"));

	/* declared >= model list > TRIM-only hint > no evidence */
	CHECK(declared.smr_confidence >= model.smr_confidence);
	CHECK(model.smr_confidence > trim.smr_confidence);
	CHECK(trim.smr_confidence > none.smr_confidence);
	CHECK(trim.confidence < model.confidence);
}

static void test_declarations(void)
{
	DiskFacts f = rotating();
	f.b1_status = 0;
	f.b1 = (VpdB1){.rotation_rate = 7200, .zoned = 1, .has_zoned = true};
	CHECK_INT(run(&f).class, DISK_CLASS_HOST_AWARE);

	f = rotating();
	f.id_status = 0;
	f.id.word69_zoned = 2;
	CHECK_INT(run(&f).class, DISK_CLASS_DM_SMR);

	/* host-managed wins over any other declaration */
	f.scsi_type = 0x14;
	CHECK_INT(run(&f).class, DISK_CLASS_HOST_MANAGED);

	f = rotating();
	snprintf(f.zoned, sizeof f.zoned, "host-managed");
	Verdict v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_HOST_MANAGED);
	CHECK_NEAR(v.smr_confidence, 1.0, 1e-9);

	/* ZONED = 0 is "not reported": never evidence of CMR or of SMR. */
	f = rotating();
	f.b1_status = 0;
	f.b1 = (VpdB1){.rotation_rate = 5400, .zoned = 0, .has_zoned = true};
	CHECK_INT(run(&f).class, DISK_CLASS_CMR);
	CHECK_NEAR(run(&f).smr_confidence, SMR_CONF_NO_EVIDENCE, 1e-9);
}

static void test_solid_state_and_virtual(void)
{
	DiskFacts f = rotating();
	/* A USB bridge claims rotational=1; the drive's own page says SSD. */
	f.b1_status = 0;
	f.b1 = (VpdB1){.rotation_rate = 1};
	f.discard_max_bytes = 1 << 30;
	Verdict v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_SSD);
	CHECK_NEAR(v.smr_confidence, 0, 1e-9);

	f = rotating();
	f.transport = TRANSPORT_VIRTIO;	/* a VM's disk with discard: no evidence of anything */
	f.discard_max_bytes = 1 << 30;
	CHECK_INT(run(&f).class, DISK_CLASS_UNKNOWN);

	f = rotating();
	f.scsi_type = 5;	/* CD/DVD */
	CHECK_INT(run(&f).class, DISK_CLASS_UNKNOWN);

	disk_facts_init(&f, "sde");
	v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_UNKNOWN);
	CHECK(v.n_evidence >= 1);

	/* Broken pages are reported as evidence, and ignored. */
	f = rotating();
	f.b1_status = -ENODATA;
	f.id_status = -EBADMSG;
	v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	bool saw_truncated = false;
	for (unsigned i = 0; i < v.n_evidence; i++)
		saw_truncated |= strstr(v.evidence[i].value, "truncated") != NULL;
	CHECK(saw_truncated);
	CHECK_INT(disk_class_from_string("dm-smr"), DISK_CLASS_DM_SMR);
	CHECK_INT(disk_class_from_string("nope"), _DISK_CLASS_INVALID);
}

/* TRIM seen only in the drive's own IDENTIFY data (word 169 bit 0): a USB or
 * SAS bridge that passes VPD 0x89 but reports no discard, or a kernel that
 * does not say. The word is the decisive evidence then; with discard too,
 * the block layer's figure is; with neither, no TRIM hint at all. */
static void test_identify_trim(void)
{
	DiskFacts f = rotating();
	f.id_status = 0;
	f.id.rotation_rate = 5400;
	f.id.trim = true;
	snprintf(f.id.model, sizeof f.id.model, "SOME DISK");
	Verdict v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK_NEAR(v.smr_confidence, SMR_CONF_TRIM_HINT, 1e-9);
	CHECK(has_decisive(&v, "ATA IDENTIFY word 169"));
	CHECK(!has_decisive(&v, "sysfs queue/discard_max_hw_bytes"));

	f.discard_max_bytes = -1;	/* not reported by the kernel */
	v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(has_decisive(&v, "ATA IDENTIFY word 169"));

	f.discard_max_bytes = 2147450880;
	v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(has_decisive(&v, "sysfs queue/discard_max_hw_bytes"));
	CHECK(!has_decisive(&v, "ATA IDENTIFY word 169"));

	f.discard_max_bytes = 0;
	f.id.trim = false;
	v = run(&f);
	CHECK_INT(v.class, DISK_CLASS_CMR);
	CHECK_NEAR(v.smr_confidence, SMR_CONF_NO_EVIDENCE, 1e-9);

	/* the word says nothing of a solid-state disk */
	f.id.trim = true;
	f.id.rotation_rate = 1;
	CHECK_INT(run(&f).class, DISK_CLASS_SSD);
}

/* What discovery keeps (classify_match) gives the verdict a view shows
 * (classify_verdict) without matching again: the same as classify_disk. */
static void test_kept_match(void)
{
	DiskFacts f = rotating();
	snprintf(f.sysfs_model, sizeof f.sysfs_model, "WDC WD40EFAX-68JH4N0");
	ModelMatch m;
	uint64_t before = modellist_matches(ml);
	classify_match(&f, ml, &m);
	CHECK(m.present && m.matched && m.class == MODEL_CLASS_DM_SMR);
	uint64_t after = modellist_matches(ml);
	CHECK(after > before && after - before <= MODELLIST_SUBJECTS * modellist_size(ml));
	Verdict kept, fresh;
	classify_verdict(&f, &m, NULL, &kept);
	CHECK_INT(modellist_matches(ml), after);
	classify_disk(&f, ml, &fresh);
	CHECK(memcmp(&kept, &fresh, sizeof kept) == 0);
	CHECK_INT(kept.class, DISK_CLASS_DM_SMR);
	classify_match_release(&m);

	/* discovery rematches only when the model strings change */
	DiskFacts g = f;
	g.rotational = 0;
	CHECK(classify_same_subjects(&f, &g));
	snprintf(g.udev_model, sizeof g.udev_model, "OTHER");
	CHECK(!classify_same_subjects(&f, &g));
	g = f;
	g.id_status = 0;
	CHECK(!classify_same_subjects(&f, &g));
}

int main(void)
{
	char *err = NULL;
	if (modellist_parse(smrd_builtin_models, &ml, &err) < 0)
		return 1;
	test_ordering();
	test_declarations();
	test_solid_state_and_virtual();
	test_identify_trim();
	test_kept_match();
	modellist_free(ml);
	return test_done("test-classify");
}
