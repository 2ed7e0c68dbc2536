/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * All paths are relative to a root directory fd, so the captured trees'
 * relative symlinks (block/sda -> ../devices/...) resolve inside the tree.
 * Every attribute is optional: a missing or malformed one leaves the fact
 * unknown and the disk is still classified on what remains.
 */
#include "sysfs.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>

#include "util.h"

#define VPD_MAX_BYTES 4096
#define UDEVDB_MAX_BYTES (64 * 1024)

bool sysfs_valid_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;
	if (n == 0 || n >= 32 || streq(name, ".") || streq(name, ".."))
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' || (unsigned char)name[i] <= ' ' || (unsigned char)name[i] >= 0x7f)
			return false;
	return true;
}

static int attr_str(int dfd, const char *path, char *buf, size_t n)
{
	_cleanup_free_ char *s = NULL;
	int r = read_line_at(dfd, path, &s);
	if (r < 0)
		return r;
	_cleanup_free_ char *clean = str_sanitize(s);
	if (!clean)
		return -ENOMEM;
	snprintf(buf, n, "%s", clean);
	return 0;
}

static int64_t attr_i64(int dfd, const char *path)
{
	uint64_t v;
	if (read_u64_at(dfd, path, &v) < 0 || v > INT64_MAX)
		return -1;
	return (int64_t)v;
}

static int read_vpd(int dfd, const char *path, uint8_t **ret, size_t *ret_len)
{
	char *buf = NULL;
	size_t len;
	int r = read_file_at(dfd, path, VPD_MAX_BYTES, &buf, &len);
	if (r == -EFBIG)
		return -EBADMSG;
	if (r < 0)
		return r == -ENOENT ? -ENOENT : -EIO;
	*ret = (uint8_t *)buf;
	*ret_len = len;
	return 0;
}

static void probe_vpd(int dev_fd, DiskFacts *f)
{
	_cleanup_free_ uint8_t *b1 = NULL, *p89 = NULL;
	size_t len;

	f->b1_status = read_vpd(dev_fd, "vpd_pgb1", &b1, &len);
	if (f->b1_status == 0)
		f->b1_status = vpd_decode_b1(b1, len, &f->b1);
	f->id_status = read_vpd(dev_fd, "vpd_pg89", &p89, &len);
	if (f->id_status == 0)
		f->id_status = vpd_decode_89(p89, len, &f->id);
}

/* zoned_cap lives under device/scsi_disk/<H:C:T:L>/; there is one entry. */
static void probe_zoned_cap(int dev_fd, DiskFacts *f)
{
	int fd = openat(dev_fd, "scsi_disk", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	for (struct dirent *de; (de = readdir(d));) {
		if (de->d_name[0] == '.')
			continue;
		char path[300];
		snprintf(path, sizeof path, "%s/zoned_cap", de->d_name);
		if (attr_str(fd, path, f->zoned_cap, sizeof f->zoned_cap) == 0)
			break;
	}
	closedir(d);
}

static Transport transport_from_path(const char *link, const char *name)
{
	static const struct { const char *needle; Transport t; } map[] = {
		{"/virtual/", TRANSPORT_VIRTUAL}, {"/nvme", TRANSPORT_NVME},
		{"/usb", TRANSPORT_USB}, {"/virtio", TRANSPORT_VIRTIO},
		{"/mmc_host/", TRANSPORT_MMC}, {"/ata", TRANSPORT_ATA},
		{"/host", TRANSPORT_SCSI},
	};
	for (size_t i = 0; link && i < ELEMENTSOF(map); i++)
		if (strstr(link, map[i].needle))
			return map[i].t;
	static const char *const virt[] = {"loop", "dm-", "md", "zram", "nbd", "ram", "bcache", "zd"};
	for (size_t i = 0; i < ELEMENTSOF(virt); i++)
		if (strncmp(name, virt[i], strlen(virt[i])) == 0)
			return TRANSPORT_VIRTUAL;
	return TRANSPORT_UNKNOWN;
}

bool udevdb_lookup(const char *text, const char *key, char *buf, size_t n)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (p[0] == 'E' && p[1] == ':' && strncmp(p + 2, key, klen) == 0 && p[2 + klen] == '=') {
			const char *v = p + 3 + klen;
			size_t len = strcspn(v, "\n");
			if (len >= n)
				len = n - 1;
			memcpy(buf, v, len);
			buf[len] = 0;
			for (char *q = buf; *q; q++)
				if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
					*q = '?';
			return true;
		}
	}
	return false;
}

int sysfs_udev_record(int udev_fd, unsigned major, unsigned minor, char **ret)
{
	char path[64];
	size_t len;
	char *text = NULL;
	if (udev_fd < 0)
		return -ENOENT;
	snprintf(path, sizeof path, "data/b%u:%u", major, minor);
	int r = read_file_at(udev_fd, path, UDEVDB_MAX_BYTES, &text, &len);
	if (r < 0)
		return r;
	if (strlen(text) != len) {
		free(text);
		return -EBADMSG;
	}
	*ret = text;
	return 0;
}

static void probe_udev(const char *text, DiskFacts *f)
{
	char rpm[16];
	if (!text)
		return;
	udevdb_lookup(text, "ID_MODEL", f->udev_model, sizeof f->udev_model);
	if (!udevdb_lookup(text, "ID_SERIAL_SHORT", f->udev_serial, sizeof f->udev_serial))
		udevdb_lookup(text, "ID_SERIAL", f->udev_serial, sizeof f->udev_serial);
	udevdb_lookup(text, "ID_WWN", f->udev_wwn, sizeof f->udev_wwn);
	udevdb_lookup(text, "ID_REVISION", f->udev_revision, sizeof f->udev_revision);
	uint64_t v;
	if (udevdb_lookup(text, "ID_ATA_ROTATION_RATE_RPM", rpm, sizeof rpm) && parse_u64(rpm, &v) == 0 &&
	    v < 1000000)
		f->udev_rpm = (int)v;
}

static int probe_devnum(int blk_fd, unsigned *major, unsigned *minor)
{
	char dev[32];
	int r = attr_str(blk_fd, "dev", dev, sizeof dev);
	if (r < 0)
		return r;
	if (sscanf(dev, "%u:%u", major, minor) != 2)
		return -EBADMSG;
	return 0;
}

static void probe_queue(int blk_fd, DiskFacts *f, int64_t *io_timeout)
{
	int64_t v = attr_i64(blk_fd, "queue/rotational");
	f->rotational = v == 0 || v == 1 ? (int)v : -1;
	attr_str(blk_fd, "queue/zoned", f->zoned, sizeof f->zoned);
	f->discard_max_bytes = attr_i64(blk_fd, "queue/discard_max_hw_bytes");
	if (f->discard_max_bytes < 0)
		f->discard_max_bytes = attr_i64(blk_fd, "queue/discard_max_bytes");
	f->nr_zones = attr_i64(blk_fd, "queue/nr_zones");
	f->zone_sectors = attr_i64(blk_fd, "queue/chunk_sectors");
	*io_timeout = attr_i64(blk_fd, "queue/io_timeout");
}

/* Spells sysfs wwid the way udev's ID_WWN does (node_exporter's wwn label):
 * "naa.5000..." becomes "0x5000...", EUI-64 ids stay, vendor ids (t10.) are no WWN. */
static void wwn_from_wwid(int dev_fd, char *buf, size_t n)
{
	char id[FACT_STR];
	buf[0] = 0;
	if (attr_str(dev_fd, "wwid", id, sizeof id) < 0)
		return;
	if (strncmp(id, "naa.", 4) == 0)
		snprintf(buf, n, "0x%s", id + 4);
	else if (strncmp(id, "eui.", 4) == 0)
		snprintf(buf, n, "%s", id);
}

static void probe_identity(int dev_fd, SysfsDisk *d)
{
	DiskFacts *f = &d->facts;
	disk_facts_best_model(f, d->model, sizeof d->model);
	if (f->udev_serial[0])
		snprintf(d->serial, sizeof d->serial, "%s", f->udev_serial);
	else if (f->id_status == 0 && f->id.serial[0])
		snprintf(d->serial, sizeof d->serial, "%s", f->id.serial);
	else if (dev_fd >= 0)
		attr_str(dev_fd, "serial", d->serial, sizeof d->serial);	/* NVMe */
	if (f->udev_wwn[0])
		snprintf(d->wwn, sizeof d->wwn, "%s", f->udev_wwn);
	else if (dev_fd >= 0)
		wwn_from_wwid(dev_fd, d->wwn, sizeof d->wwn);
	/* the revision a firmware advisory names: ATA's own before the SCSI
	 * layer's four characters (a SAT bridge truncates it) */
	if (f->udev_revision[0])
		snprintf(d->firmware, sizeof d->firmware, "%s", f->udev_revision);
	else if (f->id_status == 0 && f->id.firmware[0])
		snprintf(d->firmware, sizeof d->firmware, "%s", f->id.firmware);
	else if (dev_fd >= 0 && attr_str(dev_fd, "rev", d->firmware, sizeof d->firmware) < 0)
		attr_str(dev_fd, "firmware_rev", d->firmware, sizeof d->firmware);	/* NVMe */
}

/* A device made of others (dm, md, bcache: entries in slaves/) or a ZFS
 * volume (zdN, on the pool's disks, with no slaves/ to say so) shows its
 * members' behaviour, not a medium of its own. */
static void probe_stacked(int blk, const char *name, DiskFacts *f)
{
	int fd = openat(blk, "slaves", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir && fd >= 0)
		close(fd);
	for (struct dirent *de; dir && (de = readdir(dir));)
		if (de->d_name[0] != '.') {
			snprintf(f->stacked, sizeof f->stacked, "slaves/");
			break;
		}
	if (dir)
		closedir(dir);
	if (!f->stacked[0] && name[0] == 'z' && name[1] == 'd' && name[2] >= '0' && name[2] <= '9')
		snprintf(f->stacked, sizeof f->stacked, "zvol");
}

/* The start of both reads: block/<name> opened (a partition refused), the
 * device number and the size. Returns the directory's fd. */
static int open_block(int sysfs_fd, const char *name, char path[static 64], SysfsDisk *d)
{
	if (!sysfs_valid_name(name))
		return -EINVAL;
	snprintf(path, 64, "block/%s", name);
	_cleanup_close_ int blk = openat(sysfs_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (blk < 0)
		return -errno;
	if (faccessat(blk, "partition", F_OK, 0) == 0)
		return -ENOTBLK;
	*d = (SysfsDisk){.io_timeout_ms = -1};
	disk_facts_init(&d->facts, name);
	int r = probe_devnum(blk, &d->major, &d->minor);
	if (r < 0)
		return r;
	/* Unreadable is not zero: a disk whose size we cannot read is still
	 * watched (class unknown, with the reason), never dropped as empty. */
	uint64_t size = 0;
	d->facts.size_status = read_u64_at(blk, "size", &size);
	/* no disk has 4 EiB: a size whose bytes do not fit in 63 bits is a lie */
	if (d->facts.size_status == 0 && size > (uint64_t)INT64_MAX / 512)
		d->facts.size_status = -ERANGE;
	d->size_sectors = d->facts.size_status == 0 ? size : 0;
	return TAKE_FD(blk);
}

int sysfs_read_disk(int sysfs_fd, int udev_fd, const char *name, SysfsDisk *ret, char **ret_udev)
{
	char path[64], link[1024];
	SysfsDisk d;
	_cleanup_close_ int blk = open_block(sysfs_fd, name, path, &d);
	if (blk < 0)
		return blk;

	ssize_t n = readlinkat(sysfs_fd, path, link, sizeof link - 1);
	link[n > 0 ? n : 0] = 0;
	d.facts.transport = transport_from_path(n > 0 ? link : NULL, name);
	probe_queue(blk, &d.facts, &d.io_timeout_ms);
	probe_stacked(blk, name, &d.facts);

	_cleanup_close_ int dev = openat(blk, "device", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dev >= 0) {
		int64_t t = attr_i64(dev, "type");
		d.facts.scsi_type = t >= 0 && t < 256 ? (int)t : -1;
		attr_str(dev, "vendor", d.facts.sysfs_vendor, sizeof d.facts.sysfs_vendor);
		attr_str(dev, "model", d.facts.sysfs_model, sizeof d.facts.sysfs_model);
		probe_zoned_cap(dev, &d.facts);
		probe_vpd(dev, &d.facts);
	}
	_cleanup_free_ char *udev = NULL;
	if (sysfs_udev_record(udev_fd, d.major, d.minor, &udev) < 0)
		udev = NULL;
	probe_udev(udev, &d.facts);
	probe_identity(dev, &d);
	*ret = d;
	if (ret_udev)
		*ret_udev = TAKE_PTR(udev);
	return 0;
}

int sysfs_read_identity(int sysfs_fd, int udev_fd, const char *name, SysfsDisk *ret)
{
	char path[64];
	SysfsDisk d;
	_cleanup_close_ int blk = open_block(sysfs_fd, name, path, &d);
	if (blk < 0)
		return blk;
	/* what probe_identity() reads the model, serial and WWN from, no more */
	_cleanup_close_ int dev = openat(blk, "device", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	_cleanup_free_ uint8_t *p89 = NULL;
	size_t len;
	if (dev >= 0) {
		attr_str(dev, "model", d.facts.sysfs_model, sizeof d.facts.sysfs_model);
		d.facts.id_status = read_vpd(dev, "vpd_pg89", &p89, &len);
		if (d.facts.id_status == 0)
			d.facts.id_status = vpd_decode_89(p89, len, &d.facts.id);
	}
	_cleanup_free_ char *udev = NULL;
	if (sysfs_udev_record(udev_fd, d.major, d.minor, &udev) < 0)
		udev = NULL;
	probe_udev(udev, &d.facts);
	probe_identity(dev, &d);
	*ret = d;
	return 0;
}

int sysfs_read_size(int sysfs_fd, const char *name, uint64_t *ret)
{
	char path[64];
	if (!sysfs_valid_name(name))
		return -EINVAL;
	snprintf(path, sizeof path, "block/%s/size", name);
	return read_u64_at(sysfs_fd, path, ret);
}

/* One device's signature: udev's ID_FS_* (or the fallback's), and
 * holders/; udev: its record if the caller has read it. */
static void read_signature(int sysfs_fd, int udev_fd, int dir_fd, const char *device, const char *udev,
			   SignatureProbe fallback, void *userdata, MemberSignature *s)
{
	*s = (MemberSignature){0};
	snprintf(s->device, sizeof s->device, "%s", device);
	unsigned major = 0, minor = 0;
	_cleanup_free_ char *own = NULL;
	if (probe_devnum(dir_fd, &major, &minor) == 0 && !udev && sysfs_udev_record(udev_fd, major, minor, &own) == 0)
		udev = own;
	if (udev) {
		udevdb_lookup(udev, "ID_FS_TYPE", s->fs_type, sizeof s->fs_type);
		udevdb_lookup(udev, "ID_FS_LABEL", s->label, sizeof s->label);
		udevdb_lookup(udev, "ID_FS_UUID", s->uuid, sizeof s->uuid);
		udevdb_lookup(udev, "ID_FS_UUID_SUB", s->uuid_sub, sizeof s->uuid_sub);
	}
	bool udev_known = udev != NULL;
	if (!udev_known && fallback && major)
		(void)fallback(device, major, minor, s, userdata);

	int hfd = openat(dir_fd, "holders", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = hfd >= 0 ? fdopendir(hfd) : NULL;
	if (!dir) {
		if (hfd >= 0)
			close(hfd);
		return;
	}
	for (struct dirent *de; (de = readdir(dir)) && s->n_holders < MEMBER_HOLDERS;) {
		if (de->d_name[0] == '.' || !sysfs_valid_name(de->d_name))
			continue;
		unsigned i = s->n_holders++;
		size_t len = strlen(de->d_name);	/* under 32: sysfs_valid_name */
		memcpy(s->holders[i], de->d_name, len + 1);
		/* holders/dm-3 links to the dm device's directory in the tree */
		char path[300];
		snprintf(path, sizeof path, "block/%s/dm/name", de->d_name);
		if (attr_str(sysfs_fd, path, s->holder_names[i], sizeof s->holder_names[i]) < 0)
			s->holder_names[i][0] = 0;
	}
	closedir(dir);
}

int sysfs_read_memberships(int sysfs_fd, int udev_fd, const char *name, const char *udev, SignatureProbe fallback,
			   void *userdata, Memberships *ret)
{
	char path[64];
	Memberships ms = {0};
	MemberSignature sig;
	Membership m;
	if (!sysfs_valid_name(name))
		return -EINVAL;
	snprintf(path, sizeof path, "block/%s", name);
	int blk = openat(sysfs_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (blk < 0)
		return -errno;
	read_signature(sysfs_fd, udev_fd, blk, name, udev, fallback, userdata, &sig);
	if (membership_from_signature(&sig, &m))
		memberships_add(&ms, &m);
	DIR *dir = fdopendir(blk);
	if (!dir) {
		int r = -errno;
		close(blk);
		return r;
	}
	/* partitions are the subdirectories with a "partition" file */
	for (struct dirent *de; (de = readdir(dir));) {
		if (de->d_name[0] == '.' || !startswith(de->d_name, name) || !sysfs_valid_name(de->d_name))
			continue;
		_cleanup_close_ int part = openat(blk, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (part < 0 || faccessat(part, "partition", F_OK, 0) < 0)
			continue;
		read_signature(sysfs_fd, udev_fd, part, de->d_name, NULL, fallback, userdata, &sig);
		if (membership_from_signature(&sig, &m))
			memberships_add(&ms, &m);
	}
	closedir(dir);
	*ret = ms;
	return 0;
}

void sysfs_disk_identity(const char *udev, const char *name, const char *wwn, const char *serial, DiskIds *ret)
{
	*ret = (DiskIds){.name = name, .wwn = wwn, .serial = serial};
	for (const char *p = udev; p && *p && ret->n_links < DISK_LINKS_MAX; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!startswith(p, "S:disk/by-id/"))
			continue;
		const char *v = p + strlen("S:disk/by-id/");
		size_t len = strcspn(v, "\n");
		if (len == 0 || len >= DISK_RULE_ID)
			continue;
		memcpy(ret->links[ret->n_links], v, len);
		ret->links[ret->n_links++][len] = 0;
	}
}
