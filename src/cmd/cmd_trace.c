/*
 * pqprof trace: inspect .pqt sample traces offline.
 *   trace info TRACE   header summary, record counts, samples per op,
 *                      bytes per sample, complete or not
 *   trace dump TRACE   one line per record
 *   trace check TRACE  validate everything; exit 0 only for a clean,
 *                      complete trace
 * Symbolized exports (trace/export_format.h) need the symbolizer and
 * belong to `pqprof export` and the profile/report commands.
 */
#include "config.h"
#include "cmd/commands.h"
#include "cmd/cmd_common.h"
#include "core/options.h"
#include "core/options_help.h"
#include "core/pq_error.h"
#include "trace/trace_reader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_line[] =
	"pqprof trace info|dump|check TRACE\n"
	"  info   header, record counts, samples per operation, bytes per sample\n"
	"  dump   one line per record\n"
	"  check  validate the whole trace; exit 0 only if clean and complete";

/* Per-operation totals for info; distinct ops beyond MAX_OPS are lumped. */
#define MAX_OPS 256

struct op_count {
	uint64_t op;
	char name[64];
	uint64_t samples, weight;
};

struct info_ctx {
	struct op_count ops[MAX_OPS];
	size_t nops;
	uint64_t other_samples;
};

static struct op_count *op_slot(struct info_ctx *c, uint64_t op)
{
	for (size_t i = 0; i < c->nops; i++)
		if (c->ops[i].op == op)
			return &c->ops[i];
	if (c->nops == MAX_OPS)
		return NULL;
	struct op_count *o = &c->ops[c->nops++];
	memset(o, 0, sizeof *o);
	o->op = op;
	return o;
}

static int info_record(const struct trace_record *rec, void *ctx)
{
	struct info_ctx *c = ctx;
	struct op_count *o;
	switch (rec->type) {
	case TRACE_REC_SAMPLE:
		o = op_slot(c, rec->u.sample.op);
		if (!o) {
			c->other_samples++;
			break;
		}
		o->samples++;
		o->weight += rec->u.sample.weight;
		break;
	case TRACE_REC_OP_BEGIN:
		o = op_slot(c, rec->u.op.op);
		if (o && !o->name[0])
			snprintf(o->name, sizeof o->name, "%s", rec->u.op.name);
		break;
	default:
		break;
	}
	return 0;
}

static void print_header(const json_t *h)
{
	const char *key;
	json_t *v;
	printf("header:\n");
	json_object_foreach((json_t *)h, key, v) {
		char *s = json_is_string(v) ? strdup(json_string_value(v))
		                            : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (s && strlen(s) > 100)
			strcpy(s + 96, " ...");
		printf("  %-18s %s\n", key, s ? s : "?");
		free(s);
	}
}

static void print_counts(const struct trace_read_stats *st)
{
	printf("records:   ");
	const char *sep = " ";
	for (int t = 1; t <= TRACE_REC_TYPE_MAX; t++) {
		const char *name = trace_rec_type_name((enum trace_rec_type)t);
		if (strcmp(name, "UNKNOWN") == 0)
			continue;
		printf("%s%s %" PRIu64, sep, name, st->by_type[t]);
		sep = ", ";
	}
	putchar('\n');
	if (st->skipped)
		printf("skipped:    %" PRIu64 " records of a newer format\n", st->skipped);
}

static int do_info(trace_reader *r, const char *path)
{
	struct info_ctx *c = calloc(1, sizeof *c);
	if (!c) {
		pq_error e;
		pq_fail(&e, PQ_ENOMEM, "out of memory");
		return cmd_fail("trace", &e);
	}
	pq_error err;
	pq_error_clear(&err);
	int k = trace_reader_foreach(r, info_record, c, &err);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	unsigned major, minor;
	trace_reader_version(r, &major, &minor);
	printf("trace:      %s (%" PRIu64 " bytes, format %u.%u, written by %s)\n", path,
	       st.file_bytes, major, minor, trace_reader_creator(r));
	print_header(trace_reader_header(r));
	printf("frames:     %" PRIu64 "\n", st.frames);
	print_counts(&st);
	printf("samples:    %" PRIu64 " (lost %" PRIu64 ")\n", st.samples, st.lost);
	for (size_t i = 0; i < c->nops; i++)
		printf("  op %" PRIu64 " %-12s %" PRIu64 " samples, weight %" PRIu64 "\n", c->ops[i].op,
		       c->ops[i].name[0] ? c->ops[i].name : "?", c->ops[i].samples, c->ops[i].weight);
	if (c->other_samples)
		printf("  other ops     %" PRIu64 " samples\n", c->other_samples);
	free(c);
	if (st.samples)
		printf("bytes/sample: %.2f\n", (double)st.file_bytes / (double)st.samples);
	if (k < 0) {
		printf("status:     corrupt\n");
		return cmd_fail("trace", &err);
	}
	printf("status:     %s\n", st.complete ? "complete" : "incomplete (no end marker)");
	return 0;
}

static void print_hex(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static int dump_record(const struct trace_record *rec, void *ctx)
{
	(void)ctx;
	printf("%" PRIu64 " %s", rec->frame, trace_rec_type_name(rec->type));
	switch (rec->type) {
	case TRACE_REC_MMAP:
		printf(" start=0x%" PRIx64 " len=0x%" PRIx64 " pgoff=0x%" PRIx64 " build_id=",
		       rec->u.mmap.start, rec->u.mmap.len, rec->u.mmap.pgoff);
		print_hex(rec->u.mmap.build_id, rec->u.mmap.build_id_len);
		printf(" path=%s", rec->u.mmap.path);
		break;
	case TRACE_REC_STACK_DEF:
		printf(" id=%" PRIu64 " n=%zu", rec->u.stack.id, rec->u.stack.n);
		for (size_t i = 0; i < rec->u.stack.n; i++)
			printf("%s0x%" PRIx64, i ? "," : " ", rec->u.stack.ips[i]);
		break;
	case TRACE_REC_SAMPLE:
		printf(" op=%" PRIu64 " weight=%" PRIu64 " time=%" PRIu64 " stack=%" PRIu64 " depth=%zu",
		       rec->u.sample.op, rec->u.sample.weight, rec->u.sample.time,
		       rec->u.sample.stack_id, rec->u.sample.n);
		break;
	case TRACE_REC_OP_BEGIN:
	case TRACE_REC_OP_END:
		printf(" op=%" PRIu64 " name=%s iteration=%" PRIu64 " time=%" PRIu64, rec->u.op.op,
		       rec->u.op.name, rec->u.op.iteration, rec->u.op.time);
		break;
	case TRACE_REC_LOST:
		printf(" count=%" PRIu64, rec->u.lost.count);
		break;
	case TRACE_REC_END:
		printf(" samples=%" PRIu64 " records=%" PRIu64, rec->u.end.samples, rec->u.end.records);
		printf(" lost=%" PRIu64 " throttles=%" PRIu64 " unthrottles=%" PRIu64 " active_ns=%" PRIu64
		       " requested_hz=%" PRIu64, rec->u.end.lost, rec->u.end.throttles,
		       rec->u.end.unthrottles, rec->u.end.active_ns, rec->u.end.requested_hz);
		break;
	case TRACE_REC_FRAME:
		printf(" index=%" PRIu64, rec->u.frame.index);
		break;
	case TRACE_REC_UNWIND_STATS:
		printf(" op=%" PRIu64 " stacks=%" PRIu64 " complete=%" PRIu64 " incomplete=%" PRIu64
		       " cfi=%" PRIu64 " fp=%" PRIu64 " scan=%" PRIu64 " stitched=%" PRIu64,
		       rec->u.unwind.op, rec->u.unwind.stacks, rec->u.unwind.complete,
		       rec->u.unwind.incomplete, rec->u.unwind.frames_cfi, rec->u.unwind.frames_fp,
		       rec->u.unwind.frames_scan, rec->u.unwind.frames_stitched);
		break;
	default:
		break;
	}
	putchar('\n');
	return 0;
}

static int do_dump(trace_reader *r)
{
	char *h = json_dumps(trace_reader_header(r), JSON_COMPACT);
	printf("0 HEADER creator=%s json=%s\n", trace_reader_creator(r), h ? h : "?");
	free(h);
	pq_error err;
	int k = trace_reader_foreach(r, dump_record, NULL, &err);
	if (k < 0)
		return cmd_fail("trace", &err);
	if (trace_reader_check_complete(r, &err) < 0)
		fprintf(stderr, "pqprof trace: warning: %s\n", err.msg);
	return 0;
}

static int ignore_record(const struct trace_record *rec, void *ctx)
{
	(void)rec;
	(void)ctx;
	return 0;
}

static int do_check(trace_reader *r, const char *path)
{
	pq_error err;
	int k = trace_reader_foreach(r, ignore_record, NULL, &err);
	if (k == 0)
		k = trace_reader_check_complete(r, &err);
	if (k < 0)
		return cmd_fail("trace", &err);
	struct trace_read_stats st;
	trace_reader_stats(r, &st);
	printf("%s: ok (%" PRIu64 " frames, %" PRIu64 " records, %" PRIu64 " samples)\n", path,
	       st.frames, st.records, st.samples);
	return 0;
}

int cmd_trace(int argc, char **argv)
{
	struct option_spec specs[] = { { OPT_END, 0, NULL, NULL, NULL, NULL, NULL } };
	const char *pos[2];
	pq_error err;
	pq_error_clear(&err);
	int status, npos = cmd_parse("trace", argc, argv, usage_line, specs, pos, 2, &status);
	if (npos < 0)
		return status;
	if (npos != 2) {
		options_usage(stderr, usage_line, specs);
		return pq_exit_code(PQ_EUSAGE);
	}
	const char *sub = pos[0], *path = pos[1];
	if (strcmp(sub, "info") != 0 && strcmp(sub, "dump") != 0 && strcmp(sub, "check") != 0) {
		pq_fail(&err, PQ_EUSAGE, "unknown subcommand '%s' (info, dump or check)", sub);
		return cmd_fail("trace", &err);
	}
	trace_reader *r;
	if (trace_reader_open(&r, path, &err) < 0)
		return cmd_fail("trace", &err);
	int rc;
	if (strcmp(sub, "info") == 0)
		rc = do_info(r, path);
	else if (strcmp(sub, "dump") == 0)
		rc = do_dump(r);
	else
		rc = do_check(r, path);
	trace_reader_close(r);
	return rc;
}
