/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A verdict as JSON, the same for smrctl show (through the daemon) and for
 * smrctl qualify's report. */
#pragma once

#include <json-c/json.h>

#include "classify.h"

json_object *verdict_to_json(const Verdict *v);
