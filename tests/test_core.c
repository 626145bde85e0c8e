/*
 * test_core: the helpers every module shares (src/core/): atomic JSON
 * files, file-safe names, the operation vocabulary, hex and SHA-256,
 * XML escaping, checked paths, array growth, async-signal-safe output,
 * whole-file reads and directories, error messages.  Failure paths
 * included: unwritable places, paths too long, hostile names.
 */
#include "config.h"
#include "core/atomic_file.h"
#include "core/clock.h"
#include "core/digest.h"
#include "core/fixed_str.h"
#include "core/grow.h"
#include "core/jpath.h"
#include "core/json_file.h"
#include "core/ops.h"
#include "core/path_name.h"
#include "core/pq_error.h"
#include "core/safe_name.h"
#include "core/sigsafe.h"
#include "core/text_buf.h"
#include "core/units.h"
#include "core/xml_escape.h"
#include "instance/pqprof_abi.h"

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmpdir[256];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/pqprof-test-core.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char cmd[512];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

static void in_tmp(char *buf, size_t len, const char *name)
{
	ck_assert_int_eq(path_fmt(buf, len, NULL, "%s/%s", tmpdir, name), 0);
}

/* Entries of tmpdir whose name holds ".tmp.": temporaries left behind. */
static int leftover_temps(void)
{
	DIR *d = opendir(tmpdir);
	ck_assert_ptr_nonnull(d);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += strstr(de->d_name, ".tmp.") != NULL;
	closedir(d);
	return n;
}

static char *slurp(const char *path)
{
	char *text = NULL;
	pq_error err = { 0 };
	ck_assert_msg(read_whole_file(path, &text, NULL, 0, &err) == 0, "%s", err.msg);
	return text;
}

/* ---- json_file ---- */

START_TEST(json_written_sorted_indented_with_newline)
{
	make_tmpdir();
	char p[512];
	in_tmp(p, sizeof p, "r.json");
	json_t *j = json_pack("{s:i, s:s}", "zeta", 1, "alpha", "x");
	pq_error err = { 0 };
	ck_assert_msg(json_file_write(p, j, &err) == 0, "%s", err.msg);
	json_decref(j);
	char *text = slurp(p);
	ck_assert_str_eq(text, "{\n  \"alpha\": \"x\",\n  \"zeta\": 1\n}\n");
	free(text);
	ck_assert_int_eq(leftover_temps(), 0);
	remove_tmpdir();
}
END_TEST

START_TEST(json_replaces_whole_file)
{
	make_tmpdir();
	char p[512];
	in_tmp(p, sizeof p, "r.json");
	FILE *f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs("a much longer old content that must not survive in any part", f);
	fclose(f);
	json_t *j = json_pack("[i]", 7);
	ck_assert_int_eq(json_file_write(p, j, NULL), 0);
	json_decref(j);
	char *text = slurp(p);
	ck_assert_str_eq(text, "[\n  7\n]\n");
	free(text);
	remove_tmpdir();
}
END_TEST

START_TEST(json_null_document_fails_naming_file)
{
	make_tmpdir();
	char p[512];
	in_tmp(p, sizeof p, "none.json");
	pq_error err = { 0 };
	ck_assert_int_lt(json_file_write(p, NULL, &err), 0);
	ck_assert_ptr_nonnull(strstr(err.msg, p));
	ck_assert_int_ne(access(p, F_OK), 0);
	ck_assert_int_eq(leftover_temps(), 0);
	remove_tmpdir();
}
END_TEST

START_TEST(json_unwritable_directory_fails_naming_file)
{
	/* A regular file as the parent: no one, root included, can create there. */
	make_tmpdir();
	char parent[512], p[600];
	in_tmp(parent, sizeof parent, "plain-file");
	FILE *f = fopen(parent, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	snprintf(p, sizeof p, "%s/r.json", parent);
	json_t *j = json_pack("{s:i}", "a", 1);
	pq_error err = { 0 };
	int r = json_file_write(p, j, &err);
	json_decref(j);
	ck_assert_int_eq(r, -PQ_EIO);
	ck_assert_int_eq(err.code, PQ_EIO);
	ck_assert_msg(strstr(err.msg, parent) != NULL, "%s", err.msg);
	remove_tmpdir();
}
END_TEST

START_TEST(json_rename_failure_leaves_no_temporary)
{
	/* The target is a directory: the temporary is written, the rename fails. */
	make_tmpdir();
	char p[512];
	in_tmp(p, sizeof p, "is-a-dir");
	ck_assert_int_eq(mkdir(p, 0700), 0);
	json_t *j = json_pack("{s:i}", "a", 1);
	pq_error err = { 0 };
	ck_assert_int_lt(json_file_write(p, j, &err), 0);
	json_decref(j);
	ck_assert_msg(strstr(err.msg, p) != NULL, "%s", err.msg);
	ck_assert_int_eq(leftover_temps(), 0);
	remove_tmpdir();
}
END_TEST

START_TEST(atomic_path_too_long)
{
	char p[5000];
	memset(p, 'a', sizeof p - 1);
	p[0] = '/';
	p[sizeof p - 1] = '\0';
	pq_error err = { 0 };
	ck_assert_int_eq(atomic_write(p, "x", 1, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "too long"));
}
END_TEST

/* ---- safe_name ---- */

static const char *safe(const char *in, size_t len)
{
	static char buf[256];
	ck_assert_uint_le(len, sizeof buf);
	safe_name(buf, len, in);
	return buf;
}

START_TEST(safe_name_keeps_plain_names)
{
	ck_assert_str_eq(safe("SPHINCS+-SHAKE-128f_simple.v3", 256), "SPHINCS+-SHAKE-128f_simple.v3");
}
END_TEST

START_TEST(safe_name_replaces_other_bytes)
{
	ck_assert_str_eq(safe("a/b c\\d:\xc3\xa9", 256), "a_b_c_d___");
	ck_assert_ptr_null(strchr(safe("../../etc/passwd", 256), '/'));
}
END_TEST

START_TEST(safe_name_never_dot_names_or_empty)
{
	const char *hostile[] = { "", ".", "..", "...", ".hidden", "./x", "../x", NULL };
	for (int i = 0; hostile[i]; i++) {
		const char *s = safe(hostile[i], 256);
		ck_assert_msg(s[0] != '\0', "'%s' became empty", hostile[i]);
		ck_assert_msg(s[0] != '.', "'%s' became '%s'", hostile[i], s);
		ck_assert_msg(strcmp(s, ".") != 0 && strcmp(s, "..") != 0, "'%s' became '%s'", hostile[i], s);
	}
	ck_assert_str_eq(safe("", 256), "unnamed");
	ck_assert_str_eq(safe(NULL, 256), "unnamed");
	ck_assert_str_eq(safe("..", 256), "_.");
	ck_assert_str_eq(safe(".hidden", 256), "_hidden");
}
END_TEST

START_TEST(safe_name_truncates_and_works_in_place)
{
	ck_assert_str_eq(safe("abcdefgh", 4), "abc");
	ck_assert_str_eq(safe("..........", 3), "_.");
	char buf[32] = "x y/z";
	safe_name(buf, sizeof buf, buf);
	ck_assert_str_eq(buf, "x_y_z");
}
END_TEST

/* ---- ops ---- */

START_TEST(ops_names_round_trip)
{
	const char *want[] = { "keygen", "sign", "verify", "enc", "dec" };
	ck_assert_int_eq(PQ_OP_COUNT, 5);
	for (int i = 0; i < PQ_OP_COUNT; i++) {
		ck_assert_str_eq(pq_op_name((enum pq_op)i), want[i]);
		ck_assert_int_eq(pq_op_parse(want[i]), i);
	}
	ck_assert_str_eq(pq_op_name(PQ_OP_COUNT), "?");
	ck_assert_str_eq(pq_op_name((enum pq_op)-1), "?");
	ck_assert_int_eq(pq_op_parse("Sign"), -1);
	ck_assert_int_eq(pq_op_parse(""), -1);
	ck_assert_int_eq(pq_op_parse(NULL), -1);
}
END_TEST

START_TEST(ops_per_kind)
{
	enum pq_op ops[PQ_OP_COUNT];
	ck_assert_int_eq(pq_ops_for_kind(PQPROF_KIND_SIG, ops), 3);
	ck_assert_int_eq(ops[0], PQ_OP_KEYGEN);
	ck_assert_int_eq(ops[1], PQ_OP_SIGN);
	ck_assert_int_eq(ops[2], PQ_OP_VERIFY);
	ck_assert_int_eq(pq_ops_for_kind(PQPROF_KIND_KEM, ops), 3);
	ck_assert_int_eq(ops[1], PQ_OP_ENC);
	ck_assert_int_eq(ops[2], PQ_OP_DEC);
}
END_TEST

/* ---- digest ---- */

START_TEST(hex_encode_and_value)
{
	const unsigned char b[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
	char out[2 * sizeof b + 1];
	hex_encode(b, sizeof b, out);
	ck_assert_str_eq(out, "00017f80abff");
	hex_encode(b, 0, out);
	ck_assert_str_eq(out, "");
	ck_assert_int_eq(hex_value('0'), 0);
	ck_assert_int_eq(hex_value('9'), 9);
	ck_assert_int_eq(hex_value('a'), 10);
	ck_assert_int_eq(hex_value('F'), 15);
	ck_assert_int_eq(hex_value('g'), -1);
	ck_assert_int_eq(hex_value(' '), -1);
}
END_TEST

START_TEST(sha256_of_buffers)
{
	char hex[SHA256_HEX_LEN + 1];
	ck_assert_int_eq(sha256_hex("abc", 3, hex, NULL), 0);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	ck_assert_int_eq(sha256_hex("", 0, hex, NULL), 0);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

START_TEST(sha256_of_files)
{
	make_tmpdir();
	char p[512];
	in_tmp(p, sizeof p, "abc");
	ck_assert_int_eq(atomic_write(p, "abc", 3, NULL), 0);
	char hex[SHA256_HEX_LEN + 1];
	pq_error err = { 0 };
	ck_assert_msg(sha256_file_hex(p, hex, &err) == 0, "%s", err.msg);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	in_tmp(p, sizeof p, "missing");
	ck_assert_int_eq(sha256_file_hex(p, hex, &err), -PQ_EINPUT);
	ck_assert_str_eq(hex, "");
	ck_assert_ptr_nonnull(strstr(err.msg, p));
	remove_tmpdir();
}
END_TEST

/* ---- xml_escape ---- */

static char *escaped(const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	xml_escape(f, s);
	fclose(f);
	return buf;
}

START_TEST(xml_escape_specials_and_controls)
{
	char *e = escaped("<a href='x' title=\"y\">&amp;</a>");
	ck_assert_str_eq(e, "&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;amp;&lt;/a&gt;");
	free(e);
	e = escaped("a\x01" "b\x1f" "c\td\ne");
	ck_assert_str_eq(e, "a b c\td\ne");
	free(e);
	e = escaped(NULL);
	ck_assert_str_eq(e, "");
	free(e);
	e = escaped("caf\xc3\xa9");
	ck_assert_str_eq(e, "caf\xc3\xa9");
	free(e);
}
END_TEST

/* ---- fixed_str ---- */

START_TEST(path_fmt_fits_exactly)
{
	char buf[8];
	ck_assert_int_eq(path_fmt(buf, sizeof buf, NULL, "%s/%s", "abc", "def"), 0);
	ck_assert_str_eq(buf, "abc/def");
}
END_TEST

START_TEST(path_fmt_refuses_truncation)
{
	char buf[8];
	pq_error err = { 0 };
	ck_assert_int_eq(path_fmt(buf, sizeof buf, &err, "%s/%s", "abc", "defg"), -PQ_EINPUT);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(err.code, PQ_EINPUT);
	ck_assert_msg(strstr(err.msg, "abc/def") == err.msg, "%s", err.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "too long"));
	/* A NULL error is allowed and the result is the same. */
	ck_assert_int_eq(path_fmt(buf, sizeof buf, NULL, "%s", "0123456789"), -PQ_EINPUT);
	ck_assert_int_lt(path_fmt(buf, 0, &err, "%s", "x"), 0);
}
END_TEST

START_TEST(path_fmt_long_paths_message_bounded)
{
	static char big[8192], out[4096];
	memset(big, 'p', sizeof big - 1);
	pq_error err = { 0 };
	ck_assert_int_lt(path_fmt(out, sizeof out, &err, "/x/%s", big), 0);
	ck_assert_uint_lt(strlen(err.msg), sizeof err.msg);
	ck_assert_msg(strncmp(err.msg, "/x/ppp", 6) == 0, "%s", err.msg);
}
END_TEST

START_TEST(str_copy_truncates_on_request)
{
	char buf[4];
	ck_assert_int_eq(str_copy(buf, sizeof buf, "abc"), 0);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(str_copy(buf, sizeof buf, "abcd"), 1);
	ck_assert_str_eq(buf, "abc");
	ck_assert_int_eq(str_copy(buf, sizeof buf, NULL), 0);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(str_copy(buf, 0, "x"), 1);
}
END_TEST

/* ---- grow ---- */

START_TEST(grow_doubles_from_first)
{
	int *a = NULL;
	size_t cap = 0;
	ck_assert_int_eq(pq_grow(&a, &cap, 1, sizeof *a, 4), 0);
	ck_assert_uint_eq(cap, 4);
	for (int i = 0; i < 4; i++)
		a[i] = i;
	ck_assert_int_eq(pq_grow(&a, &cap, 3, sizeof *a, 4), 0);
	ck_assert_uint_eq(cap, 4);
	ck_assert_int_eq(pq_grow(&a, &cap, 5, sizeof *a, 4), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(pq_grow(&a, &cap, 33, sizeof *a, 4), 0);
	ck_assert_uint_eq(cap, 64);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(a[i], i);
	a[63] = 63;
	free(a);
}
END_TEST

START_TEST(grow_overflow_leaves_array_alone)
{
	char *a = NULL;
	size_t cap = 0;
	ck_assert_int_eq(pq_grow(&a, &cap, 10, 1, 0), 0);
	ck_assert_uint_eq(cap, 16);
	char *before = a;
	ck_assert_int_eq(pq_grow(&a, &cap, SIZE_MAX, 1, 16), -1);
	ck_assert_int_eq(pq_grow(&a, &cap, SIZE_MAX / 4, 1024, 16), -1);
	ck_assert_ptr_eq(a, before);
	ck_assert_uint_eq(cap, 16);
	free(a);
}
END_TEST

/* ---- sigsafe ---- */

START_TEST(u64_dec_digits)
{
	char buf[32];
	*u64_dec(buf, 0) = '\0';
	ck_assert_str_eq(buf, "0");
	*u64_dec(buf, 1234567890) = '\0';
	ck_assert_str_eq(buf, "1234567890");
	char *end = u64_dec(buf, UINT64_MAX);
	*end = '\0';
	ck_assert_str_eq(buf, "18446744073709551615");
	ck_assert_int_eq(end - buf, 20);
}
END_TEST

START_TEST(write_all_writes_everything_or_fails)
{
	int fds[2];
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write_all(fds[1], "hello, pipe", 11), 0);
	close(fds[1]);
	char buf[32] = "";
	ck_assert_int_eq(read(fds[0], buf, sizeof buf - 1), 11);
	ck_assert_str_eq(buf, "hello, pipe");
	close(fds[0]);
	ck_assert_int_eq(write_all(-1, "x", 1), -1);
}
END_TEST

/* ---- files and directories ---- */

START_TEST(read_whole_file_limits_and_errors)
{
	make_tmpdir();
	char p[512];
	in_tmp(p, sizeof p, "big");
	static char data[200000];
	memset(data, 'z', sizeof data);
	ck_assert_int_eq(atomic_write(p, data, sizeof data, NULL), 0);
	char *text = NULL;
	size_t len = 0;
	pq_error err = { 0 };
	ck_assert_int_eq(read_whole_file(p, &text, &len, 0, &err), 0);
	ck_assert_uint_eq(len, sizeof data);
	ck_assert_int_eq(text[len], '\0');
	free(text);
	ck_assert_int_eq(read_whole_file(p, &text, &len, 65536, &err), -PQ_EINPUT);
	ck_assert_ptr_null(text);
	ck_assert_ptr_nonnull(strstr(err.msg, p));
	/* The limit is inclusive: a file of exactly max bytes is read. */
	ck_assert_int_eq(atomic_write(p, data, 65536, NULL), 0);
	ck_assert_int_eq(read_whole_file(p, &text, &len, 65536, &err), 0);
	ck_assert_uint_eq(len, 65536);
	free(text);
	ck_assert_int_eq(read_whole_file(p, &text, &len, 65535, &err), -PQ_EINPUT);
	ck_assert_ptr_null(text);
	in_tmp(p, sizeof p, "empty");
	ck_assert_int_eq(atomic_write(p, "", 0, NULL), 0);
	ck_assert_int_eq(read_whole_file(p, &text, &len, 0, &err), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(text, "");
	free(text);
	in_tmp(p, sizeof p, "absent");
	ck_assert_int_eq(read_whole_file(p, &text, &len, 0, &err), -PQ_EINPUT);
	ck_assert_ptr_nonnull(strstr(err.msg, p));
	remove_tmpdir();
}
END_TEST

START_TEST(make_dirs_and_remove_files)
{
	make_tmpdir();
	char d[512], f[600];
	in_tmp(d, sizeof d, "a/b/c");
	pq_error err = { 0 };
	ck_assert_msg(make_dirs(d, &err) == 0, "%s", err.msg);
	ck_assert_int_eq(make_dirs(d, &err), 0); /* again: nothing to do */
	snprintf(f, sizeof f, "%s/one", d);
	ck_assert_int_eq(atomic_write(f, "1", 1, NULL), 0);
	snprintf(f, sizeof f, "%s/.two", d);
	ck_assert_int_eq(atomic_write(f, "2", 1, NULL), 0);
	snprintf(f, sizeof f, "%s/sub", d);
	ck_assert_int_eq(mkdir(f, 0700), 0);
	remove_dir_files(d);
	DIR *dh = opendir(d);
	ck_assert_ptr_nonnull(dh);
	int n = 0;
	struct dirent *de;
	while ((de = readdir(dh)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
			ck_assert_str_eq(de->d_name, "sub");
			n++;
		}
	closedir(dh);
	ck_assert_int_eq(n, 1);
	remove_dir_files("/nonexistent/pqprof-test-core");
	/* Under a regular file no directory can be made. */
	snprintf(f, sizeof f, "%s/sub/file", d);
	ck_assert_int_eq(atomic_write(f, "x", 1, NULL), 0);
	snprintf(f, sizeof f, "%s/sub/file/deeper", d);
	ck_assert_int_eq(make_dirs(f, &err), -PQ_EIO);
	ck_assert_ptr_nonnull(strstr(err.msg, "sub/file"));
	remove_tmpdir();
}
END_TEST

/* ---- pq_error ---- */

START_TEST(error_prefix_and_truncation)
{
	pq_error err = { 0 };
	ck_assert_int_eq(pq_fail(&err, PQ_EINPUT, "bad field '%s'", "x"), -PQ_EINPUT);
	pq_error_prefix(&err, "%s: ", "file.json");
	ck_assert_str_eq(err.msg, "file.json: bad field 'x'");
	static char big[3000];
	memset(big, 'm', sizeof big - 1);
	pq_fail(&err, PQ_EIO, "%s", big);
	ck_assert_uint_eq(strlen(err.msg), sizeof err.msg - 1);
	pq_error_prefix(&err, "%s", "head: ");
	ck_assert_uint_eq(strlen(err.msg), sizeof err.msg - 1);
	ck_assert_int_eq(strncmp(err.msg, "head: mmm", 9), 0);
	pq_error_prefix(&err, "%s", big);
	ck_assert_uint_eq(strlen(err.msg), sizeof err.msg - 1);
	pq_error_prefix(NULL, "x");
	ck_assert_int_eq(pq_fail(NULL, PQ_EIO, "nobody listens"), -PQ_EIO);
}
END_TEST

/* Counts people read: separators or three digits, never exponent notation. */
START_TEST(readable_numbers_have_no_exponent)
{
	char b[64];
	static const struct { double v; const char *want; } cases[] = {
		{ 105937.0, "105,937" }, { 36912.4, "36,912" }, { 1000.0, "1,000" }, { 999.6, "1,000" },
		{ 2130.0, "2,130" }, { 1234567890.0, "1,234,567,890" }, { 102.0, "102" }, { 4.12, "4.12" },
		{ 4.0, "4" }, { 0.0704, "0.0704" }, { 0.0000123, "0.0000123" }, { 0.0, "0" }, { 99.96, "100" },
		{ -2500.0, "-2,500" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fmt_readable(b, sizeof b, cases[i].v);
		ck_assert_msg(strcmp(b, cases[i].want) == 0, "%g: got '%s', want '%s'", cases[i].v, b, cases[i].want);
	}
	fmt_readable(b, sizeof b, 1.0 / 0.0);
	ck_assert_str_eq(b, "–");
	fmt_sig3(b, sizeof b, 2130.0);
	ck_assert_str_eq(b, "2,130");
	fmt_seconds(b, sizeof b, 1234.0);
	ck_assert_str_eq(b, "1,234 s");
	fmt_seconds(b, sizeof b, 470e-6);
	ck_assert_str_eq(b, "470 µs");
	fmt_grouped(b, sizeof b, 1e20);
	ck_assert_str_eq(b, "100,000,000,000,000,000,000");
	/* a buffer too small truncates, never overflows */
	char small[4];
	fmt_readable(small, sizeof small, 105937.0);
	ck_assert_str_eq(small, "105");
	for (double v = 1e-6; v < 1e16; v *= 3.7) {
		fmt_readable(b, sizeof b, v);
		ck_assert_msg(!strchr(b, 'e') && !strchr(b, 'E'), "%g written as '%s'", v, b);
	}
}
END_TEST

/* Memory figures: the binary unit their size calls for, three significant digits. */
START_TEST(bytes_in_binary_units)
{
	char b[64];
	static const struct { double v; const char *want; } cases[] = {
		{ 0.0, "0 B" }, { 812.0, "812 B" }, { 1023.0, "1023 B" }, { 1024.0, "1 KiB" }, { 5740.0, "5.61 KiB" },
		{ 8160.0 * 1024, "7.97 MiB" }, { 1023.9 * 1024, "1 MiB" }, { 1.5 * 1024 * 1024 * 1024, "1.5 GiB" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fmt_bytes_binary(b, sizeof b, cases[i].v);
		ck_assert_msg(strcmp(b, cases[i].want) == 0, "%g: got '%s', want '%s'", cases[i].v, b, cases[i].want);
	}
	fmt_bytes_binary(b, sizeof b, -1);
	ck_assert_str_eq(b, "–");
	fmt_bytes_binary(b, sizeof b, 0.0 / 0.0);
	ck_assert_str_eq(b, "–");
}
END_TEST

START_TEST(mono_clock_never_steps_back)
{
	double s0 = mono_s();
	uint64_t n0 = mono_ns();
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	double s1 = mono_s();
	uint64_t n1 = mono_ns();
	ck_assert(s0 > 0 && s1 >= s0 + 0.002);
	ck_assert(n1 >= n0 + 2000000u);
	/* One clock in two units: the readings agree to well under a second. */
	ck_assert(fabs((double)n1 * 1e-9 - s1) < 0.5);
}
END_TEST

START_TEST(path_base_is_the_last_component)
{
	ck_assert_str_eq(path_base("a/b/c.rsp"), "c.rsp");
	ck_assert_str_eq(path_base("/libfoo.so"), "libfoo.so");
	ck_assert_str_eq(path_base("plain"), "plain");
	ck_assert_str_eq(path_base(""), "");
	/* Nothing after the last '/': the whole path, never an empty name. */
	ck_assert_str_eq(path_base("tree/"), "tree/");
	ck_assert_str_eq(path_base("/"), "/");
	const char *p = "x/y";
	ck_assert_ptr_eq(path_base(p), p + 2);
}
END_TEST

START_TEST(jpath_tolerates_missing_and_mistyped)
{
	json_t *r = json_loads("{\"a\": {\"b\": {\"n\": 2.5, \"i\": 7, \"s\": \"x\", \"e\": \"\", \"t\": true}}}",
	                       0, NULL);
	ck_assert_ptr_nonnull(r);
	ck_assert_ptr_eq(jp(r, "a.b"), json_object_get(json_object_get(r, "a"), "b"));
	ck_assert_ptr_null(jp(r, "a.missing.n"));
	ck_assert_ptr_null(jp(r, "a.b.n.deeper"));
	ck_assert_ptr_null(jp(NULL, "a"));
	ck_assert_double_eq(jp_num(r, "a.b.n", -1), 2.5);
	ck_assert_double_eq(jp_num(r, "a.b.i", -1), 7);
	ck_assert_double_eq(jp_num(r, "a.b.s", -1), -1);
	ck_assert_int_eq(jp_int(r, "a.b.i", -1), 7);
	ck_assert_int_eq(jp_int(r, "a.b.n", -1), -1);  /* a real is not an integer */
	ck_assert_int_eq(jp_int(r, "a.b.x", 3), 3);
	ck_assert_str_eq(jp_str(r, "a.b.s", "d"), "x");
	ck_assert_str_eq(jp_str(r, "a.b.e", "d"), "");
	ck_assert_str_eq(jp_str(r, "a.b.n", "d"), "d");
	ck_assert_ptr_null(jp_str(r, "a.b.none", NULL));
	ck_assert_str_eq(jp_text(r, "a.b.s", "d"), "x");
	ck_assert_str_eq(jp_text(r, "a.b.e", "d"), "d");  /* empty: absent */
	ck_assert_int_eq(jp_true(r, "a.b.t"), 1);
	ck_assert_int_eq(jp_true(r, "a.b.i"), 0);
	json_decref(r);
}
END_TEST

START_TEST(fixed_buffer_appends_cut_short)
{
	char b[16] = "";
	text_add_note(b, sizeof b, "one");
	text_add_note(b, sizeof b, "two %d", 2);
	ck_assert_str_eq(b, "one; two 2");
	text_add_note(b, sizeof b, "three");
	ck_assert_str_eq(b, "one; two 2; thr");  /* cut short, still terminated */
	text_add_note(b, sizeof b, "four");       /* no room: dropped */
	ck_assert_str_eq(b, "one; two 2; thr");
	char c[8] = "ab";
	text_appendf(c, sizeof c, "%s", "cdefghij");
	ck_assert_str_eq(c, "abcdefg");
	text_appendf(c, sizeof c, "x");
	ck_assert_str_eq(c, "abcdefg");
	char d[8] = "";
	text_appendf(d, sizeof d, "%s%s", d[0] ? ", " : "", "x");
	ck_assert_str_eq(d, "x");
}
END_TEST

START_TEST(fixed_buffer_appends_say_when_cut)
{
	char b[8] = "";
	ck_assert_int_eq(text_appendf(b, sizeof b, "%s", "abc"), 0);
	ck_assert_int_eq(text_appendf(b, sizeof b, "%s", "defg"), 0);  /* exactly full */
	ck_assert_str_eq(b, "abcdefg");
	ck_assert_int_eq(text_appendf(b, sizeof b, "h"), -1);           /* no room: dropped */
	char c[8] = "ab";
	ck_assert_int_eq(text_appendf(c, sizeof c, "%s", "cdefgh"), -1);
	ck_assert_str_eq(c, "abcdefg");
	text_mark_cut(c, sizeof c);
	ck_assert_str_eq(c, "abcd\u2026");
	char u[8] = "abc\u00e9xy";  /* é is two bytes: the cut would fall inside it */
	text_mark_cut(u, sizeof u);
	ck_assert_str_eq(u, "abc\u2026");
	char s[16] = "ab";
	text_mark_cut(s, sizeof s);
	ck_assert_str_eq(s, "ab\u2026");  /* room left: appended */
}
END_TEST

START_TEST(fixed_buffer_list_ends_in_more)
{
	char b[16] = "";
	ck_assert_int_eq(text_add_item(b, sizeof b, ", ", "one", ", +"), 0);
	ck_assert_int_eq(text_add_item(b, sizeof b, ", ", "two", ", +"), 0);
	ck_assert_str_eq(b, "one, two");
	ck_assert_int_eq(text_add_item(b, sizeof b, ", ", "three", ", +"), -1);  /* never cut: the marker instead */
	ck_assert_str_eq(b, "one, two, +");
	ck_assert_int_eq(text_add_item(b, sizeof b, ", ", "x", ", +"), -1);      /* the list is closed */
	ck_assert_str_eq(b, "one, two, +");
	char c[8] = "";
	ck_assert_int_eq(text_add_item(c, sizeof c, ", ", "abcdefgh", "\u2026"), -1);
	ck_assert_str_eq(c, "\u2026");
	char d[6] = "ab";
	ck_assert_int_eq(text_add_item(d, sizeof d, "-", "cd", ""), 0);
	ck_assert_int_eq(text_add_item(d, sizeof d, "-", "e", ""), -1);  /* no marker: the list just stops */
	ck_assert_str_eq(d, "ab-cd");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("json_file");
	tcase_add_test(tc, json_written_sorted_indented_with_newline);
	tcase_add_test(tc, json_replaces_whole_file);
	tcase_add_test(tc, json_null_document_fails_naming_file);
	tcase_add_test(tc, json_unwritable_directory_fails_naming_file);
	tcase_add_test(tc, json_rename_failure_leaves_no_temporary);
	tcase_add_test(tc, atomic_path_too_long);
	suite_add_tcase(s, tc);
	tc = tcase_create("safe_name");
	tcase_add_test(tc, safe_name_keeps_plain_names);
	tcase_add_test(tc, safe_name_replaces_other_bytes);
	tcase_add_test(tc, safe_name_never_dot_names_or_empty);
	tcase_add_test(tc, safe_name_truncates_and_works_in_place);
	suite_add_tcase(s, tc);
	tc = tcase_create("ops");
	tcase_add_test(tc, ops_names_round_trip);
	tcase_add_test(tc, ops_per_kind);
	suite_add_tcase(s, tc);
	tc = tcase_create("digest");
	tcase_add_test(tc, hex_encode_and_value);
	tcase_add_test(tc, sha256_of_buffers);
	tcase_add_test(tc, sha256_of_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("xml_escape");
	tcase_add_test(tc, xml_escape_specials_and_controls);
	suite_add_tcase(s, tc);
	tc = tcase_create("fixed_str");
	tcase_add_test(tc, path_fmt_fits_exactly);
	tcase_add_test(tc, path_fmt_refuses_truncation);
	tcase_add_test(tc, path_fmt_long_paths_message_bounded);
	tcase_add_test(tc, str_copy_truncates_on_request);
	suite_add_tcase(s, tc);
	tc = tcase_create("grow");
	tcase_add_test(tc, grow_doubles_from_first);
	tcase_add_test(tc, grow_overflow_leaves_array_alone);
	suite_add_tcase(s, tc);
	tc = tcase_create("sigsafe");
	tcase_add_test(tc, u64_dec_digits);
	tcase_add_test(tc, write_all_writes_everything_or_fails);
	suite_add_tcase(s, tc);
	tc = tcase_create("files");
	tcase_add_test(tc, read_whole_file_limits_and_errors);
	tcase_add_test(tc, make_dirs_and_remove_files);
	suite_add_tcase(s, tc);
	tc = tcase_create("units");
	tcase_add_test(tc, readable_numbers_have_no_exponent);
	tcase_add_test(tc, bytes_in_binary_units);
	suite_add_tcase(s, tc);
	tc = tcase_create("text_buf");
	tcase_add_test(tc, fixed_buffer_appends_cut_short);
	tcase_add_test(tc, fixed_buffer_appends_say_when_cut);
	tcase_add_test(tc, fixed_buffer_list_ends_in_more);
	suite_add_tcase(s, tc);
	tc = tcase_create("jpath");
	tcase_add_test(tc, jpath_tolerates_missing_and_mistyped);
	suite_add_tcase(s, tc);
	tc = tcase_create("path_name");
	tcase_add_test(tc, path_base_is_the_last_component);
	suite_add_tcase(s, tc);
	tc = tcase_create("clock");
	tcase_add_test(tc, mono_clock_never_steps_back);
	suite_add_tcase(s, tc);
	tc = tcase_create("pq_error");
	tcase_add_test(tc, error_prefix_and_truncation);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
