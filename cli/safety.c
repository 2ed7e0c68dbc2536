/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rules, in the order a user would check by hand: partitions, holders
 * (device-mapper, md, bcache on top of it), mounts and swap (of the disk or
 * a partition), processes that have it open for writing, udev's
 * ID_FS_TYPE, libblkid's probe of the fd for a partition table or a
 * signature (a probe that fails is a refusal, never "clean"), GPT headers
 * that libblkid does not see (a backup at the last sector whose protective
 * MBR and primary header were overwritten, and the filesystems in its
 * partitions), and last whether the start, middle and end of the disk hold
 * anything but zeros. Loop devices set up over it (or over one of its
 * partitions) are users too, mounted or not. A loop device is only as safe
 * as what lies beneath it: its backing file (another process writing it,
 * swap on it, another loop device over it that is mounted or held, more
 * unallocated bytes than its file system has free) or its backing block
 * device (everything above, for that device's whole disk and all of the
 * disk's partitions, since a partition shares its blocks with them, and
 * beneath that disk again).
 */
#include "safety.h"
#include "safety-users.h"

#include <blkid/blkid.h>
#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#include "sysfs.h"
#include "util.h"

/* ------------------------------------------------------------- identity */

int safety_identity(int fd, const SafetyTarget *t, const SysfsDisk *sys, DiskIdentity *ret)
{
	DiskIdentity id = {0};
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	id.rdev = st.st_rdev;
	if (ioctl(fd, BLKGETSIZE64, &id.size) < 0)
		return -errno;
	int lbs = 0;
	if (ioctl(fd, BLKSSZGET, &lbs) < 0 || lbs < 512)
		lbs = 512;
	id.logical_block = (unsigned)lbs;
	if (major(id.rdev) != t->major || minor(id.rdev) != t->minor)
		return -ENODEV;
	if (sys->major != t->major || sys->minor != t->minor)
		return -ENODEV;
	snprintf(id.serial, sizeof id.serial, "%s", sys->serial);
	snprintf(id.wwn, sizeof id.wwn, "%s", sys->wwn);
	snprintf(id.model, sizeof id.model, "%s", sys->model);
	struct loop_info64 li;
	if (ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		id.loop = true;
		id.loop_offset = li.lo_offset;
		id.loop_sizelimit = li.lo_sizelimit;
	}
	_cleanup_close_ int sysfs = open(t->sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sysfs < 0)
		return -errno;
	char path[512];
	snprintf(path, sizeof path, "block/%s/loop/backing_file", t->name);
	_cleanup_free_ char *backing = NULL;
	if (read_line_at(sysfs, path, &backing) == 0) {
		snprintf(id.backing, sizeof id.backing, "%s", backing);
		if (stat(backing, &st) == 0) {
			id.backing_dev = st.st_dev;
			id.backing_ino = st.st_ino;
		}
	}
	*ret = id;
	return 0;
}

int safety_identity_again(int fd, const SafetyTarget *t, DiskIdentity *ret)
{
	_cleanup_close_ int sysfs = open(t->sysfs_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_close_ int udev = open(t->udev_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	SysfsDisk sys;
	if (sysfs < 0)
		return -errno;
	int r = sysfs_read_identity(sysfs, udev, t->name, &sys);
	return r < 0 ? r : safety_identity(fd, t, &sys, ret);
}

bool safety_same_disk(const DiskIdentity *a, const DiskIdentity *b, char *why, size_t n)
{
	if (a->rdev != b->rdev)
		snprintf(why, n, "its device number changed (%u:%u, now %u:%u)", major(a->rdev), minor(a->rdev),
			 major(b->rdev), minor(b->rdev));
	else if (a->size != b->size || a->logical_block != b->logical_block)
		snprintf(why, n, "its size changed (%llu bytes, now %llu)", (unsigned long long)a->size,
			 (unsigned long long)b->size);
	else if (!streq(a->serial, b->serial) || !streq(a->wwn, b->wwn) || !streq(a->model, b->model))
		snprintf(why, n, "it reports another model, serial or WWN (%s %s, now %s %s)", a->model, a->serial, b->model,
			 b->serial);
	else if (!streq(a->backing, b->backing) || a->backing_dev != b->backing_dev || a->backing_ino != b->backing_ino)
		snprintf(why, n, "another file is behind it (%s, now %s)", a->backing, b->backing);
	else if (a->loop != b->loop || a->loop_offset != b->loop_offset || a->loop_sizelimit != b->loop_sizelimit)
		snprintf(why, n, "its loop offset or size limit changed (offset %llu, size limit %llu; now %llu, %llu)",
			 (unsigned long long)a->loop_offset, (unsigned long long)a->loop_sizelimit,
			 (unsigned long long)b->loop_offset, (unsigned long long)b->loop_sizelimit);
	else
		return true;
	return false;
}

/* ---------------------------------------------------- what lies beneath */

#define BENEATH_DEPTH 8

typedef struct Backing {
	bool is_loop;
	dev_t dev;		/* the backing file's st_dev; its st_rdev for a block device */
	ino_t ino;
	bool block;
	uint64_t offset, sizelimit;
	char path[512];
} Backing;

static void read_u64(const char *path, uint64_t *ret)
{
	FILE *f = fopen(path, "re");
	unsigned long long v;
	if (f && fscanf(f, "%llu", &v) == 1)
		*ret = v;
	if (f)
		fclose(f);
}

/* What backs loop device `name`: from the fd that will be written through
 * when there is one (LOOP_GET_STATUS64), else from sysfs. */
static int loop_backing(const SafetyTarget *t, const char *name, int fd, Backing *ret)
{
	char path[4200];
	*ret = (Backing){0};
	snprintf(path, sizeof path, "%s/block/%s/loop", t->sysfs_root, name);
	struct stat st;
	if (stat(path, &st) < 0)
		return 0;	/* not a loop device, or not bound to anything */
	ret->is_loop = true;
	snprintf(path, sizeof path, "%s/block/%s/loop/backing_file", t->sysfs_root, name);
	FILE *f = fopen(path, "re");
	if (f && fgets(ret->path, sizeof ret->path, f))
		ret->path[strcspn(ret->path, "\n")] = 0;
	if (f)
		fclose(f);
	struct loop_info64 li;
	if (fd >= 0 && ioctl(fd, LOOP_GET_STATUS64, &li) == 0) {
		ret->dev = (dev_t)li.lo_device;
		ret->ino = (ino_t)li.lo_inode;
		ret->offset = li.lo_offset;
		ret->sizelimit = li.lo_sizelimit;
		if (!ret->path[0])
			snprintf(ret->path, sizeof ret->path, "%.63s", (const char *)li.lo_file_name);
	} else if (ret->path[0] && stat(ret->path, &st) == 0) {
		ret->dev = st.st_dev;
		ret->ino = st.st_ino;
		snprintf(path, sizeof path, "%s/block/%s/loop/offset", t->sysfs_root, name);
		read_u64(path, &ret->offset);
		snprintf(path, sizeof path, "%s/block/%s/loop/sizelimit", t->sysfs_root, name);
		read_u64(path, &ret->sizelimit);
	} else {
		return -ENOENT;
	}
	/* a block device behind it: the loop holds the device node's inode;
	 * what matters is the device it stands for */
	if (ret->path[0] && stat(ret->path, &st) == 0 && st.st_dev == ret->dev && st.st_ino == ret->ino &&
	    S_ISBLK(st.st_mode)) {
		ret->block = true;
		ret->dev = st.st_rdev;
	}
	return 0;
}

/* The kernel name of block device dev, from sysfs's dev/block/M:m link. */
static int name_of(const SafetyTarget *t, dev_t dev, char *ret, size_t n)
{
	char path[512], link[1024];
	snprintf(path, sizeof path, "%s/dev/block/%u:%u", t->sysfs_root, major(dev), minor(dev));
	ssize_t k = readlink(path, link, sizeof link - 1);
	if (k <= 0)
		return -ENOENT;
	link[k] = 0;
	const char *b = strrchr(link, '/');
	b = b ? b + 1 : link;
	if (strlen(b) >= n)
		return -ENAMETOOLONG;
	memcpy(ret, b, strlen(b) + 1);
	return sysfs_valid_name(ret) ? 0 : -EINVAL;
}

/* Reasons found beneath, said as such. */
static void merge(SafetyReport *r, const SafetyReport *sub, const char *what)
{
	for (unsigned i = 0; i < sub->n; i++)
		safety_add(r, "beneath it, %s: %s", what, sub->reason[i]);
}

static void beneath(const SafetyTarget *t, const char *name, int fd, SafetyReport *r, unsigned depth);

/* Everything that says a disk or partition is in use: the disk's own
 * partitions (when it is the disk), and the users of all of them. */
static void block_users(const SafetyTarget *t, const Family *f, SafetyReport *r)
{
	for (unsigned i = 1; f->self == 0 && i < f->n; i++)
		safety_add(r, "it has a partition, %s: repartitioning is the user's decision, not ours", f->dev[i].name);
	safety_users(t, f, r);
}

/* Other loop devices over the same file, or over any part of the disk
 * under this one (f: that disk's family; NULL for a file). */
static void sibling_loops(const SafetyTarget *t, const char *self, const Backing *b, const Family *f, SafetyReport *r)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/block", t->sysfs_root);
	DIR *d = opendir(path);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!startswith(e->d_name, "loop") || streq(e->d_name, self) || !sysfs_valid_name(e->d_name))
			continue;
		Backing o;
		if (loop_backing(t, e->d_name, -1, &o) < 0 || !o.is_loop || o.block != b->block ||
		    (b->block ? !safety_family_has(f, o.dev) : o.dev != b->dev || o.ino != b->ino))
			continue;
		char dev_path[4300];
		unsigned M, m;
		snprintf(dev_path, sizeof dev_path, "%s/block/%s/dev", t->sysfs_root, e->d_name);
		if (safety_read_dev(dev_path, &M, &m) < 0)
			continue;
		/* its users only: what lies beneath it is what is being looked at */
		SafetyReport sub = {0};
		Family of;
		safety_family(t, e->d_name, makedev(M, m), &of);
		block_users(t, &of, &sub);
		safety_loops_over(t, &of, &sub);
		char what[900];
		snprintf(what, sizeof what, "%s is another loop device over %s", e->d_name, b->path);
		merge(r, &sub, what);
	}
	if (d)
		closedir(d);
}

/* A sparse backing file is only as large as the room left beside it:
 * writing all of it would fill that file system for everyone on it. */
static void room(const Backing *b, SafetyReport *r)
{
	struct stat st;
	struct statvfs vfs;
	/* a file system that tells no size (FUSE without statfs) cannot be judged */
	if (stat(b->path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_dev != b->dev || st.st_ino != b->ino ||
	    statvfs(b->path, &vfs) < 0 || vfs.f_blocks == 0)
		return;
	uint64_t size = (uint64_t)st.st_size > b->offset ? (uint64_t)st.st_size - b->offset : 0;
	if (b->sizelimit && b->sizelimit < size)
		size = b->sizelimit;
	uint64_t held = (uint64_t)st.st_blocks * 512, missing = size > held ? size - held : 0;
	uint64_t avail = (uint64_t)vfs.f_bavail * vfs.f_frsize;
	if (missing > avail)
		safety_add(r, "it is sparse: %llu MiB of the %llu MiB the loop device covers are not allocated, and its file "
			   "system has %llu MiB free: writing would fill it (allocate the file first: fallocate -l %llu %s)",
			   (unsigned long long)(missing >> 20), (unsigned long long)(size >> 20),
			   (unsigned long long)(avail >> 20), (unsigned long long)st.st_size, b->path);
}

typedef struct FileSwap {
	const Backing *b;
	SafetyReport *r;
} FileSwap;

/* a path that does not resolve is refused by the device checks already */
static void swap_file(const char *path, const struct stat *st, void *userdata)
{
	FileSwap *s = userdata;
	if (st && S_ISREG(st->st_mode) && st->st_dev == s->b->dev && st->st_ino == s->b->ino)
		safety_add(s->r, "%s is in use as swap", path);
}

/* A loop device's backing block device: its disk and that disk's other
 * partitions, and what lies beneath that disk in turn. */
static void beneath_block(const SafetyTarget *t, const char *name, const Backing *b, SafetyReport *r, unsigned depth)
{
	char under[64];
	if (name_of(t, b->dev, under, sizeof under) < 0) {
		safety_add(r, "%s is a loop device over block device %u:%u, which sysfs does not know", name, major(b->dev),
			   minor(b->dev));
		return;
	}
	Family f;
	safety_family(t, under, b->dev, &f);
	SafetyReport sub = {0};
	if (!f.dir[0])
		safety_add(&sub, "sysfs does not say which disk it is on: not safe to assume the rest of that disk is unused");
	block_users(t, &f, &sub);
	beneath(t, f.dev[0].name, -1, &sub, depth + 1);
	char what[300];
	snprintf(what, sizeof what, "%s (the block device %s is a loop over, at offset %llu%s%s)", under, name,
		 (unsigned long long)b->offset, f.self ? ", a partition of " : "", f.self ? f.dev[0].name : "");
	merge(r, &sub, what);
	sibling_loops(t, name, b, &f, r);
}

/* A loop device's backing file or device: nothing else may be using it. */
static void beneath(const SafetyTarget *t, const char *name, int fd, SafetyReport *r, unsigned depth)
{
	Backing b;
	if (depth > BENEATH_DEPTH) {
		safety_add(r, "%s: loop devices stacked deeper than %u: not safe to follow", name, BENEATH_DEPTH);
		return;
	}
	int k = loop_backing(t, name, fd, &b);
	if (k < 0) {
		safety_add(r, "%s is a loop device whose backing file cannot be identified: not safe to assume it is unused", name);
		return;
	}
	if (!b.is_loop)
		return;
	if (b.block) {
		beneath_block(t, name, &b, r, depth);
		return;
	}
	/* a file: another process writing it, swap on it, room for it */
	SafetyReport sub = {0};
	safety_file_writers(t, b.dev, b.ino, b.path, &sub);
	FileSwap s = {&b, &sub};
	safety_swaps_each(t->swaps, swap_file, &s);
	room(&b, &sub);
	char label[600];
	snprintf(label, sizeof label, "its backing file %s", b.path);
	merge(r, &sub, label);
	sibling_loops(t, name, &b, NULL, r);
}

/* ------------------------------------------------------- what is on it */

/* libblkid on [off, off + size) of fd: 1 found (described in *ret_type), 0 nothing, <0 the probe failed. */
static int probe_range(int fd, uint64_t off, uint64_t size, bool partitions, char *ret_type, size_t n)
{
	blkid_probe pr = blkid_new_probe();
	if (!pr)
		return -ENOMEM;
	int rc = blkid_probe_set_device(pr, fd, (blkid_loff_t)off, (blkid_loff_t)size);
	if (rc == 0) {
		blkid_probe_enable_superblocks(pr, 1);
		blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
		blkid_probe_enable_partitions(pr, partitions);
		rc = blkid_do_safeprobe(pr);
	}
	const char *v = NULL;
	int r = rc < 0 && rc != -2 ? -EIO : 0;
	if (rc == -2) {
		snprintf(ret_type, n, "several conflicting signatures");
		r = 1;
	} else if (rc == 0 && blkid_probe_lookup_value(pr, "PTTYPE", &v, NULL) == 0) {
		snprintf(ret_type, n, "a %s partition table", v);
		r = 1;
	} else if (rc == 0 && blkid_probe_lookup_value(pr, "TYPE", &v, NULL) == 0) {
		snprintf(ret_type, n, "a filesystem or volume signature: %s%s", v, safety_what_it_is(v));
		r = 1;
	}
	blkid_free_probe(pr);
	return r;
}

static void signatures(int fd, const char *name, const DiskIdentity *id, SafetyReport *r)
{
	char what[160];
	int k = probe_range(fd, 0, id->size, true, what, sizeof what);
	if (k < 0)
		safety_add(r, "%s could not be probed for signatures: not safe to assume it is empty", name);
	else if (k > 0)
		safety_add(r, "%s carries %s", name, what);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static uint32_t le32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

/* A GPT header at `lba` (1: primary, last: backup), even without the
 * protective MBR libblkid needs to believe in it; and what its partitions
 * hold. */
static void gpt_at(int fd, const char *name, const DiskIdentity *id, uint64_t lba, const char *which, SafetyReport *r)
{
	uint8_t hdr[512];
	uint64_t lbs = id->logical_block, blocks = id->size / lbs;
	if (lba >= blocks || pread(fd, hdr, sizeof hdr, (off_t)(lba * lbs)) != (ssize_t)sizeof hdr ||
	    memcmp(hdr, "EFI PART", 8) != 0)
		return;
	uint64_t entries = le64(hdr + 72);
	uint32_t count = le32(hdr + 80), esize = le32(hdr + 84);
	unsigned parts = 0;
	if (count > 1024 || esize < 128 || esize > 4096 || entries >= blocks) {
		safety_add(r, "%s has a %s GPT header at sector %llu (damaged: its partition list cannot be read)", name, which,
		    (unsigned long long)lba);
		return;
	}
	_cleanup_free_ uint8_t *table = malloc((size_t)count * esize);
	if (!table || pread(fd, table, (size_t)count * esize, (off_t)(entries * lbs)) != (ssize_t)((size_t)count * esize)) {
		safety_add(r, "%s has a %s GPT header at sector %llu", name, which, (unsigned long long)lba);
		return;
	}
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *e = table + (size_t)i * esize;
		static const uint8_t zero[16];
		if (!memcmp(e, zero, 16))
			continue;	/* an unused entry */
		parts++;
		uint64_t first = le64(e + 32), last = le64(e + 40);
		char what[160] = "";
		if (first <= last && last < blocks &&
		    probe_range(fd, first * lbs, (last - first + 1) * lbs, false, what, sizeof what) > 0)
			safety_add(r, "%s: partition %u of the %s GPT (sectors %llu-%llu) carries %s", name, i + 1, which,
			    (unsigned long long)first, (unsigned long long)last, what);
	}
	safety_add(r, "%s has a %s GPT header at sector %llu listing %u partition(s)%s", name, which, (unsigned long long)lba,
	    parts, lba > 1 ? " (its primary header or protective MBR is gone: libblkid does not see it)" : "");
}

/* Data where a new disk has none: the start, the middle, the end. */
static void samples(int fd, const char *name, const DiskIdentity *id, SafetyReport *r)
{
	_cleanup_free_ uint8_t *buf = malloc(SAFETY_SAMPLE_BYTES);
	if (!buf)
		return;
	const uint64_t len = id->size < SAFETY_SAMPLE_BYTES ? id->size : SAFETY_SAMPLE_BYTES;
	const struct { const char *where; uint64_t off; } at[] = {
		{"first", 0}, {"middle", (id->size / 2) & ~UINT64_C(4095)}, {"last", id->size - len},
	};
	for (size_t i = 0; i < ELEMENTSOF(at); i++) {
		ssize_t k = pread(fd, buf, len, (off_t)at[i].off);
		if (k != (ssize_t)len) {
			safety_add(r, "%s: the %s MiB could not be read", name, at[i].where);
			continue;
		}
		size_t nz = 0;
		for (size_t j = 0; j < len; j++)
			nz += buf[j] != 0;
		if (nz && r->n < SAFETY_MAX_REASONS) {
			safety_add(r, "%s holds data: %zu non-zero bytes in its %s MiB (--force-nonzero to overwrite it anyway)", name, nz,
			    at[i].where);
			r->nonzero_off[r->n_nonzero] = at[i].off;
			r->nonzero_len[r->n_nonzero++] = len;
		}
	}
}

void safety_check(int fd, const SafetyTarget *t, const DiskIdentity *id, bool allow_nonzero, SafetyReport *ret)
{
	*ret = (SafetyReport){0};
	/* what another process wrote must be read from the disk, not the cache */
	ioctl(fd, BLKFLSBUF, 0);
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	Family f;
	safety_family(t, t->name, makedev(t->major, t->minor), &f);
	block_users(t, &f, ret);
	safety_loops_over(t, &f, ret);
	beneath(t, t->name, fd, ret, 0);
	signatures(fd, t->name, id, ret);
	gpt_at(fd, t->name, id, 1, "primary", ret);
	gpt_at(fd, t->name, id, id->size / id->logical_block - 1, "backup", ret);
	if (!allow_nonzero)
		samples(fd, t->name, id, ret);
}
