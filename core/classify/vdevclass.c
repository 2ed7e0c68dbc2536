/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `zpool get -H -o value` prints each asked property's value on a line of
 * its own, in the order asked, "-" for a user property that is not set
 * (zprop_print_one_property() under -H; vdev_prop_get() has no source for
 * an unset user property). Anything else is not trusted.
 */
#include "vdevclass.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

bool vdev_user_prop_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n > 256 || name[0] == '-' || !strchr(name, ':'))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= '0' && name[i] <= '9') || strchr(":-._", name[i])))
			return false;
	return true;
}

void vdev_class_of(DiskClass c, double smr, VdevClass *ret)
{
	*ret = (VdevClass){0};
	const char *s = disk_class_to_string(c);
	snprintf(ret->class, sizeof ret->class, "%s", s ? s : "");
	if (isfinite(smr))
		snprintf(ret->confidence, sizeof ret->confidence, "%.2f", fmin(fmax(smr, 0), 1));
}

/* One line's value into dst: "-" is unset; a value that is not one smrd
 * writes (another tool's, or garbage) is kept so that it is overwritten. */
static int value(const char *line, size_t len, char *dst, size_t n)
{
	if (len == 0 || len >= n)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x21 || (unsigned char)line[i] > 0x7e)
			return -EINVAL;
	if (len == 1 && line[0] == '-')
		dst[0] = 0;
	else
		snprintf(dst, n, "%.*s", (int)len, line);
	return 0;
}

int vdev_class_parse(const char *out, size_t len, VdevClass *ret)
{
	*ret = (VdevClass){0};
	VdevClass v = {0};
	const char *p = out, *end = out + len;
	char *slots[] = {v.class, v.confidence};
	size_t sizes[] = {sizeof v.class, sizeof v.confidence};
	for (size_t k = 0; k < ELEMENTSOF(slots); k++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || value(p, (size_t)(nl - p), slots[k], sizes[k]) < 0)
			return -EINVAL;
		p = nl + 1;
	}
	if (p != end)
		return -EINVAL;
	*ret = v;
	return 0;
}

bool vdev_class_differs(const VdevClass *have, const VdevClass *want)
{
	return !streq(have->class, want->class);
}

bool vdev_confidence_differs(const VdevClass *have, const VdevClass *want)
{
	char *e1 = NULL, *e2 = NULL;
	double a = strtod(have->confidence, &e1), b = strtod(want->confidence, &e2);
	if (!have->confidence[0] || *e1 || !isfinite(a) || !want->confidence[0] || *e2)
		return !streq(have->confidence, want->confidence);
	return fabs(a - b) >= VDEV_CONFIDENCE_STEP - 1e-9;
}
