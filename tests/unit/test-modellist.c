/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shipped model list: every family of the primer, in every spelling smrd sees. */
#include <stdlib.h>

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

int main(void)
{
	test_shipped();
	test_bad_lists();
	return test_done("test-modellist");
}
