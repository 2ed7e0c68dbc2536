/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "events.h"

#include <stddef.h>
#include <syslog.h>

#include "util.h"

static const EventKindInfo kinds[_EVENT_KIND_MAX] = {
	[EVENT_STORM_START] = {"storm-start", "2ea57fbbe60848c785306fd6ecb5500a", LOG_WARNING, "warning",
			       "A destage storm started on @SMRD_DEVICE@"},
	[EVENT_STORM_END] = {"storm-end", "9430eb7cdc44466cbde14a697ef778f6", LOG_NOTICE, "notice",
			     "A destage storm ended on @SMRD_DEVICE@"},
	[EVENT_STALL] = {"stall", "22e527359e6345ef839807ec0027da0d", LOG_WARNING, "warning",
			 "An I/O on @SMRD_DEVICE@ stalled"},
	[EVENT_TIMEOUT_RISK] = {"timeout-risk", "27af27720d1b493db43ba79223fb9ae4", LOG_CRIT, "crit",
				"An I/O on @SMRD_DEVICE@ came close to the kernel's I/O timeout"},
	[EVENT_BANDS] = {"bands", "762ddd2ce6214de990935a85d5599c8b", LOG_NOTICE, "notice",
			 "Reads on @SMRD_DEVICE@ split into latency bands"},
	[EVENT_IDLE_START] = {"idle-cleaning-start", "3603099fbf0946deb4efbbf276177bd8", LOG_NOTICE, "notice",
			      "@SMRD_DEVICE@ is cleaning while idle"},
	[EVENT_IDLE_END] = {"idle-cleaning-end", "2c7defb554fe471ebff5b8e48d2b2d72", LOG_INFO, "info",
			    "@SMRD_DEVICE@ stopped cleaning while idle"},
	[EVENT_BEHAVIOUR] = {"behaviour", "b3590890556a453d86ce45f12f9584a8", LOG_WARNING, "warning",
			     "@SMRD_DEVICE@ behaves like a drive-managed SMR disk"},
	[EVENT_MEDIA_CACHE] = {"media-cache", "7b5986c6129345ac9a1ea275421d923f", LOG_INFO, "info",
			       "smrd learnt the media cache of @SMRD_DEVICE@"},
	[EVENT_STALL_IMMINENT] = {"stall-imminent", "5dab9b895caa4d44a48a22750dac8d4a", LOG_WARNING, "warning",
				  "Writes to @SMRD_DEVICE@ will stall soon"},
	[EVENT_REBUILD_WARNING] = {"rebuild-warning", "b978642ea7834ade9dfecfc7ee5671a2", LOG_WARNING, "warning",
				   "A rebuild is about to write onto @SMRD_DEVICE@, which takes it slowly"},
	[EVENT_REBUILD_START] = {"rebuild-start", "fc340ad91c6340be9335d634185bf824", LOG_NOTICE, "notice",
				 "ZFS began a rebuild onto @SMRD_DEVICE@"},
	[EVENT_REBUILD_END] = {"rebuild-end", "eda5328c3720412a8739775fc38c2c0f", LOG_NOTICE, "notice",
			       "A ZFS resilver or scrub of @SMRD_DEVICE@'s pool ended"},
	[EVENT_ZFS_DELAY] = {"zfs-delay", "e2a633c51a814b56b359d04a729d3eca", LOG_WARNING, "warning",
			     "ZFS reported a slow I/O on @SMRD_DEVICE@"},
	[EVENT_ZFS_DEADMAN] = {"zfs-deadman", "95027202830c4a6ca4d5c195369a1359", LOG_WARNING, "warning",
			       "ZFS reported a hung I/O on @SMRD_DEVICE@"},
	[EVENT_ZFS_SITOUT] = {"zfs-sitout", "7aa5ac35afa94f918616dc3a84e31528", LOG_WARNING, "warning",
			      "ZFS sat @SMRD_DEVICE@ out of reads for being slow"},
	[EVENT_ZFS_STATECHANGE] = {"zfs-statechange", "d811dd78e00548f796a4574d6ef0a872", LOG_NOTICE, "notice",
				   "ZFS changed the state of @SMRD_DEVICE@"},
	[EVENT_REBUILD_DONE] = {"rebuild-done", "6e71011868b0452f885306afb9e7f8fd", LOG_NOTICE, "notice",
				"A rebuild onto @SMRD_DEVICE@ ended"},
	[EVENT_IDLE_RECOVERY] = {"idle-recovery", "00a6548e49df47bf95253672ba8eabb9", LOG_INFO, "info",
				 "smrd learnt what a rest gives back on @SMRD_DEVICE@"},
};

const EventKindInfo *event_kind_info(DetectEventKind k)
{
	return (unsigned)k < _EVENT_KIND_MAX ? &kinds[k] : NULL;
}

const char *detect_event_kind_to_string(DetectEventKind k)
{
	return (unsigned)k < _EVENT_KIND_MAX ? kinds[k].name : "unknown";
}

DetectEventKind detect_event_kind_from_string(const char *s)
{
	for (int k = 0; s && k < _EVENT_KIND_MAX; k++)
		if (streq(kinds[k].name, s))
			return (DetectEventKind)k;
	return _EVENT_KIND_INVALID;
}

const char *detect_event_severity(DetectEventKind k)
{
	return (unsigned)k < _EVENT_KIND_MAX ? kinds[k].severity : "notice";
}
