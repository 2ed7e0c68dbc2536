/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The shipped model list: every family of the primer, in every spelling smrd sees. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "modellist.h"
#include "test.h"
#include "util.h"

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

/* Audit 4, finding 3: all the matches of one classification share one
 * budget of PCRE2 steps, so a long list of backtracking patterns costs a
 * bounded time. "(b?){12}b{12}" matches 12 b's in about 4100 steps:
 * alone it has room; as one of 2048 entries (256 steps each) it does not.
 * A pattern that backtracks past its share on a plain model string is
 * refused at load. */
static void test_budget(void)
{
	static const char slow[] = "dm-smr\t(b?){12}b{12}\tslow\n";
	ModelList *ml = NULL;
	char *err = NULL;
	CHECK_INT(modellist_parse(slow, &ml, &err), 0);
	CHECK(modellist_match(ml, "bbbbbbbbbbbb") != NULL);
	CHECK_INT(modellist_match_limit(ml), 100000);	/* one entry: PCRE2 limit as for any pattern */
	modellist_free(ml);

	Buf b = {0};
	buf_puts(&b, slow);
	for (unsigned i = 1; i < MODELLIST_MAX_ENTRIES; i++)
		buf_printf(&b, "cmr\tFILLER %u\tx\n", i);
	CHECK_INT(modellist_parse(b.data, &ml, &err), 0);
	CHECK_INT(modellist_size(ml), MODELLIST_MAX_ENTRIES);
	CHECK(ml && (uint64_t)MODELLIST_SUBJECTS * modellist_size(ml) * modellist_match_limit(ml) <= MODELLIST_MATCH_BUDGET);
	CHECK(modellist_match(ml, "bbbbbbbbbbbb") == NULL);
	CHECK(modellist_match(ml, "FILLER 7") != NULL);
	CHECK_INT(modellist_matches(ml), MODELLIST_MAX_ENTRIES + 8);	/* every entry, then 8 */
	modellist_free(ml);

	/* one more is refused: its cost would pass the budget */
	buf_printf(&b, "cmr\tONE MORE\tx\n");
	ml = NULL;
	CHECK_INT(modellist_parse(b.data, &ml, &err), -E2BIG);
	CHECK(!ml && err && strstr(err, "more than 2048 entries"));
	free(err);
	buf_free(&b);

	/* backtracking on any model string: refused, naming it */
	CHECK_INT(modellist_parse("cmr\tA.*\tx\ndm-smr\t(.*.*)*[^\\s\\S]\tevil\n", &ml, &err), -E2BIG);
	CHECK(!ml && err && strstr(err, "line 2: pattern '(.*.*)*[^\\s\\S]' backtracks past its 100000 match steps"));
	free(err);
}

/* Audit 4, finding 11, for the model list too: a NUL byte is refused, not an end. */
static void test_nul(void)
{
	char path[] = "/tmp/test-modellist-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char text[] = "cmr\tA.*\tx\n\0dm-smr\tB.*\ty\n";
	CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
	close(fd);
	ModelList *ml = NULL;
	char *err = NULL;
	CHECK_INT(modellist_load(path, &ml, &err), -EINVAL);
	CHECK(!ml && err && strstr(err, "a NUL byte at offset 10 of 24"));
	free(err);
	unlink(path);
}

int main(void)
{
	test_shipped();
	test_bad_lists();
	test_settings();
	test_budget();
	test_nul();
	return test_done("test-modellist");
}
