/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

#include "pages-internal.h"

/* The disk page's acknowledgements in force (smrctl acks), with their
 * expiry; nothing when there is none. */
void pages_disk_acks(Buf *b, const Context *ctx, const Disk *d);
