/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl qualify DEVICE: test a disk for hidden SMR before it joins a pool.
 * Runs in smrctl itself (it needs the raw device, which smrd's hardened
 * service never opens for writing): read-only by default, destructive on
 * request after safety checks and a typed confirmation.
 */
#pragma once

#include <stdbool.h>

/* argv[0] is "qualify"; json: smrctl's --json stood before it. Returns the
 * process exit code. */
int qualify_main(int argc, char **argv, bool json);
