/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "verdict-json.h"

#include "protocol.h"

json_object *verdict_to_json(const Verdict *v)
{
	json_object *o = json_object_new_object(), *ev = json_object_new_array();
	json_object_object_add(o, "class", json_object_new_string(disk_class_to_string(v->class)));
	json_object_object_add(o, "confidence", json_number(v->confidence, 4));
	json_object_object_add(o, "smr_confidence", json_number(v->smr_confidence, 4));
	json_object_object_add(o, "basis", json_object_new_string(v->basis));
	for (unsigned i = 0; i < v->n_evidence; i++) {
		const Evidence *e = &v->evidence[i];
		json_object *x = json_object_new_object();
		json_object_object_add(x, "source", json_object_new_string(e->source));
		json_object_object_add(x, "value", json_object_new_string(e->value));
		json_object_object_add(x, "implies", json_object_new_string(e->implies));
		/* where it stands among the sources (docs/classification.md), and what it speaks for */
		bool ranked = e->rank != EVIDENCE_FACT && e->class >= 0;
		json_object_object_add(x, "rank", ranked ? json_object_new_int(e->rank) : NULL);
		json_object_object_add(x, "kind", ranked ? json_object_new_string(evidence_rank_to_string(e->rank)) : NULL);
		json_object_object_add(x, "class", ranked ? json_object_new_string(disk_class_to_string(e->class)) : NULL);
		json_object_object_add(x, "decisive", json_object_new_boolean(e->decisive));
		json_object_array_add(ev, x);
	}
	json_object_object_add(o, "evidence", ev);
	return o;
}
