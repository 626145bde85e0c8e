/*
 * fuzz_trace: libFuzzer harness for the .pqt reader (src/trace/).
 *
 * An input that starts with "PQPT" is read as a whole trace file.  Any
 * other input is a raw record stream: the harness wraps it in a valid
 * container (the preamble, then one checksummed zstd frame per piece,
 * pieces separated by the 4 bytes "FRM!"; the first piece is the header
 * frame), so mutations reach the record decoder and the header parser
 * instead of dying at the zstd checksum.  A raw stream that starts with
 * "V2" gets a format 2.1 preamble (persistent tables, SAMPLES and
 * SAMPLES_B blocks),
 * any other a 1.0 one.
 *
 *   clang -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
 *     -Isrc -I. tests/fuzz/fuzz_trace.c \
 *     src/trace/trace_reader.c src/core/pq_error.c src/core/atomic_file.c \
 *     src/core/grow.c src/core/fixed_str.c src/core/interrupt.c \
 *     -lzstd -ljansson -o fuzz_trace
 *   ./fuzz_trace tests/fuzz/corpus/trace
 *
 * Built with -DPQ_FUZZ_STANDALONE it gets the shared replay main() of
 * fuzz_replay.h (default: the trace corpus and its regressions),
 * which is how "make check" runs the seed corpus.  Not a unit test of
 * the format's meaning: it only asks that nothing crashes, leaks or
 * reads out of bounds.
 */
#include "config.h"
#include "trace/trace_format.h"
#include "trace/trace_reader.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#define FRAME_SEP "FRM!"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Wrap a raw record stream into a trace container; NULL on failure. */
static uint8_t *wrap_records(const uint8_t *data, size_t size, size_t *out_len)
{
	int v2 = size >= 2 && data[0] == 'V' && data[1] == '2';
	if (v2) {
		data += 2;
		size -= 2;
	}
	size_t cap = TRACE_PREAMBLE_LEN;
	size_t pieces = 1;
	for (size_t i = 0; i + 4 <= size; i++)
		if (memcmp(data + i, FRAME_SEP, 4) == 0)
			pieces++;
	cap += ZSTD_compressBound(size) + pieces * 32;
	/* One context for the whole run: creating one per input is slow under ASan. */
	static ZSTD_CCtx *c;
	if (!c) {
		c = ZSTD_createCCtx();
		if (!c)
			return NULL;
		ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
		ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
	}
	uint8_t *out = malloc(cap);
	if (!out)
		goto fail;
	memcpy(out, v2 ? "PQPT\x02\x00\x01\x00" : "PQPT\x01\x00\x00\x00", TRACE_PREAMBLE_LEN);
	size_t n = TRACE_PREAMBLE_LEN, z;
	size_t start = 0;
	for (size_t i = 0; i <= size; i++) {
		int sep = i + 4 <= size && memcmp(data + i, FRAME_SEP, 4) == 0;
		if (!sep && i != size)
			continue;
		z = ZSTD_compress2(c, out + n, cap - n, data + start, i - start);
		if (ZSTD_isError(z))
			goto fail;
		n += z;
		start = i + 4;
		i += 3;
	}
	*out_len = n;
	return out;
fail:
	free(out);
	return NULL;
}

/* Touch everything a record points at, so ASan sees any bad pointer. */
static uint64_t consume(const struct trace_record *rec)
{
	uint64_t acc = rec->frame;
	switch (rec->type) {
	case TRACE_REC_STACK_DEF:
		for (size_t i = 0; i < rec->u.stack.n; i++)
			acc += rec->u.stack.ips[i];
		break;
	case TRACE_REC_SAMPLE:
		for (size_t i = 0; i < rec->u.sample.n; i++)
			acc += rec->u.sample.ips[i];
		acc += rec->u.sample.op + rec->u.sample.time;
		break;
	case TRACE_REC_MMAP:
		acc += strlen(rec->u.mmap.path) + rec->u.mmap.build_id_len;
		for (size_t i = 0; i < rec->u.mmap.build_id_len; i++)
			acc += rec->u.mmap.build_id[i];
		break;
	case TRACE_REC_OP_BEGIN:
	case TRACE_REC_OP_END:
		acc += strlen(rec->u.op.name);
		break;
	case TRACE_REC_END:
		acc += rec->u.end.lost + rec->u.end.active_ns + rec->u.end.requested_hz;
		break;
	default:
		break;
	}
	return acc;
}

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *wrapped = NULL;
	if (size < 4 || memcmp(data, TRACE_MAGIC, 4) != 0) {
		wrapped = wrap_records(data, size, &size);
		if (!wrapped)
			return 0;
		data = wrapped;
	}
	trace_reader *r;
	pq_error err;
	pq_error_clear(&err);
	/* Every failure must come with a message. */
	if (trace_reader_open_mem(&r, data, size, "fuzz.pqt", &err) < 0) {
		if (!err.msg[0])
			abort();
	} else {
		struct trace_record rec;
		uint64_t acc = 0;
		int k;
		while ((k = trace_reader_next(r, &rec, &err)) == 1)
			acc += consume(&rec);
		if (k < 0 && !err.msg[0])
			abort();
		pq_error_clear(&err);
		if (trace_reader_check_complete(r, &err) < 0 && !err.msg[0])
			abort();
		struct trace_read_stats st;
		trace_reader_stats(r, &st);
		acc += st.records + json_object_size(trace_reader_header(r));
		acc += strlen(trace_reader_creator(r));
		sink = acc;
		trace_reader_close(r);
	}
	free(wrapped);
	return 0;
}

#ifdef PQ_FUZZ_STANDALONE
#define FUZZ_HARNESS_NAME "trace"
#include "fuzz_replay.h"
#endif
