/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O engine is libaio with O_DIRECT (the page cache must not answer),
 * a fixed queue depth, every I/O's submit time and latency kept for the
 * analysis (cli/cliff.c) and per-second samples for the live line and the
 * plot. Exit codes: 0 done (whatever the verdict), 1 refused or failed,
 * 2 usage, 130 interrupted before anything was learned.
 */
#include "qualify.h"

#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <libaio.h>
#include <linux/fs.h>
#include <math.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "bands.h"
#include "classify.h"
#include "cliff.h"
#include "hist.h"
#include "modellist.h"
#include "safety.h"
#include "sysfs.h"
#include "util.h"
#include "verdict-json.h"
#include "output.h"

#ifndef SMRD_MODEL_LIST_PATH
#define SMRD_MODEL_LIST_PATH "/usr/share/smrd/smr-models.tsv"
#endif
extern const char smrd_builtin_models[];

#define MAX_IOS (8u << 20)		/* per phase: 128 MiB of records at most */
#define MAX_QD 256
#define GiB (1024.0 * 1024 * 1024)

static volatile sig_atomic_t interrupted;
static void on_sigint(int sig) { (void)sig; interrupted++; }

typedef struct Opts {
	bool destructive, json, report;
	const char *confirm;		/* --yes-destroy */
	unsigned iodepth;
	uint64_t bs, budget;
	double time_limit, rest, read_seconds, confirm_s;
	uint64_t sizes[8];
	unsigned n_sizes;
	const char *report_prefix, *sysfs_root, *udev_root, *mountinfo, *swaps;
} Opts;

typedef struct Second {
	double t, iops, lat_mean, lat_max;
} Second;

typedef struct Phase {
	const char *name;
	IoRec *rec;
	size_t n;
	double duration;
	uint64_t bytes, io_bytes;
	Second *sec;
	size_t n_sec;
	Hist hist;
	bool interrupted;
	const char *stopped;		/* why it ended */
} Phase;

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int parse_size(const char *s, uint64_t *ret)
{
	char *end;
	double v = strtod(s, &end);
	double m = 1;
	switch (*end) {
	case 'k': case 'K': m = 1024; end++; break;
	case 'm': case 'M': m = 1024.0 * 1024; end++; break;
	case 'g': case 'G': m = GiB; end++; break;
	case 't': case 'T': m = GiB * 1024; end++; break;
	case 0: break;
	default: return -EINVAL;
	}
	if ((*end == 'i' || *end == 'I') && end[1] && (end[1] == 'B' || end[1] == 'b'))
		end += 2;
	else if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v <= 0 || v * m > 1e18)
		return -EINVAL;
	*ret = (uint64_t)(v * m);
	return 0;
}

static const char *fmt_bytes(char *buf, size_t n, double b)
{
	if (b >= GiB)
		snprintf(buf, n, "%.2f GiB", b / GiB);
	else if (b >= 1024 * 1024)
		snprintf(buf, n, "%.1f MiB", b / 1024 / 1024);
	else
		snprintf(buf, n, "%.0f KiB", b / 1024);
	return buf;
}


/* ▁▂▃▄▅▆▇█ of the last seconds' IOPS, on a log scale */
static void sparkline(char *buf, size_t n, const Second *s, size_t k)
{
	static const char *const bars[] = {"▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
	size_t from = k > 24 ? k - 24 : 0;
	double mx = 1;
	for (size_t i = from; i < k; i++)
		mx = fmax(mx, s[i].iops);
	buf[0] = 0;
	for (size_t i = from; i < k; i++) {
		double f = s[i].iops > 0 ? log10(s[i].iops + 1) / log10(mx + 1) : 0;
		int b = (int)(f * 7.99);
		strncat(buf, bars[b < 0 ? 0 : b > 7 ? 7 : b], n - strlen(buf) - 1);
	}
}

typedef struct Engine {
	int fd;
	io_context_t aio;
	unsigned qd;
	void *buf[MAX_QD];
	struct iocb cb[MAX_QD];
	double submitted[MAX_QD];
	uint64_t rng;
} Engine;

static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 11;
}

typedef bool (*StopFn)(const Phase *p, double elapsed, void *userdata);

/* Random I/Os of `bs` over [0, range) at the engine's depth until stop()
 * or the time limit. Every I/O is recorded. */
static int run_phase(Engine *e, Phase *p, bool write, uint64_t bs, uint64_t range, double limit, StopFn stop,
		     void *userdata, bool live)
{
	uint64_t blocks = range / bs;
	if (blocks == 0)
		return -EINVAL;
	p->rec = calloc(MAX_IOS, sizeof *p->rec);
	p->sec = calloc((size_t)limit + 16, sizeof *p->sec);
	if (!p->rec || !p->sec)
		return -ENOMEM;
	p->io_bytes = bs;
	double t0 = now_s(), last_sec = t0;
	size_t sec_ios = 0;
	double sec_lat = 0, sec_max = 0;
	unsigned inflight = 0;
	struct iocb *free_cb[MAX_QD];
	unsigned n_free = 0;
	for (unsigned i = 0; i < e->qd; i++)
		free_cb[n_free++] = &e->cb[i];
	bool stopping = false;
	for (;;) {
		double now = now_s();
		if (!stopping && (interrupted || now - t0 >= limit || p->n + inflight >= MAX_IOS ||
				  (stop && stop(p, now - t0, userdata)))) {
			stopping = true;
			p->interrupted = interrupted;
			if (!p->stopped)
				p->stopped = interrupted ? "interrupted" : now - t0 >= limit ? "time limit" : "stop rule";
		}
		while (!stopping && n_free) {
			struct iocb *cb = free_cb[--n_free];
			unsigned slot = (unsigned)(cb - e->cb);
			long long off = (long long)(next_rand(&e->rng) % blocks * bs);
			if (write)
				io_prep_pwrite(cb, e->fd, e->buf[slot], bs, off);
			else
				io_prep_pread(cb, e->fd, e->buf[slot], bs, off);
			cb->data = (void *)(uintptr_t)slot;
			e->submitted[slot] = now_s();
			struct iocb *one[1] = {cb};
			int r = io_submit(e->aio, 1, one);
			if (r != 1) {
				free_cb[n_free++] = cb;
				p->stopped = "submit failed";
				stopping = true;
				if (!inflight)
					return r < 0 ? r : -EIO;
				break;
			}
			inflight++;
		}
		if (!inflight)
			break;
		struct io_event ev[MAX_QD];
		struct timespec wait = {0, 200 * 1000 * 1000};	/* wake for the live line and Ctrl-C */
		int got = io_getevents(e->aio, 1, (long)inflight, ev, &wait);
		if (got < 0 && got != -EINTR)
			return got;
		double done = now_s();
		for (int i = 0; i < (got > 0 ? got : 0); i++) {
			unsigned slot = (unsigned)(uintptr_t)ev[i].data;
			inflight--;
			free_cb[n_free++] = &e->cb[slot];
			if ((long)ev[i].res != (long)bs) {
				fprintf(stderr, "\nsmrctl: qualify: %s at a random offset failed: %s\n", write ? "a write" : "a read",
					(long)ev[i].res < 0 ? strerror((int)-(long)ev[i].res) : "short transfer");
				p->stopped = "I/O error";
				stopping = true;
				continue;
			}
			double lat = done - e->submitted[slot];
			if (p->n < MAX_IOS)
				p->rec[p->n++] = (IoRec){.t = e->submitted[slot] - t0, .lat = (float)lat};
			p->bytes += bs;
			hist_add(&p->hist, (uint64_t)(lat * 1e9));
			sec_ios++;
			sec_lat += lat;
			sec_max = fmax(sec_max, lat);
		}
		if (done - last_sec >= 1 || (!inflight && stopping)) {
			double dt = done - last_sec;
			if (p->n_sec < (size_t)limit + 16)
				p->sec[p->n_sec++] = (Second){.t = done - t0, .iops = (double)sec_ios / dt,
							      .lat_mean = sec_ios ? sec_lat / (double)sec_ios : NAN,
							      .lat_max = sec_max};
			if (live) {
				char spark[128], b[32], l[32];
				sparkline(spark, sizeof spark, p->sec, p->n_sec);
				fprintf(stderr, "\r\033[K[%s] %5.0f s  %s %s  %7.0f IOPS  %s  %s", p->name, done - t0,
					write ? "written" : "read", fmt_bytes(b, sizeof b, (double)p->bytes),
					(double)sec_ios / dt, output_seconds(sec_ios ? sec_lat / (double)sec_ios : NAN, l, sizeof l), spark);
			}
			last_sec = done;
			sec_ios = 0;
			sec_lat = sec_max = 0;
		}
	}
	p->duration = now_s() - t0;
	if (live)
		fprintf(stderr, "\n");
	return 0;
}

typedef struct WriteStop {
	uint64_t budget;
	double confirm;
} WriteStop;

/* Stop once a cliff has been seen and held for 10 s, or at the budget. */
static bool write_stop(const Phase *p, double elapsed, void *userdata)
{
	WriteStop *w = userdata;
	static double last_check;
	if (p->bytes >= w->budget) {
		((Phase *)p)->stopped = "write budget";
		return true;
	}
	if (elapsed - last_check < 1 && elapsed >= last_check)
		return false;
	last_check = elapsed;
	CliffResult c;
	cliff_find(p->rec, p->n, elapsed, w->confirm, &c);
	if (c.found && elapsed - c.cliff_t >= 10) {
		((Phase *)p)->stopped = "cliff seen";
		return true;
	}
	return false;
}

static json_object *jd(double v) { return isfinite(v) ? json_object_new_double(v) : NULL; }

static json_object *hist_json(const Hist *h)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "count", json_object_new_int64((int64_t)h->count));
	json_object_object_add(o, "p50", jd(hist_quantile(h, 0.5)));
	json_object_object_add(o, "p90", jd(hist_quantile(h, 0.9)));
	json_object_object_add(o, "p99", jd(hist_quantile(h, 0.99)));
	json_object_object_add(o, "max", jd(hist_max(h)));
	BandRules rules = {.min_share = 0.02, .min_count = 5, .valley = 0.5};
	Band b[BANDS_MAX];
	unsigned n = bands_find(h, &rules, b);
	json_object *a = json_object_new_array();
	for (unsigned i = 0; i < n; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "centre", jd(b[i].centre));
		json_object_object_add(x, "share", jd(b[i].share));
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "bands", a);
	return o;
}

static json_object *seconds_json(const Phase *p)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < p->n_sec; i++) {
		json_object *x = json_object_new_object();
		json_object_object_add(x, "t", jd(p->sec[i].t));
		json_object_object_add(x, "iops", jd(p->sec[i].iops));
		json_object_object_add(x, "latency_mean", jd(p->sec[i].lat_mean));
		json_object_object_add(x, "latency_max", jd(p->sec[i].lat_max));
		json_object_array_add(a, x);
	}
	return a;
}

/* Two panels over time: IOPS (log) and mean latency (log). */
static int write_svg(const char *path, const Phase *p, const char *title)
{
	FILE *f = fopen(path, "we");
	if (!f)
		return -errno;
	const double W = 900, H = 260, L = 70, R = 20, T = 30, B = 30;
	double tmax = 1, imax = 1, lmin = 1e-5, lmax = 1e-3;
	for (size_t i = 0; i < p->n_sec; i++) {
		tmax = fmax(tmax, p->sec[i].t);
		imax = fmax(imax, p->sec[i].iops);
		if (isfinite(p->sec[i].lat_mean) && p->sec[i].lat_mean > 0)
			lmax = fmax(lmax, p->sec[i].lat_mean);
	}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
		   "font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, 2 * H + 20);
	fprintf(f, "<text x=\"%.0f\" y=\"18\" font-size=\"14\">", L);
	for (const char *c = title; *c; c++)
		fputs(*c == '<' ? "&lt;" : *c == '&' ? "&amp;" : (char[2]){*c, 0}, f);
	fprintf(f, "</text>\n");
	for (int panel = 0; panel < 2; panel++) {
		double y0 = T + panel * (H + 10), ph = H - T - B, lo = panel ? log10(lmin) : 0, hi = panel ? log10(lmax * 2) : log10(imax * 2);
		fprintf(f, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#888\"/>\n", L, y0,
			W - L - R, ph);
		for (double d = floor(lo); d <= hi; d++) {
			double y = y0 + ph - (d - lo) / (hi - lo) * ph;
			if (y < y0 || y > y0 + ph)
				continue;
			char lab[32];
			if (panel)
				output_seconds(pow(10, d), lab, sizeof lab);
			else
				snprintf(lab, sizeof lab, "%g", pow(10, d));
			fprintf(f, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
				   "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", L, W - R, y, y, L - 4, y + 4, lab);
		}
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" transform=\"rotate(-90 14 %.0f)\" text-anchor=\"middle\">%s</text>\n",
			14.0, y0 + ph / 2, y0 + ph / 2, panel ? "mean latency" : "IOPS");
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", panel ? "#c0392b" : "#2471a3");
		for (size_t i = 0; i < p->n_sec; i++) {
			double v = panel ? p->sec[i].lat_mean : p->sec[i].iops;
			if (!isfinite(v) || v <= 0)
				continue;
			double y = y0 + ph - (log10(v) - lo) / (hi - lo) * ph;
			fprintf(f, "%.1f,%.1f ", L + p->sec[i].t / tmax * (W - L - R), fmin(fmax(y, y0), y0 + ph));
		}
		fprintf(f, "\"/>\n<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.0f s</text>\n", W - R, y0 + ph + 16, tmax);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -errno;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smrctl qualify DEVICE [OPTIONS]\n\n"
		"Tests a disk for hidden (drive-managed) SMR. Read-only by default: random reads of\n"
		"several sizes across the whole disk, the latency distribution and its bands.\n"
		"With --destructive (OVERWRITES THE DISK): sustained random writes until the write\n"
		"cliff appears or a budget is spent, a rest, reads, and a TRIM of the disk.\n\n"
		"  --destructive          write to the disk (refused if it has partitions, holders,\n"
		"                         mounts, or any signature; asks for its serial number)\n"
		"  --yes-destroy SERIAL   confirm without asking (the disk's serial, or its name if it has none)\n"
		"  --iodepth N            queue depth (1)\n"
		"  --bs SIZE              write size (4k)\n"
		"  --write-budget SIZE    stop writing after this much (0.2%% of capacity, 4-64 GiB)\n"
		"  --time-limit SECONDS   stop writing after this long (600)\n"
		"  --rest SECONDS         idle time between writes and reads (30)\n"
		"  --read-seconds SECONDS reads per transfer size (10)\n"
		"  --sizes LIST           read transfer sizes (4k,64k,1m)\n"
		"  --report PREFIX        write PREFIX.json and PREFIX.svg (default qualify-DEVICE-TIME)\n"
		"  --no-report            write no report files\n"
		"  --json                 no live progress; print the report as JSON\n");
}

static int parse_opts(int argc, char **argv, Opts *o, const char **dev)
{
	static const struct option opts[] = {
		{"destructive", no_argument, NULL, 'D'}, {"yes-destroy", required_argument, NULL, 'Y'},
		{"iodepth", required_argument, NULL, 'q'}, {"bs", required_argument, NULL, 'b'},
		{"write-budget", required_argument, NULL, 'B'}, {"time-limit", required_argument, NULL, 't'},
		{"rest", required_argument, NULL, 'r'}, {"read-seconds", required_argument, NULL, 'R'},
		{"sizes", required_argument, NULL, 'S'}, {"report", required_argument, NULL, 'o'},
		{"no-report", no_argument, NULL, 'N'}, {"json", no_argument, NULL, 'j'},
		{"sysfs-root", required_argument, NULL, 1}, {"udev-root", required_argument, NULL, 2},
		{"mountinfo", required_argument, NULL, 3}, {"socket", required_argument, NULL, 4},
		{"help", no_argument, NULL, 'h'}, {},
	};
	*o = (Opts){.iodepth = 1, .bs = 4096, .time_limit = 600, .rest = 30, .read_seconds = 10, .confirm_s = 3,
		    .report = true, .sysfs_root = "/sys", .udev_root = "/run/udev", .mountinfo = "/proc/self/mountinfo",
		    .swaps = "/proc/swaps", .sizes = {4096, 65536, 1048576}, .n_sizes = 3};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hj", opts, NULL)) >= 0) {
		char *end;
		double v;
		switch (c) {
		case 'D': o->destructive = true; break;
		case 'Y': o->confirm = optarg; break;
		case 'j': o->json = true; break;
		case 'N': o->report = false; break;
		case 'o': o->report_prefix = optarg; break;
		case 1: o->sysfs_root = optarg; break;
		case 2: o->udev_root = optarg; break;
		case 3: o->mountinfo = optarg; break;
		case 4: break;	/* smrctl's own --socket: not needed here */
		case 'q':
			o->iodepth = (unsigned)strtoul(optarg, &end, 10);
			if (*end || o->iodepth < 1 || o->iodepth > MAX_QD) {
				fprintf(stderr, "smrctl: qualify: --iodepth takes 1 to %d\n", MAX_QD);
				return -EINVAL;
			}
			break;
		case 'b': case 'B':
			if (parse_size(optarg, c == 'b' ? &o->bs : &o->budget) < 0 ||
			    (c == 'b' && (o->bs % 512 || o->bs > 16 << 20))) {
				fprintf(stderr, "smrctl: qualify: bad size '%s' (e.g. 4k, 16k, 8G; --bs a multiple of 512 up to 16M)\n",
					optarg);
				return -EINVAL;
			}
			break;
		case 't': case 'r': case 'R':
			v = strtod(optarg, &end);
			if (*end || v < (c == 'r' ? 0 : 1) || v > 86400) {
				fprintf(stderr, "smrctl: qualify: '%s' is not a number of seconds\n", optarg);
				return -EINVAL;
			}
			*(c == 't' ? &o->time_limit : c == 'r' ? &o->rest : &o->read_seconds) = v;
			break;
		case 'S': {
			o->n_sizes = 0;
			_cleanup_free_ char *copy = strdup(optarg);
			for (char *tok = strtok(copy, ","); tok; tok = strtok(NULL, ",")) {
				if (o->n_sizes == ELEMENTSOF(o->sizes) || parse_size(tok, &o->sizes[o->n_sizes]) < 0 ||
				    o->sizes[o->n_sizes] % 512 || o->sizes[o->n_sizes] > 16 << 20) {
					fprintf(stderr, "smrctl: qualify: --sizes takes up to 8 sizes, multiples of 512 up to 16M\n");
					return -EINVAL;
				}
				o->n_sizes++;
			}
			if (!o->n_sizes)
				return -EINVAL;
			break;
		}
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -EINVAL;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return -EINVAL;
	}
	*dev = argv[optind];
	if (startswith(*dev, "/dev/"))
		*dev += 5;
	return 0;
}


static int open_engine(Engine *e, const char *node, bool write, unsigned qd, uint64_t bufsize)
{
	*e = (Engine){.fd = -1, .qd = qd, .rng = (uint64_t)time(NULL) ^ 0x5deece66dULL};
	e->fd = open(node, (write ? O_RDWR | O_EXCL : O_RDONLY) | O_DIRECT | O_CLOEXEC);
	if (e->fd < 0)
		return -errno;
	int r = io_setup((int)qd, &e->aio);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < qd; i++) {
		if (posix_memalign(&e->buf[i], 4096, bufsize))
			return -ENOMEM;
		/* incompressible data: a drive that compresses must not look fast */
		for (uint64_t k = 0; k < bufsize / 8; k++)
			((uint64_t *)e->buf[i])[k] = next_rand(&e->rng) * 2654435761u;
	}
	return 0;
}

static void close_engine(Engine *e)
{
	if (e->aio)
		io_destroy(e->aio);
	for (unsigned i = 0; i < e->qd; i++)
		free(e->buf[i]);
	if (e->fd >= 0)
		close(e->fd);
}

static void free_phase(Phase *p)
{
	free(p->rec);
	free(p->sec);
}

int qualify_main(int argc, char **argv)
{
	Opts o;
	const char *name;
	int r = parse_opts(argc, argv, &o, &name);
	if (r)
		return r > 0 ? 0 : 2;
	if (!sysfs_valid_name(name)) {
		fprintf(stderr, "smrctl: qualify: '%s' is not a disk name\n", name);
		return 2;
	}
	bool live = !o.json && isatty(STDERR_FILENO);
	/* with --json, stdout carries only the JSON and nothing else is said
	 * but errors */
	_cleanup_fclose_ FILE *devnull = o.json ? fopen("/dev/null", "we") : NULL;
	FILE *out = devnull ? devnull : stdout;

	/* What the disk says about itself. */
	_cleanup_close_ int sysfs_fd = open(o.sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int udev_fd = open(o.udev_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	SysfsDisk sys;
	r = sysfs_fd < 0 ? -errno : sysfs_probe_disk(sysfs_fd, udev_fd, name, &sys);
	if (r < 0) {
		fprintf(stderr, "smrctl: qualify: %s: %s\n", name,
			r == -ENOENT ? "no such disk" : r == -ENOTBLK ? "a partition: give the whole disk" : strerror(-r));
		return 1;
	}
	ModelList *ml = NULL;
	_cleanup_free_ char *err = NULL;
	if (modellist_load(SMRD_MODEL_LIST_PATH, &ml, &err) < 0) {
		free(err);
		err = NULL;
		modellist_parse(smrd_builtin_models, &ml, &err);
	}
	Verdict v;
	classify_disk(&sys.facts, ml, &v);
	modellist_free(ml);
	uint64_t size = sys.size_sectors * 512;
	char node[64], b1[32], b2[32], b3[32];
	snprintf(node, sizeof node, "/dev/%s", name);
	struct stat st;
	if (stat(node, &st) < 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != sys.major || minor(st.st_rdev) != sys.minor) {
		fprintf(stderr, "smrctl: qualify: %s is not the block device %u:%u that sysfs describes\n", node, sys.major,
			sys.minor);
		return 1;
	}
	fprintf(out, "%s: %s, %s, serial %s\n", name, *sys.model ? sys.model : "(no model)",
		fmt_bytes(b1, sizeof b1, (double)size), *sys.serial ? sys.serial : "(none)");
	fprintf(out, "static classification: %s (confidence %.2f): %s\n", disk_class_to_string(v.class), v.confidence,
		v.basis);
	for (unsigned i = 0; i < v.n_evidence; i++)
		fprintf(out, "  %s %-34s %-22s -> %s\n", v.evidence[i].decisive ? "*" : " ", v.evidence[i].source,
			v.evidence[i].value, v.evidence[i].implies);

	if (o.destructive) {
		SafetyReport s;
		safety_check(o.sysfs_root, o.udev_root, o.mountinfo, o.swaps, name, sys.major, sys.minor, node, &s);
		if (s.n) {
			fprintf(stderr, "smrctl: qualify: refusing to write to %s:\n", node);
			for (unsigned i = 0; i < s.n; i++)
				fprintf(stderr, "  - %s\n", s.reason[i]);
			fprintf(stderr, "Empty the disk first (wipefs -a, remove it from its pool or array) if you mean it.\n");
			return 1;
		}
		const char *token = *sys.serial ? sys.serial : name;
		char typed[256] = "";
		if (o.confirm)
			snprintf(typed, sizeof typed, "%s", o.confirm);
		else if (isatty(STDIN_FILENO)) {
			fprintf(stderr, "This OVERWRITES %s (%s, %s). Type its %s (%s) to go on: ", node,
				*sys.model ? sys.model : "no model", fmt_bytes(b1, sizeof b1, (double)size),
				*sys.serial ? "serial number" : "name (it reports no serial)", token);
			if (!fgets(typed, sizeof typed, stdin))
				typed[0] = 0;
			typed[strcspn(typed, "\n")] = 0;
		}
		if (!streq(typed, token)) {
			fprintf(stderr, "smrctl: qualify: not confirmed: --yes-destroy must be the disk's %s, %s\n",
				*sys.serial ? "serial number" : "name (it reports no serial)", token);
			return 1;
		}
	}

	struct sigaction sa = {.sa_handler = on_sigint};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	json_object *rep = json_object_new_object(), *phases = json_object_new_object();
	time_t started = time(NULL);
	char stamp[32];
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", localtime(&started));
	json_object_object_add(rep, "device", json_object_new_string(name));
	json_object_object_add(rep, "model", json_object_new_string(sys.model));
	json_object_object_add(rep, "serial", json_object_new_string(sys.serial));
	json_object_object_add(rep, "size_bytes", json_object_new_int64((int64_t)size));
	json_object_object_add(rep, "started", json_object_new_int64((int64_t)started));
	json_object_object_add(rep, "mode", json_object_new_string(o.destructive ? "destructive" : "read-only"));
	json_object_object_add(rep, "iodepth", json_object_new_int((int)o.iodepth));
	json_object_object_add(rep, "classification", verdict_to_json(&v));
	json_object_object_add(rep, "phases", phases);

	Phase wp = {.name = "write"}, rp[8] = {0};
	CliffResult cliff = {0};
	bool learned = false, cliff_done = false;
	uint64_t maxbuf = o.bs;
	for (unsigned i = 0; i < o.n_sizes; i++)
		maxbuf = o.sizes[i] > maxbuf ? o.sizes[i] : maxbuf;
	Engine e;
	r = open_engine(&e, node, o.destructive, o.iodepth, maxbuf);
	if (r < 0) {
		fprintf(stderr, "smrctl: qualify: cannot open %s%s: %s\n", node, o.destructive ? " for writing" : "",
			r == -EBUSY ? "it is in use (mounted, or claimed by a filesystem, md or device-mapper)" : strerror(-r));
		close_engine(&e);
		json_object_put(rep);
		return 1;
	}

	if (o.destructive) {
		uint64_t budget = o.budget;
		if (!budget) {
			double b = fmin(fmax((double)size * 0.002, 4 * GiB), 64 * GiB);
			budget = (uint64_t)b;
		}
		if (budget > size)
			budget = size;
		fprintf(out, "writing random %s blocks at queue depth %u until the write cliff, %s or %.0f s\n",
			fmt_bytes(b1, sizeof b1, (double)o.bs), o.iodepth, fmt_bytes(b2, sizeof b2, (double)budget), o.time_limit);
		WriteStop ws = {.budget = budget, .confirm = o.confirm_s};
		r = run_phase(&e, &wp, true, o.bs, size, o.time_limit, write_stop, &ws, live);
		cliff_find(wp.rec, wp.n, wp.duration, o.confirm_s, &cliff);
		cliff_done = true;
		learned = wp.n > 0;
		json_object *w = json_object_new_object();
		json_object_object_add(w, "duration", jd(wp.duration));
		json_object_object_add(w, "bytes", json_object_new_int64((int64_t)wp.bytes));
		json_object_object_add(w, "ios", json_object_new_int64((int64_t)wp.n));
		json_object_object_add(w, "block_size", json_object_new_int64((int64_t)o.bs));
		json_object_object_add(w, "stopped_by", json_object_new_string(wp.stopped ? wp.stopped : "?"));
		json_object *c = json_object_new_object();
		json_object_object_add(c, "found", json_object_new_boolean(cliff.found));
		json_object_object_add(c, "at", cliff.found ? jd(cliff.cliff_t) : NULL);
		json_object_object_add(c, "fast_iops", jd(cliff.fast_iops));
		json_object_object_add(c, "fast_latency", jd(cliff.fast_lat));
		json_object_object_add(c, "fast_bytes", json_object_new_int64((int64_t)(cliff.fast_ios * o.bs)));
		json_object_object_add(c, "slow_iops", cliff.found ? jd(cliff.slow_iops) : NULL);
		json_object_object_add(c, "slow_latency", cliff.found ? jd(cliff.slow_lat) : NULL);
		json_object_object_add(w, "cliff", c);
		json_object_object_add(w, "latency", hist_json(&wp.hist));
		json_object_object_add(w, "per_second", seconds_json(&wp));
		json_object_object_add(phases, "write", w);
		if (r < 0)
			fprintf(stderr, "smrctl: qualify: writing failed: %s\n", strerror(-r));
		if (!interrupted && r >= 0 && o.rest > 0) {
			fprintf(out, "resting %.0f s (the drive may clean its cache now)\n", o.rest);
			for (double t0 = now_s(); !interrupted && now_s() - t0 < o.rest;)
				usleep(100000);
		}
	}
	/* Reads: every size in read-only mode; 4 KiB after the writes. */
	unsigned n_reads = o.destructive ? 1 : o.n_sizes;
	json_object *reads = json_object_new_object();
	for (unsigned i = 0; i < n_reads && !interrupted; i++) {
		uint64_t bs = o.destructive ? 4096 : o.sizes[i];
		char nm[32];
		snprintf(nm, sizeof nm, "read %s", fmt_bytes(b1, sizeof b1, (double)bs));
		rp[i].name = strdup(nm);
		r = run_phase(&e, &rp[i], false, bs, size, o.read_seconds, NULL, NULL, live);
		if (r < 0) {
			fprintf(stderr, "smrctl: qualify: reading failed: %s\n", strerror(-r));
			break;
		}
		learned |= rp[i].n > 0;
		json_object *x = hist_json(&rp[i].hist);
		json_object_object_add(x, "duration", jd(rp[i].duration));
		json_object_object_add(x, "iops", jd(rp[i].duration > 0 ? (double)rp[i].n / rp[i].duration : 0));
		json_object_object_add(x, "per_second", seconds_json(&rp[i]));
		char key[32];
		snprintf(key, sizeof key, "%" PRIu64, bs);
		json_object_object_add(reads, key, x);
	}
	json_object_object_add(phases, "reads", reads);
	close_engine(&e);

	/* Leave the disk as a user would want it: trimmed, when it can be. */
	if (o.destructive && wp.n > 0 && interrupted < 2) {
		int fd = open(node, O_RDWR | O_EXCL | O_CLOEXEC);
		uint64_t range[2] = {0, size};
		bool can = sys.facts.discard_max_bytes > 0;
		const char *trim = !can ? "not supported by the disk" :
				   fd >= 0 && ioctl(fd, BLKDISCARD, range) == 0 ? "done" : "failed";
		if (fd >= 0)
			close(fd);
		fprintf(out, "TRIM of the tested range (the whole disk): %s\n", trim);
		json_object_object_add(rep, "trim", json_object_new_string(trim));
	}

	/* The verdict, with its limits. */
	json_object *verdict = json_object_new_object(), *limits = json_object_new_array();
	char text[512];
	bool smr = false;
	if (cliff_done && cliff.found && cliff.slow_lat >= 10 * cliff.fast_lat && cliff.fast_iops >= 10 * cliff.slow_iops) {
		smr = true;
		snprintf(text, sizeof text,
			 "behaves like DM-SMR: fast phase of %.1f s at %.0f IOPS (%s at %s), then %.1f IOPS at %s",
			 cliff.cliff_t, cliff.fast_iops, fmt_bytes(b1, sizeof b1, (double)(cliff.fast_ios * o.bs)),
			 output_seconds(cliff.fast_lat, b2, sizeof b2), cliff.slow_iops, output_seconds(cliff.slow_lat, b3, sizeof b3));
	} else if (cliff_done) {
		snprintf(text, sizeof text,
			 "no cliff after %s written at %.0f IOPS (%s): consistent with CMR%s",
			 fmt_bytes(b1, sizeof b1, (double)wp.bytes), cliff.fast_iops, output_seconds(cliff.fast_lat, b2, sizeof b2),
			 v.class == DISK_CLASS_SSD ? " or an SSD, as the static classification says" : "");
		json_object_array_add(limits, json_object_new_string(
			"a larger write budget could still reveal a larger media cache"));
	} else {
		const Band *bb = NULL;
		BandRules rules = {.min_share = 0.02, .min_count = 5, .valley = 0.5};
		Band b[BANDS_MAX];
		unsigned nb = rp[0].n ? bands_find(&rp[0].hist, &rules, b) : 0;
		bb = nb >= 2 ? &b[nb - 1] : NULL;
		snprintf(text, sizeof text, "read-only: %s; a write test (--destructive) is what reveals a media cache",
			 bb && bb->centre >= 0.1 ? "reads split into bands with one beyond 100 ms, as DM-SMR disks show while cleaning"
						 : "reads look like a single seek-and-rotation population");
	}
	if (v.class == DISK_CLASS_DM_SMR || v.class == DISK_CLASS_HOST_AWARE || v.class == DISK_CLASS_HOST_MANAGED)
		json_object_array_add(limits, json_object_new_string("the disk already declares SMR (static evidence)"));
	json_object_array_add(limits, json_object_new_string(
		"one run on one region of one disk: firmware, temperature and fill level change what a drive does"));
	if (interrupted)
		json_object_array_add(limits, json_object_new_string("interrupted: the test did not finish"));
	json_object_object_add(verdict, "smr_like", json_object_new_boolean(smr));
	json_object_object_add(verdict, "text", json_object_new_string(text));
	json_object_object_add(verdict, "limits", limits);
	json_object_object_add(rep, "verdict", verdict);
	json_object_object_add(rep, "interrupted", json_object_new_boolean(interrupted));

	fprintf(out, "\n");
	for (unsigned i = 0; i < n_reads; i++) {
		if (!rp[i].n)
			continue;
		BandRules rules = {.min_share = 0.02, .min_count = 5, .valley = 0.5};
		Band b[BANDS_MAX];
		unsigned nb = bands_find(&rp[i].hist, &rules, b);
		char p50[32], p99[32], mx[32];
		fprintf(out, "%-10s %6.0f IOPS  p50 %s  p99 %s  max %s  bands:", rp[i].name,
			(double)rp[i].n / rp[i].duration, output_seconds(hist_quantile(&rp[i].hist, 0.5), p50, sizeof p50),
			output_seconds(hist_quantile(&rp[i].hist, 0.99), p99, sizeof p99), output_seconds(hist_max(&rp[i].hist), mx, sizeof mx));
		for (unsigned k = 0; k < nb; k++)
			fprintf(out, "%s %s (%.0f%%)", k ? "," : "", output_seconds(b[k].centre, p50, sizeof p50), b[k].share * 100);
		fprintf(out, "\n");
	}
	fprintf(out, "verdict: %s\n", text);
	for (size_t i = 0; i < json_object_array_length(limits); i++)
		fprintf(out, "  limit: %s\n", json_object_get_string(json_object_array_get_idx(limits, i)));

	int rc = learned ? 0 : interrupted ? 130 : 1;
	if (o.report && learned) {
		char prefix[512], path[600];
		snprintf(prefix, sizeof prefix, "%s", o.report_prefix ? o.report_prefix : "");
		if (!*prefix)
			snprintf(prefix, sizeof prefix, "qualify-%s-%s", *sys.serial ? sys.serial : name, stamp);
		snprintf(path, sizeof path, "%s.json", prefix);
		if (json_object_to_file_ext(path, rep, JSON_C_TO_STRING_PRETTY) < 0)
			fprintf(stderr, "smrctl: qualify: cannot write %s\n", path), rc = 1;
		else
			fprintf(out, "report: %s", path);
		snprintf(path, sizeof path, "%s.svg", prefix);
		char title[256];
		snprintf(title, sizeof title, "%s %s: %s", name, sys.model, o.destructive ? "random writes" : rp[0].name);
		if (write_svg(path, o.destructive ? &wp : &rp[0], title) < 0)
			fprintf(stderr, "\nsmrctl: qualify: cannot write %s\n", path), rc = 1;
		else
			fprintf(out, ", %s\n", path);
	}
	if (o.json)
		printf("%s\n", json_object_to_json_string_ext(rep, JSON_C_TO_STRING_PRETTY));
	json_object_put(rep);
	free_phase(&wp);
	for (unsigned i = 0; i < 8; i++) {
		free_phase(&rp[i]);
		free((char *)rp[i].name);
	}
	return rc;
}
