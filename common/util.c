/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounded file reads and string helpers. Every read has a size cap, because
 * sysfs and procfs files under a --sysfs-root may be anything.
 */
#include "util.h"

#include <math.h>

#include <ctype.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

/* Regular files, and /dev/null (the documented "no config file"). */
static bool readable_kind(const struct stat *st)
{
	return S_ISREG(st->st_mode) || (S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3));
}

int read_file_buf(int dirfd, const char *path, size_t max, ReadBuf *b, size_t *ret_len)
{
	struct stat st;
	/* Never open a FIFO or a device by accident: under a --sysfs-root a
	 * FIFO in place of an attribute would block the daemon forever. The
	 * first check keeps devices closed, the second catches a swap. */
	if (fstatat(dirfd, path, &st, 0) < 0)
		return -errno;
	if (!readable_kind(&st))
		return -EBADFD;
	_cleanup_close_ int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!readable_kind(&st))
		return -EBADFD;

	size_t len = 0;
	if (!b->data) {
		size_t cap = max < 4096 ? max + 1 : 4096;
		if (!(b->data = malloc(cap)))
			return -ENOMEM;
		b->cap = cap;
	}
	for (;;) {
		if (len + 1 >= b->cap) {
			if (len >= max)
				return -EFBIG;
			size_t ncap = b->cap * 2 > max + 1 ? max + 1 : b->cap * 2;
			char *n = realloc(b->data, ncap);
			if (!n)
				return -ENOMEM;
			b->data = n;
			b->cap = ncap;
		}
		/* a buffer grown for another file may be larger than this max */
		size_t room = b->cap - 1 - len;
		ssize_t k = read(fd, b->data + len, room < max - len ? room : max - len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (k == 0)
			break;
		if ((len += (size_t)k) >= max)
			return -EFBIG;
	}
	b->data[len] = 0;
	if (ret_len)
		*ret_len = len;
	return 0;
}

int read_file_at(int dirfd, const char *path, size_t max, char **ret, size_t *ret_len)
{
	_cleanup_(read_buf_done) ReadBuf b = {0};
	int r = read_file_buf(dirfd, path, max, &b, ret_len);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(b.data);
	return 0;
}

void read_buf_done(ReadBuf *b)
{
	free(b->data);
	*b = (ReadBuf){0};
}

int read_line_at(int dirfd, const char *path, char **ret)
{
	char *s = NULL;
	size_t len;
	int r = read_file_at(dirfd, path, 4096, &s, &len);
	if (r < 0)
		return r;
	/* a NUL inside is no value at all: "sda\0x" must not pass for "sda" */
	if (strlen(s) != len) {
		free(s);
		return -EBADMSG;
	}
	char *nl = strchr(s, '\n');
	if (nl)
		*nl = 0;
	strstrip(s);
	*ret = s;
	return 0;
}

int read_u64_at(int dirfd, const char *path, uint64_t *ret)
{
	_cleanup_free_ char *s = NULL;
	int r = read_line_at(dirfd, path, &s);
	if (r < 0)
		return r;
	return parse_u64(s, ret);
}

int parse_u64(const char *s, uint64_t *ret)
{
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	uint64_t v = 0;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return -EINVAL;
		unsigned d = (unsigned)(*s - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

int parse_double(const char *s, double *ret)
{
	if (!s || !*s)
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno)
		return -errno;
	if (*end || end == s || v != v)
		return -EINVAL;
	*ret = v;
	return 0;
}

char *strstrip(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	size_t i = 0;
	while (isspace((unsigned char)s[i]))
		i++;
	if (i)
		memmove(s, s + i, n - i + 1);
	return s;
}

/* Resizes b's memory to cap bytes (more than len); false on OOM. */
static bool buf_resize(Buf *b, size_t cap)
{
	char *d = realloc(b->data, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

void buf_reserve(Buf *b, size_t n)
{
	if (b->oom || b->len + n + 1 <= b->cap)
		return;
	buf_resize(b, b->len + n + 1);
}

void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_put(Buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 4096;
		while (ncap < b->len + n + 1)
			ncap *= 2;
		if (!buf_resize(b, ncap))
			return;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void buf_printf(Buf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->oom = true;
		return;
	}
	if ((size_t)n < sizeof small) {
		buf_put(b, small, (size_t)n);
		return;
	}
	_cleanup_free_ char *big = malloc((size_t)n + 1);
	if (!big) {
		b->oom = true;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	buf_put(b, big, (size_t)n);
}

void buf_free(Buf *b)
{
	free(b->data);
	*b = (Buf){0};
}

char *str_sanitize(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		return NULL;
	for (char *p = d; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p > 0x7e)
			*p = '?';
	return d;
}

char *str_escape_control(const char *s, char *out, size_t n)
{
	size_t k = 0;
	if (!n)
		return out;
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		bool ctl = *p < 0x20 || *p == 0x7f;
		if (k + (ctl ? 4 : 1) >= n)
			break;
		if (ctl)
			k += (size_t)snprintf(out + k, n - k, "\\x%02x", *p);
		else
			out[k++] = (char)*p;
	}
	out[k] = 0;
	return out;
}

const char *read_error_string(int r)
{
	switch (r) {
	case -EBADFD:
		return "not a regular file (a FIFO, socket or device)";
	case -EFBIG:
		return "larger than allowed";
	case -EBADMSG:
		return "malformed";
	default:
		return strerror(r < 0 ? -r : r);
	}
}

uint64_t now_usec(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

TickTime tick_time_now(void)
{
	return (TickTime){.mono_usec = now_usec(CLOCK_MONOTONIC), .real_usec = now_usec(CLOCK_REALTIME)};
}

double now_seconds(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *device_name(const char *dev)
{
	return dev && startswith(dev, "/dev/") ? dev + 5 : dev;
}

/* A run of digits: by value (leading zeros do not count). */
static int cmp_digits(const char **pa, const char **pb)
{
	const char *a = *pa, *b = *pb;
	while (*a == '0' && isdigit((unsigned char)a[1]))
		a++;
	while (*b == '0' && isdigit((unsigned char)b[1]))
		b++;
	size_t na = 0, nb = 0;
	while (isdigit((unsigned char)a[na]))
		na++;
	while (isdigit((unsigned char)b[nb]))
		nb++;
	int c = na != nb ? (na < nb ? -1 : 1) : strncmp(a, b, na);
	*pa = a + na, *pb = b + nb;
	return c;
}

/* A run of anything else. Within a family (the same first two bytes:
 * sd, vd, xv, hd) the shorter run first, sdz < sdaa; else byte order. */
static int cmp_letters(const char **pa, const char **pb)
{
	const char *a = *pa, *b = *pb;
	size_t na = 0, nb = 0;
	while (a[na] && !isdigit((unsigned char)a[na]))
		na++;
	while (b[nb] && !isdigit((unsigned char)b[nb]))
		nb++;
	size_t fa = na < 2 ? na : 2, fb = nb < 2 ? nb : 2;
	int c = memcmp(a, b, fa < fb ? fa : fb);
	if (!c && fa != fb)
		c = fa < fb ? -1 : 1;
	if (!c && na != nb)
		c = na < nb ? -1 : 1;
	if (!c)
		c = memcmp(a, b, na);
	*pa = a + na, *pb = b + nb;
	return c;
}

int devname_cmp(const char *a, const char *b)
{
	const char *a0 = a, *b0 = b;
	while (*a && *b) {
		bool da = isdigit((unsigned char)*a), db = isdigit((unsigned char)*b);
		if (da != db)
			return da ? -1 : 1;
		int c = da ? cmp_digits(&a, &b) : cmp_letters(&a, &b);
		if (c)
			return c < 0 ? -1 : 1;
	}
	if (*a || *b)
		return *a ? 1 : -1;
	int c = strcmp(a0, b0);	/* sd01 and sd1: equal only if the same */
	return (c > 0) - (c < 0);
}

char *absolute_path(const char *path)
{
	if (path[0] == '/')
		return strdup(path);
	_cleanup_free_ char *cwd = getcwd(NULL, 0);
	char *r;
	while (startswith(path, "./"))
		path += 2;
	if (!cwd || asprintf(&r, "%s%s%s", cwd, streq(cwd, "/") ? "" : "/", path) < 0)
		return NULL;
	return r;
}

int set_errorf(char **ret_error, int r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (ret_error && vasprintf(ret_error, fmt, ap) < 0)
		*ret_error = NULL;
	va_end(ap);
	return r;
}



static char *put_u64(char *end, uint64_t v)
{
	/* backwards from end; returns the first digit */
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

size_t format_number(char out[static 32], double v, int decimals)
{
	static const uint64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000};
	char tmp[32], *end = tmp + sizeof tmp, *p;
	if (isnan(v))
		return (size_t)snprintf(out, 32, "NaN");
	if (isinf(v))
		return (size_t)snprintf(out, 32, "%s", v > 0 ? "+Inf" : "-Inf");
	if (decimals > 9)
		decimals = 9;
	bool neg = v < 0;
	double a = fabs(v);
	if (a < 1e15 && a == (double)(uint64_t)a) {
		p = put_u64(end, (uint64_t)a);
	} else if (decimals >= 0 && a * (double)pow10[decimals] < 9e15) {
		/* fixed point, trailing zeros dropped: 0.1 stays 0.1, not 0.09999999999999998 */
		uint64_t q = (uint64_t)llround(a * (double)pow10[decimals]);
		uint64_t ip = q / pow10[decimals], fp = q % pow10[decimals];
		int d = decimals;
		while (d > 0 && fp % 10 == 0) {
			fp /= 10;
			d--;
		}
		p = end;
		for (int i = 0; i < d; i++, fp /= 10)
			*--p = (char)('0' + fp % 10);
		if (d)
			*--p = '.';
		p = put_u64(p, ip);
		if (q == 0)
			neg = false;
	} else {
		/* the shortest form that reads back exactly, as Go's exporters print */
		int prec = 15;
		do
			snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		while (strtod(tmp, NULL) != v && ++prec <= 17);
		size_t n = strlen(tmp);
		memcpy(out, tmp, n + 1);
		return n;
	}
	if (neg)
		*--p = '-';
	size_t n = (size_t)(end - p);
	memcpy(out, p, n);
	out[n] = 0;
	return n;
}
