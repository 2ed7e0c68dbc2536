/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shipped model list: every family of the primer, in every spelling smrd sees. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modellist.h"
#include "test.h"

extern const char smrd_builtin_models[];

static void expect(const ModelList *ml, const char *model, const char *cls)
{
	const ModelEntry *e = modellist_match(ml, model);
	if (!cls) {
		if (e)
			fprintf(stderr, "'%s' unexpectedly matched line %u\n", model, e->line);
		CHECK(e == NULL);
		return;
	}
	if (!e)
		fprintf(stderr, "'%s' did not match\n", model);
	CHECK(e != NULL);
	if (e)
		CHECK_STR(model_class_to_string(e->class), cls);
}

static void test_shipped(void)
{
	ModelList *ml = NULL;
	char *err = NULL;
	CHECK_INT(modellist_parse(smrd_builtin_models, &ml, &err), 0);
	CHECK(modellist_size(ml) >= 14);
	/* Full ATA model strings (IDENTIFY, or udev with spaces restored). */
	expect(ml, "WDC WD60EZAZ-00SF3B0", "dm-smr");
	expect(ml, "WDC WD40EFAX-68JH4N0", "dm-smr");
	expect(ml, "WDC WD20EFAX-68FB5N0", "dm-smr");
	expect(ml, "WDC WD10SPZX-00Z10T0", "dm-smr");
	expect(ml, "ST8000AS0002-1NA17Z", "dm-smr");
	expect(ml, "ST2000DM008-2FR102", "dm-smr");
	expect(ml, "ST4000DM004-2CV104", "dm-smr");
	expect(ml, "ST2000LM015-2E8174", "dm-smr");
	expect(ml, "TOSHIBA HDWD240", "dm-smr");
	expect(ml, "TOSHIBA HDWL120", "dm-smr");
	expect(ml, "TOSHIBA DT02ABA400", "dm-smr");
	expect(ml, "TOSHIBA MQ04ABD200", "dm-smr");
	/* sysfs device/model: the first 16 characters only. */
	expect(ml, "WDC WD60EZAZ-00S", "dm-smr");
	expect(ml, "ST8000AS0002-1NA", "dm-smr");
	/* Not SMR, or listed as CMR. */
	expect(ml, "WDC WD140EMFZ-11A0WA0", "cmr");
	expect(ml, "TOSHIBA HDWD120", "cmr");
	expect(ml, "WDC WD40EFRX-68N32N0", NULL);	/* Red Plus/CMR */
	expect(ml, "WDC WD60EZAZ", NULL);		/* no dash: not the family */
	expect(ml, "XWDC WD60EZAZ-00SF3B0", NULL);	/* anchored */
	expect(ml, "", NULL);
	modellist_free(ml);
}

static void test_bad_lists(void)
{
	const char *bad[] = {
		"dm-smr\tWDC.*\n",		/* no source */
		"smr\tWDC.*\tsomewhere\n",	/* unknown class */
		"dm-smr\tWDC(\tsomewhere\n",	/* bad regex */
		"dm-smr WDC.* somewhere\n",	/* spaces, not tabs */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ModelList *ml = NULL;
		char *err = NULL;
		CHECK(modellist_parse(bad[i], &ml, &err) < 0);
		CHECK(err != NULL && strstr(err, "line 1") != NULL);
		CHECK(ml == NULL);
		free(err);
	}
	ModelList *ml = NULL;
	char *err = NULL;
	CHECK_INT(modellist_parse("# comment\n\n   \ncmr\tA.*\tx\n", &ml, &err), 0);
	CHECK_INT(modellist_size(ml), 1);
	CHECK_INT(modellist_match(ml, "ABC")->line, 4);
	modellist_free(ml);
	CHECK(modellist_load("/nonexistent/list", &ml, &err) == -ENOENT);
}

/* The settings as smrd and smrctl qualify load them (one loader). */
static void test_settings(void)
{
	ModelLists m;
	char *err = NULL;
	ModelSettings s = {.model_list = "/nonexistent/smr-models.tsv", .installed = "/nonexistent/smr-models.tsv",
			   .builtin = smrd_builtin_models, .drivedb = "none"};
	/* the installed list not there: the built-in one, said so */
	CHECK_INT(modellist_load_settings(&s, &m, &err), 0);
	CHECK(m.builtin_instead && m.list_entries >= 14 && !m.drivedb_path);
	CHECK_STR(m.origin, "builtin");
	CHECK_INT(modellist_size(m.list), m.list_entries);
	modellists_done(&m);
	/* a list the administrator named must be there */
	s.model_list = "/nonexistent/mine.tsv";
	CHECK_INT(modellist_load_settings(&s, &m, &err), -ENOENT);
	CHECK(err && strncmp(err, "model list /nonexistent/mine.tsv: ", 34) == 0);
	free(err);
	err = NULL;
	/* so must a drivedb.h named */
	s = (ModelSettings){.model_list = "builtin", .builtin = smrd_builtin_models, .drivedb = "/nonexistent/drivedb.h"};
	CHECK_INT(modellist_load_settings(&s, &m, &err), -ENOENT);
	CHECK(err && strncmp(err, "drivedb /nonexistent/drivedb.h: ", 32) == 0);
	free(err);
	err = NULL;
	char path[] = "/tmp/test-modellist-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0 && write(fd, "cmr\tA.*\tx\n", 10) == 10);
	close(fd);
	s = (ModelSettings){.model_list = path, .installed = "/nonexistent/smr-models.tsv", .builtin = smrd_builtin_models,
			    .drivedb = "none"};
	CHECK_INT(modellist_load_settings(&s, &m, &err), 0);
	CHECK_STR(m.origin, path);
	CHECK(!m.builtin_instead && m.list_entries == 1 && modellist_match(m.list, "ABC"));
	modellists_done(&m);
	unlink(path);
}

int main(void)
{
	test_shipped();
	test_bad_lists();
	test_settings();
	return test_done("test-modellist");
}
