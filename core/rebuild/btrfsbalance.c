/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `btrfs balance status -v` and `btrfs filesystem show --raw` read, and the
 * spread of a balance's chunks (btrfsbalance.h). The status, as
 * cmd_balance_status() prints it:
 *   Balance on 'MOUNT' is running[, cancel requested|, pause requested]
 *   Balance on 'MOUNT' is paused
 *   N out of about M chunks balanced (K considered), %3.f%% left
 *   Dumping filters: flags 0x7, state 0x1, force is off        (-v)
 *     DATA (flags 0x100): converting, target=16, soft is off    (-v)
 * or "No balance found on 'MOUNT'". The percentage is printed from a float
 * division: "nan" while the kernel has counted no chunk yet.
 */
#include "btrfsbalance.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

static const char *const state_names[_BTRFS_BALANCE_STATE_MAX] = {"none", "running", "paused"};

const char *btrfs_balance_state_to_string(BtrfsBalanceState s)
{
	return s >= 0 && s < _BTRFS_BALANCE_STATE_MAX ? state_names[s] : NULL;
}

static bool eat(const char **p, const char *word)
{
	size_t l = strlen(word);
	if (strncmp(*p, word, l) != 0)
		return false;
	*p += l;
	return true;
}

/* A decimal (or with hex, "0x" and hex digits) of at most 20 digits. */
static bool eat_u64(const char **p, bool hex, uint64_t *ret)
{
	const char *s = *p;
	uint64_t v = 0, base = hex ? 16 : 10;
	unsigned n = 0;
	if (hex && !eat(&s, "0x"))
		return false;
	for (; hex ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s); s++, n++) {
		unsigned dv = isdigit((unsigned char)*s) ? (unsigned)(*s - '0') : (unsigned)(tolower((unsigned char)*s) - 'a' + 10);
		if (n >= 20 || v > (UINT64_MAX - dv) / base)
			return false;
		v = v * base + dv;
	}
	if (n == 0)
		return false;
	*p = s;
	*ret = v;
	return true;
}

/* The next line of text (no NUL inside), moved past; false at the end. */
static bool next_line(const char **p, const char *end, char *buf, size_t n)
{
	if (*p >= end)
		return false;
	const char *nl = memchr(*p, '\n', (size_t)(end - *p));
	size_t l = (size_t)((nl ? nl : end) - *p);
	if (l >= n)
		l = n - 1;	/* cut: the caller's grammar refuses what is left */
	memcpy(buf, *p, l);
	buf[l] = 0;
	*p = nl ? nl + 1 : end;
	return true;
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if (iscntrl((unsigned char)*s))
			return false;
	return true;
}

/* "N out of about M chunks balanced (K considered), PPP% left" */
static bool parse_counts(const char *p, BtrfsBalanceStatus *r)
{
	if (!eat_u64(&p, false, &r->completed) || !eat(&p, " out of about ") || !eat_u64(&p, false, &r->expected) ||
	    !eat(&p, " chunks balanced (") || !eat_u64(&p, false, &r->considered) || !eat(&p, " considered), "))
		return false;
	while (*p == ' ')
		p++;
	/* the share left, from a float: digits, or nan/inf (signed) before a first count */
	if (*p == '-')
		p++;
	uint64_t pct;
	if (!eat_u64(&p, false, &pct) && !eat(&p, "nan") && !eat(&p, "inf"))
		return false;
	return eat(&p, "% left") && *p == 0;
}

/* "  DATA (flags 0x100): converting, target=16, soft is off[, filters]" */
static bool parse_type(const char *p, BtrfsBalanceStatus *r)
{
	static const char *const names[_BTRFS_CHUNK_TYPE_MAX] = {"  DATA (flags ", "  METADATA (flags ", "  SYSTEM (flags "};
	int t = -1;
	for (int i = 0; i < _BTRFS_CHUNK_TYPE_MAX && t < 0; i++)
		if (eat(&p, names[i]))
			t = i;
	if (t < 0 || r->acts_on[t] || !eat_u64(&p, true, &r->args_flags[t]) || !eat(&p, "): "))
		return false;
	r->acts_on[t] = true;
	if (eat(&p, "converting, target=")) {
		if (!eat_u64(&p, false, &r->convert_to[t]) || !(r->args_flags[t] & BTRFS_BALANCE_ARGS_CONVERT))
			return false;
	} else if (!eat(&p, "balancing") || (r->args_flags[t] & BTRFS_BALANCE_ARGS_CONVERT))
		return false;
	return *p == 0 || *p == ',';	/* the filters' values: their flags say which */
}

/* "Balance on 'MOUNT' is ..." / "No balance found on 'MOUNT'" */
static int parse_head(const char **p, const char *end, const char *mount, BtrfsBalanceStatus *r, char **ret_error)
{
	size_t ml = strlen(mount);
	bool none = eat(p, "No balance found on '");
	if (!none && !eat(p, "Balance on '"))
		return set_errorf(ret_error, -EINVAL, "not a balance status: \"%.60s\"", *p);
	if ((size_t)(end - *p) < ml + 1 || memcmp(*p, mount, ml) != 0 || (*p)[ml] != '\'')
		return set_errorf(ret_error, -EINVAL, "a balance status of another path than %.200s", mount);
	*p += ml + 1;
	if (none) {
		r->state = BTRFS_BALANCE_NONE;
		return eat(p, "\n") || *p == end ? 0 : set_errorf(ret_error, -EINVAL, "more after \"No balance found\"");
	}
	if (eat(p, " is paused\n"))
		r->state = BTRFS_BALANCE_PAUSED;
	else if (eat(p, " is running")) {
		r->state = BTRFS_BALANCE_RUNNING;
		r->cancel_requested = eat(p, ", cancel requested");
		r->pause_requested = !r->cancel_requested && eat(p, ", pause requested");
		if (!eat(p, "\n"))
			return set_errorf(ret_error, -EINVAL, "unreadable balance state after %.200s", mount);
	} else
		return set_errorf(ret_error, -EINVAL, "unreadable balance state after %.200s", mount);
	return 0;
}

/* What every output must pass before it is read: one, not too long, no NUL. */
static int check_output(const char *text, size_t len, size_t max, const char *what, char **ret_error)
{
	if (!text)
		return set_errorf(ret_error, -EINVAL, "no output");
	if (len > max)
		return set_errorf(ret_error, -EINVAL, "output of %zu bytes, more than %s", len, what);
	if (memchr(text, 0, len))
		return set_errorf(ret_error, -EINVAL, "the output holds a NUL byte");
	return 0;
}

int btrfs_balance_parse(const char *text, size_t len, const char *mount, BtrfsBalanceStatus *ret, char **ret_error)
{
	if (!mount || !*mount)
		return set_errorf(ret_error, -EINVAL, "no mount point");
	int e = check_output(text, len, BTRFS_BALANCE_INPUT_MAX, "a balance status", ret_error);
	if (e < 0)
		return e;
	const char *p = text, *end = text + len;
	BtrfsBalanceStatus r = {0};
	e = parse_head(&p, end, mount, &r, ret_error);
	if (e < 0)
		return e;
	char line[512];
	if (r.state == BTRFS_BALANCE_NONE) {
		if (p != end)
			return set_errorf(ret_error, -EINVAL, "more after \"No balance found\"");
		*ret = r;
		return 0;
	}
	if (!next_line(&p, end, line, sizeof line) || !parse_counts(line, &r))
		return set_errorf(ret_error, -EINVAL, "unreadable balance counts \"%.80s\"", line);
	if (r.completed > r.expected && r.expected)
		return set_errorf(ret_error, -EINVAL, "%llu chunks balanced of %llu", (unsigned long long)r.completed,
			    (unsigned long long)r.expected);
	if (next_line(&p, end, line, sizeof line)) {
		uint64_t flags, state;
		const char *q = line;
		if (!eat(&q, "Dumping filters: flags ") || !eat_u64(&q, true, &flags) || !eat(&q, ", state ") ||
		    !eat_u64(&q, true, &state) || !eat(&q, ", force is ") || (!eat(&q, "on") && !eat(&q, "off")) || *q)
			return set_errorf(ret_error, -EINVAL, "unreadable filters \"%.80s\"", line);
		r.dumped = true;
		while (next_line(&p, end, line, sizeof line))
			if (!printable(line) || !parse_type(line, &r))
				return set_errorf(ret_error, -EINVAL, "unreadable filter \"%.80s\"", line);
	}
	*ret = r;
	return 0;
}

bool btrfs_balance_narrowed(const BtrfsBalanceStatus *s)
{
	for (int t = 0; t < _BTRFS_CHUNK_TYPE_MAX; t++)
		if (s->acts_on[t] && (s->args_flags[t] & ~(BTRFS_BALANCE_ARGS_CONVERT | BTRFS_BALANCE_ARGS_SOFT)))
			return true;
	return false;
}

/* "\tdevid    1 size 4294967296 used 2451111936 path /dev/loop2" */
static bool parse_dev(const char *p, BtrfsShowDevice *d)
{
	uint64_t size, used;
	if (!eat(&p, "\tdevid "))
		return false;
	while (*p == ' ')
		p++;
	if (!eat_u64(&p, false, &d->devid) || !eat(&p, " size ") || !eat_u64(&p, false, &size) || !eat(&p, " used ") ||
	    !eat_u64(&p, false, &used) || !eat(&p, " path ") || !*p || strlen(p) >= sizeof d->path || !printable(p))
		return false;
	d->size = (double)size;
	d->used = (double)used;
	memcpy(d->path, p, strlen(p) + 1);
	return true;
}

int btrfs_show_parse(const char *text, size_t len, BtrfsShow *ret, char **ret_error)
{
	int e = check_output(text, len, BTRFS_SHOW_INPUT_MAX, "one file system's", ret_error);
	if (e < 0)
		return e;
	const char *p = text, *end = text + len;
	char line[BTRFS_SHOW_PATH_MAX + 128];
	BtrfsShow r = {0};
	unsigned labels = 0;
	while (next_line(&p, end, line, sizeof line)) {
		if (startswith(line, "Label: "))
			labels++;
		else if (startswith(line, "\tdevid ")) {
			if (labels != 1 || r.n_devs >= BTRFS_SHOW_DEVS_MAX || !parse_dev(line, &r.devs[r.n_devs]))
				return set_errorf(ret_error, -EINVAL, "unreadable device line \"%.80s\"", line);
			r.n_devs++;
		} else if (startswith(line, "\t*** Some devices missing"))
			r.missing = true;
		else if (line[0] && !startswith(line, "\tTotal devices "))
			return set_errorf(ret_error, -EINVAL, "unexpected line \"%.80s\"", line);
	}
	if (labels != 1 || r.n_devs == 0)
		return set_errorf(ret_error, -EINVAL, "%s", labels > 1 ? "more than one file system" : "no file system with devices");
	*ret = r;
	return 0;
}

unsigned btrfs_profile_copies(uint64_t profile)
{
	switch (profile) {
	case BTRFS_PROFILE_RAID1:
	case BTRFS_PROFILE_RAID10:
		return 2;
	case BTRFS_PROFILE_RAID1C3:
		return 3;
	case BTRFS_PROFILE_RAID1C4:
		return 4;
	case BTRFS_PROFILE_SINGLE:
	case BTRFS_PROFILE_DUP:
	case BTRFS_PROFILE_RAID0:
	case BTRFS_PROFILE_RAID5:
	case BTRFS_PROFILE_RAID6:
		return 1;
	default:
		return 0;
	}
}

double btrfs_profile_factor(uint64_t profile, unsigned n_devs)
{
	switch (profile) {
	case BTRFS_PROFILE_RAID1:
	case BTRFS_PROFILE_RAID10:
	case BTRFS_PROFILE_DUP:
		return 2;
	case BTRFS_PROFILE_RAID1C3:
		return 3;
	case BTRFS_PROFILE_RAID1C4:
		return 4;
	case BTRFS_PROFILE_SINGLE:
	case BTRFS_PROFILE_RAID0:
		return 1;
	case BTRFS_PROFILE_RAID5:
		return n_devs >= 2 ? (double)n_devs / (n_devs - 1) : NAN;
	case BTRFS_PROFILE_RAID6:
		return n_devs >= 3 ? (double)n_devs / (n_devs - 2) : NAN;
	default:
		return NAN;
	}
}

static double spread_at(const double size[], unsigned n, double level, double cap, double ret[])
{
	double sum = 0;
	for (unsigned i = 0; i < n; i++) {
		double a = fmin(fmax(size[i] - level, 0), cap);
		if (ret)
			ret[i] = a;
		sum += a;
	}
	return sum;
}

int btrfs_balance_spread(const double size[], unsigned n, double total, unsigned copies, double ret[])
{
	if (!size || !ret || n == 0 || !(total >= 0) || !isfinite(total) || copies == 0)
		return -EINVAL;
	double hi = 0;
	for (unsigned i = 0; i < n; i++) {
		if (!(size[i] >= 0) || !isfinite(size[i]))
			return -EINVAL;
		hi = fmax(hi, size[i]);
	}
	double cap = copies > 1 ? total / copies : INFINITY;
	if (spread_at(size, n, 0, cap, ret) < total)
		return -ENOSPC;
	/* the free level at which the devices hold exactly total: the sum
	 * falls as the level rises, so halving the interval finds it */
	double lo = 0;
	for (int k = 0; k < 100 && hi - lo > 1; k++) {
		double mid = (lo + hi) / 2;
		if (spread_at(size, n, mid, cap, NULL) >= total)
			lo = mid;
		else
			hi = mid;
	}
	spread_at(size, n, lo, cap, ret);
	return 0;
}

int btrfs_balance_landing(const BtrfsBalanceStatus *b, const BtrfsShow *show, unsigned k, const BtrfsFsFigures *fs,
			  BtrfsLanding *ret)
{
	if (!b || !show || !fs || !ret || k >= show->n_devs || show->n_devs > BTRFS_SHOW_DEVS_MAX)
		return -EINVAL;
	double size[BTRFS_SHOW_DEVS_MAX], share[BTRFS_SHOW_DEVS_MAX], chunks = 0;
	for (unsigned i = 0; i < show->n_devs; i++) {
		size[i] = show->devs[i].size;
		chunks += show->devs[i].used;
	}
	uint64_t to = b->acts_on[BTRFS_CHUNK_DATA] ? b->convert_to[BTRFS_CHUNK_DATA] : 0;
	double after = chunks;
	/* a data convert: its chunks take the new profile's factor of what they hold */
	double was = fs->data_total > 0 ? fs->data_disk_total / fs->data_total : NAN;
	double will = to ? btrfs_profile_factor(to, show->n_devs) : NAN;
	if (isfinite(was) && was > 0 && isfinite(will) && isfinite(fs->data_disk_total))
		after = fmax(chunks + fs->data_disk_total * (will / was - 1), 0);
	unsigned copies = btrfs_profile_copies(to ? to : fs->data_profile);
	int r = btrfs_balance_spread(size, show->n_devs, after, copies ? copies : 1, share);
	if (r < 0 && r != -ENOSPC)
		return r;
	double fill = chunks > 0 && fs->disk_used >= 0 ? fmin(fs->disk_used / chunks, 1) : 1;
	BtrfsLanding l = {.share = share[k], .now = show->devs[k].used};
	l.receives = l.share - l.now > 0.25 * l.share;
	l.total = btrfs_balance_narrowed(b) ? NAN : l.share * fill;
	l.done = isfinite(l.total) ? fmin(l.now * fill, l.total) : l.now * fill;
	*ret = l;
	return 0;
}
