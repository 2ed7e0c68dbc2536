/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Evidence, strongest first (design.md): a zoned declaration (sysfs zoned,
 * zoned_cap, SCSI type 0x14, VPD B1 ZONED, IDENTIFY word 69), then the model
 * list, then solid-state evidence, then a rotating physical disk with TRIM.
 * ZONED = 0 means "not reported", never "CMR": many DM-SMR disks hide.
 */
#include "classify.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *const class_names[_DISK_CLASS_MAX] = {
	[DISK_CLASS_CMR] = "cmr", [DISK_CLASS_DM_SMR] = "dm-smr",
	[DISK_CLASS_HOST_AWARE] = "host-aware", [DISK_CLASS_HOST_MANAGED] = "host-managed",
	[DISK_CLASS_SSD] = "ssd", [DISK_CLASS_UNKNOWN] = "unknown",
};

static const char *const transport_names[_TRANSPORT_MAX] = {
	[TRANSPORT_ATA] = "ata", [TRANSPORT_SCSI] = "scsi", [TRANSPORT_USB] = "usb",
	[TRANSPORT_NVME] = "nvme", [TRANSPORT_MMC] = "mmc", [TRANSPORT_VIRTIO] = "virtio",
	[TRANSPORT_VIRTUAL] = "virtual", [TRANSPORT_UNKNOWN] = "unknown",
};

const char *disk_class_to_string(DiskClass c)
{
	return c >= 0 && c < _DISK_CLASS_MAX ? class_names[c] : NULL;
}

DiskClass disk_class_from_string(const char *s)
{
	for (int i = 0; s && i < _DISK_CLASS_MAX; i++)
		if (streq(s, class_names[i]))
			return i;
	return _DISK_CLASS_INVALID;
}

static const char *const rank_names[_EVIDENCE_RANK_MAX] = {
	[EVIDENCE_FACT] = "fact", [EVIDENCE_UNREADABLE] = "unreadable", [EVIDENCE_ADMIN] = "smrd.conf",
	[EVIDENCE_DECLARED] = "declared", [EVIDENCE_NOT_A_DISK] = "not-a-disk", [EVIDENCE_VENDOR_LOG] = "vendor-log",
	[EVIDENCE_MODEL_LIST] = "model-list", [EVIDENCE_SOLID_STATE] = "solid-state", [EVIDENCE_VIRTUAL] = "virtual",
	[EVIDENCE_TRIM] = "trim", [EVIDENCE_BEHAVIOUR] = "behaviour", [EVIDENCE_ROTATING] = "rotating",
};

const char *evidence_rank_to_string(EvidenceRank r)
{
	return r >= 0 && r < _EVIDENCE_RANK_MAX ? rank_names[r] : NULL;
}

const char *transport_to_string(Transport t)
{
	return t >= 0 && t < _TRANSPORT_MAX ? transport_names[t] : NULL;
}

void disk_facts_init(DiskFacts *f, const char *name)
{
	*f = (DiskFacts){.admin_class = -1, .transport = TRANSPORT_UNKNOWN, .rotational = -1, .scsi_type = -1,
			 .discard_max_bytes = -1, .nr_zones = -1, .zone_sectors = -1,
			 .udev_rpm = -1, .b1_status = -ENOENT, .id_status = -ENOENT};
	snprintf(f->name, sizeof f->name, "%s", name);
}

static void underscores_to_spaces(const char *in, char *out, size_t n)
{
	snprintf(out, n, "%s", in);
	for (char *p = out; *p; p++)
		if (*p == '_')
			*p = ' ';
}

void disk_facts_best_model(const DiskFacts *f, char *buf, size_t n)
{
	if (f->id_status == 0 && f->id.model[0])
		snprintf(buf, n, "%s", f->id.model);
	else if (f->udev_model[0])
		underscores_to_spaces(f->udev_model, buf, n);
	else
		snprintf(buf, n, "%s", f->sysfs_model);
}

typedef struct Ctx {
	const DiskFacts *f;
	Verdict *v;
	Evidence *not_a_disk;	/* the peripheral type that is not a disk's */
} Ctx;

static Evidence *add(Ctx *c, const char *source, const char *implies, const char *fmt, ...)
	_printf_(4, 5);
static Evidence *add(Ctx *c, const char *source, const char *implies, const char *fmt, ...)
{
	/* At most 17 pieces are ever added, the detector's one more; past the cap one is dropped (NULL). */
	if (c->v->n_evidence >= VERDICT_MAX_EVIDENCE)
		return NULL;
	Evidence *e = &c->v->evidence[c->v->n_evidence++];
	e->rank = EVIDENCE_FACT;
	e->class = -1;
	va_list ap;
	snprintf(e->source, sizeof e->source, "%s", source);
	snprintf(e->implies, sizeof e->implies, "%s", implies);
	va_start(ap, fmt);
	vsnprintf(e->value, sizeof e->value, fmt, ap);
	va_end(ap);
	return e;
}

/* e speaks for cls at rank r (e may be the NULL of a full verdict). */
static Evidence *speaks(Evidence *e, EvidenceRank r, DiskClass cls)
{
	if (e) {
		e->rank = r;
		e->class = (int)cls;
	}
	return e;
}

static const char *vpd_status_text(int status)
{
	switch (status) {
	case -ENODATA: return "truncated page";
	case -EBADMSG: return "malformed page";
	default: return "unreadable";
	}
}

/* Zoned declarations; returns the declared class or _DISK_CLASS_INVALID. */
static DiskClass zoned_evidence(Ctx *c, Evidence **decisive)
{
	const DiskFacts *f = c->f;
	DiskClass d = _DISK_CLASS_INVALID;
	Evidence *e;

#define DECLARE(cls, ev) do { Evidence *e_ = speaks((ev), EVIDENCE_DECLARED, (cls)); \
		if (d == _DISK_CLASS_INVALID || (cls) == DISK_CLASS_HOST_MANAGED) { d = (cls); *decisive = e_; } } while (0)
	if (f->zoned[0]) {
		if (streq(f->zoned, "host-managed")) {
			e = add(c, "sysfs queue/zoned", "host-managed zoned device", "%s", f->zoned);
			DECLARE(DISK_CLASS_HOST_MANAGED, e);
		} else if (streq(f->zoned, "host-aware")) {
			e = add(c, "sysfs queue/zoned", "host-aware zoned device", "%s", f->zoned);
			DECLARE(DISK_CLASS_HOST_AWARE, e);
		} else {
			add(c, "sysfs queue/zoned", "not zoned to the block layer (host-aware disks also say none since 6.8)",
			    "%s", f->zoned);
		}
	}
	if (f->scsi_type == SCSI_TYPE_ZBC) {
		e = add(c, "sysfs device/type", "SCSI zoned block device (ZBC): host-managed", "0x14");
		DECLARE(DISK_CLASS_HOST_MANAGED, e);
	} else if (f->scsi_type > 0) {
		c->not_a_disk = speaks(add(c, "sysfs device/type", "not a direct-access disk", "0x%02x",
					   (unsigned)f->scsi_type), EVIDENCE_NOT_A_DISK, DISK_CLASS_UNKNOWN);
	}
	if (f->zoned_cap[0]) {
		if (streq(f->zoned_cap, "drive-managed")) {
			e = add(c, "sysfs zoned_cap", "the drive declares itself drive-managed SMR", "%s", f->zoned_cap);
			DECLARE(DISK_CLASS_DM_SMR, e);
		} else if (streq(f->zoned_cap, "host-aware")) {
			e = add(c, "sysfs zoned_cap", "the drive declares itself host-aware", "%s", f->zoned_cap);
			DECLARE(DISK_CLASS_HOST_AWARE, e);
		} else {
			add(c, "sysfs zoned_cap", "zoned capabilities not reported (not proof of CMR)", "%s", f->zoned_cap);
		}
	}
	if (f->b1_status == 0 && f->b1.has_zoned) {
		const char *z = vpd_zoned_to_string(f->b1.zoned);
		if (f->b1.zoned == 1) {
			e = add(c, "VPD 0xB1 ZONED", "the drive declares itself host-aware", "1 (%s)", z);
			DECLARE(DISK_CLASS_HOST_AWARE, e);
		} else if (f->b1.zoned == 2) {
			e = add(c, "VPD 0xB1 ZONED", "the drive declares itself drive-managed SMR", "2 (%s)", z);
			DECLARE(DISK_CLASS_DM_SMR, e);
		} else {
			add(c, "VPD 0xB1 ZONED", "not reported (many DM-SMR disks say nothing)", "%u", f->b1.zoned);
		}
	} else if (f->b1_status != -ENOENT) {
		add(c, "VPD 0xB1", "ignored", "%s", vpd_status_text(f->b1_status));
	}
	if (f->id_status == 0) {
		unsigned w = f->id.word69_zoned;
		if (w == 1) {
			e = add(c, "ATA IDENTIFY word 69", "the drive declares itself host-aware", "zoned=1");
			DECLARE(DISK_CLASS_HOST_AWARE, e);
		} else if (w == 2) {
			e = add(c, "ATA IDENTIFY word 69", "the drive declares itself drive-managed SMR", "zoned=2");
			DECLARE(DISK_CLASS_DM_SMR, e);
		} else {
			add(c, "ATA IDENTIFY word 69", "zoned capabilities not reported", "zoned=%u", w);
		}
	} else if (f->id_status != -ENOENT) {
		add(c, "VPD 0x89", "ignored", "%s", vpd_status_text(f->id_status));
	}
#undef DECLARE
	return d;
}

/* What a piece that reports the medium speaks for: rotating (cmr, the
 * weakest word) or not (ssd). */
static Evidence *medium(Evidence *e, bool rotating)
{
	return speaks(e, rotating ? EVIDENCE_ROTATING : EVIDENCE_SOLID_STATE, rotating ? DISK_CLASS_CMR : DISK_CLASS_SSD);
}

/* Rotation: 1 rotating, 0 solid state, -1 unknown; *strong when a drive
 * page said so, *ret_ev the piece that did. */
static int rotation_evidence(Ctx *c, bool *strong, Evidence **ret_ev)
{
	const DiskFacts *f = c->f;
	int rot = -1;
	Evidence *e;
	*strong = false;

	if (f->b1_status == 0) {
		unsigned r = f->b1.rotation_rate;
		e = add(c, "VPD 0xB1 rotation rate", r == 1 ? "non-rotating medium" : r == 0 ? "not reported" : "rotating medium",
			r > 1 ? "%u rpm" : "%u", r);
		if (r >= 1) {
			rot = r > 1;
			*strong = true;
			*ret_ev = medium(e, rot);
		}
	}
	if (f->id_status == 0) {
		unsigned r = f->id.rotation_rate;
		e = add(c, "ATA IDENTIFY word 217", r == 1 ? "non-rotating medium" : r >= 0x401 ? "rotating medium" : "not reported",
			r >= 0x401 ? "%u rpm" : "%u", r);
		if (r == 1 || (r >= 0x401 && r < 0xffff)) {
			medium(e, r != 1);
			if (rot < 0) {
				rot = r != 1;
				*strong = true;
				*ret_ev = e;
			}
		}
	}
	if (f->udev_rpm >= 0) {
		e = medium(add(c, "udev ID_ATA_ROTATION_RATE_RPM", f->udev_rpm ? "rotating medium" : "non-rotating medium",
			       "%d", f->udev_rpm), f->udev_rpm > 0);
		if (rot < 0) {
			rot = f->udev_rpm > 0;
			*strong = true;
			*ret_ev = e;
		}
	}
	if (f->rotational >= 0) {
		e = medium(add(c, "sysfs queue/rotational", f->rotational ? "rotating (as the transport reports it)"
									: "non-rotating", "%d", f->rotational), f->rotational);
		if (rot < 0) {
			rot = f->rotational;
			*ret_ev = e;
		}
	}
	return rot;
}

/* Returns whether the disk takes TRIM; *ret_ev is the evidence that says
 * so. It speaks for dm-smr only on a rotating physical disk. */
static bool trim_evidence(Ctx *c, bool hint, Evidence **ret_ev)
{
	const DiskFacts *f = c->f;
	bool trim = false;
	if (f->discard_max_bytes >= 0) {
		trim = f->discard_max_bytes > 0;
		Evidence *e = add(c, "sysfs queue/discard_max_hw_bytes", trim ? "accepts TRIM/discard" : "no TRIM/discard",
				  "%lld", (long long)f->discard_max_bytes);
		if (trim)
			*ret_ev = hint ? speaks(e, EVIDENCE_TRIM, DISK_CLASS_DM_SMR) : e;
	}
	if (f->id_status == 0) {
		Evidence *e = add(c, "ATA IDENTIFY word 169", f->id.trim ? "supports DATA SET MANAGEMENT TRIM" : "no TRIM",
				  "bit0=%d", f->id.trim);
		if (f->id.trim && hint)
			speaks(e, EVIDENCE_TRIM, DISK_CLASS_DM_SMR);
		if (f->id.trim && !trim)
			*ret_ev = e;
		trim = trim || f->id.trim;
	}
	return trim;
}

void classify_match(const DiskFacts *f, const ModelList *ml, ModelMatch *ret)
{
	char spaced[FACT_STR], joined[2 * FACT_STR + 2];
	struct { const char *source, *model; } cand[MODELLIST_SUBJECTS];
	unsigned n = 0;

	*ret = (ModelMatch){0};
	if (f->id_status == 0 && f->id.model[0])
		cand[n++] = (typeof(cand[0])){"ATA IDENTIFY model", f->id.model};
	if (f->udev_model[0]) {
		underscores_to_spaces(f->udev_model, spaced, sizeof spaced);
		cand[n++] = (typeof(cand[0])){"udev ID_MODEL", spaced};
	}
	if (f->sysfs_model[0])
		cand[n++] = (typeof(cand[0])){"sysfs device/model", f->sysfs_model};
	/* Some bridges put the first word of the ATA model in the vendor field. */
	if (f->sysfs_model[0] && f->sysfs_vendor[0] && !streq(f->sysfs_vendor, "ATA")) {
		snprintf(joined, sizeof joined, "%s %s", f->sysfs_vendor, f->sysfs_model);
		cand[n++] = (typeof(cand[0])){"sysfs device/vendor+model", joined};
	}
	for (unsigned i = 0; i < n; i++) {
		const ModelEntry *m = modellist_match(ml, cand[i].model);
		if (m) {
			*ret = (ModelMatch){.present = true, .matched = true, .class = m->class};
			snprintf(ret->ev.source, sizeof ret->ev.source, "%s", cand[i].source);
			snprintf(ret->ev.value, sizeof ret->ev.value, "%s", cand[i].model);
			snprintf(ret->ev.implies, sizeof ret->ev.implies, "%s line %u (%s): %.60s", m->origin, m->line,
				 model_class_to_string(m->class), m->source);
			/* out of memory: shown without it */
			if (m->warning && *m->warning)
				ret->warning = strndup(m->warning, EVIDENCE_STR - 1);
			return;
		}
	}
	if (n == 0)
		return;
	ret->present = true;
	snprintf(ret->ev.source, sizeof ret->ev.source, "%s", cand[0].source);
	snprintf(ret->ev.value, sizeof ret->ev.value, "%s", cand[0].model);
	snprintf(ret->ev.implies, sizeof ret->ev.implies, "not on the model list");
}

void classify_match_release(ModelMatch *m)
{
	free(m->warning);
	*m = (ModelMatch){0};
}

bool classify_same_subjects(const DiskFacts *a, const DiskFacts *b)
{
	bool ida = a->id_status == 0, idb = b->id_status == 0;
	return ida == idb && (!ida || streq(a->id.model, b->id.model)) && streq(a->udev_model, b->udev_model) &&
	       streq(a->sysfs_model, b->sysfs_model) && streq(a->sysfs_vendor, b->sysfs_vendor);
}

/* The model list's answer as evidence; its class when an entry matched. */
static int model_evidence(Ctx *c, const ModelMatch *m, Evidence **ret_ev)
{
	if (!m->present)
		return -1;
	Evidence *e = add(c, m->ev.source, m->ev.implies, "%s", m->ev.value);
	if (!m->matched)
		return -1;
	*ret_ev = speaks(e, EVIDENCE_MODEL_LIST, m->class == MODEL_CLASS_CMR ? DISK_CLASS_CMR : DISK_CLASS_DM_SMR);
	/* free text: shown with its provenance, it classifies nothing (the family's mark does) */
	if (m->warning)
		add(c, "drivedb.h warning", "smartctl's warning for this family, from its drive database", "%s", m->warning);
	return (int)m->class;
}

static void decide(Verdict *v, DiskClass cls, double conf, double smr, Evidence *e, const char *basis)
{
	v->class = cls;
	v->confidence = conf;
	v->smr_confidence = smr;
	snprintf(v->basis, sizeof v->basis, "%s", basis);
	if (e)
		e->decisive = true;
}

void classify_disk(const DiskFacts *f, const ModelList *ml, Verdict *ret)
{
	ModelMatch m;
	classify_match(f, ml, &m);
	classify_verdict(f, &m, NULL, ret);
	classify_match_release(&m);
}

bool classify_farm_supported(const DiskFacts *f)
{
	/* smartctl decides by the model; a stacked device's log is its members' */
	char model[FACT_STR];
	disk_facts_best_model(f, model, sizeof model);
	return !f->stacked[0] && f->scsi_type <= 0 && farm_vendor_supports(model, f->sysfs_vendor);
}

/* What smartctl read of the vendor's log; the class it states, or -1. */
static int farm_evidence(Ctx *c, const FarmReading *r, Evidence **ret_ev)
{
	if (!r || r->state == FARM_NOT_READ)
		return -1;
	const char *why = NULL;
	switch (r->state) {
	case FARM_SMR:
	case FARM_CMR: {
		DiskClass cls = r->state == FARM_SMR ? DISK_CLASS_DM_SMR : DISK_CLASS_CMR;
		*ret_ev = speaks(add(c, "Seagate FARM log", r->state == FARM_SMR ? "the drive's own log: shingled (drive-managed SMR)"
										 : "the drive's own log: conventional (CMR)",
				     "%s (smartctl %s%s%s)", r->detail, r->smartctl, r->serial[0] ? ", serial " : "", r->serial),
				 EVIDENCE_VENDOR_LOG, cls);
		return (int)cls;
	}
	case FARM_UNKNOWN: why = "the log does not say"; break;
	case FARM_UNSUPPORTED: why = "the drive keeps no FARM log"; break;
	case FARM_STANDBY: why = "not read: the drive was spun down (smartctl -n standby), asked again on reread"; break;
	case FARM_NO_OPTION: why = "not read: this smartctl predates -l farm (smartmontools 7.4)"; break;
	default: why = "not read"; break;
	}
	add(c, "Seagate FARM log", why, "%s", r->detail);
	return -1;
}

void classify_verdict(const DiskFacts *f, const ModelMatch *mm, const FarmReading *farm, Verdict *ret)
{
	Verdict v = {0};
	Ctx c = {.f = f, .v = &v};
	Evidence *decl_ev = NULL, *model_ev = NULL, *trim_ev = NULL, *rot_ev = NULL, *farm_ev = NULL;
	bool strong_rot, is_virtual = f->transport == TRANSPORT_VIRTUAL || f->transport == TRANSPORT_VIRTIO;

	Evidence *transport_ev = add(&c, "transport", is_virtual ? "virtual device: the medium behind it is hidden"
								  : "physical transport",
				     "%s", transport_to_string(f->transport));
	if (is_virtual)
		speaks(transport_ev, EVIDENCE_VIRTUAL, DISK_CLASS_UNKNOWN);
	Evidence *size_ev = NULL;
	if (f->size_status < 0)
		size_ev = speaks(add(&c, "sysfs size", "cannot tell whether a medium is present: the attributes are not trusted",
				     "unreadable: %s", read_error_string(f->size_status)), EVIDENCE_UNREADABLE, DISK_CLASS_UNKNOWN);
	Evidence *admin_ev = NULL;
	if (f->admin_class >= 0 && f->admin_class < _DISK_CLASS_MAX)
		admin_ev = speaks(add(&c, "smrd.conf", "declared by the administrator: kept as the class, behaviour still watched",
				      "%s = %s", f->admin_rule, disk_class_to_string((DiskClass)f->admin_class)),
				  EVIDENCE_ADMIN, (DiskClass)f->admin_class);
	DiskClass declared = zoned_evidence(&c, &decl_ev);
	int stated = farm_evidence(&c, farm, &farm_ev);
	int listed = model_evidence(&c, mm, &model_ev);
	int rot = rotation_evidence(&c, &strong_rot, &rot_ev);
	bool trim = trim_evidence(&c, rot == 1 && !is_virtual, &trim_ev);

	if (size_ev)
		decide(&v, DISK_CLASS_UNKNOWN, 0.0, SMR_CONF_NO_EVIDENCE, size_ev,
		       "its size could not be read: watched, but not classified");
	else if (admin_ev) {
		DiskClass a = (DiskClass)f->admin_class;
		bool smr = a == DISK_CLASS_DM_SMR || a == DISK_CLASS_HOST_AWARE || a == DISK_CLASS_HOST_MANAGED;
		decide(&v, a, 1.0, smr ? SMR_CONF_DECLARED : a == DISK_CLASS_SSD ? SMR_CONF_SOLID_STATE : SMR_CONF_KNOWN_CMR,
		       admin_ev, "declared in smrd.conf by the administrator");
	} else if (declared >= 0)
		decide(&v, declared, 1.0, SMR_CONF_DECLARED, decl_ev, "declared by the drive or kernel");
	else if (f->scsi_type > 0)
		decide(&v, DISK_CLASS_UNKNOWN, 0.9, SMR_CONF_SOLID_STATE, c.not_a_disk,
		       "not a direct-access disk (SCSI peripheral type): nothing to shingle");
	else if (stated >= 0)
		decide(&v, (DiskClass)stated, 0.95, stated == DISK_CLASS_DM_SMR ? SMR_CONF_VENDOR_LOG : SMR_CONF_KNOWN_CMR,
		       farm_ev, stated == DISK_CLASS_DM_SMR ? "the drive's own FARM log says SMR"
							    : "the drive's own FARM log says CMR");
	else if (listed == MODEL_CLASS_DM_SMR)
		decide(&v, DISK_CLASS_DM_SMR, 0.85, SMR_CONF_MODEL_LIST, model_ev,
		       "model is on the DM-SMR list (strong evidence, not proof)");
	else if (rot == 0)
		decide(&v, DISK_CLASS_SSD, strong_rot ? 0.95 : 0.8, SMR_CONF_SOLID_STATE, rot_ev,
		       strong_rot ? "the drive reports a non-rotating medium" : "the kernel reports a non-rotating device");
	else if (listed == MODEL_CLASS_CMR)
		decide(&v, DISK_CLASS_CMR, 0.8, SMR_CONF_KNOWN_CMR, model_ev, "model is listed as CMR");
	else if (is_virtual)
		decide(&v, DISK_CLASS_UNKNOWN, 0.0, SMR_CONF_NO_EVIDENCE, transport_ev,
		       "virtual device: only its behaviour can tell");
	else if (rot == 1 && trim)
		decide(&v, DISK_CLASS_DM_SMR, 0.5, SMR_CONF_TRIM_HINT, trim_ev,
		       "rotating disk that accepts TRIM: DM-SMR suspected");
	else if (rot == 1)
		decide(&v, DISK_CLASS_CMR, 0.7, SMR_CONF_NO_EVIDENCE, rot_ev,
		       "rotating disk with no SMR evidence (a hidden DM-SMR disk would look the same)");
	else
		decide(&v, DISK_CLASS_UNKNOWN, 0.0, SMR_CONF_NO_EVIDENCE, NULL, "no evidence either way");
	*ret = v;
}

bool evidence_sources_add(EvidenceSource *s, unsigned *n, unsigned max, const Evidence *e)
{
	if (e->rank == EVIDENCE_FACT || e->class < 0)
		return true;
	for (unsigned i = 0; i < *n; i++)
		if (s[i].rank == e->rank && s[i].class == e->class) {
			s[i].decisive |= e->decisive;
			return true;
		}
	if (*n >= max)
		return false;
	s[(*n)++] = (EvidenceSource){.rank = e->rank, .class = e->class, .decisive = e->decisive};
	return true;
}

void verdict_summarize(const Verdict *v, VerdictSummary *ret)
{
	*ret = (VerdictSummary){.class = v->class, .confidence = v->confidence, .smr_confidence = v->smr_confidence};
	memcpy(ret->basis, v->basis, sizeof ret->basis);
	for (unsigned i = 0; i < v->n_evidence; i++)
		evidence_sources_add(ret->sources, &ret->n_sources, VERDICT_MAX_SOURCES, &v->evidence[i]);
}
