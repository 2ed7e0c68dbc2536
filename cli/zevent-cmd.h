/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl zevent (a zedlet's one call: zed's ZEVENT_* environment to smrd,
 * in bounded time) and the text of smrctl rebuild-check.
 */
#pragma once

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

/* How long smrctl zevent waits for smrd to take the connection and to
 * answer: zed runs zedlets without a time limit, so a hung one would hold
 * one of its slots (zed -j) for good. */
#define ZEVENT_TIMEOUT_MS 3000

/* Reads env (NULL-terminated, as environ), checks it, sends the event;
 * prints one line. Returns smrctl's exit code: 0 recorded, 1 refused (by
 * the parser or smrd), 3 smrd not reachable or silent. */
int zevent_main(const char *socket_path, char **env, bool json);
/* smrctl rebuild-check's reply as text. */
void output_rebuild_check(FILE *f, json_object *r);
