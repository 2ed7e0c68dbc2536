/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A disk's idle-recovery curve and idle budget as every view writes them
 * (formatting only: the figures are the detector's, idlecurve.h and
 * idlebudget.h): the curve as JSON, the same for smrctl qualify's report
 * and smrctl show; the budget as JSON, its forecast and advice as
 * sentences, and its day as a picture for the disk's page. Keys in
 * docs/protocol.md and docs/qualify.md; what they mean in docs/detection.md,
 * "Idle time".
 */
#pragma once

#include <json-c/json.h>
#include <stddef.h>

#include "idlebudget.h"
#include "idlecurve.h"
#include "util.h"

/* {"points":[{rest_seconds, bytes, uncertainty, at_least}...], "fit":{...}|null} */
json_object *idle_curve_json(const IdlePoint *p, unsigned n, const IdleFit *f);
/* The day's budget (docs/protocol.md, show's idle_budget); NULL (JSON null)
 * when it is not known. */
json_object *idle_budget_json(const IdleBudgetDay *d);

/* "14:00-15:00: 3.1G/h of random writes need ~12.0 min of idle an hour, it
 * got 4.0 min: a clean cache lasts ~25.0 min at that load, then a storm
 * every ~3.0 min"; "" unknown. */
const char *idle_budget_forecast_text(const IdleBudgetDay *d, char *buf, size_t n);
/* Where scrubs, backups and SMART long tests belong against the disk's
 * best idle window; "" without one. */
const char *idle_budget_advice_text(const IdleBudgetDay *d, char *buf, size_t n);
/* The day by hour as inline SVG: the idle got (a bar, the short hours in
 * the warning colour) against the idle needed (a mark); hours not watched
 * left empty. Each bar carries data-hour, data-got and data-need. */
void idle_budget_svg(Buf *b, const IdleBudgetDay *d);
