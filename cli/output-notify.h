/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl's text for the notifier's commands: ack, unack, acks, notify-test.
 */
#pragma once

#include <json-c/json.h>
#include <stdio.h>

void output_ack(FILE *f, json_object *r);
void output_unack(FILE *f, json_object *r);
void output_acks(FILE *f, json_object *r);
void output_notify_test(FILE *f, json_object *r);
/* The seconds of an ack's --for: "forever" or 0 none, else a span as
 * --since takes it ("30m", "2h", "7d", "1h 30min"). 0 or -EINVAL. */
int output_parse_for(const char *s, double *ret);
