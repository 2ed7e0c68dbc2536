/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smartctl names the log "seagate_farm_log" and the field
 * "drive_recording_type" in both of its forms (farmprint.cpp): ATA's
 * "page_1_drive_information", SCSI's "drive_information_continued"; its
 * value is "SMR", "CMR" or "UNKNOWN" (bit 0 or bit 1 of the log's word,
 * neither or both). A drive smartctl skipped because it was spun down
 * says so in "smartctl.messages" ("Device is in STANDBY mode, exit(2)"),
 * and since 7.5 in "power_mode". A smartctl before 7.4 refuses the option
 * before it prints any JSON.
 */
#include "farm.h"

#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

#define JSON_DEPTH 16		/* smartctl's document, its log, a page, a per-head record: 4 */

static const char *const state_names[_FARM_STATE_MAX] = {
	[FARM_NOT_READ] = "not-read", [FARM_SMR] = "smr", [FARM_CMR] = "cmr", [FARM_UNKNOWN] = "unknown",
	[FARM_UNSUPPORTED] = "unsupported", [FARM_STANDBY] = "standby", [FARM_NO_OPTION] = "no-farm-option",
	[FARM_FAILED] = "failed",
};

const char *farm_state_to_string(FarmState s)
{
	return s >= 0 && s < _FARM_STATE_MAX ? state_names[s] : NULL;
}

static void json_putp(json_object **o) { json_object_put(*o); }

static json_object *member(json_object *o, const char *key)
{
	json_object *v;
	return o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *string_member(json_object *o, const char *key)
{
	json_object *v = member(o, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A printable copy, trimmed (the log pads its strings with spaces). */
static void copy_text(char *dst, size_t n, const char *src)
{
	while (*src == ' ')
		src++;
	size_t k = 0;
	for (; *src && k + 1 < n; src++)
		dst[k++] = (unsigned char)*src >= 0x20 && (unsigned char)*src < 0x7f ? *src : '?';
	while (k > 0 && dst[k - 1] == ' ')
		k--;
	dst[k] = 0;
}

/* smartctl's [major, minor] as "7.4". */
static void version(json_object *doc, FarmReading *ret)
{
	json_object *v = member(member(doc, "smartctl"), "version");
	if (!v || !json_object_is_type(v, json_type_array) || json_object_array_length(v) < 2)
		return;
	json_object *a = json_object_array_get_idx(v, 0), *b = json_object_array_get_idx(v, 1);
	if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
		snprintf(ret->smartctl, sizeof ret->smartctl, "%d.%d", json_object_get_int(a), json_object_get_int(b));
}

/* Whether smartctl left the drive alone because it was spun down. */
static bool spun_down(json_object *doc, FarmReading *ret)
{
	json_object *msgs = member(member(doc, "smartctl"), "messages");
	size_t n = msgs && json_object_is_type(msgs, json_type_array) ? json_object_array_length(msgs) : 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = string_member(json_object_array_get_idx(msgs, i), "string");
		/* "Device is in %s mode, exit(%d)" (ataprint.cpp, scsiprint.cpp, smartctl.cpp) */
		if (s && startswith(s, "Device is in ") && strstr(s, " mode, exit(")) {
			copy_text(ret->detail, sizeof ret->detail, s);
			return true;
		}
	}
	return false;
}

/* The first message smartctl printed as an error, as the reason. */
static void first_error(json_object *doc, FarmReading *ret)
{
	json_object *msgs = member(member(doc, "smartctl"), "messages");
	size_t n = msgs && json_object_is_type(msgs, json_type_array) ? json_object_array_length(msgs) : 0;
	for (size_t i = 0; i < n; i++) {
		json_object *m = json_object_array_get_idx(msgs, i);
		const char *s = string_member(m, "string"), *sev = string_member(m, "severity");
		if (s && (!sev || streq(sev, "error"))) {
			copy_text(ret->detail, sizeof ret->detail, s);
			return;
		}
	}
}

static void recording(json_object *log, FarmReading *ret)
{
	static const char *const pages[] = {"page_1_drive_information", "drive_information_continued"};
	const char *type = NULL;
	for (size_t i = 0; i < ELEMENTSOF(pages) && !type; i++)
		type = string_member(member(log, pages[i]), "drive_recording_type");
	const char *serial = string_member(member(log, "page_1_drive_information"), "serial_number");
	if (!serial)
		serial = string_member(member(log, "drive_information"), "serial_number");
	if (serial)
		copy_text(ret->serial, sizeof ret->serial, serial);
	json_object *sup = member(log, "supported");
	if (!type && sup && json_object_is_type(sup, json_type_boolean) && !json_object_get_boolean(sup)) {
		ret->state = FARM_UNSUPPORTED;
		snprintf(ret->detail, sizeof ret->detail, "smartctl found no FARM log on the drive");
	} else if (!type) {
		ret->state = FARM_FAILED;
		snprintf(ret->detail, sizeof ret->detail, "the FARM log has no drive_recording_type");
	} else {
		char t[16];
		copy_text(t, sizeof t, type);
		ret->state = streq(t, "SMR") ? FARM_SMR : streq(t, "CMR") ? FARM_CMR : FARM_UNKNOWN;
		snprintf(ret->detail, sizeof ret->detail, "Drive Recording Type: %s", t);
	}
}

void farm_parse(const char *out, size_t len, int exit_status, FarmReading *ret)
{
	*ret = (FarmReading){.state = FARM_FAILED};
	json_tokener *tok = json_tokener_new_ex(JSON_DEPTH);
	if (!tok) {
		snprintf(ret->detail, sizeof ret->detail, "out of memory");
		return;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	_cleanup_(json_putp) json_object *doc = json_tokener_parse_ex(tok, out, (int)(len > INT32_MAX ? INT32_MAX : len));
	bool parsed = doc && json_tokener_get_error(tok) == json_tokener_success && json_object_is_type(doc, json_type_object);
	json_tokener_free(tok);
	if (!parsed) {
		/* bit 0 of smartctl's status: its command line did not parse */
		if (exit_status >= 0 && (exit_status & 1)) {
			ret->state = FARM_NO_OPTION;
			snprintf(ret->detail, sizeof ret->detail, "this smartctl refuses -l farm (smartmontools 7.4 reads it)");
		} else
			snprintf(ret->detail, sizeof ret->detail, exit_status < 0 ? "killed before it answered"
								     : "no JSON from smartctl (exit %d)", exit_status);
		return;
	}
	version(doc, ret);
	json_object *log = member(doc, "seagate_farm_log");
	if (log) {
		recording(log, ret);
		return;
	}
	if (spun_down(doc, ret)) {
		ret->state = FARM_STANDBY;
		return;
	}
	first_error(doc, ret);
	if (!ret->detail[0])
		snprintf(ret->detail, sizeof ret->detail, "smartctl %s printed no FARM log (exit %d)",
			 ret->smartctl[0] ? ret->smartctl : "?", exit_status);
}

static size_t span(const char *s, bool (*is)(int c))
{
	size_t n = 0;
	while (s[n] && is((unsigned char)s[n]))
		n++;
	return n;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_upper_or_digit(int c) { return (c >= 'A' && c <= 'Z') || is_digit(c); }

bool farm_vendor_supports(const char *model, const char *scsi_vendor)
{
	if (scsi_vendor && startswith(scsi_vendor, "SEAGATE"))
		return true;
	if (!model || !startswith(model, "ST"))
		return false;
	/* ^ST[0-9]{3,5}[A-Z]{2}[A-Z0-9]{3,5}(-.*)?$ */
	const char *p = model + 2;
	size_t n = span(p, is_digit);
	if (n < 3 || n > 5)
		return false;
	p += n;
	if (!(p[0] >= 'A' && p[0] <= 'Z' && p[1] >= 'A' && p[1] <= 'Z'))
		return false;
	p += 2;
	n = span(p, is_upper_or_digit);
	return n >= 3 && n <= 5 && (p[n] == 0 || p[n] == '-');
}
