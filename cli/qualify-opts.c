/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smrctl qualify's options: getopt_long over the subcommand's own argv,
 * sizes as fio writes them (4k, 16KiB, 8G), seconds bounded to a day.
 */
#include "qualify-opts.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "qualify-engine.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: smrctl qualify DEVICE [OPTIONS]\n\n"
		"Tests a disk for hidden (drive-managed) SMR. Read-only by default: random reads of\n"
		"several sizes across the whole disk, the latency distribution and its bands.\n"
		"With --destructive (OVERWRITES THE DISK): sustained random writes until the write\n"
		"cliff appears or a budget is spent, sequential writes, a rest, and reads.\n\n"
		"  --destructive          write to the disk (refused if it has partitions, holders,\n"
		"                         mounts, writers, any signature, a GPT header, or data in\n"
		"                         its first, middle or last MiB; asks for its serial number)\n"
		"  --yes-destroy SERIAL   confirm without asking (the disk's serial, or its name if it has none)\n"
		"  --force-nonzero        write even though the sampled regions hold data\n"
		"  --discard              afterwards, discard (TRIM) exactly the blocks this run wrote\n"
		"                         (never after an interrupt)\n"
		"  --iodepth N            queue depth (1)\n"
		"  --bs SIZE              write size (4k)\n"
		"  --write-budget SIZE    stop writing after this much (0.2%% of capacity, 4-64 GiB)\n"
		"  --time-limit SECONDS   stop writing after this long; the idle-recovery rests and\n"
		"                         refills fit in what is left of it (600)\n"
		"  --hold SECONDS         how long the slow phase must last after the cliff before\n"
		"                         the writes stop (10)\n"
		"  --seq-seconds SECONDS  after the random writes, sequential 1 MiB writes for this\n"
		"                         long (10; 0: none): a DM-SMR disk stays fast, an SSD past\n"
		"                         its SLC cache does not\n"
		"  --recovery-rest SECONDS  after the cliff, how fast idle time gives the fast space\n"
		"                         back: write until a write waits after a short rest and\n"
		"                         after a longer one of up to this long (60; 0: skip)\n"
		"  --rest SECONDS         idle time between writes and reads (30)\n"
		"  --read-seconds SECONDS reads per transfer size (10)\n"
		"  --sizes LIST           read transfer sizes (4k,64k,1m)\n"
		"  --report PREFIX        write PREFIX.json and PREFIX.svg (default qualify-DEVICE-TIME)\n"
		"  --no-report            write no report files\n"
		"  --json                 no live progress; print the report as JSON\n");
}

static int parse_seconds(const char *s, double min, double *ret)
{
	char *end;
	double v = strtod(s, &end);
	if (*end || !(v >= min) || v > 86400) {
		fprintf(stderr, "smrctl: qualify: '%s' is not a number of seconds\n", s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int parse_sizes(const char *arg, Opts *o)
{
	_cleanup_free_ char *copy = strdup(arg);
	o->n_sizes = 0;
	for (char *save = NULL, *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->n_sizes == MAX_SIZES || parse_size(tok, &o->sizes[o->n_sizes]) < 0 ||
		    o->sizes[o->n_sizes] % 512 || o->sizes[o->n_sizes] > 16 << 20) {
			fprintf(stderr, "smrctl: qualify: --sizes takes up to 8 sizes, multiples of 512 up to 16M\n");
			return -EINVAL;
		}
		o->n_sizes++;
	}
	return o->n_sizes ? 0 : -EINVAL;
}

int qualify_parse_opts(int argc, char **argv, bool json, Opts *o, const char **dev)
{
	static const struct option opts[] = {
		{"destructive", no_argument, NULL, 'D'}, {"yes-destroy", required_argument, NULL, 'Y'},
		{"iodepth", required_argument, NULL, 'q'}, {"bs", required_argument, NULL, 'b'},
		{"write-budget", required_argument, NULL, 'B'}, {"time-limit", required_argument, NULL, 't'},
		{"rest", required_argument, NULL, 'r'}, {"read-seconds", required_argument, NULL, 'R'},
		{"sizes", required_argument, NULL, 'S'}, {"report", required_argument, NULL, 'o'},
		{"no-report", no_argument, NULL, 'N'}, {"json", no_argument, NULL, 'j'},
		{"discard", no_argument, NULL, 'T'}, {"force-nonzero", no_argument, NULL, 'Z'},
		{"sysfs-root", required_argument, NULL, 1}, {"udev-root", required_argument, NULL, 2},
		{"mountinfo", required_argument, NULL, 3}, {"socket", required_argument, NULL, 4},
		{"proc-root", required_argument, NULL, 5}, {"hold", required_argument, NULL, 'H'},
		{"seq-seconds", required_argument, NULL, 'Q'}, {"recovery-rest", required_argument, NULL, 'E'},
		{"help", no_argument, NULL, 'h'}, {},
	};
	*o = (Opts){.iodepth = 1, .bs = 4096, .time_limit = 600, .rest = 30, .read_seconds = 10, .confirm_s = 3, .hold = 10, .seq_seconds = 10, .recovery_rest = 60,
		    .report = true, .sysfs_root = "/sys", .udev_root = "/run/udev", .mountinfo = "/proc/self/mountinfo",
		    .swaps = "/proc/swaps", .proc_root = "/proc", .sizes = {4096, 65536, 1048576}, .n_sizes = 3,
		    .json = json};
	int c;
	optind = 0;	/* 0, not 1: glibc forgets an earlier scan of another argv only then */
	while ((c = getopt_long(argc, argv, "hj", opts, NULL)) >= 0) {
		char *end;
		switch (c) {
		case 'D': o->destructive = true; break;
		case 'Y': o->confirm = optarg; break;
		case 'j': o->json = true; break;
		case 'N': o->report = false; break;
		case 'T': o->discard = true; break;
		case 'Z': o->force_nonzero = true; break;
		case 'o': o->report_prefix = optarg; break;
		case 1: o->sysfs_root = optarg; break;
		case 2: o->udev_root = optarg; break;
		case 3: o->mountinfo = optarg; break;
		case 4: break;	/* smrctl's own --socket: not needed here */
		case 5: o->proc_root = optarg; break;
		case 'q':
			o->iodepth = (unsigned)strtoul(optarg, &end, 10);
			if (*end || o->iodepth < 1 || o->iodepth > ENGINE_MAX_QD) {
				fprintf(stderr, "smrctl: qualify: --iodepth takes 1 to %d\n", ENGINE_MAX_QD);
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
		case 't':
			if (parse_seconds(optarg, 1, &o->time_limit) < 0)
				return -EINVAL;
			break;
		case 'r':
			if (parse_seconds(optarg, 0, &o->rest) < 0)
				return -EINVAL;
			break;
		case 'R':
			if (parse_seconds(optarg, 1, &o->read_seconds) < 0)
				return -EINVAL;
			break;
		case 'H':
			if (parse_seconds(optarg, 1, &o->hold) < 0)
				return -EINVAL;
			break;
		case 'Q':
			if (parse_seconds(optarg, 0, &o->seq_seconds) < 0)
				return -EINVAL;
			break;
		case 'E':
			if (parse_seconds(optarg, 0, &o->recovery_rest) < 0)
				return -EINVAL;
			break;
		case 'S':
			if (parse_sizes(optarg, o) < 0)
				return -EINVAL;
			break;
		case 'h': usage(stdout); return 1;
		default: usage(stderr); return -EINVAL;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return -EINVAL;
	}
	*dev = device_name(argv[optind]);
	return 0;
}
