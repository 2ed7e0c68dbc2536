/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The format-file parser on files from three kernel generations, and on
 * broken ones. argv[1]: tests/fixtures/tpformat. */
#include <fcntl.h>

#include "test.h"
#include "tpformat.h"
#include "trace-abi.h"
#include "util.h"

static int load(const char *dir, const char *kernel, const char *event, BlockRqLayout *l, TpFormat *f)
{
	char path[512];
	_cleanup_free_ char *text = NULL;
	snprintf(path, sizeof path, "%s/%s/%s", dir, kernel, event);
	int r = read_file_at(AT_FDCWD, path, 65536, &text, NULL);
	if (r < 0)
		return r;
	r = tpformat_parse(text, f);
	return r < 0 ? r : block_rq_layout(f, l);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "tests/fixtures/tpformat";
	BlockRqLayout i, c;
	TpFormat f;

	/* 6.18: rwbs[10], ioprio before it, "error". */
	CHECK_INT(load(dir, "6.18", "block_rq_issue", &i, &f), 0);
	CHECK_STR(f.name, "block_rq_issue");
	CHECK_INT(i.id, 2104);
	CHECK_INT(i.dev, 8);
	CHECK_INT(i.sector, 16);
	CHECK_INT(i.nr_sector, 24);
	CHECK_INT(i.bytes, 28);
	CHECK_INT(i.rwbs, 34);
	CHECK_INT(i.rwbs_size, 10);
	CHECK_INT(i.error, -1);
	CHECK_INT(load(dir, "6.18", "block_rq_complete", &c, &f), 0);
	CHECK_INT(c.error, 28);
	CHECK_INT(c.rwbs, 34);
	CHECK_INT(c.bytes, -1);
	CHECK_INT(c.min_size, 44);
	const char *const ioprio[] = {"ioprio", NULL};
	CHECK(tpformat_field(&f, ioprio) != NULL);

	/* 5.15: rwbs[8] at 32, no ioprio. */
	CHECK_INT(load(dir, "5.15", "block_rq_issue", &i, &f), 0);
	CHECK_INT(i.rwbs, 32);
	CHECK_INT(i.rwbs_size, 8);
	CHECK(tpformat_field(&f, ioprio) == NULL);
	CHECK_INT(load(dir, "5.15", "block_rq_complete", &c, &f), 0);
	CHECK_INT(c.error, 28);
	CHECK_INT(c.rwbs, 32);

	/* 4.9: the completion's field is "errors". */
	CHECK_INT(load(dir, "4.9", "block_rq_complete", &c, &f), 0);
	CHECK_INT(c.error, 28);
	CHECK_INT(c.error_size, 4);
	CHECK_INT(c.id, 1043);

	/* __data_loc fields keep their whole type, arrays lose the suffix in the name. */
	const char *const cmd[] = {"cmd", NULL}, *const comm[] = {"comm", NULL};
	CHECK_INT(load(dir, "6.18", "block_rq_issue", &i, &f), 0);
	CHECK_STR(tpformat_field(&f, cmd)->type, "__data_loc char[]");
	CHECK_STR(tpformat_field(&f, comm)->type, "char");
	CHECK_INT(tpformat_field(&f, comm)->size, 16);

	/* Broken files: a clear error, never a wrong layout. */
	CHECK_INT(tpformat_parse("", &f), -EINVAL);
	CHECK_INT(tpformat_parse("name: x\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n", &f), -EINVAL);	/* no ID */
	CHECK_INT(tpformat_parse("name: x\nID: 12\n\tfield:int a;\toffset:zz;\tsize:4;\n", &f), -EINVAL);
	CHECK_INT(tpformat_parse("name: x\nID: 1x\n\tfield:int a;\toffset:0;\tsize:4;\n", &f), -EINVAL);
	CHECK_INT(tpformat_parse("name: x\nID: 12\n\tfield:int a;\toffset:0;\tsize:0;\n", &f), -EINVAL);
	/* Parsable, but without sector: not a block_rq layout. */
	CHECK_INT(tpformat_parse("name: x\nID: 12\n\tfield:dev_t dev;\toffset:8;\tsize:4;\tsigned:0;\n"
				 "\tfield:char rwbs[8];\toffset:12;\tsize:8;\tsigned:0;\n", &f), 0);
	CHECK_INT(block_rq_layout(&f, &i), -EPROTO);
	/* dev of the wrong size (a kernel that changed dev_t): refused. */
	CHECK_INT(tpformat_parse("name: x\nID: 12\n\tfield:dev_t dev;\toffset:8;\tsize:8;\tsigned:0;\n"
				 "\tfield:sector_t sector;\toffset:16;\tsize:8;\tsigned:0;\n"
				 "\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;\n"
				 "\tfield:char rwbs[8];\toffset:28;\tsize:8;\tsigned:0;\n", &f), 0);
	CHECK_INT(block_rq_layout(&f, &i), -EPROTO);
	/* A truncated file: the last field line cut. */
	CHECK_INT(tpformat_parse("name: x\nID: 12\n\tfield:dev_t dev;\toffset:8;\tsi", &f), -EINVAL);

	/* rwbs strings as blk_fill_rwbs writes them. */
	CHECK_INT(rwbs_op("R", 8), TRACE_READ);
	CHECK_INT(rwbs_op("RA", 8), TRACE_READ);
	CHECK_INT(rwbs_op("WS", 8), TRACE_WRITE);
	CHECK_INT(rwbs_op("FWS", 8), TRACE_WRITE);	/* preflush + write */
	CHECK_INT(rwbs_op("WFS", 8), TRACE_WRITE);	/* write + FUA */
	CHECK_INT(rwbs_op("FF", 8), TRACE_FLUSH);
	CHECK_INT(rwbs_op("F", 8), TRACE_FLUSH);
	CHECK_INT(rwbs_op("D", 8), TRACE_DISCARD);
	CHECK_INT(rwbs_op("DE", 8), TRACE_DISCARD);
	CHECK_INT(rwbs_op("N", 8), -1);
	CHECK_INT(rwbs_op("RRRRRRRR", 3), TRACE_READ);	/* not NUL-terminated */
	return test_done("test-tpformat");
}
