/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "qualify-text.h"

#include <math.h>
#include <stdlib.h>

#include "format.h"
#include "output.h"
#include "qualify-report.h"
#include "util.h"

void qualify_text_disk(FILE *f, json_object *rep)
{
	char b[FORMAT_MAX];
	json_object *v = output_get(rep, "classification");
	const char *model = output_str(rep, "model"), *serial = output_str(rep, "serial");
	fprintf(f, "%s: %s, %s, serial %s\n", output_str(rep, "device"), *model ? model : "(no model)",
		format_size(b, output_num(rep, "size_bytes")), *serial ? serial : "(none)");
	fprintf(f, "static classification: %s (confidence %.2f): %s\n", output_str(v, "class"), output_num(v, "confidence"),
		output_str(v, "basis"));
	output_evidence(f, output_get(v, "evidence"));
}

void qualify_text_read(FILE *f, const char *bytes, json_object *x)
{
	char name[32], b[FORMAT_MAX], p50[FORMAT_MAX], p99[FORMAT_MAX], mx[FORMAT_MAX];
	snprintf(name, sizeof name, "read %s", format_size(b, strtod(bytes, NULL)));
	fprintf(f, "%-10s %6.0f IOPS  p50 %s  p99 %s  max %s  bands:", name, output_num(x, "iops"),
		format_duration(p50, output_num(x, "p50")), format_duration(p99, output_num(x, "p99")),
		format_duration(mx, output_num(x, "max")));
	json_object *bands = output_get(x, "bands");
	for (size_t k = 0; bands && k < json_object_array_length(bands); k++) {
		json_object *band = json_object_array_get_idx(bands, k);
		fprintf(f, "%s %s (%.0f%%)", k ? "," : "", format_duration(b, output_num(band, "centre")),
			output_num(band, "share") * 100);
	}
	fprintf(f, "\n");
}

/* A figure of the disk model: its value and uncertainty (NaN: none). */
static bool figure(json_object *model, const char *key, double *v, double *err)
{
	json_object *x = output_get(model, key);
	*v = output_num(x, "value");
	*err = output_num(x, "uncertainty");
	return x && isfinite(*v);
}

/* "  after rests of 4 s: 3.1M, 8 s: 6M, ..." and the fit's sentence. */
static unsigned curve_lines(json_object *curve, char lines[][QUALIFY_LINE], unsigned n, unsigned max)
{
	json_object *pts = output_get(curve, "points"), *fit = output_get(curve, "fit");
	size_t np = pts ? json_object_array_length(pts) : 0;
	if (np && n < max) {
		int k = snprintf(lines[n], QUALIFY_LINE, "  after a rest of");
		for (size_t i = 0; i < np && k > 0 && k < QUALIFY_LINE; i++) {
			json_object *p = json_object_array_get_idx(pts, i);
			char t[FORMAT_MAX], b[FORMAT_MAX];
			k += snprintf(lines[n] + k, QUALIFY_LINE - (size_t)k, "%s %s: %s%s", i ? "," : "",
				      format_duration(t, output_num(p, "rest_seconds")),
				      json_object_get_boolean(output_get(p, "at_least")) ? "at least " : "",
				      format_size(b, output_num(p, "bytes")));
		}
		n++;
	}
	if (fit && n < max)
		snprintf(lines[n++], QUALIFY_LINE, "  %s", output_str(fit, "text"));
	return n;
}

/* "media cache       29.8M +- 128K (written fast from the start, ...)" */
unsigned qualify_text_model_lines(json_object *model, char lines[][QUALIFY_LINE], unsigned max)
{
	char v[FORMAT_MAX], e[FORMAT_MAX];
	double x, err;
	unsigned n = 0;
	if (n < max && figure(model, "media_cache_bytes", &x, &err))
		snprintf(lines[n++], QUALIFY_LINE, "media cache       %s +- %s (written fast from the start, before a write waited)",
			 format_size(v, x), format_size(e, err));
	if (n < max && figure(model, "slow_write_bytes_per_second", &x, &err))
		snprintf(lines[n++], QUALIFY_LINE, "sustained writes  %s +- %s (random writes after the cliff)",
			 format_rate(v, x), format_rate(e, err));
	if (n < max && figure(model, "rewrite_seconds", &x, &err))
		snprintf(lines[n++], QUALIFY_LINE, "one wait          %s +- %s (median of %.0f gaps after the cliff: a band rewrite)",
			 format_duration(v, x), format_duration(e, err), output_num(model, "rewrites"));
	if (n < max && figure(model, "idle_recovery_bytes_per_second", &x, &err)) {
		char r[FORMAT_MAX];
		snprintf(lines[n++], QUALIFY_LINE, "idle recovery     %s%s%s%s (fast space a %s rest gave back, a second of it)",
			 json_object_get_boolean(output_get(model, "idle_recovery_lower_bound")) ? "at least " : "",
			 format_rate(v, x), isfinite(err) ? " +- " : "", isfinite(err) ? format_rate(e, err) : "",
			 format_duration(r, output_num(model, "idle_recovery_rest_seconds")));
		n = curve_lines(output_get(model, "idle_recovery_curve"), lines, n, max);
	}
	json_object *skipped = output_get(model, "skipped");
	for (size_t i = 0; skipped && i < json_object_array_length(skipped) && n < max; i++)
		snprintf(lines[n++], QUALIFY_LINE, "not measured: %s",
			 json_object_get_string(json_object_array_get_idx(skipped, i)));
	return n;
}

/* The disk model, its meaning for a pool, and how to seed smrd with it. */
static void text_model(FILE *f, json_object *rep, json_object *model)
{
	char lines[QUALIFY_MODEL_LINES][QUALIFY_LINE], b[FORMAT_MAX];
	unsigned n = qualify_text_model_lines(model, lines, QUALIFY_MODEL_LINES);
	fprintf(f, "disk model:\n");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "  %s\n", lines[i]);
	if (*output_str(model, "meaning"))
		fprintf(f, "what it means: %s\n", output_str(model, "meaning"));
	double cache, err;
	if (figure(model, "media_cache_bytes", &cache, &err) && !json_object_get_boolean(output_get(rep, "interrupted"))) {
		/* an ID that survives reboots, as smrd.conf(5) takes it: the WWN,
		 * else the serial if it is a plain word, else the kernel name */
		char safe[80];
		const char *wwn = output_str(rep, "wwn"), *serial = output_str(rep, "serial");
		report_safe_name(serial, safe, sizeof safe);
		const char *id = *wwn ? wwn : *serial && streq(safe, serial) ? serial : output_str(rep, "device");
		fprintf(f, "smrd's stall forecast can start from it: disk.%s.media-cache = %s in smrd.conf(5)\n", id,
			format_size(b, cache));
		double rate = output_num(model, "rebuild_bytes_per_second");
		if (isfinite(rate))
			/* bytes a second, written as a size: "130M" (smrd.conf(5)) */
			fprintf(f, "and its rebuild forecast (smrctl rebuild-check): disk.%s.rebuild-rate = %s\n", id,
				format_size(b, rate));
	}
}

void qualify_text_result(FILE *f, json_object *rep)
{
	json_object *d = output_get(rep, "discard"), *v = output_get(rep, "verdict");
	char b[FORMAT_MAX];
	if (d) {
		fprintf(f, "discard of the blocks this run wrote: %s", output_str(d, "result"));
		if (output_num(d, "ranges") > 0)
			fprintf(f, " (%.0f range(s), %s)", output_num(d, "ranges"), format_size(b, output_num(d, "bytes")));
		fprintf(f, "\n");
	}
	if (*output_str(rep, "error")) {
		fprintf(f, "\nno verdict: the run ended on an I/O error: %s\n", output_str(rep, "error"));
		return;
	}
	fprintf(f, "\n");
	json_object *reads = output_get(output_get(rep, "phases"), "reads");
	if (reads) {
		json_object_object_foreach(reads, bytes, x)
			if (output_num(x, "count") > 0)
				qualify_text_read(f, bytes, x);
	}
	if (!v) {
		fprintf(f, "no verdict: the run was interrupted before it could tell (what it measured is in the report)\n");
		json_object *model = output_get(rep, "disk_model");
		if (model)
			text_model(f, rep, model);
		return;
	}
	fprintf(f, "verdict: %s\n", output_str(v, "text"));
	json_object *limits = output_get(v, "limits");
	for (size_t i = 0; limits && i < json_object_array_length(limits); i++)
		fprintf(f, "  limit: %s\n", json_object_get_string(json_object_array_get_idx(limits, i)));
	json_object *model = output_get(rep, "disk_model");
	if (model)
		text_model(f, rep, model);
}
