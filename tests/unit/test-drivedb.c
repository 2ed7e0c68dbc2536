/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * smartmontools' drivedb.h as a model list: the parser on the shapes the
 * file uses and on broken ones, then the installed database (Debian's
 * smartmontools, which scripts/install-deps.sh --tests installs): every example
 * model of an "(SMR)" family is dm-smr, and no example of another family
 * is taken for one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classify.h"
#include "drivedb.h"
#include "modellist.h"
#include "test.h"
#include "util.h"

extern const char smrd_builtin_models[];

static const char fixture[] =
	"/*\n"
	" * header: { \"not\", \"an entry\" }\n"
	"const drive_settings builtin_knowndrives[] = {\n"
	" */\n"
	"  { \"VERSION: 7.3 $Id: drivedb.h 5319 2022-02-19 $\",\n"
	"    \"-\", \"-\",\n"
	"    \"Version information\",\n"
	"    \"\"\n"
	"  },\n"
	"  { \"Western Digital Red (SMR)\", // tested with WDC WD60EFAX-68SHWN0/82.00A82\n"
	"    \"WDC WD[2346]0EFAX-.*\",\n"
	"    \"\", \"\", \"\"\n"
	"  },\n"
	"  { \"Western Digital Red\", // tested with WDC WD40EFRX-68N32N0/82.00A82, \"quoted\" {brace}\n"
	"    \"WDC WD(7500BFC|10JFC|[1-6]0EFRX)-.*|\"\n"
	"    \"WDC WD[1-4]0NFRX-.*\", /* a comment between fields */\n"
	"    \"\", \"\", \"\"\n"
	"  },\n"
	"  { \"Some SSD (SMR)\",\n"
	"    \"SSD\\\\.X [0-9]+\",\n"
	"    \"FW1\\\\.0\", \"\", \"\"\n"
	"  },\n"
	"  { \"Toshiba P300 (CMR)\",\n"
	"    \"TOSHIBA HDWD1(05|10|20|30)\",\n"
	"    \"\", \"\", \"\"\n"
	"  },\n"
	"  { \"Mixed (CMR/SMR)\", \"MIXED [0-9]+\", \"\", \"\", \"\" },\n"
	"/*\n"
	"}; // builtin_knowndrives[]\n"
	" */\n";

typedef struct Seen {
	unsigned n, lines[8];
	char fam[8][64], model[8][128], comment[8][160];
} Seen;

static int collect(const DriveDbEntry *e, void *userdata)
{
	Seen *s = userdata;
	if (s->n < 8) {
		snprintf(s->fam[s->n], sizeof s->fam[0], "%s", e->family);
		snprintf(s->model[s->n], sizeof s->model[0], "%s", e->model);
		snprintf(s->comment[s->n], sizeof s->comment[0], "%s", e->comment);
		s->lines[s->n] = e->line;
	}
	s->n++;
	return 0;
}

static void test_parse(void)
{
	Seen s = {0};
	char *err = NULL;
	CHECK_INT(drivedb_parse(fixture, collect, &s, &err), 0);
	CHECK_INT(s.n, 6);
	CHECK_STR(s.fam[1], "Western Digital Red (SMR)");
	CHECK_INT(s.lines[1], 10);
	CHECK(strstr(s.comment[1], "WDC WD60EFAX-68SHWN0/82.00A82") != NULL);
	/* adjacent literals are one field; quotes and braces in comments are comments */
	CHECK_STR(s.model[2], "WDC WD(7500BFC|10JFC|[1-6]0EFRX)-.*|WDC WD[1-4]0NFRX-.*");
	CHECK(strstr(s.comment[2], "{brace}") && strstr(s.comment[2], "a comment between fields"));
	CHECK_STR(s.model[3], "SSD\\.X [0-9]+");	/* C's "\\\\." is the regex's "\\." */

	CHECK_INT(drivedb_mark("Western Digital Red (SMR)"), DRIVEDB_SMR);
	CHECK_INT(drivedb_mark("Toshiba P300 (CMR) "), DRIVEDB_CMR);
	CHECK_INT(drivedb_mark("Mixed (CMR/SMR)"), DRIVEDB_UNMARKED);
	CHECK_INT(drivedb_mark("Western Digital Red"), DRIVEDB_UNMARKED);
	CHECK_INT(drivedb_mark(""), DRIVEDB_UNMARKED);

	ModelList *ml = NULL;
	unsigned skipped = 9;
	CHECK_INT(modellist_parse_drivedb(fixture, &ml, &skipped, &err), 0);
	/* the SMR family and the CMR one; the firmware-specific SMR entry left out */
	CHECK_INT(modellist_size(ml), 2);
	CHECK_INT(skipped, 1);
	const ModelEntry *e = modellist_match(ml, "WDC WD60EFAX-68SHWN0");
	CHECK(e && e->class == MODEL_CLASS_DM_SMR && e->line == 10 && streq(e->origin, "drivedb.h"));
	CHECK(e && streq(e->source, "smartmontools family \"Western Digital Red (SMR)\""));
	e = modellist_match(ml, "TOSHIBA HDWD120");
	CHECK(e && e->class == MODEL_CLASS_CMR);
	CHECK(modellist_match(ml, "WDC WD40EFRX-68N32N0") == NULL);
	CHECK(modellist_match(ml, "MIXED 12") == NULL);
	CHECK(modellist_match(ml, "XWDC WD60EFAX-68SHWN0") == NULL);	/* anchored */

	/* drivedb first, the shipped list after: a model drivedb marks takes
	 * drivedb's entry, one it does not mark the shipped list's */
	ModelList *shipped = NULL;
	CHECK_INT(modellist_parse(smrd_builtin_models, &shipped, &err), 0);
	unsigned both = modellist_size(ml) + modellist_size(shipped);
	CHECK_INT(modellist_concat(ml, shipped), 0);
	CHECK_INT(modellist_size(ml), both);
	e = modellist_match(ml, "WDC WD40EFAX-68JH4N0");
	CHECK(e && streq(e->origin, "drivedb.h"));
	e = modellist_match(ml, "ST8000AS0002-1NA17Z");
	CHECK(e && streq(e->origin, "model list") && e->class == MODEL_CLASS_DM_SMR);

	/* the verdict cites the family */
	DiskFacts f;
	disk_facts_init(&f, "sda");
	f.transport = TRANSPORT_ATA;
	f.rotational = 1;
	snprintf(f.udev_model, sizeof f.udev_model, "WDC_WD40EFAX-68JH4N0");
	Verdict v;
	classify_disk(&f, ml, &v);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	bool cited = false;
	for (unsigned i = 0; i < v.n_evidence; i++)
		cited |= strstr(v.evidence[i].implies, "drivedb.h line 10 (dm-smr): smartmontools family \"Western Digital Red (SMR)\"") != NULL;
	CHECK(cited);
	modellist_free(ml);
}

static void test_broken(void)
{
	static const char *const bad[] = {
		"  { \"A (SMR)\", \"unterminated\n  },\n",
		"  { \"A (SMR)\", \"X\", \"\", \"\", \"\" },\n  { \"B\", \"Y\"\n",
		"  { \"A (SMR)\" },\n",
		"  { \"A (SMR)\", NOT_A_STRING },\n",
		"  { \"A (SMR)\", , \"X\" },\n",
		"  { \"A (SMR)\", \"X\", \"\", \"\", \"\", \"\" },\n",
		"/* never ends { \"A (SMR)\", \"X\" }\n",
		"int main(void) { return 0; }\n",
		"",
		"  { \"A (SMR)\", \"X[\", \"\", \"\", \"\" },\n",	/* a regex that does not compile */
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		ModelList *ml = NULL;
		char *err = NULL;
		int r = modellist_parse_drivedb(bad[i], &ml, NULL, &err);
		if (r != -EINVAL || !err || !strstr(err, "line "))
			fprintf(stderr, "bad drivedb %zu: %d, %s\n", i, r, err ? err : "(no error)");
		CHECK_INT(r, -EINVAL);
		CHECK(err && strstr(err, "line ") == err);
		CHECK(ml == NULL);
		free(err);
	}
}

/* The models a comment says were tested: "tested with MODEL/FIRMWARE, MODEL/FIRMWARE". */
static unsigned examples(const char *comment, char out[][96], unsigned max)
{
	unsigned n = 0;
	for (const char *slash = strchr(comment, '/'); slash && n < max; slash = strchr(slash + 1, '/')) {
		const char *b = slash;
		while (b > comment && !strchr(",;(:", b[-1]) && !(b - comment >= 5 && strncmp(b - 5, "with ", 5) == 0))
			b--;
		while (*b == ' ')
			b++;
		if (slash > b && (size_t)(slash - b) < 96) {
			snprintf(out[n], 96, "%.*s", (int)(slash - b), b);
			n++;
		}
	}
	return n;
}

typedef struct Installed {
	const ModelList *db;
	unsigned smr_families, smr_examples, other_examples, wrong;
} Installed;

static int check_examples(const DriveDbEntry *e, void *userdata)
{
	Installed *in = userdata;
	char ex[32][96];
	unsigned n = examples(e->comment, ex, 32);
	DriveDbMark mark = drivedb_mark(e->family);
	in->smr_families += mark == DRIVEDB_SMR;
	ModelList *own = NULL;
	char *err = NULL, line[4096];
	/* the family's own pattern, to keep only what the comment really named */
	snprintf(line, sizeof line, "dm-smr\t%s\tx\n", e->model);
	if (modellist_parse(line, &own, &err) < 0) {
		free(err);
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		if (!modellist_match(own, ex[i]))
			continue;
		const ModelEntry *m = modellist_match(in->db, ex[i]);
		bool smr = m && m->class == MODEL_CLASS_DM_SMR;
		if (mark == DRIVEDB_SMR) {
			in->smr_examples++;
			if (!smr || m->line != e->line) {
				fprintf(stderr, "%s (line %u, %s): not its dm-smr entry\n", ex[i], e->line, e->family);
				in->wrong++;
			}
		} else if (!e->firmware[0]) {
			in->other_examples++;
			if (smr) {
				fprintf(stderr, "%s of \"%s\" (line %u) taken for dm-smr by line %u\n", ex[i], e->family,
					e->line, m->line);
				in->wrong++;
			}
		}
	}
	modellist_free(own);
	return 0;
}

static void test_installed(void)
{
	const char *path = getenv("SMRD_DRIVEDB") ? getenv("SMRD_DRIVEDB") : "/usr/share/smartmontools/drivedb.h";
	char *text = NULL, *err = NULL;
	int r = read_file_at(AT_FDCWD, path, 8 << 20, &text, NULL);
	if (r < 0)
		fprintf(stderr, "%s: %s (scripts/install-deps.sh --tests installs smartmontools)\n", path, strerror(-r));
	CHECK_INT(r, 0);
	if (r < 0)
		return;
	ModelList *db = NULL;
	unsigned skipped = 0;
	CHECK_INT(modellist_parse_drivedb(text, &db, &skipped, &err), 0);
	if (err)
		fprintf(stderr, "%s: %s\n", path, err);
	Installed in = {.db = db};
	CHECK_INT(drivedb_parse(text, check_examples, &in, &err), 0);
	printf("%s: %u entries marked SMR or CMR (%u firmware-specific left out), %u SMR families; "
	       "%u example models of SMR families, %u of other families, %u misclassified\n",
	       path, modellist_size(db), skipped, in.smr_families, in.smr_examples, in.other_examples, in.wrong);
	/* Debian 12's has 8 (WD Red, Blue, Blue Mobile, Black; Seagate BarraCuda, Archive; Toshiba P300, L200) */
	CHECK(in.smr_families >= 8);
	CHECK(in.smr_examples >= 8);
	CHECK(in.other_examples >= 300);	/* Debian 12: 572 */
	CHECK_INT(in.wrong, 0);
	modellist_free(db);
	free(text);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* "auto": a broken update-smart-drivedb copy is passed over for the
 * package's, with a warning naming it; a missing one silently. */
static void test_fallback(void)
{
	char dir[] = "/tmp/test-drivedb-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char broken[64], good[64], missing[64];
	snprintf(broken, sizeof broken, "%s/broken.h", dir);
	snprintf(good, sizeof good, "%s/good.h", dir);
	snprintf(missing, sizeof missing, "%s/missing.h", dir);
	write_text(broken, "  { \"A (SMR)\", \"unterminated\n");
	write_text(good, "  { \"WD Red (SMR)\", \"WDC WD40EFAX-.*\", \"\", \"\", \"\" },\n");
	ModelList *ml = NULL;
	char *path = NULL, *err = NULL;

	const char *const both[] = {broken, good};
	CHECK_INT(modellist_load_drivedb_first(both, 2, &ml, &path, NULL, &err), 0);
	CHECK(ml && modellist_match(ml, "WDC WD40EFAX-68JH4N0"));
	CHECK(path && streq(path, good));
	CHECK(err && strstr(err, broken) == err && strstr(err, "line 1") && strstr(err, "read ") && strstr(err, good));
	modellist_free(ml);
	free(path);
	free(err);

	const char *const skip[] = {missing, good};
	CHECK_INT(modellist_load_drivedb_first(skip, 2, &ml, &path, NULL, &err), 0);
	CHECK(ml && path && streq(path, good) && !err);
	modellist_free(ml);
	free(path);

	/* nothing readable: the broken one's error, naming it */
	const char *const bad[] = {broken, missing};
	CHECK_INT(modellist_load_drivedb_first(bad, 2, &ml, &path, NULL, &err), -EINVAL);
	CHECK(!ml && path && streq(path, broken) && err && strstr(err, "line 1"));
	free(path);
	free(err);

	const char *const none[] = {missing};
	CHECK_INT(modellist_load_drivedb_first(none, 1, &ml, &path, NULL, &err), -ENOENT);
	CHECK(!ml && !path && !err);
	unlink(broken);
	unlink(good);
	rmdir(dir);
}

/* n "(SMR)" families, each "EVIL MODEL <i>" */
static void write_families(const char *path, unsigned n)
{
	FILE *f = fopen(path, "we");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("const drive_settings builtin_knowndrives[] = {\n", f);
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "  { \"Evil family %u (SMR)\", \"EVIL MODEL %u\", \"\", \"\" },\n", i, i);
	fputs("};\n", f);
	fclose(f);
}

/* Audit 4, findings 10 and 11: a copy with too many families to match
 * within the budget, and one with a NUL byte (C strings would end it
 * there and the families after it would vanish), are refused like one
 * that does not parse: "auto" reads the package's instead, with a warning. */
static void test_refused(void)
{
	char dir[] = "/tmp/test-drivedb-XXXXXX";
	CHECK(mkdtemp(dir) != NULL);
	char many[64], nul[64], good[64];
	snprintf(many, sizeof many, "%s/many.h", dir);
	snprintf(nul, sizeof nul, "%s/nul.h", dir);
	snprintf(good, sizeof good, "%s/good.h", dir);
	write_text(good, "  { \"WD Red (SMR)\", \"WDC WD40EFAX-.*\", \"\", \"\", \"\" },\n");
	/* what the audit found to stop smrd: 4090, more than fit beside the built-in list */
	write_families(many, 4090);
	static const char nul_text[] = "  { \"A (SMR)\", \"A1\", \"\", \"\" },\n\0"
				       "  { \"B (SMR)\", \"B1\", \"\", \"\" },\n";
	FILE *f = fopen(nul, "we");
	CHECK(f && fwrite(nul_text, 1, sizeof nul_text - 1, f) == sizeof nul_text - 1);
	if (f)
		fclose(f);
	ModelList *ml = NULL;
	char *path = NULL, *err = NULL;

	const char *const too_many[] = {many, good};
	CHECK_INT(modellist_load_drivedb_first(too_many, 2, &ml, &path, NULL, &err), 0);
	CHECK(path && streq(path, good));
	CHECK(err && strstr(err, many) == err && strstr(err, "more than 2048 entries") && strstr(err, good));
	CHECK_INT(modellist_size(ml), 1);
	modellist_free(ml);
	free(path);
	free(err);

	const char *const with_nul[] = {nul, good};
	CHECK_INT(modellist_load_drivedb_first(with_nul, 2, &ml, &path, NULL, &err), 0);
	CHECK(path && streq(path, good));
	char at[48];
	snprintf(at, sizeof at, "a NUL byte at offset %zu of %zu", strlen(nul_text), sizeof nul_text - 1);
	CHECK(err && strstr(err, nul) == err && strstr(err, at) && strstr(err, good));
	modellist_free(ml);
	free(path);
	free(err);

	/* a family whose pattern backtracks past its share on a plain model string (finding 3) */
	write_text(nul, "  { \"Evil (SMR)\", \"(.*.*)*[^\\\\s\\\\S]\", \"\", \"\" },\n");
	CHECK_INT(modellist_load_drivedb_first(with_nul, 2, &ml, &path, NULL, &err), 0);
	CHECK(path && streq(path, good));
	CHECK(err && strstr(err, nul) == err && strstr(err, "backtracks past its") && strstr(err, good));
	modellist_free(ml);
	free(path);
	free(err);
	f = fopen(nul, "we");
	CHECK(f && fwrite(nul_text, 1, sizeof nul_text - 1, f) == sizeof nul_text - 1);
	if (f)
		fclose(f);

	/* named in smrd.conf, it must load: the error says why */
	const char *const only[] = {nul};
	CHECK_INT(modellist_load_drivedb_first(only, 1, &ml, &path, NULL, &err), -EINVAL);
	CHECK(!ml && err && strstr(err, "NUL byte"));
	free(path);
	free(err);

	/* as many families as a file may hold still fit beside the built-in list */
	write_families(many, MODELLIST_MAX_ENTRIES);
	ModelSettings s = {.model_list = "builtin", .builtin = smrd_builtin_models, .drivedb = many};
	ModelLists m;
	CHECK_INT(modellist_load_settings(&s, &m, &err), 0);
	CHECK(modellist_size(m.list) > MODELLIST_MAX_ENTRIES);
	CHECK(modellist_match_limit(m.list) >= 128);
	CHECK(modellist_match(m.list, "EVIL MODEL 2047") != NULL);
	modellists_done(&m);
	unlink(many);
	unlink(nul);
	unlink(good);
	rmdir(dir);
}

static bool has_evidence(const Verdict *v, const char *source, const char *value)
{
	for (unsigned i = 0; i < v->n_evidence; i++)
		if (streq(v->evidence[i].source, source) && (!value || streq(v->evidence[i].value, value)))
			return true;
	return false;
}

/* smartmontools commit 33da3bf5 (2025-11) gave WD's Red and Blue (SMR)
 * families a warning: shown with the disk's evidence, in one line, as a
 * fact that classifies nothing (the family's mark does); a family without
 * one (Debian 12's copy of the same entries) shows none. */
static void test_warnings(const char *src)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/fixtures/drivedb-warnings.h", src);
	_cleanup_free_ char *text = NULL, *err = NULL;
	CHECK_INT(read_file_at(AT_FDCWD, path, 1 << 20, &text, NULL), 0);
	if (!text)
		return;
	Seen s = {0};
	CHECK_INT(drivedb_parse(text, collect, &s, &err), 0);
	CHECK_INT(s.n, 3);
	static const char want[] = "Data recovery specialists reported serious problems with older WD SMR HDDs: "
				   "https://www.heise.de/-10800960.html";
	ModelList *ml = NULL;
	CHECK_INT(modellist_parse_drivedb(text, &ml, NULL, &err), 0);
	const ModelEntry *e = modellist_match(ml, "WDC WD60EFAX-68SHWN0");
	CHECK(e && e->warning && streq(e->warning, want));
	e = modellist_match(ml, "WDC WD40EDAZ-11SLVB0");
	CHECK(e && e->warning && streq(e->warning, want) && strstr(e->source, "Western Digital Blue (SMR)"));

	DiskFacts f;
	disk_facts_init(&f, "sda");
	f.transport = TRANSPORT_ATA;
	f.rotational = 1;
	f.discard_max_bytes = 0;
	snprintf(f.udev_model, sizeof f.udev_model, "WDC_WD60EFAX-68SHWN0");
	Verdict v;
	classify_disk(&f, ml, &v);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(has_evidence(&v, "drivedb.h warning", want));
	for (unsigned i = 0; i < v.n_evidence; i++)
		if (streq(v.evidence[i].source, "drivedb.h warning"))
			CHECK(!v.evidence[i].decisive && v.evidence[i].rank == EVIDENCE_FACT && v.evidence[i].class < 0);
	CHECK(has_evidence(&v, "udev ID_MODEL", NULL));
	modellist_free(ml);

	/* the same family from Debian 12's drivedb.h: no warning then */
	_cleanup_free_ char *old = NULL;
	snprintf(path, sizeof path, "%s/tests/fixtures/drivedb.h", src);
	CHECK_INT(read_file_at(AT_FDCWD, path, 1 << 20, &old, NULL), 0);
	ml = NULL;
	if (old)
		CHECK_INT(modellist_parse_drivedb(old, &ml, NULL, &err), 0);
	classify_disk(&f, ml, &v);
	CHECK_INT(v.class, DISK_CLASS_DM_SMR);
	CHECK(!has_evidence(&v, "drivedb.h warning", NULL));
	e = modellist_match(ml, "WDC WD60EFAX-68SHWN0");
	CHECK(e && !e->warning);
	modellist_free(ml);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test-drivedb SRCDIR\n");
		return 2;
	}
	test_parse();
	test_warnings(argv[1]);
	test_broken();
	test_fallback();
	test_refused();
	test_installed();
	return test_done("drivedb");
}
