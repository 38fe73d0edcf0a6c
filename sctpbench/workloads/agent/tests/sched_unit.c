/* Host-side unit checks of the multipath schedulers (common/sched.c): each
 * scheduler's choices against scripted path states. */
#include "../common/sched.h"

#include <stdio.h>
#include <string.h>

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

#define MS INT64_C(1000000)

static void start(struct sched_state *s, const char *text, size_t n)
{
	struct sched_params p;
	char err[200] = "";

	if (sched_parse(text, &p, err, sizeof(err)) != 0 || sched_init(s, &p, n) != 0) {
		fprintf(stderr, "FAIL start '%s': %s\n", text, err);
		fails++;
	}
}

/* Chooses and commits, as the runner does after a successful send. */
static int send1(struct sched_state *s, int64_t now, const struct sched_path *x, unsigned stream,
		 bool unordered, uint64_t size, struct sched_choice *c)
{
	sched_choose(s, now, x, stream, unordered, size, c);
	sched_commit(s, now, x, stream, unordered, size, c);
	return c->path;
}

static void test_parse(void)
{
	struct sched_params p;
	char err[200];

	CHECK(sched_parse("primary", &p, err, sizeof err) == 0 && p.kind == SCHED_PRIMARY && p.hz == 1000);
	CHECK(sched_parse("round-robin", &p, err, sizeof err) == 0 && p.kind == SCHED_ROUND_ROBIN);
	CHECK(sched_parse("static-stream", &p, err, sizeof err) == 0 && p.kind == SCHED_STATIC_STREAM);
	CHECK(sched_parse("dynamic-path:hz=100", &p, err, sizeof err) == 0 && p.hz == 100);
	CHECK(sched_parse("stream-aware:margin=2.5,hz=250", &p, err, sizeof err) == 0 &&
	      p.kind == SCHED_STREAM_AWARE && p.margin_ms == 2.5 && p.hz == 250);
	CHECK(strcmp(p.text, "stream-aware:margin=2.5,hz=250") == 0);
	CHECK(sched_parse("fastest", &p, err, sizeof err) != 0 && strstr(err, "unknown scheduler") != NULL);
	CHECK(sched_parse("round-robin:hz=100", &p, err, sizeof err) != 0 && strstr(err, "hz") != NULL);
	CHECK(sched_parse("dynamic-path:margin=1", &p, err, sizeof err) != 0);
	CHECK(sched_parse("stream-aware:margin=-1", &p, err, sizeof err) != 0);
	CHECK(sched_parse("stream-aware:margin", &p, err, sizeof err) != 0);
	CHECK(sched_parse("dynamic-path:hz=0", &p, err, sizeof err) != 0);
	CHECK(sched_parse("dynamic-path:", &p, err, sizeof err) != 0);
}

static void test_round_robin(void)
{
	struct sched_state s;
	struct sched_choice c;
	struct sched_path x[3] = {
		{ .known = true, .active = true, .srtt_ms = 20, .rto_ms = 200, .cwnd = 4380 },
		{ .known = true, .active = true, .srtt_ms = 80, .rto_ms = 300, .cwnd = 4380 },
		{ .known = true, .active = true, .srtt_ms = 20, .rto_ms = 200, .cwnd = 4380 },
	};

	start(&s, "round-robin", 3);
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 0);
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 1);
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 2);
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 0);
	x[1].active = false; /* skipped while not active */
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 2);
	x[0].active = x[2].active = false;
	sched_choose(&s, 0, x, 0, false, 200, &c);
	CHECK(c.path == -1 && strcmp(c.reason, "no active path") == 0);
	sched_free(&s);
}

static void test_static_stream(void)
{
	struct sched_state s;
	struct sched_choice c;
	struct sched_path x[2] = {
		{ .known = true, .active = true, .srtt_ms = 20, .rto_ms = 200, .cwnd = 4380 },
		{ .known = true, .active = true, .srtt_ms = 80, .rto_ms = 300, .cwnd = 4380 },
	};

	start(&s, "static-stream", 2);
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 0);
	CHECK(send1(&s, 0, x, 1, false, 200, &c) == 1);
	CHECK(send1(&s, 0, x, 2, false, 200, &c) == 0);
	/* however loaded path 1 is, stream 3 stays on it */
	for (int i = 0; i < 50; i++)
		send1(&s, 0, x, 1, false, 1000, &c);
	CHECK(send1(&s, 0, x, 3, false, 200, &c) == 1 && strstr(c.reason, "maps to 1") != NULL);
	x[1].active = false;
	CHECK(send1(&s, 0, x, 3, false, 200, &c) == 0 && strstr(c.reason, "not active") != NULL);
	sched_free(&s);
}

static void test_dynamic_path(void)
{
	struct sched_state s;
	struct sched_choice c;
	/* path 0: 20 ms SRTT, cwnd 4380: 4380 bytes per 20 ms; path 1: 60 ms */
	struct sched_path x[2] = {
		{ .known = true, .active = true, .srtt_ms = 20, .rto_ms = 200, .cwnd = 4380 },
		{ .known = true, .active = true, .srtt_ms = 60, .rto_ms = 300, .cwnd = 4380 },
	};
	int on0 = 0, first1 = -1;

	start(&s, "dynamic-path", 2);
	CHECK(send1(&s, 0, x, 0, false, 1000, &c) == 0);
	/* EDT on an idle path: size/rate + srtt/2 = 1000*20/4380 + 10 */
	CHECK(c.edt_ms[0] > 14.5 && c.edt_ms[0] < 14.6 && c.queued_bytes[0] == 0);
	/* a burst at one instant fills path 0's queue until path 1 is sooner */
	for (int i = 1; i < 20; i++) {
		int p = send1(&s, 0, x, 0, false, 1000, &c);

		on0 += p == 0;
		if (p == 1 && first1 < 0) {
			first1 = i;
			/* the queue the choice saw: i-th message, i-1 ahead on path 0 */
			CHECK(c.queued_bytes[0] > 999.0 * i - 1);
		}
	}
	CHECK(first1 > 1 && on0 > 10);
	/* an unmeasured path counts its RTO: never chosen over a measured one */
	sched_free(&s);
	start(&s, "dynamic-path", 2);
	x[0].srtt_ms = 0;
	CHECK(send1(&s, 0, x, 0, false, 200, &c) == 1 && c.srtt_ms[0] == 200);
	sched_free(&s);
}

static void test_stream_aware(void)
{
	struct sched_state s;
	struct sched_choice c;
	/* path 0: 20 ms SRTT; path 1: 100 ms; 4380-byte windows */
	struct sched_path x[2] = {
		{ .known = true, .active = false, .srtt_ms = 20, .rto_ms = 200, .cwnd = 4380 },
		{ .known = true, .active = true, .srtt_ms = 100, .rto_ms = 300, .cwnd = 4380 },
	};

	start(&s, "stream-aware", 2);
	/* stream 1's first message can only take the slow path (0 inactive):
	 * delivered at 200*100/4380 + 50 = 54.6 ms */
	CHECK(send1(&s, 0, x, 1, false, 200, &c) == 1);
	x[0].active = true;
	/* 1 ms later: on path 0 it arrives at 11.9 ms and waits for its
	 * predecessor (53.6 ms from now); on path 1 it comes at 58.1: moving
	 * delivers it 4.6 ms earlier, so with no margin it moves */
	sched_choose(&s, 1 * MS, x, 1, false, 200, &c);
	CHECK(c.path == 0 && strstr(c.reason, "move from 1") != NULL);
	CHECK(c.eff_ms[0] > 53.5 && c.eff_ms[0] < 53.6 && c.eff_ms[1] > 58.0 && c.eff_ms[1] < 58.2);
	/* unordered: nothing to wait for, the least EDT */
	sched_choose(&s, 1 * MS, x, 1, true, 200, &c);
	CHECK(c.path == 0 && c.eff_ms[0] < 11);
	sched_free(&s);

	/* margin 5: 58.1 is within 5 ms of 53.6, the stream keeps its path */
	x[0].active = false;
	start(&s, "stream-aware:margin=5", 2);
	CHECK(send1(&s, 0, x, 1, false, 200, &c) == 1);
	x[0].active = true;
	sched_choose(&s, 1 * MS, x, 1, false, 200, &c);
	CHECK(c.path == 1 && strstr(c.reason, "stream path") != NULL);
	/* after the predecessor's delivery the fast path wins by far more */
	CHECK(send1(&s, 100 * MS, x, 1, false, 200, &c) == 0);
	sched_free(&s);
}

/* Three paths: the stream's message must wait for its predecessor on the
 * slow path anyway; both faster paths deliver it equally early, and
 * stream-aware takes the slower of the two, keeping the fastest free, where
 * dynamic-path takes the fastest. */
static void test_stream_aware_leaves_fast_path(void)
{
	struct sched_state s, d;
	struct sched_choice c;
	struct sched_path x[3] = {
		{ .known = true, .active = true, .srtt_ms = 10, .rto_ms = 200, .cwnd = 4380 },
		{ .known = true, .active = true, .srtt_ms = 30, .rto_ms = 200, .cwnd = 4380 },
		{ .known = true, .active = false, .srtt_ms = 200, .rto_ms = 400, .cwnd = 4380 },
	};
	struct sched_path only2[3];

	memcpy(only2, x, sizeof(x));
	only2[0].active = only2[1].active = false;
	only2[2].active = true;
	start(&s, "stream-aware", 3);
	start(&d, "dynamic-path", 3);
	CHECK(send1(&s, 0, only2, 4, false, 200, &c) == 2);
	CHECK(send1(&d, 0, only2, 4, false, 200, &c) == 2);
	sched_choose(&s, 1 * MS, x, 4, false, 200, &c);
	CHECK(c.path == 1 && c.eff_ms[0] == c.eff_ms[1]);
	sched_choose(&d, 1 * MS, x, 4, false, 200, &c);
	CHECK(c.path == 0);
	sched_free(&s);
	sched_free(&d);
}

int main(void)
{
	test_parse();
	test_round_robin();
	test_static_stream();
	test_dynamic_path();
	test_stream_aware();
	test_stream_aware_leaves_fast_path();
	if (fails) {
		fprintf(stderr, "%d failures\n", fails);
		return 1;
	}
	puts("sched-unit: ok");
	return 0;
}
