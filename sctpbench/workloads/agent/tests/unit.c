/* Host-side ASan/UBSan unit checks of the agent's socket-free modules. */
#include "../linux/sctpapi.h"
#include "../common/addr.h"
#include "../common/arrival.h"
#include "../common/cli.h"
#include "../common/control.h"
#include "../linux/notify.h"
#include "../common/records.h"
#include "../common/schedule.h"
#include <assert.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

static void test_control(void)
{
	int p[2]; assert(pipe(p) == 0);
	struct control c; control_init(&c, p[0]);
	struct control_cmd cmd;
	char longline[3000]; memset(longline, 'x', sizeof longline); longline[sizeof longline - 1] = '\n';
	const char *a = "start 123\nprimary 198.18.1.2\r\n   \nstop\nstart -5\nstart 1 2\nprimary\nfoo bar\n";
	assert(write(p[1], a, strlen(a)) == (ssize_t)strlen(a));
	int kinds[16], n = 0;
	while (n < 16) { if (control_fill(&c) != 0) break; while (control_next(&c, &cmd)) kinds[n++] = cmd.kind; if (!memchr(c.buf, '\n', c.len) && n >= 7) break; }
	CHECK(n == 7);
	CHECK(kinds[0] == CONTROL_START && kinds[1] == CONTROL_PRIMARY && kinds[2] == CONTROL_STOP);
	CHECK(kinds[3] == CONTROL_INVALID && kinds[4] == CONTROL_INVALID && kinds[5] == CONTROL_INVALID && kinds[6] == CONTROL_INVALID);
	/* overlong line, then a valid one, then EOF with a partial command */
	assert(write(p[1], longline, sizeof longline) == (ssize_t)sizeof longline);
	assert(write(p[1], "stop\nsto", 8) == 8);
	close(p[1]);
	n = 0;
	while (!c.eof) { CHECK(control_fill(&c) == 0); while (control_next(&c, &cmd)) { kinds[n] = cmd.kind; n++; if (cmd.kind == CONTROL_INVALID) fprintf(stderr, "  invalid: '%s' %s\n", cmd.word, cmd.why); } }
	while (control_next(&c, &cmd)) kinds[n++] = cmd.kind;
	CHECK(n == 3);
	CHECK(kinds[0] == CONTROL_INVALID && kinds[1] == CONTROL_STOP && kinds[2] == CONTROL_INVALID);
	close(p[0]);
	/* exactly-full buffer at EOF without newline */
	assert(pipe(p) == 0); control_init(&c, p[0]);
	char full[CONTROL_LINE_MAX]; memset(full, 'y', sizeof full);
	assert(write(p[1], full, sizeof full) == (ssize_t)sizeof full); close(p[1]);
	n = 0; while (!c.eof) { control_fill(&c); while (control_next(&c, &cmd)) n++; }
	while (control_next(&c, &cmd)) n++;
	CHECK(n == 1);
	close(p[0]);
	/* the DAR commands: one address each */
	assert(pipe(p) == 0); control_init(&c, p[0]);
	a = "addaddr 198.18.2.1\ndeladdr 2001:2::1\npeerprimary 198.18.2.1\naddaddr\ndeladdr a b\n";
	assert(write(p[1], a, strlen(a)) == (ssize_t)strlen(a)); close(p[1]);
	n = 0;
	while (!c.eof) { CHECK(control_fill(&c) == 0); while (n < 16 && control_next(&c, &cmd)) { kinds[n++] = cmd.kind; if (n == 2) CHECK(strcmp(cmd.arg, "2001:2::1") == 0); if (n == 5) CHECK(strcmp(cmd.why, "usage: deladdr ADDR") == 0); } }
	CHECK(n == 5);
	CHECK(kinds[0] == CONTROL_ADDADDR && kinds[1] == CONTROL_DELADDR && kinds[2] == CONTROL_PEERPRIMARY);
	CHECK(kinds[3] == CONTROL_INVALID && kinds[4] == CONTROL_INVALID);
	close(p[0]);
	puts("control ok");
}

static void test_addr(void)
{
	struct sockaddr_storage s, t; char buf[ADDR_STR_MAX];
	CHECK(addr_parse("198.18.0.1", 5000, &s) == 0 && strcmp(addr_format(&s, buf), "198.18.0.1") == 0);
	CHECK(addr_parse("2001:db8::1", 1, &s) == 0 && strcmp(addr_format(&s, buf), "2001:db8::1") == 0);
	CHECK(addr_parse("fe80::1%lo", 1, &s) == 0);
	CHECK(addr_parse("fe80::1%99999999999", 1, &s) != 0);
	CHECK(addr_parse("::ffff:198.18.0.7", 1, &s) == 0 && strcmp(addr_format(&s, buf), "198.18.0.7") == 0);
	CHECK(addr_parse("198.18.0.7", 2, &t) == 0 && addr_same_host(&s, &t));
	CHECK(addr_parse("1.2", 1, &s) != 0 && addr_parse("", 1, &s) != 0 && addr_parse("host", 1, &s) != 0);
	struct addr_list l, u;
	CHECK(addr_parse_list("198.18.0.1,2001:db8::2,198.18.1.1", 9, &l) == 0 && l.n == 3);
	CHECK(addr_parse_list("198.18.0.1,", 9, &u) != 0);
	_Alignas(8) unsigned char packed[ADDR_PACK_MAX];
	size_t used = addr_pack(&l, packed, sizeof packed);
	CHECK(used == 16 + 28 + 16);
	addr_unpack(packed, 3, &u);
	CHECK(u.n == 3);
	for (size_t i = 0; i < 3; i++) CHECK(addr_same_host(&l.a[i], &u.a[i]) && addr_len(&l.a[i]) == addr_len(&u.a[i]) && memcmp(&l.a[i], &u.a[i], addr_len(&l.a[i])) == 0);
	memset(&s, 0, sizeof s); CHECK(strcmp(addr_format(&s, buf), "?") == 0);
	puts("addr ok");
}

static void test_notify(struct records *r)
{
	unsigned char buf[512];
	struct notify_info info;
	/* assoc change */
	struct sctp_assoc_change sac; memset(&sac, 0, sizeof sac);
	sac.sac_type = SCTP_ASSOC_CHANGE; sac.sac_state = SCTP_COMM_UP; sac.sac_outbound_streams = 3; sac.sac_inbound_streams = 4; sac.sac_assoc_id = 7;
	for (size_t len = 0; len <= sizeof sac; len++) { unsigned char *b = malloc(len ? len : 1); memcpy(b, &sac, len); notify_handle(b, len, 1, r, &info); free(b); }
	CHECK(info.kind == NOTIFY_COMM_UP && info.assoc_id == 7);
	sac.sac_state = 99; notify_handle((unsigned char *)&sac, sizeof sac, 2, r, &info); CHECK(info.kind == NOTIFY_OTHER);
	/* paddr change */
	struct sctp_paddr_change pc; memset(&pc, 0, sizeof pc); pc.spc_type = SCTP_PEER_ADDR_CHANGE;
	struct sockaddr_storage a; addr_parse("198.18.0.2", 5000, &a); memcpy((unsigned char *)&pc + offsetof(struct sctp_paddr_change, spc_aaddr), &a, sizeof a);
	pc.spc_state = SCTP_ADDR_UNREACHABLE; pc.spc_error = 0;
	for (size_t len = 0; len <= sizeof pc; len++) { unsigned char *b = malloc(len ? len : 1); memcpy(b, &pc, len); notify_handle(b, len, 3, r, &info); free(b); }
	/* send failed event with data */
	struct sctp_send_failed_event sf; memset(buf, 0, sizeof buf); memset(&sf, 0, sizeof sf);
	sf.ssf_type = SCTP_SEND_FAILED_EVENT; sf.ssf_error = 5; sf.ssfe_info.snd_context = 42; memcpy(buf, &sf, sizeof sf);
	for (size_t len = 0; len <= sizeof sf + 16; len++) { unsigned char *b = malloc(len ? len : 1); memcpy(b, buf, len); notify_handle(b, len, 4, r, &info); free(b); }
	struct sctp_send_failed sfo; memset(&sfo, 0, sizeof sfo); sfo.ssf_type = SCTP_SEND_FAILED; sfo.ssf_info.sinfo_context = 43;
	for (size_t len = 0; len <= sizeof sfo; len++) { unsigned char *b = malloc(len ? len : 1); memcpy(b, &sfo, len); notify_handle(b, len, 5, r, &info); free(b); }
	struct sctp_remote_error re; memset(&re, 0, sizeof re); re.sre_type = SCTP_REMOTE_ERROR; re.sre_error = htons(12);
	for (size_t len = 0; len <= sizeof re; len++) { unsigned char *b = malloc(len ? len : 1); memcpy(b, &re, len); notify_handle(b, len, 6, r, &info); free(b); }
	struct sctp_shutdown_event se; memset(&se, 0, sizeof se); se.sse_type = SCTP_SHUTDOWN_EVENT;
	notify_handle((unsigned char *)&se, sizeof se, 7, r, &info); CHECK(info.kind == NOTIFY_PEER_SHUTDOWN);
	struct sctp_sender_dry_event de; memset(&de, 0, sizeof de); de.sender_dry_type = SCTP_SENDER_DRY_EVENT;
	notify_handle((unsigned char *)&de, sizeof de, 8, r, &info); CHECK(info.kind == NOTIFY_SENDER_DRY);
	puts("notify ok");
}

static void test_arrival(void)
{
	struct arrival a, b;
	arrival_init(&a, ARRIVAL_PERIODIC, 50, 1, NULL, 1000);
	CHECK(arrival_next(&a) == 1000); CHECK(arrival_next(&a) == 1000 + 20000000); CHECK(arrival_next(&a) == 1000 + 40000000);
	arrival_init(&a, ARRIVAL_PERIODIC, 3, 1, NULL, 0);
	arrival_next(&a); CHECK(arrival_next(&a) == 333333333); CHECK(arrival_next(&a) == 666666667); CHECK(arrival_next(&a) == 1000000000);
	arrival_init(&a, ARRIVAL_POISSON, 100, 7, NULL, 5); arrival_init(&b, ARRIVAL_POISSON, 100, 7, NULL, 5);
	int64_t prev = 0, first = 0; int same = 1; double sum = 0; int N = 200000;
	for (int i = 0; i < N; i++) { int64_t x = arrival_next(&a), y = arrival_next(&b); if (x != y) same = 0; if (i == 0) first = x; else { CHECK(x >= prev); sum += (double)(x - prev); } prev = x; }
	CHECK(same); CHECK(first == 5);
	double mean = sum / (N - 1) / 1e6; printf("poisson mean gap %.4f ms (expect 10)\n", mean); CHECK(fabs(mean - 10) < 0.1);
	arrival_init(&b, ARRIVAL_POISSON, 100, 8, NULL, 5); arrival_next(&b); arrival_init(&a, ARRIVAL_POISSON, 100, 7, NULL, 5); arrival_next(&a);
	CHECK(arrival_next(&a) != arrival_next(&b));
	arrival_init(&a, ARRIVAL_POISSON, 0.001, 7, NULL, 5); for (int i = 0; i < 1000; i++) arrival_next(&a);
	arrival_init(&a, ARRIVAL_PERIODIC, 0.001, 7, NULL, 5); for (int i = 0; i < 1000; i++) arrival_next(&a);
	/* schedule: t0 + each offset, then INT64_MAX (no next message) */
	{
		struct schedule_msg m[3] = { { 0, 16, 0, 0, false }, { 5, 16, 0, 0, false }, { 5, 16, 0, 0, false } };
		struct schedule s = { .m = m, .n = 3, .cap = 3 };
		arrival_init(&a, ARRIVAL_SCHEDULE, 0, 0, &s, 1000);
		CHECK(arrival_next(&a) == 1000); CHECK(arrival_next(&a) == 1005); CHECK(arrival_next(&a) == 1005);
		CHECK(arrival_next(&a) == INT64_MAX); CHECK(arrival_next(&a) == INT64_MAX);
		s.n = 0; arrival_init(&a, ARRIVAL_SCHEDULE, 0, 0, &s, 1000); CHECK(arrival_next(&a) == INT64_MAX);
	}
	/* saturate: no schedule, every message due from t0 on; rate unused */
	arrival_init(&a, ARRIVAL_SATURATE, 0, 7, NULL, 42); for (int i = 0; i < 100; i++) CHECK(arrival_next(&a) == 42);
	enum arrival_kind k = ARRIVAL_POISSON;
	CHECK(arrival_kind_parse("periodic", &k) == 0 && k == ARRIVAL_PERIODIC);
	CHECK(arrival_kind_parse("poisson", &k) == 0 && k == ARRIVAL_POISSON);
	CHECK(arrival_kind_parse("saturate", &k) == 0 && k == ARRIVAL_SATURATE);
	k = ARRIVAL_PERIODIC;
	CHECK(arrival_kind_parse("Saturate", &k) != 0 && arrival_kind_parse("", &k) != 0 && arrival_kind_parse("saturated", &k) != 0 && k == ARRIVAL_PERIODIC);
	CHECK(arrival_kind_parse("schedule", &k) == 0 && k == ARRIVAL_SCHEDULE);
	for (int i = ARRIVAL_PERIODIC; i <= ARRIVAL_SCHEDULE; i++) { CHECK(arrival_kind_parse(arrival_kind_name((enum arrival_kind)i), &k) == 0 && k == (enum arrival_kind)i); }
	struct prng p; prng_seed(&p, 0); uint64_t v0 = prng_next(&p); prng_seed(&p, 0); CHECK(prng_next(&p) == v0);
	printf("prng seed0 first %llu\n", (unsigned long long)v0);
	puts("arrival ok");
}

/* One line through the parser: 1 message, 0 blank/comment, -1 bad. */
static int line(const char *text, struct schedule_msg *m)
{
	const char *why = NULL; int rc = schedule_parse_line(text, m, &why);
	if (rc < 0 && (why == NULL || why[0] == '\0')) { fprintf(stderr, "no reason for '%s'\n", text); fails++; }
	return rc;
}

/* A whole file from memory; err gets the message. */
static int read_text(const char *text, size_t len, struct schedule *s, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, len, "r"); assert(f != NULL);
	err[0] = '\0';
	int rc = schedule_read(s, f, "sched.txt", err, errlen);
	fclose(f);
	return rc;
}

static void test_schedule(void)
{
	struct schedule_msg m; struct schedule s; char err[256];
	/* good lines */
	CHECK(line("0 16 0 - 0", &m) == 1 && m.offset_ns == 0 && m.size == 16 && m.stream == 0 && !m.unordered && m.lifetime_ms == 0);
	CHECK(line(" 123\t1048576   65535 u 604800000  # frame 3, fragment 2", &m) == 1 && m.offset_ns == 123 && m.size == 1048576 &&
	      m.stream == 65535 && m.unordered && m.lifetime_ms == 604800000);
	CHECK(line("604800000000000 200 3 - 1\r", &m) == 1 && m.offset_ns == INT64_C(604800000000000) && m.lifetime_ms == 1);
	CHECK(line("007 0100 00 - 00", &m) == 1 && m.offset_ns == 7 && m.size == 100);
	CHECK(line("1 16 0 - 0#comment", &m) == 1);
	/* blank and comment lines */
	CHECK(line("", &m) == 0); CHECK(line("   \t \r", &m) == 0); CHECK(line("# 0 16 0 - 0", &m) == 0); CHECK(line("   #", &m) == 0);
	/* bad lines */
	const char *bad[] = {
		"0 16 0 -", "0 16 0 - 0 0", "0", "0 15 0 - 0", "0 1048577 0 - 0", "0 0 0 - 0", "0 16 65536 - 0",
		"0 16 0 x 0", "0 16 0 uu 0", "0 16 0 U 0", "0 16 0 -- 0", "0 16 0 - 604800001", "0 16 0 - -1",
		"-1 16 0 - 0", "+1 16 0 - 0", "1e3 16 0 - 0", "0x10 16 0 - 0", "604800000000001 16 0 - 0",
		"99999999999999999999999 16 0 - 0", "18446744073709551616 16 0 - 0", "1.5 16 0 - 0", "0 16 -1 - 0",
		"0 16 0 - 0 # ok", /* placeholder, checked good below */
	};
	for (size_t i = 0; i + 1 < sizeof bad / sizeof bad[0]; i++) {
		if (line(bad[i], &m) != -1) { fprintf(stderr, "accepted bad line '%s'\n", bad[i]); fails++; }
	}
	CHECK(line(bad[sizeof bad / sizeof bad[0] - 1], &m) == 1);
	const char *why = NULL;
	CHECK(schedule_parse_line("0 16 0 - 0 0", &m, &why) == -1 && strstr(why, "more than 5 fields") != NULL);
	CHECK(schedule_parse_line("0 16 0 u", &m, &why) == -1 && strstr(why, "fewer than 5 fields") != NULL);
	CHECK(schedule_parse_line("0 16 0 z 0", &m, &why) == -1 && strstr(why, "FLAGS") != NULL);

	/* whole files */
	const char *good = "# video: frame 0 in 2 fragments, frame 1 in 1\n\n0 1200 0 - 0\n0 300 0 - 0\n"
			   "33333333 900 2 u 40\n33333333 16 1 - 0 # equal offsets are fine\n50000000 100 2 - 0";
	CHECK(read_text(good, strlen(good), &s, err, sizeof err) == 0);
	CHECK(s.n == 5 && s.max_size == 1200 && s.max_stream == 2 && s.max_stream_line == 5 && s.any_lifetime);
	CHECK(s.m[2].offset_ns == 33333333 && s.m[2].unordered && s.m[2].lifetime_ms == 40 && s.m[3].size == 16 && s.m[4].offset_ns == 50000000);
	schedule_free(&s); CHECK(s.m == NULL && s.n == 0);
	CHECK(read_text("", 0, &s, err, sizeof err) == 0 && s.n == 0 && s.max_size == 0 && !s.any_lifetime); schedule_free(&s);
	CHECK(read_text("0 16 0 - 0\n", 11, &s, err, sizeof err) == 0 && s.n == 1 && !s.any_lifetime); schedule_free(&s);
	const char *down = "0 16 0 - 0\n# c\n10 16 0 - 0\n9 16 0 - 0\n";
	CHECK(read_text(down, strlen(down), &s, err, sizeof err) == -1 && strstr(err, "sched.txt:4: ") == err && strstr(err, "decrease") != NULL);
	CHECK(s.m == NULL && s.n == 0); /* freed on failure */
	const char *badline = "0 16 0 - 0\n0 16 0 - 0\n0 16 0 y 0\n";
	CHECK(read_text(badline, strlen(badline), &s, err, sizeof err) == -1 && strncmp(err, "sched.txt:3: bad FLAGS", 22) == 0);
	printf("schedule error: %s\n", err);
	const char nul[] = "0 16 0 - 0\n0 16\0 0 - 0\n";
	CHECK(read_text(nul, sizeof nul - 1, &s, err, sizeof err) == -1 && strncmp(err, "sched.txt:2: NUL", 16) == 0);
	/* line length: 1024 characters are fine, 1025 are not */
	char longl[1100]; memset(longl, ' ', sizeof longl); memcpy(longl, "0 16 0 - 0", 10);
	longl[1024] = '\n'; CHECK(read_text(longl, 1025, &s, err, sizeof err) == 0 && s.n == 1); schedule_free(&s);
	CHECK(read_text(longl, 1024, &s, err, sizeof err) == 0 && s.n == 1); schedule_free(&s); /* no newline at EOF */
	longl[1024] = ' '; longl[1025] = '\n';
	CHECK(read_text(longl, 1026, &s, err, sizeof err) == -1 && strstr(err, "sched.txt:1: line longer") == err);
	CHECK(read_text(longl, 1025, &s, err, sizeof err) == -1); /* 1025 without a newline */
	/* the limits: 10 million lines, 2 million messages */
	size_t nl = (size_t)SCHEDULE_LINES_MAX + 1; char *big = malloc(nl); assert(big != NULL); memset(big, '\n', nl);
	CHECK(read_text(big, nl - 1, &s, err, sizeof err) == 0 && s.n == 0); schedule_free(&s);
	CHECK(read_text(big, nl, &s, err, sizeof err) == -1 && strcmp(err, "sched.txt: more than 10000000 lines") == 0);
	free(big);
	const char *one = "0 16 0 - 0\n"; size_t ol = strlen(one), nm = (size_t)SCHEDULE_MESSAGES_MAX + 1;
	big = malloc(ol * nm); assert(big != NULL); for (size_t i = 0; i < nm; i++) memcpy(big + i * ol, one, ol);
	CHECK(read_text(big, ol * (nm - 1), &s, err, sizeof err) == 0 && s.n == SCHEDULE_MESSAGES_MAX); schedule_free(&s);
	CHECK(read_text(big, ol * nm, &s, err, sizeof err) == -1 && strcmp(err, "sched.txt:2000001: more than 2000000 messages") == 0);
	free(big);
	/* schedule_load: a missing file */
	CHECK(schedule_load(&s, "/nonexistent/sched", err, sizeof err) == -1 && strstr(err, "/nonexistent/sched: ") == err);
	puts("schedule ok");
}

/* Client command line: the arrival word and the rate/seed rules that
 * depend on it.  Usage errors print to stderr; only the status matters. */
static int parse_client(const char *arrival, const char *rate, bool seed, struct config *cfg)
{
	const char *argv[32]; int n = 0;
	argv[n++] = "sctpbench-agent"; argv[n++] = "client";
	argv[n++] = "--local"; argv[n++] = "198.18.0.1"; argv[n++] = "--peer"; argv[n++] = "198.18.0.2";
	argv[n++] = "--port"; argv[n++] = "5000"; argv[n++] = "--records"; argv[n++] = "/dev/null";
	argv[n++] = "--size"; argv[n++] = "1000"; argv[n++] = "--duration"; argv[n++] = "10000";
	if (arrival) { argv[n++] = "--arrival"; argv[n++] = arrival; }
	if (rate) { argv[n++] = "--rate"; argv[n++] = rate; }
	if (seed) { argv[n++] = "--seed"; argv[n++] = "3"; }
	argv[n] = NULL;
	return cli_parse(n, (char **)argv, cfg);
}

static int parse_schedule(const char *file, const char *arrival, bool extras, struct config *cfg)
{
	const char *argv[40]; int n = 0;
	argv[n++] = "sctpbench-agent"; argv[n++] = "client";
	argv[n++] = "--local"; argv[n++] = "198.18.0.1"; argv[n++] = "--peer"; argv[n++] = "198.18.0.2";
	argv[n++] = "--port"; argv[n++] = "5000"; argv[n++] = "--records"; argv[n++] = "/dev/null"; argv[n++] = "--duration"; argv[n++] = "100";
	if (arrival) { argv[n++] = "--arrival"; argv[n++] = arrival; }
	if (file) { argv[n++] = "--schedule"; argv[n++] = file; }
	if (extras) {
		const char *x[] = { "--size", "1000", "--rate", "50", "--seed", "1", "--send-streams", "2", "--unordered" };
		for (size_t i = 0; i < sizeof x / sizeof x[0]; i++) argv[n++] = x[i];
	}
	argv[n] = NULL;
	return cli_parse(n, (char **)argv, cfg);
}

static void test_cli(void)
{
	struct config cfg;
	CHECK(parse_client("periodic", "50", true, &cfg) == 0 && cfg.arrival == ARRIVAL_PERIODIC && cfg.rate == 50);
	CHECK(parse_client("poisson", "0.5", true, &cfg) == 0 && cfg.arrival == ARRIVAL_POISSON);
	CHECK(parse_client("saturate", "50", true, &cfg) == 0 && cfg.arrival == ARRIVAL_SATURATE && cfg.rate_text != NULL);
	CHECK(parse_client("saturate", "0", true, &cfg) == 0 && cfg.arrival == ARRIVAL_SATURATE && cfg.rate == 0);
	CHECK(parse_client("saturate", NULL, true, &cfg) == 0 && cfg.rate_text == NULL);
	/* The rejected ones print usage text: keep it out of the output. */
	fflush(stderr); int saved = dup(2), devnull = open("/dev/null", O_WRONLY); assert(saved >= 0 && devnull >= 0); dup2(devnull, 2);
	CHECK(parse_client("saturate", NULL, false, &cfg) == 2);   /* --seed still required */
	CHECK(parse_client("saturate", "-0", true, &cfg) == 2);
	CHECK(parse_client("saturate", "0.0001", true, &cfg) == 2);
	CHECK(parse_client("periodic", "0", true, &cfg) == 2);     /* 0 only with saturate */
	CHECK(parse_client("poisson", "0", true, &cfg) == 2);
	CHECK(parse_client("periodic", NULL, true, &cfg) == 2);    /* --rate required */
	CHECK(parse_client("bulk", "1", true, &cfg) == 2);
	CHECK(parse_client(NULL, "1", true, &cfg) == 2);
	/* --arrival schedule: the file instead of --size/--rate/--seed */
	const char *sched = "/tmp/unit-sched.txt", *badsched = "/tmp/unit-sched-bad.txt";
	FILE *f = fopen(sched, "w"); assert(f != NULL); fputs("0 100 0 - 0\n1000 200 3 u 50\n", f); fclose(f);
	f = fopen(badsched, "w"); assert(f != NULL); fputs("0 100 0 - 0\n1000 200 3 u\n", f); fclose(f);
	CHECK(parse_schedule(sched, "schedule", false, &cfg) == 0 && cfg.arrival == ARRIVAL_SCHEDULE && cfg.schedule.n == 2 &&
	      cfg.schedule.max_size == 200 && cfg.schedule.any_lifetime && strcmp(cfg.schedule_path, sched) == 0);
	cli_free(&cfg); CHECK(cfg.schedule.m == NULL);
	CHECK(parse_schedule(sched, "schedule", true, &cfg) == 0 && cfg.schedule.n == 2); /* ignored options accepted */
	cli_free(&cfg);
	CHECK(parse_schedule(badsched, "schedule", false, &cfg) == 2 && cfg.schedule.m == NULL);
	CHECK(parse_schedule("/nonexistent/sched", "schedule", false, &cfg) == 2);
	CHECK(parse_schedule(NULL, "schedule", false, &cfg) == 2);   /* --schedule required */
	CHECK(parse_schedule(sched, "periodic", true, &cfg) == 2);   /* --schedule only with schedule */
	CHECK(parse_schedule(sched, NULL, true, &cfg) == 2);
	const char *srv[] = { "sctpbench-agent", "server", "--local", "198.18.0.1", "--port", "1", "--records", "/dev/null",
			      "--schedule", sched, NULL };
	CHECK(cli_parse(10, (char **)srv, &cfg) == 2);             /* client only */
	fflush(stderr); dup2(saved, 2); close(saved); close(devnull);
	unlink(sched); unlink(badsched);
	puts("cli ok");
}

int main(void)
{
	struct records r;
	const char *path = "/tmp/unit.rec";
	CHECK(records_open(&r, path) == 0);
	test_control(); test_addr(); test_notify(&r); test_arrival(); test_schedule(); test_cli();
	struct sockaddr_storage a; addr_parse("198.18.0.1", 1, &a);
	records_meta(&r, "k", "v"); records_tx(&r, 1, 2, 3, 4, 5, 0); records_tx(&r, 6, 7, 0, 4, 8, RECORDS_NO_TIME); records_rx(&r, 1, false, 0, false, 0, 9, 0, &a);
	records_rx(&r, 1, true, 2, true, 70000, 9, 3, &a); records_path(&r, 1, &a, "ACTIVE", 1, 2, 3, 4, true);
	records_cc(&r, 1, &a, 4380, 65536, 1452, 7);
	records_event(&r, 1, "stop", NULL); records_event(&r, 1, "start", "5"); records_sendfail(&r, 1, 2, false, 0);
	records_flush_if_due(&r, INT64_MAX);
	records_end(&r, 9, 9);
	CHECK(records_close(&r) == 0);
	char cmd[128]; snprintf(cmd, sizeof cmd, "cat %s", path); fflush(stdout); CHECK(system(cmd) == 0);
	CHECK(records_open(&r, "/nonexistent/x") != 0);
	printf("%s (%d failures)\n", fails ? "FAILED" : "ALL OK", fails);
	return fails != 0;
}
