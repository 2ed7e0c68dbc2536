/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a view costs whatever the model list holds (audit 4, finding 3):
 * discovery classifies a disk once and keeps the model list's answer with
 * it; /disk/NAME, `smrctl show` and the API (which is `show`) format what
 * was kept, and run no pattern of the list (the list counts its matches).
 */
#include <json-c/json.h>

#include "commands.h"
#include "discovery.h"
#include "log.h"
#include "monitor.h"
#include "recorder.h"
#include "pages.h"
#include "sampler.h"
#include "test.h"
#include "tracer.h"
#include "unit-tree.h"

/* Each model string is tried against the first three, and the last names
 * the disk's model. */
static const char list[] = "dm-smr\tOTHER 1\tnot it\n"
			   "dm-smr\tOTHER 2\tnot it\n"
			   "dm-smr\tOTHER 3\tnot it\n"
			   "dm-smr\tEVIL MODEL [0-9]+\tthe one that names it\n";

static Disk *add(DiskRegistry *r, const ModelList *ml)
{
	Disk n = {0}, *d = NULL;
	SysfsDisk s = {.major = 8, .minor = 0, .size_sectors = 7814037168, .io_timeout_ms = 30000};
	snprintf(n.name, sizeof n.name, "sdx");
	snprintf(s.model, sizeof s.model, "EVIL MODEL 7");
	disk_facts_init(&s.facts, "sdx");
	s.facts.transport = TRANSPORT_ATA;
	s.facts.rotational = 1;
	s.facts.size_status = 0;
	s.facts.admin_class = -1;
	snprintf(s.facts.sysfs_vendor, sizeof s.facts.sysfs_vendor, "EVIL");
	snprintf(s.facts.sysfs_model, sizeof s.facts.sysfs_model, "MODEL 7");
	snprintf(s.facts.udev_model, sizeof s.facts.udev_model, "EVIL_MODEL_7");
	n.sys = s;
	/* as discovery does, once */
	Verdict v;
	classify_match(&n.sys.facts, ml, &n.model);
	classify_verdict(&n.sys.facts, &n.model, n.farm, &v);
	verdict_summarize(&v, &n.verdict);
	n.tuning = (DiskTuning){NAN, NAN, NAN};
	if (registry_add(r, &n, &d) < 0)
		disk_release(&n);
	return d;
}

static void test_views_match_nothing(Context *ctx, const ModelList *ml)
{
	Disk *d = registry_get(ctx->disks, "sdx");
	CHECK(d != NULL);
	if (!d)
		return;
	/* discovery's one classification: udev's model string, then sysfs's, then vendor+model */
	CHECK_INT(d->verdict.class, DISK_CLASS_DM_SMR);
	uint64_t once = modellist_matches(ml);
	CHECK(once >= 4);

	HttpReply rep;
	CHECK_INT(pages_disk(ctx, "sdx", &rep), 0);
	CHECK_INT(rep.status, 200);
	Buf b = {0};
	buf_put(&b, http_body_data(rep.body), http_body_size(rep.body));
	buf_put(&b, "", 1);
	CHECK(strstr(b.data, "model list line 4 (dm-smr)") != NULL);
	CHECK(strstr(b.data, "EVIL MODEL 7") != NULL);
	buf_free(&b);
	http_body_unref(rep.body);
	CHECK_INT(modellist_matches(ml), once);

	json_object *args = json_object_new_object(), *res = NULL;
	json_object_object_add(args, "device", json_object_new_string("sdx"));
	struct ucred peer = {.uid = 0};
	char *msg = NULL;
	ProtoError err = PROTO_ERR_INTERNAL;
	CHECK_INT(commands_dispatch(ctx, "show", args, &peer, &res, &err, &msg), 0);
	const char *text = res ? json_object_to_json_string(res) : "";
	CHECK(strstr(text, "model list line 4 (dm-smr)") != NULL);
	CHECK_INT(modellist_matches(ml), once);
	free(msg);
	json_object_put(res);
	json_object_put(args);
}

int main(void)
{
	log_set_max_level(LOG_EMERG);
	_cleanup_(unit_tree_freep) char *state = unit_tree_empty();
	CHECK(state != NULL);
	if (!state)
		return test_done("daemon-classify");
	Context ctx = {.src = {.sysfs_fd = -1, .procfs_fd = -1, .udev_fd = -1}, .config_path = "/etc/smrd/smrd.conf"};
	CHECK_INT(config_init(&ctx.config), 0);
	free(ctx.config.state_dir);
	ctx.config.state_dir = strdup(state);
	char *err = NULL;
	CHECK_INT(modellist_parse(list, &ctx.models.list, &err), 0);
	free(err);
	CHECK_INT(sd_event_new(&ctx.event), 0);
	ctx.disks = registry_new();
	CHECK(add(ctx.disks, ctx.models.list) != NULL);
	_cleanup_free_ char *herr = NULL;
	CHECK(history_open(ctx.config.state_dir, &ctx.history, &herr) >= 0 && ctx.history);
	CHECK_INT(recorder_new(ctx.history, &ctx.config, ctx.disks, NULL, &ctx.recorder), 0);
	CHECK_INT(monitor_new(ctx.event, &ctx.config, ctx.disks, ctx.history, ctx.recorder, false, &ctx.monitor), 0);
	/* what `show` reads besides the disk: a sampler (of an empty diskstats) and a tracer ("none") */
	_cleanup_(unit_tree_freep) char *proc = unit_tree_empty();
	_cleanup_close_ int procfs = proc ? unit_tree_open(proc, "") : -1;
	CHECK_INT(unit_tree_write(procfs, "diskstats", ""), 0);
	CHECK_INT(sampler_new(procfs, ctx.disks, &ctx.sampler), 0);
	CHECK_INT(discovery_new(ctx.event, &ctx.src, ctx.disks, NULL, false, &ctx.discovery), 0);
	static const TraceBackendOps *const no_backends[] = {NULL};
	CHECK_INT(tracer_new(ctx.event, no_backends, "none", false, 0.1, ctx.disks, NULL, &ctx.tracer), 0);

	test_views_match_nothing(&ctx, ctx.models.list);

	ctx.tracer = tracer_free(ctx.tracer);
	ctx.sampler = sampler_free(ctx.sampler);
	ctx.discovery = discovery_free(ctx.discovery);
	ctx.monitor = monitor_free(ctx.monitor);
	ctx.recorder = recorder_free(ctx.recorder);
	ctx.history = history_close(ctx.history);
	ctx.disks = registry_free(ctx.disks);
	ctx.event = sd_event_unref(ctx.event);
	ctx.models.list = modellist_free(ctx.models.list);
	config_done(&ctx.config);
	return test_done("daemon-classify");
}
