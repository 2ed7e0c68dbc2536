/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The static classifier: from the facts read about one disk (sysfs, VPD
 * pages, udev properties) and the model list, decide its class, how sure we
 * are, and list every piece of evidence with what it implies. Pure logic.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "farm.h"
#include "modellist.h"
#include "vpd.h"

typedef enum DiskClass {
	DISK_CLASS_CMR,
	DISK_CLASS_DM_SMR,
	DISK_CLASS_HOST_AWARE,
	DISK_CLASS_HOST_MANAGED,
	DISK_CLASS_SSD,
	DISK_CLASS_UNKNOWN,
	_DISK_CLASS_MAX,
	_DISK_CLASS_INVALID = -EINVAL,
} DiskClass;

typedef enum Transport {
	TRANSPORT_ATA,
	TRANSPORT_SCSI,
	TRANSPORT_USB,
	TRANSPORT_NVME,
	TRANSPORT_MMC,
	TRANSPORT_VIRTIO,
	TRANSPORT_VIRTUAL,	/* loop, dm, md, zram, nbd: no media of its own */
	TRANSPORT_UNKNOWN,
	_TRANSPORT_MAX,
	_TRANSPORT_INVALID = -EINVAL,
} Transport;

#define FACT_STR 64	/* ATA and NVMe models are 40 characters, serials 20, a WWN 34 */

/* What the sysfs/udev reader found; empty strings and -1 mean "not there". */
/* SCSI peripheral device types (SPC), as sysfs's device/type gives them */
#define SCSI_TYPE_DISK 0x00
#define SCSI_TYPE_ROM 0x05
#define SCSI_TYPE_ZBC 0x14

typedef struct DiskFacts {
	char name[32];
	int admin_class;		/* DiskClass declared in smrd.conf (disk.<ID>.expect), or -1 */
	char admin_rule[112];		/* that key, for the evidence */
	Transport transport;
	char stacked[16];		/* what it is stacked on ("slaves/", "zvol"), "" for a disk of its own */
	int rotational;			/* queue/rotational */
	char zoned[24];			/* queue/zoned */
	char zoned_cap[24];		/* device/scsi_disk/<hctl>/zoned_cap */
	int scsi_type;			/* device/type: SCSI_TYPE_* */
	int64_t discard_max_bytes;	/* queue/discard_max_hw_bytes, else discard_max_bytes */
	int64_t nr_zones, zone_sectors;	/* queue/nr_zones, queue/chunk_sectors */
	char sysfs_vendor[FACT_STR], sysfs_model[FACT_STR];
	char udev_model[FACT_STR], udev_serial[FACT_STR], udev_wwn[FACT_STR];
	char udev_revision[24];
	int udev_rpm;			/* ID_ATA_ROTATION_RATE_RPM */
	int size_status;		/* 0, or why block/<name>/size could not be read */
	int b1_status;			/* 0, or -ENOENT/-ENODATA/-EBADMSG/-EIO */
	VpdB1 b1;
	int id_status;			/* VPD 0x89, same codes */
	AtaIdentify id;
} DiskFacts;

/* Initialises facts to "nothing known". */
void disk_facts_init(DiskFacts *f, const char *name);

#define VERDICT_MAX_EVIDENCE 20
#define EVIDENCE_STR 128

/* Where a piece of evidence stands among the sources, strongest first, as
 * docs/classification.md numbers them: the strongest that speaks decides.
 * EVIDENCE_FACT is a fact read that speaks for no class (the transport, a
 * field the drive leaves unreported). Behaviour only ever says SMR: it
 * decides over every weaker source, which says something else; a weaker
 * static source that says SMR too keeps the decision. */
typedef enum EvidenceRank {
	EVIDENCE_FACT,
	EVIDENCE_UNREADABLE,	/* its size unreadable: not classified at all */
	EVIDENCE_ADMIN,		/* smrd.conf disk.<ID>.expect */
	EVIDENCE_DECLARED,	/* the drive's or the kernel's zoned declaration */
	EVIDENCE_BEHAVIOUR,	/* the detector's destage storms */
	EVIDENCE_NOT_A_DISK,	/* a SCSI peripheral type other than a disk */
	EVIDENCE_VENDOR_LOG,	/* the vendor's own recording type for this drive (Seagate FARM) */
	EVIDENCE_MODEL_LIST,	/* drivedb.h's marked families, smrd's list */
	EVIDENCE_SOLID_STATE,	/* a non-rotating medium */
	EVIDENCE_VIRTUAL,	/* loop, dm, md, virtio: the medium is hidden */
	EVIDENCE_TRIM,		/* a rotating disk that takes TRIM */
	EVIDENCE_ROTATING,	/* a rotating medium, nothing else */
	_EVIDENCE_RANK_MAX,
	_EVIDENCE_RANK_INVALID = -EINVAL,
} EvidenceRank;

typedef struct Evidence {
	char source[48];		/* e.g. "sysfs queue/zoned" */
	char value[EVIDENCE_STR];	/* what was read */
	char implies[EVIDENCE_STR];	/* what it means, with its provenance */
	EvidenceRank rank;		/* EVIDENCE_FACT for a fact that speaks for no class */
	int class;			/* the DiskClass it speaks for, -1 for none */
	bool decisive;			/* this is what decided the class */
} Evidence;

/* The rank's name ("vendor-log", "model-list"): the metric's source label. */
const char *evidence_rank_to_string(EvidenceRank r);

/* One source's word on a disk, as the metric shows it: each rank and class
 * that some piece of evidence speaks for, once, and whether it decided. */
#define VERDICT_MAX_SOURCES 8
typedef struct EvidenceSource {
	EvidenceRank rank;
	int class;
	bool decisive;
} EvidenceSource;

typedef struct Verdict {
	DiskClass class;
	double confidence;		/* in the class */
	double smr_confidence;		/* that the disk shingles */
	char basis[EVIDENCE_STR];	/* one line: why */
	unsigned n_evidence;
	Evidence evidence[VERDICT_MAX_EVIDENCE];
} Verdict;

/* What the model list says of a disk: the one costly part of classifying
 * (a PCRE2 match per entry and model string), so it is worked out once, at
 * discovery, reread and reload (classify_match), and kept with the disk. */
typedef struct ModelMatch {
	bool present;		/* the disk has a model string: ev says what the list made of it */
	bool matched;		/* an entry matched: class is its class */
	ModelClass class;
	Evidence ev;		/* the first model string and "not on the model list", or the one that matched */
	char *warning;		/* drivedb.h's warning for the matched family (up to EVIDENCE_STR - 1
				 * bytes of it), a copy; NULL for none, as for most families */
} ModelMatch;

/* What a disk keeps of its verdict: the evidence itself (5 KiB) is worked
 * out again from the facts and its ModelMatch when someone asks
 * (classify_verdict is pure and cheap: it matches nothing). */
typedef struct VerdictSummary {
	DiskClass class;
	double confidence, smr_confidence;
	char basis[EVIDENCE_STR];
	unsigned n_sources;
	EvidenceSource sources[VERDICT_MAX_SOURCES];
} VerdictSummary;

void verdict_summarize(const Verdict *v, VerdictSummary *ret);
/* Adds what e speaks for to the sources (a rank and class already there is
 * decisive if either is); false when full. */
bool evidence_sources_add(EvidenceSource *s, unsigned *n, unsigned max, const Evidence *e);

/* SMR confidence per kind of static evidence; the ordering is the contract. */
#define SMR_CONF_DECLARED 1.0
#define SMR_CONF_VENDOR_LOG 0.95
#define SMR_CONF_MODEL_LIST 0.85
#define SMR_CONF_TRIM_HINT 0.5
#define SMR_CONF_NO_EVIDENCE 0.1
#define SMR_CONF_KNOWN_CMR 0.02
#define SMR_CONF_SOLID_STATE 0.0

/* classify_match() then classify_verdict(): for a disk seen once. */
void classify_disk(const DiskFacts *f, const ModelList *ml, Verdict *ret);
/* The model list's answer for the facts' model strings: at most
 * MODELLIST_SUBJECTS x modellist_size() matches, within MODELLIST_MATCH_BUDGET.
 * *ret is overwritten: release a previous answer first. */
void classify_match(const DiskFacts *f, const ModelList *ml, ModelMatch *ret);
/* Frees what classify_match copied (the warning); m is then no match. */
void classify_match_release(ModelMatch *m);
/* Whether a and b give the model list the same model strings to match. */
bool classify_same_subjects(const DiskFacts *a, const DiskFacts *b);
/* The verdict from the facts, the model list's answer kept for them and
 * what the vendor's log said (NULL: nothing read). */
void classify_verdict(const DiskFacts *f, const ModelMatch *m, const FarmReading *farm, Verdict *ret);
/* Whether smartctl reads the vendor's log (FARM) of such a disk. */
bool classify_farm_supported(const DiskFacts *f);

const char *disk_class_to_string(DiskClass c);
DiskClass disk_class_from_string(const char *s);
const char *transport_to_string(Transport t);
/* The model string to show: IDENTIFY, then udev (spaces restored), then sysfs. */
void disk_facts_best_model(const DiskFacts *f, char *buf, size_t n);
