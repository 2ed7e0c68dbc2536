/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "diskrule.h"


#include <errno.h>
#include <math.h>
#include <string.h>

#include "classify.h"
#include "format.h"
#include "util.h"

/* "ID.setting": the setting is after the last dot (an NVMe EUI has dots). */
static const char *split(const char *rest, char id[DISK_RULE_ID])
{
	const char *dot = strrchr(rest, '.');
	if (!dot || dot == rest || (size_t)(dot - rest) >= DISK_RULE_ID)
		return NULL;
	memcpy(id, rest, (size_t)(dot - rest));
	id[dot - rest] = 0;
	for (const char *p = id; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '"' || *p == '\\')
			return NULL;
	return dot + 1;
}

bool disk_rule_key_known(const char *rest)
{
	char id[DISK_RULE_ID];
	const char *s = split(rest, id);
	return s && (streq(s, "expect") || streq(s, "stall-threshold") || streq(s, "media-cache") ||
		     streq(s, "rebuild-rate"));
}

int disk_rule_set(DiskRules *rules, const char *rest, const char *value, char **ret_error)
{
	char id[DISK_RULE_ID];
	const char *s = split(rest, id);
	if (!s)
		return set_errorf(ret_error, -EINVAL, "disk.%s: not disk.<WWN, serial, by-id name or device>.<setting>", rest);
	unsigned i = 0;
	while (i < rules->n && !streq(rules->r[i].id, id))
		i++;
	if (i == DISK_RULES_MAX)
		return set_errorf(ret_error, -EINVAL, "disk.%s: at most %d disks with settings", rest, DISK_RULES_MAX);
	DiskRule r = i < rules->n ? rules->r[i] : (DiskRule){.expect = -1, .stall_threshold = NAN, .media_cache = NAN,
										   .rebuild_rate = NAN};
	snprintf(r.id, sizeof r.id, "%s", id);
	if (streq(s, "expect")) {
		DiskClass c = disk_class_from_string(value);
		if ((int)c < 0 || c == DISK_CLASS_UNKNOWN)
			return set_errorf(ret_error, -EINVAL,
					  "disk.%s: '%s' is not cmr, dm-smr, host-aware, host-managed or ssd", rest, value);
		r.expect = (int)c;
	} else if (streq(s, "stall-threshold")) {
		double v;
		if (parse_double(value, &v) < 0 || v < 0.001 || v > 3600)
			return set_errorf(ret_error, -EINVAL, "disk.%s: '%s' is not a number of seconds from 0.001 to 3600",
					  rest, value);
		r.stall_threshold = v;
	} else if (streq(s, "media-cache")) {
		uint64_t v;
		/* what smrctl qualify measured, or a datasheet's: a few MiB to a few TiB */
		if (parse_size(value, &v) < 0 || v < (1u << 20) || v > (UINT64_C(1) << 42))
			return set_errorf(ret_error, -EINVAL, "disk.%s: '%s' is not a size from 1M to 4T (e.g. 24G)", rest,
					  value);
		r.media_cache = (double)v;
	} else if (streq(s, "rebuild-rate")) {
		uint64_t v;
		/* bytes a second of a rebuild's large ordered writes past the media cache (smrctl qualify) */
		if (parse_size(value, &v) < 0 || v < (1u << 20) || v > (UINT64_C(1) << 34))
			return set_errorf(ret_error, -EINVAL, "disk.%s: '%s' is not a rate from 1M to 16G a second (e.g. 80M)",
					  rest, value);
		r.rebuild_rate = (double)v;
	} else {
		return set_errorf(ret_error, -EINVAL,
				  "disk.%s: unknown setting '%s' (expect, stall-threshold, media-cache, rebuild-rate)", rest, s);
	}
	rules->r[i] = r;
	if (i == rules->n)
		rules->n++;
	return 0;
}

void disk_rules_print(const DiskRules *rules, FILE *f)
{
	for (unsigned i = 0; i < rules->n; i++) {
		const DiskRule *r = &rules->r[i];
		if (r->expect >= 0)
			fprintf(f, "disk.%s.expect = %s\n", r->id, disk_class_to_string((DiskClass)r->expect));
		char num[32];
		if (isfinite(r->stall_threshold))
			fprintf(f, "disk.%s.stall-threshold = %s\n", r->id, format_exact(num, r->stall_threshold));
		if (isfinite(r->media_cache))
			fprintf(f, "disk.%s.media-cache = %s\n", r->id, format_exact(num, r->media_cache));
		if (isfinite(r->rebuild_rate))
			fprintf(f, "disk.%s.rebuild-rate = %s\n", r->id, format_exact(num, r->rebuild_rate));
	}
}

bool disk_rule_matches(const DiskRule *rule, const DiskIds *who)
{
	const char *id = rule->id;
	if (startswith(id, "/dev/disk/by-id/"))
		id += strlen("/dev/disk/by-id/");
	else if (startswith(id, "/dev/"))
		id += strlen("/dev/");
	if (!*id)
		return false;
	if (who->name && streq(id, who->name))
		return true;
	if (who->wwn && *who->wwn && (streq(id, who->wwn) || (startswith(id, "wwn-") && streq(id + 4, who->wwn))))
		return true;
	if (who->serial && *who->serial && streq(id, who->serial))
		return true;
	for (unsigned i = 0; i < who->n_links && i < DISK_LINKS_MAX; i++)
		if (streq(id, who->links[i]))
			return true;
	return false;
}

const DiskRule *disk_rules_find(const DiskRules *rules, const DiskIds *who)
{
	for (unsigned i = 0; i < rules->n; i++)
		if (disk_rule_matches(&rules->r[i], who))
			return &rules->r[i];
	return NULL;
}
