/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "tpformat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-abi.h"

/* "field:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;" */
static int parse_field(const char *line, TpField *f)
{
	const char *decl = strstr(line, "field:"), *semi;
	if (!decl)
		return -EINVAL;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return -EINVAL;
	/* The name is the declaration's last word, before any array suffix. */
	const char *end = semi;
	const char *bracket = memchr(decl, '[', (size_t)(semi - decl));
	if (bracket && strncmp(decl, "__data_loc", 10) != 0)
		end = bracket;
	const char *start = end;
	while (start > decl && start[-1] != ' ' && start[-1] != '\t')
		start--;
	size_t nlen = (size_t)(end - start), tlen = (size_t)(start - decl);
	if (!nlen || nlen >= sizeof f->name || tlen >= sizeof f->type)
		return -EINVAL;
	memcpy(f->name, start, nlen);
	f->name[nlen] = 0;
	memcpy(f->type, decl, tlen);
	f->type[tlen] = 0;
	while (tlen && f->type[tlen - 1] == ' ')
		f->type[--tlen] = 0;

	unsigned off, size;
	int sgn = 0;
	const char *o = strstr(semi, "offset:"), *s = strstr(semi, "size:"), *g = strstr(semi, "signed:");
	if (!o || !s || sscanf(o, "offset:%u;", &off) != 1 || sscanf(s, "size:%u;", &size) != 1)
		return -EINVAL;
	if (g && sscanf(g, "signed:%d;", &sgn) != 1)
		return -EINVAL;
	if (size == 0 || size > 4096 || off > 65536)
		return -EINVAL;
	f->offset = off;
	f->size = size;
	f->is_signed = sgn != 0;
	return 0;
}

int tpformat_parse(const char *text, TpFormat *ret)
{
	TpFormat f = {0};
	bool have_id = false;
	const char *p = text;
	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512];
		const char *next = nl ? nl + 1 : NULL;
		if (len >= sizeof line) {
			/* "print fmt:" runs to kilobytes; a field line never does. */
			if (memmem(p, len, "field:", 6))
				return -EINVAL;
			p = next;
			continue;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p = next;

		if (strncmp(line, "name: ", 6) == 0) {
			size_t n = strlen(line + 6);
			if (n >= sizeof f.name)
				return -EINVAL;
			memcpy(f.name, line + 6, n + 1);
		} else if (strncmp(line, "ID: ", 4) == 0) {
			char *e;
			unsigned long id = strtoul(line + 4, &e, 10);
			if (e == line + 4 || *e || id > 0xffffffffUL)
				return -EINVAL;
			f.id = (unsigned)id;
			have_id = true;
		} else if (strstr(line, "field:")) {
			if (f.n_fields >= TP_FIELDS_MAX)
				return -EINVAL;
			int r = parse_field(line, &f.fields[f.n_fields]);
			if (r < 0)
				return r;
			f.n_fields++;
		}
	}
	if (!f.name[0] || !have_id || !f.n_fields)
		return -EINVAL;
	*ret = f;
	return 0;
}

const TpField *tpformat_field(const TpFormat *f, const char *const *names)
{
	for (; *names; names++)
		for (unsigned i = 0; i < f->n_fields; i++)
			if (strcmp(f->fields[i].name, *names) == 0)
				return &f->fields[i];
	return NULL;
}

static int need(const TpFormat *f, const char *name, unsigned size, unsigned *off, unsigned *end)
{
	const char *names[] = {name, NULL};
	const TpField *x = tpformat_field(f, names);
	if (!x || (size && x->size != size))
		return -EPROTO;
	*off = x->offset;
	if (x->offset + x->size > *end)
		*end = x->offset + x->size;
	return 0;
}

int block_rq_layout(const TpFormat *f, BlockRqLayout *ret)
{
	BlockRqLayout l = {.id = f->id, .bytes = -1, .error = -1};
	unsigned end = 0;
	if (need(f, "dev", 4, &l.dev, &end) < 0 || need(f, "sector", 8, &l.sector, &end) < 0 ||
	    need(f, "nr_sector", 4, &l.nr_sector, &end) < 0)
		return -EPROTO;
	static const char *const rwbs[] = {"rwbs", NULL};
	const TpField *r = tpformat_field(f, rwbs);
	if (!r || r->size < 4 || r->size > 16)
		return -EPROTO;
	l.rwbs = r->offset;
	l.rwbs_size = r->size;
	if (r->offset + r->size > end)
		end = r->offset + r->size;
	static const char *const bytes[] = {"bytes", NULL};
	const TpField *b = tpformat_field(f, bytes);
	if (b && b->size == 4) {
		l.bytes = (int)b->offset;
		if (b->offset + 4 > end)
			end = b->offset + 4;
	}
	static const char *const errs[] = {"error", "errors", NULL};
	const TpField *e = tpformat_field(f, errs);
	if (e && (e->size == 4 || e->size == 2 || e->size == 1)) {
		l.error = (int)e->offset;
		l.error_size = (int)e->size;
		if (e->offset + e->size > end)
			end = e->offset + e->size;
	}
	l.min_size = end;
	*ret = l;
	return 0;
}

int rwbs_op(const char *rwbs, unsigned len)
{
	bool flush = false;
	for (unsigned i = 0; i < len && rwbs[i]; i++)
		switch (rwbs[i]) {
		case 'W': return TRACE_WRITE;
		case 'R': return TRACE_READ;
		case 'D': return TRACE_DISCARD;
		case 'E': return TRACE_DISCARD;	/* secure erase */
		case 'F': flush = true; break;	/* F first: a flush, or a preflush before W */
		default: break;
		}
	return flush ? TRACE_FLUSH : -1;
}
