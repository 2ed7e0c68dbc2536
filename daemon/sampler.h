/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sampling timer: every interval it reads /proc/diskstats once and
 * advances every watched disk's counters.
 */
#pragma once

#include "context.h"

/* Arms the timer on the event loop. */
int sampler_start(Context *ctx);
void sampler_stop(Context *ctx);
/* Takes one sample now (also used by --oneshot). */
int sampler_sample(Context *ctx, uint64_t now_usec);
