/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * When udevd runs we listen to its events (properties are in its database by
 * then); without it, to the kernel's own uevents, which is all a container or
 * a rescue system has. Either way a periodic scan is the safety net.
 */
#include "discovery.h"

#include <assert.h>
#include <dirent.h>
#include <fcntl.h>
#include <libudev.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "farmreader.h"
#include "log.h"
#include "sigreader.h"

struct Discovery {
	sd_event *event;
	DiskSources src;
	DiskRegistry *disks;
	DiscoveryCallbacks cb;
	const DeviceFilter *filter;
	const ModelList *models;
	const DiskRules *disk_rules;
	struct udev *udev;
	struct udev_monitor *monitor;
	sd_event_source *source;
	SigReader *sigs;		/* signatures off the loop; NULL but for the live /sys */
	FarmReader *farm;		/* smartctl for Seagate's FARM log: discovery_read_farm() */
	uint64_t read_errors;
	/* A partial scan re-reads only `budget` of the known disks, the next
	 * ones in turn from `rr`; 0 means every one. */
	unsigned budget, rr, known_seen;
	size_t known;
	/* A captured tree's block/ as it was last listed, and when: a partial
	 * scan lists it again only when it changed (or changed so recently
	 * that a change in the same timestamp tick could hide behind it). */
	struct stat listed;
	struct timespec listed_at;
	bool listed_valid;
};

static void udev_enumerate_unrefp(struct udev_enumerate **e)
{
	if (*e)
		udev_enumerate_unref(*e);
}

static void udev_device_unrefp(struct udev_device **d)
{
	if (*d)
		udev_device_unref(*d);
}

/* rematch: the disk is new, its model strings changed, or the model list
 * did; else what the list said of it still holds, and it costs nothing. */
static void classify_into(Discovery *disc, Disk *d, bool rematch)
{
	Verdict v;
	if (rematch) {
		classify_match_release(&d->model);
		classify_match(&d->sys.facts, disc->models, &d->model);
	}
	classify_verdict(&d->sys.facts, &d->model, d->farm, &v);
	verdict_summarize(&v, &d->verdict);
}

/* After classify_into(d, true) of a disk in the registry: what is read as
 * seldom as the model list is matched follows. */
static void matched(Discovery *disc, Disk *d)
{
	if (disc->farm && classify_farm_supported(&d->sys.facts))
		(void)farmreader_ask(disc->farm, d->name, d->sys.major, d->sys.minor);
}

void discovery_stop_farm(Discovery *disc)
{
	if (disc)
		disc->farm = farmreader_free(disc->farm);
}

void discovery_ask_farm(Discovery *disc, const char *name)
{
	Disk *d = registry_get(disc->disks, name);
	if (d)
		matched(disc, d);
}

static void on_farm(const char *name, unsigned major, unsigned minor, const FarmReading *r, void *userdata)
{
	discovery_set_farm(userdata, name, major, minor, r);
}

int discovery_read_farm(Discovery *disc, char *const *smartctl, const char *dev_dir, Reaper *reaper)
{
	if (disc->farm)
		return 0;
	FarmReaderCallbacks cb = {.read = on_farm, .userdata = disc};
	int r = farmreader_new(disc->event, reaper, smartctl, dev_dir, &cb, &disc->farm);
	for (size_t i = 0; r >= 0 && i < registry_size(disc->disks); i++)
		matched(disc, registry_at(disc->disks, i));
	return r;
}

static void log_verdict(const Disk *d, const char *what)
{
	log_info("%s %s (%u:%u, %s, \"%s\"): %s, SMR confidence %.2f: %s", what, d->name, d->sys.major,
		 d->sys.minor, transport_to_string(d->sys.facts.transport), d->sys.model,
		 disk_class_to_string(d->verdict.class), d->verdict.smr_confidence, d->verdict.basis);
}

static void drop(Discovery *disc, const char *name, const char *why)
{
	char copy[32];	/* name may point into the disk being freed */
	snprintf(copy, sizeof copy, "%s", name);
	Disk *d = registry_get(disc->disks, copy);
	if (!d)
		return;
	if (disc->cb.removed)
		disc->cb.removed(d, disc->cb.userdata);
	registry_remove(disc->disks, copy);
	log_info("no longer watching %s: %s", copy, why);
	if (disc->cb.changed)
		disc->cb.changed(disc->cb.userdata);
}

static bool same_members(const Disk *d, const Memberships *b)
{
	if (d->n_members != b->n)
		return false;
	for (unsigned i = 0; i < b->n; i++)
		if (d->members[i].type != b->m[i].type || !streq(d->members[i].name, b->m[i].name) ||
		    !streq(d->members[i].via, b->m[i].via) || !streq(d->members[i].vdev_guid, b->m[i].vdev_guid))
			return false;
	return true;
}

static void set_members(Discovery *disc, Disk *d, const Memberships *ms)
{
	if (same_members(d, ms))
		return;
	int r = disk_set_members(d, ms);
	if (r < 0) {
		log_warning_errno(r, "Cannot record what %s is a member of: %m", d->name);
		return;
	}
	for (unsigned i = 0; i < ms->n; i++)
		log_info("%s is a member of %s %s (on %s%s%s)", d->name, member_type_to_string(ms->m[i].type),
			 ms->m[i].name, ms->m[i].via, *ms->m[i].detail ? ", " : "", ms->m[i].detail);
	if (ms->n == 0)
		log_info("%s is no longer a member of any pool, array or volume group", d->name);
	if (disc->cb.changed)
		disc->cb.changed(disc->cb.userdata);
}

/* A disk's signatures, read off the loop, are back. */
static void on_signatures(const char *name, unsigned major, unsigned minor, int r, const Memberships *ms,
			  void *userdata)
{
	Discovery *disc = userdata;
	Disk *d = registry_get(disc->disks, name);
	if (!d || d->sys.major != major || d->sys.minor != minor)
		return;	/* gone, or another device by now */
	if (r < 0) {
		log_debug("Failed to read what %s is a member of: %s", name, strerror(-r));
		return;
	}
	set_members(disc, d, ms);
}

/* Re-reads what d belongs to; says what changed. Without a udev database
 * entry libblkid reads the signatures from the disk itself, which a disk in
 * a destage storm or a failing one can take seconds for: in a thread
 * (sigreader), when the disk comes and on its own uevents (probe), never on
 * the periodic rescan. */
static void read_members(Discovery *disc, Disk *d, bool probe, const char *udev)
{
	Memberships ms;
	char path[64];
	snprintf(path, sizeof path, "data/b%u:%u", d->sys.major, d->sys.minor);
	bool udev_known = udev || (disc->src.udev_fd >= 0 && faccessat(disc->src.udev_fd, path, F_OK, 0) == 0);
	if (disc->sigs && !udev_known) {
		if (probe && !sigreader_queue(disc->sigs, d->name, d->sys.major, d->sys.minor) &&
		    !sigreader_pending(disc->sigs, d->name))
			log_debug("%s: too many signature reads are stuck: its memberships are read later", d->name);
		return;
	}
	if (sysfs_read_memberships(disc->src.sysfs_fd, disc->src.udev_fd, d->name, udev, NULL, NULL, &ms) == 0)
		set_members(disc, d, &ms);
}

void discovery_refresh_members(Discovery *disc)
{
	for (size_t i = 0; i < registry_size(disc->disks); i++)
		read_members(disc, registry_at(disc->disks, i), false, NULL);
}

/* The administrator's settings for this disk, by its stable identity;
 * udev: its record, NULL if it has none. */
static void apply_disk_rules(Discovery *disc, const char *name, SysfsDisk *sys, const char *udev, DiskTuning *ret)
{
	*ret = (DiskTuning){.stall_threshold = NAN, .media_cache = NAN, .rebuild_rate = NAN};
	sys->facts.admin_class = -1;
	sys->facts.admin_rule[0] = 0;
	if (!disc->disk_rules || disc->disk_rules->n == 0)
		return;
	DiskIds who;
	sysfs_disk_identity(udev, name, sys->wwn, sys->serial, &who);
	const DiskRule *r = disk_rules_find(disc->disk_rules, &who);
	if (!r)
		return;
	sys->facts.admin_class = r->expect;
	snprintf(sys->facts.admin_rule, sizeof sys->facts.admin_rule, "disk.%s.expect", r->id);
	*ret = (DiskTuning){.stall_threshold = r->stall_threshold, .media_cache = r->media_cache,
			    .rebuild_rate = r->rebuild_rate};
}

void discovery_reread(Discovery *disc, const char *name)
{
	SysfsDisk sys;

	if (!sysfs_valid_name(name))
		return;
	if (!filter_wants(disc->filter, name)) {
		drop(disc, name, "excluded by --include/--exclude");
		return;
	}
	_cleanup_free_ char *udev = NULL;
	int r = sysfs_read_disk(disc->src.sysfs_fd, disc->src.udev_fd, name, &sys, &udev);
	if (r == -ENOENT) {
		drop(disc, name, "device removed");
		return;
	}
	if (r == -ENOTBLK)
		return;		/* partitions are never watched */
	if (sys.facts.stacked[0] && !filter_wants_stacked(disc->filter)) {
		/* with LUKS or md every disk would show up twice, and behave as its members do */
		drop(disc, name, "stacked device (its member disks are watched; watch-stacked = yes for it too)");
		return;
	}
	if (r < 0) {
		disc->read_errors++;
		log_warning("Failed to read sysfs attributes of %s, ignoring: %s", name, read_error_string(r));
		return;
	}
	if (sys.facts.scsi_type == SCSI_TYPE_ROM) {
		/* a CD/DVD/BD drive: no media cache to fill, nothing to shingle */
		drop(disc, name, "an optical drive, not a disk");
		return;
	}
	if (sys.facts.size_status < 0) {
		Disk *known = registry_get(disc->disks, name);
		if (!known || known->sys.facts.size_status != sys.facts.size_status) {
			disc->read_errors++;
			log_warning("Failed to read block/%s/size: %s; watching it with class unknown", name,
				    read_error_string(sys.facts.size_status));
		}
	} else if (sys.size_sectors == 0) {
		drop(disc, name, "size is 0 (no medium or detached)");
		return;
	}

	Disk *d = registry_get(disc->disks, name);
	if (d && (d->sys.major != sys.major || d->sys.minor != sys.minor)) {
		drop(disc, name, "replaced by another device of the same name");
		d = NULL;
	}
	DiskTuning tuning;
	apply_disk_rules(disc, name, &sys, udev, &tuning);
	if (d) {
		DiskClass old = d->verdict.class;
		bool rematch = !classify_same_subjects(&d->sys.facts, &sys.facts);
		d->sys = sys;
		d->tuning = tuning;
		classify_into(disc, d, rematch);
		if (old != d->verdict.class)
			log_verdict(d, "reclassified");
		if (rematch)
			matched(disc, d);
		read_members(disc, d, true, udev);
		return;
	}
	Disk n = {.sys = sys, .added_usec = now_usec(CLOCK_REALTIME), .tuning = tuning};
	snprintf(n.name, sizeof n.name, "%s", name);
	classify_into(disc, &n, true);
	r = registry_add(disc->disks, &n, &d);
	if (r < 0) {
		disk_release(&n);
		log_warning_errno(r, "Cannot watch %s, ignoring: %m", name);
		return;
	}
	log_verdict(d, "watching");
	matched(disc, d);
	read_members(disc, d, true, udev);
	if (disc->cb.added)
		disc->cb.added(d, disc->cb.userdata);
	if (disc->cb.changed)
		disc->cb.changed(disc->cb.userdata);
}

static void sweep(Discovery *disc)
{
	for (size_t i = registry_size(disc->disks); i-- > 0;) {
		Disk *d = registry_at(disc->disks, i);
		if (!d->seen) {
			char name[sizeof d->name];
			snprintf(name, sizeof name, "%s", d->name);
			discovery_reread(disc, name);	/* drops it with the reason */
		}
	}
}

static void mark_all(Discovery *disc, bool v)
{
	for (size_t i = 0; i < registry_size(disc->disks); i++)
		registry_at(disc->disks, i)->seen = v;
}

void discovery_check(Discovery *disc, const char *name)
{
	uint64_t size;
	const Disk *d = registry_get(disc->disks, name);
	if (!d) {
		discovery_reread(disc, name);	/* adds it, if it is a disk to watch */
		return;
	}
	int r = sysfs_read_size(disc->src.sysfs_fd, name, &size);
	char dir[64];
	snprintf(dir, sizeof dir, "block/%s", name);
	if (r < 0 && r == d->sys.facts.size_status && faccessat(disc->src.sysfs_fd, dir, F_OK, 0) == 0)
		return;			/* the same failure as before: already said */
	if (r < 0 || size == 0 || d->sys.facts.size_status < 0)
		discovery_reread(disc, name);	/* updates, or drops with the reason */
}

static void seen(Discovery *disc, const char *name)
{
	Disk *d = registry_get(disc->disks, name);
	if (d && disc->budget && disc->budget < disc->known) {
		/* a known disk, outside this scan's turn: still there, no more */
		unsigned k = disc->known_seen++;
		if ((k + disc->known - disc->rr % disc->known) % disc->known >= disc->budget) {
			d->seen = true;
			return;
		}
		read_members(disc, d, false, NULL);
	}
	discovery_check(disc, name);
	d = registry_get(disc->disks, name);
	if (d)
		d->seen = true;
}

static int scan_udev(Discovery *disc, struct udev *udev)
{
	_cleanup_(udev_enumerate_unrefp) struct udev_enumerate *e = udev_enumerate_new(udev);
	if (!e)
		return -ENOMEM;
	int r = udev_enumerate_add_match_subsystem(e, "block");
	if (r >= 0)
		r = udev_enumerate_add_match_property(e, "DEVTYPE", "disk");
	if (r >= 0)
		r = udev_enumerate_scan_devices(e);
	if (r < 0)
		return r;
	struct udev_list_entry *it;
	udev_list_entry_foreach(it, udev_enumerate_get_list_entry(e)) {
		_cleanup_(udev_device_unrefp) struct udev_device *dev =
			udev_device_new_from_syspath(udev, udev_list_entry_get_name(it));
		const char *name = dev ? udev_device_get_sysname(dev) : NULL;
		if (name)
			seen(disc, name);
	}
	return 0;
}

/* Whether block/ (fstat'ed as st) is as it was when last listed, and old
 * enough that a change in the same timestamp tick would have moved it
 * since (file systems stamp with a coarse clock: git's "racy clean"). */
static bool listing_unchanged(const Discovery *disc, const struct stat *st)
{
	if (!disc->listed_valid || st->st_ino != disc->listed.st_ino || st->st_dev != disc->listed.st_dev ||
	    st->st_nlink != disc->listed.st_nlink || st->st_size != disc->listed.st_size)
		return false;
	if (st->st_mtim.tv_sec != disc->listed.st_mtim.tv_sec || st->st_mtim.tv_nsec != disc->listed.st_mtim.tv_nsec ||
	    st->st_ctim.tv_sec != disc->listed.st_ctim.tv_sec || st->st_ctim.tv_nsec != disc->listed.st_ctim.tv_nsec)
		return false;
	return st->st_mtim.tv_sec + 1 < disc->listed_at.tv_sec;
}

/* The disks in this scan's turn, re-read without listing block/: the
 * names first, since a re-read may drop a disk from the registry. */
static int reread_turn(Discovery *disc)
{
	size_t n = disc->known;
	unsigned count = disc->budget < n ? disc->budget : (unsigned)n;
	_cleanup_free_ char (*names)[sizeof(((Disk *)0)->name)] = calloc(count ? count : 1, sizeof *names);
	if (!names)
		return -ENOMEM;
	for (unsigned k = 0; k < count; k++)
		snprintf(names[k], sizeof names[k], "%s", registry_at(disc->disks, (disc->rr + k) % n)->name);
	for (unsigned k = 0; k < count; k++) {
		Disk *d = registry_get(disc->disks, names[k]);
		if (d)
			read_members(disc, d, false, NULL);
		discovery_check(disc, names[k]);
	}
	return 0;
}

static int scan_dir(Discovery *disc, int fd, const struct stat *st)
{
	disc->listed = *st;
	disc->listed_valid = clock_gettime(CLOCK_REALTIME, &disc->listed_at) == 0;
	DIR *dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -errno;
	}
	for (struct dirent *de; (de = readdir(dir));)
		if (de->d_name[0] != '.')
			seen(disc, de->d_name);
	closedir(dir);
	return 0;
}

static int scan(Discovery *disc, unsigned budget)
{
	disc->budget = budget;
	disc->known = registry_size(disc->disks);
	disc->known_seen = 0;
	int r, fd = -1;
	struct stat st;
	if (!disc->udev) {
		fd = openat(disc->src.sysfs_fd, "block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		r = fd < 0 || fstat(fd, &st) < 0 ? -errno : 0;
		if (r == 0 && budget && budget < disc->known && listing_unchanged(disc, &st)) {
			close(fd);
			r = reread_turn(disc);	/* nothing came or went */
			goto done;
		}
		if (r < 0 && fd >= 0)
			close(fd);
		if (r < 0)
			goto failed;
	}
	mark_all(disc, false);
	r = disc->udev ? scan_udev(disc, disc->udev) : scan_dir(disc, fd, &st);
	if (r < 0) {
		/* Keep what we have: a failed scan must not empty the registry. */
		mark_all(disc, true);
		goto failed;
	}
	sweep(disc);
	/* without udev's events (a captured tree, no udevd) this is how a
	 * disk joining a pool is seen */
	if (!budget || budget >= disc->known)
		discovery_refresh_members(disc);
done:
	disc->rr += budget;
	disc->budget = 0;
	return r;
failed:
	disc->budget = 0;
	return log_warning_errno(r, "Failed to enumerate block devices, keeping the current list: %m");
}

int discovery_scan(Discovery *disc) { return scan(disc, 0); }

int discovery_scan_some(Discovery *disc, unsigned budget) { return scan(disc, budget ? budget : 1); }

void discovery_set_rules(Discovery *disc, const DeviceFilter *filter, const ModelList *models)
{
	disc->filter = filter;
	disc->models = models;
}

void discovery_reclassify(Discovery *disc)
{
	if (disc->farm)
		farmreader_reset(disc->farm);	/* a smartctl found unable is tried again */
	for (size_t i = registry_size(disc->disks); i-- > 0;) {
		Disk *d = registry_at(disc->disks, i);
		if (!filter_wants(disc->filter, d->name))
			drop(disc, d->name, "excluded by --include/--exclude");
		else if (d->sys.facts.stacked[0] && !filter_wants_stacked(disc->filter))
			drop(disc, d->name, "stacked device (its member disks are watched; watch-stacked = yes for it too)");
		else {
			_cleanup_free_ char *udev = NULL;
			if (sysfs_udev_record(disc->src.udev_fd, d->sys.major, d->sys.minor, &udev) < 0)
				udev = NULL;
			apply_disk_rules(disc, d->name, &d->sys, udev, &d->tuning);
			classify_into(disc, d, true);
			matched(disc, d);
		}
	}
	discovery_scan(disc);
}

void discovery_set_farm(Discovery *disc, const char *name, unsigned major, unsigned minor, const FarmReading *r)
{
	Disk *d = registry_get(disc->disks, name);
	if (!d || d->sys.major != major || d->sys.minor != minor)
		return;		/* gone, or another device by now */
	if (r->state == FARM_SMR || r->state == FARM_CMR || r->state == FARM_UNKNOWN)
		log_info("%s: Seagate FARM log: %s (smartctl %s)", name, r->detail, r->smartctl);
	else if (r->state == FARM_STANDBY)
		log_info("%s is spun down: its FARM log is not read now (smrctl reread %s, or a reload, asks again)",
			 name, name);
	else
		log_info("%s: no FARM log read: %s", name, r->detail);
	/* kept only for a disk smartctl answered of */
	if (!d->farm && !(d->farm = malloc(sizeof *d->farm))) {
		log_warning("%s: out of memory for its FARM reading, ignoring it", name);
		return;
	}
	DiskClass old = d->verdict.class;
	*d->farm = *r;
	classify_into(disc, d, false);
	if (old != d->verdict.class)
		log_verdict(d, "reclassified");
}

void discovery_set_disk_rules(Discovery *disc, const DiskRules *rules) { disc->disk_rules = rules; }

unsigned discovery_report_disk_rules(Discovery *disc)
{
	unsigned unmatched = 0, n = disc->disk_rules ? disc->disk_rules->n : 0;
	bool found[DISK_RULES_MAX] = {false};
	/* each disk's identity once (its udev database file is a read) */
	for (size_t k = 0; n && k < registry_size(disc->disks); k++) {
		const Disk *d = registry_at(disc->disks, k);
		DiskIds who;
		_cleanup_free_ char *udev = NULL;
		if (sysfs_udev_record(disc->src.udev_fd, d->sys.major, d->sys.minor, &udev) < 0)
			udev = NULL;
		sysfs_disk_identity(udev, d->name, d->sys.wwn, d->sys.serial, &who);
		for (unsigned i = 0; i < n; i++)
			found[i] = found[i] || disk_rule_matches(&disc->disk_rules->r[i], &who);
	}
	for (unsigned i = 0; i < n; i++) {
		const DiskRule *r = &disc->disk_rules->r[i];
		if (!found[i]) {
			unmatched++;
			log_warning("smrd.conf: disk.%s names no watched disk (by WWN, serial, /dev/disk/by-id name or "
				    "device name): its settings apply to nothing", r->id);
		}
	}
	return unmatched;
}

uint64_t discovery_read_errors(const Discovery *disc)
{
	assert(disc);
	return disc->read_errors;
}

static int on_uevent(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	Discovery *disc = userdata;
	(void)s, (void)fd, (void)revents;
	for (;;) {
		_cleanup_(udev_device_unrefp) struct udev_device *dev =
			udev_monitor_receive_device(disc->monitor);
		if (!dev)
			return 0;
		const char *name = udev_device_get_sysname(dev);
		const char *type = udev_device_get_devtype(dev);
		const char *action = udev_device_get_action(dev);
		if (!name || !type)
			continue;
		log_debug("uevent %s %s", action ? action : "?", name);
		if (streq(type, "partition")) {
			/* a signature written to or wiped from a partition */
			struct udev_device *parent = udev_device_get_parent_with_subsystem_devtype(dev, "block", "disk");
			const char *pname = parent ? udev_device_get_sysname(parent) : NULL;
			Disk *d = pname ? registry_get(disc->disks, pname) : NULL;
			if (d)
				read_members(disc, d, true, NULL);
			continue;
		}
		if (!streq(type, "disk"))
			continue;
		if (action && streq(action, "remove"))
			drop(disc, name, "device removed");
		else
			discovery_reread(disc, name);
		/* An array or volume assembled or stopped (md0, dm-3 come and go)
		 * changes its members' holders/, whether or not we watch it. */
		if (action && (streq(action, "add") || streq(action, "remove")))
			discovery_refresh_members(disc);
	}
}

Discovery *discovery_free(Discovery *d)
{
	if (!d)
		return NULL;
	sd_event_source_disable_unref(d->source);
	d->sigs = sigreader_free(d->sigs);
	d->farm = farmreader_free(d->farm);
	if (d->monitor)
		udev_monitor_unref(d->monitor);
	if (d->udev)
		udev_unref(d->udev);
	free(d);
	return NULL;
}

static void discovery_freep(Discovery **d) { discovery_free(*d); }

static int start_monitor(Discovery *d)
{
	/* udevd's own events carry its database; without udevd, only the kernel speaks. */
	bool udevd = access("/run/udev/control", F_OK) == 0;
	d->monitor = udev_monitor_new_from_netlink(d->udev, udevd ? "udev" : "kernel");
	if (!d->monitor)
		return -errno ? -errno : -ENOMEM;
	int r = udev_monitor_filter_add_match_subsystem_devtype(d->monitor, "block", NULL);
	if (r >= 0)
		r = udev_monitor_enable_receiving(d->monitor);
	if (r < 0)
		return r;
	r = sd_event_add_io(d->event, &d->source, udev_monitor_get_fd(d->monitor), EPOLLIN, on_uevent, d);
	if (r < 0)
		return r;
	log_debug("listening to %s uevents", udevd ? "udev" : "kernel");
	return 0;
}

int discovery_new(sd_event *e, const DiskSources *src, DiskRegistry *disks, const DiscoveryCallbacks *cb,
		  bool uevents, Discovery **ret)
{
	_cleanup_(discovery_freep) Discovery *d = calloc(1, sizeof *d);
	if (!d)
		return -ENOMEM;
	*d = (Discovery){.event = e, .src = *src, .disks = disks, .cb = cb ? *cb : (DiscoveryCallbacks){0}};
	if (src->live) {
		d->udev = udev_new();
		if (!d->udev)
			return -ENOMEM;
		/* signatures are read from the devices themselves only here: a
		 * captured tree's device names are not this kernel's */
		int r = sigreader_new(e, src->sysfs_fd, src->udev_fd, on_signatures, d, &d->sigs);
		if (r < 0)
			return r;
		if (uevents) {
			r = start_monitor(d);
			if (r < 0)
				log_warning_errno(r, "Failed to listen to uevents, relying on periodic scans: %m");
		}
	}
	*ret = TAKE_PTR(d);
	return 0;
}
