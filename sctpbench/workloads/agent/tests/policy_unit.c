/* Host-side unit checks of the path-selection policies (common/policy.c): each
 * policy's decisions on synthetic per-path sample sequences. */
#include "../common/policy.h"
#include "../common/sigtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "FAIL %s:%d %s\n", __FILE__, __LINE__, #c); fails++; } } while (0)

#define MS INT64_C(1000000)

static void params(const char *text, struct policy_params *p)
{
	char err[200] = "";

	if (policy_parse(text, p, err, sizeof(err)) != 0) {
		fprintf(stderr, "FAIL parse '%s': %s\n", text, err);
		fails++;
	}
}

/* Two paths, slot 0 and slot 1, both active. */
static void step2(struct policy_state *s, int64_t t, double srtt0, double srtt1, int primary,
		  struct policy_decision *d)
{
	struct policy_sample x[2] = {
		{ .slot = 0, .srtt_ms = srtt0, .rto_ms = 200, .active = true },
		{ .slot = 1, .srtt_ms = srtt1, .rto_ms = 200, .active = true },
	};

	policy_step(s, t, x, 2, primary, d);
}

static void test_parse(void)
{
	struct policy_params p;
	char err[200];

	CHECK(policy_parse("static", &p, err, sizeof err) == 0 && p.kind == POLICY_STATIC);
	CHECK(policy_parse("delay-centric", &p, err, sizeof err) == 0 && p.kind == POLICY_DELAY_CENTRIC &&
	      p.hysteresis_ms == 10 && p.guard_hi_ms == 0 && p.hz == 1000);
	CHECK(policy_parse("delay-centric:hysteresis=5,guard=1000-4000,guard_hb=30,seed=7", &p, err, sizeof err) == 0 &&
	      p.hysteresis_ms == 5 && p.guard_lo_ms == 1000 && p.guard_hi_ms == 4000 && p.guard_hb_ms == 30 &&
	      p.have_seed && p.seed == 7);
	CHECK(strcmp(p.text, "delay-centric:hysteresis=5,guard=1000-4000,guard_hb=30,seed=7") == 0);
	CHECK(policy_parse("delay-centric:guard=500", &p, err, sizeof err) == 0 && p.guard_lo_ms == 500 && p.guard_hi_ms == 500);
	CHECK(policy_parse("predictive", &p, err, sizeof err) == 0 && p.short_alpha == 0.667 && p.long_alpha == 0.154 &&
	      p.threshold_ms == 150 && !p.original);
	CHECK(policy_parse("predictive:form=original,threshold=70", &p, err, sizeof err) == 0 && p.original && p.threshold_ms == 70);
	CHECK(policy_parse("rtt-ratio", &p, err, sizeof err) == 0 && p.alpha_conservative == 9 &&
	      p.alpha_aggressive == 3 && p.beta_ms == 1000);
	/* rejections */
	CHECK(policy_parse("fastest", &p, err, sizeof err) != 0 && strstr(err, "unknown policy") != NULL);
	CHECK(policy_parse("static:hysteresis=1", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:alpha_c=2", &p, err, sizeof err) != 0 && strstr(err, "alpha_c") != NULL);
	CHECK(policy_parse("delay-centric:hysteresis=-1", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:hysteresis", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:guard=4000-1000", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:guard=1x", &p, err, sizeof err) != 0);
	CHECK(policy_parse("predictive:short=0.1,long=0.5", &p, err, sizeof err) != 0);
	CHECK(policy_parse("predictive:form=sideways", &p, err, sizeof err) != 0);
	/* the seed's inverted pair (Fig. 4) is a valid configuration, not a mistake */
	CHECK(policy_parse("rtt-ratio:alpha_c=3,alpha_a=9", &p, err, sizeof err) == 0 &&
	      p.alpha_conservative == 3 && p.alpha_aggressive == 9);
	CHECK(policy_parse("rtt-ratio:alpha_a=0.5", &p, err, sizeof err) != 0);
	puts("policy parse ok");
}

static void test_static(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;

	params("static", &p);
	policy_init(&s, &p);
	step2(&s, 0, 500, 10, 0, &d);
	CHECK(d.action == POLICY_STAY && d.hb_slot == -1);
	/* even a dead primary: the stack alone handles it */
	struct policy_sample x[2] = { { 0, 500, 200, false, false, 0 }, { 1, 10, 200, true, false, 0 } };
	policy_step(&s, 1, x, 2, 0, &d);
	CHECK(d.action == POLICY_STAY);
	puts("policy static ok");
}

static void test_delay_centric(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;

	params("delay-centric", &p);
	policy_init(&s, &p);
	/* within the hysteresis (a gap of exactly 10 ms is not more than 10) */
	step2(&s, 0, 20, 20, 0, &d);
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1 * MS, 25, 15, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* beyond it */
	step2(&s, 2 * MS, 25.5, 15, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && d.hb_slot == -1);
	CHECK(strstr(d.reason, "srtt 25.5>15.0+10") != NULL);
	/* on the new primary the other path is worse: stay */
	step2(&s, 3 * MS, 25.5, 15, 1, &d);
	CHECK(d.action == POLICY_STAY && d.reason[0] == '\0');
	/* unmeasured (srtt 0) and inactive paths are never candidates */
	struct policy_sample x[3] = { { 0, 100, 300, true, false, 0 }, { 1, 0, 3000, true, false, 0 }, { 2, 5, 200, false, false, 0 } };
	policy_step(&s, 4 * MS, x, 3, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* a failed primary: any usable active path */
	struct policy_sample y[2] = { { 0, 10, 300, false, false, 0 }, { 1, 40, 200, true, false, 0 } };
	policy_step(&s, 5 * MS, y, 2, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && strcmp(d.reason, "primary-inactive") == 0);
	/* three paths: the lowest SRTT wins */
	struct policy_sample z[3] = { { 0, 80, 300, true, false, 0 }, { 1, 40, 200, true, false, 0 }, { 2, 30, 200, true, false, 0 } };
	policy_step(&s, 6 * MS, z, 3, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 2);
	/* slots out of range are ignored, not indexed */
	struct policy_sample bad[2] = { { -1, 1, 1, true, false, 0 }, { POLICY_MAX_PATHS, 1, 1, true, false, 0 } };
	policy_step(&s, 7 * MS, bad, 2, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* hysteresis parameter */
	params("delay-centric:hysteresis=0", &p);
	policy_init(&s, &p);
	step2(&s, 0, 20.5, 20, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1);
	puts("policy delay-centric ok");
}

static void test_guard(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;
	int64_t seen_lo = INT64_MAX, seen_hi = 0;

	/* fixed guard, confirmed */
	params("delay-centric:guard=1000", &p);
	policy_init(&s, &p);
	step2(&s, 0, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD && d.to == 1 && d.hb_slot == 1 && d.hb_ms == 20 && !d.hb_restore);
	CHECK(strstr(d.reason, "guard 1000ms") != NULL);
	step2(&s, 500 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_STAY && d.hb_slot == -1);
	step2(&s, 999 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1000 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && d.hb_slot == 1 && d.hb_restore);
	/* fixed guard, cancelled: the gap closed during the guard */
	policy_init(&s, &p);
	step2(&s, 0, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD);
	step2(&s, 1000 * MS, 15, 10, 0, &d);
	CHECK(d.action == POLICY_CANCEL && d.to == 1 && d.hb_slot == 1 && d.hb_restore);
	/* and afterwards the rule is evaluated afresh */
	step2(&s, 1001 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD);
	/* guard_hb=0 leaves heartbeats alone */
	params("delay-centric:guard=100,guard_hb=0", &p);
	policy_init(&s, &p);
	step2(&s, 0, 60, 10, 0, &d);
	CHECK(d.action == POLICY_GUARD && d.hb_slot == -1);
	step2(&s, 100 * MS, 60, 10, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.hb_slot == -1);
	/* random guard in [1000, 4000] ms, seeded: reproducible and in range */
	params("delay-centric:guard=1000-4000,seed=42", &p);
	policy_init(&s, &p);
	for (int rep = 0; rep < 50; rep++) {
		int64_t t0 = rep * 5000 * MS, end;

		step2(&s, t0, 60, 10, 0, &d);
		CHECK(d.action == POLICY_GUARD);
		end = s.guard_end_ns - t0;
		CHECK(end >= 1000 * MS && end <= 4000 * MS);
		if (end < seen_lo) seen_lo = end;
		if (end > seen_hi) seen_hi = end;
		step2(&s, t0 + end, 15, 10, 0, &d); /* cancel, next round draws again */
		CHECK(d.action == POLICY_CANCEL);
	}
	CHECK(seen_hi > seen_lo); /* it does vary */
	{
		struct policy_state a, b;

		policy_init(&a, &p);
		policy_init(&b, &p);
		step2(&a, 0, 60, 10, 0, &d);
		step2(&b, 0, 60, 10, 0, &d);
		CHECK(a.guard_end_ns == b.guard_end_ns); /* same seed, same draw */
	}
	puts("policy guard ok");
}

static void test_predictive(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;
	int t, switched_at = -1;

	/* Modified form: the primary's delay climbs from 100 ms towards 300 ms
	 * while the alternate sits at 120 ms.  No switch while the primary's
	 * short average is below the threshold; a switch once it is above it,
	 * rising faster than the alternate's, and above the alternate's. */
	params("predictive", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++) {
		step2(&s, t * 20 * MS, 100, 120, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	/* short avg starts at the level, long avg too: S - L == 0 */
	CHECK(s.path[0].ema_short > 99.9 && s.path[0].ema_short < 100.1);
	for (; t < 60 && switched_at < 0; t++) {
		double srtt = 100 + (t - 19) * 10.0;

		step2(&s, t * 20 * MS, srtt, 120, 0, &d);
		if (d.action == POLICY_SWITCH)
			switched_at = t;
		else
			CHECK(d.action == POLICY_STAY);
	}
	CHECK(switched_at > 0 && d.to == 1);
	/* at the crossing: S_p above threshold, S_p - L_p > S_a - L_a, S_p > S_a */
	CHECK(s.path[0].ema_short > 150 && s.path[0].ema_short > s.path[0].ema_long);
	CHECK(strstr(d.reason, "macd") != NULL);
	/* and not a round earlier: the short average only just crossed 150 */
	{
		double srtt_prev = 100 + (switched_at - 1 - 19) * 10.0;
		CHECK(srtt_prev < 160);
	}

	/* A high but falling primary: the original form needs S > L (rising)
	 * and stays; a high steady primary stays too (S == L, no trend). */
	params("predictive:form=original", &p);
	policy_init(&s, &p);
	for (t = 0; t < 30; t++) {
		step2(&s, t * 20 * MS, 400 - t * 5.0, 50, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	policy_init(&s, &p);
	for (t = 0; t < 30; t++) {
		step2(&s, t * 20 * MS, 300, 50, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	/* then it rises: the original form switches at the MACD crossing */
	step2(&s, 30 * 20 * MS, 330, 50, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1);

	/* Modified form: the alternate rises even faster than the primary -> stay */
	params("predictive:threshold=100", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++)
		step2(&s, t * 20 * MS, 200, 100, 0, &d);
	step2(&s, 20 * 20 * MS, 220, 180, 0, &d);
	CHECK(d.action == POLICY_STAY); /* trend_p (~13) < trend_a (~52) */
	/* while the original form, blind to the alternate's trend, switches */
	params("predictive:threshold=100,form=original", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++)
		step2(&s, t * 20 * MS, 200, 100, 0, &d);
	step2(&s, 20 * 20 * MS, 220, 180, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1);

	/* Three paths: the one with the lowest predicted SRTT is chosen */
	params("predictive:threshold=100", &p);
	policy_init(&s, &p);
	for (t = 0; t < 20; t++) {
		struct policy_sample x[3] = { { 0, 200, 300, true, false, 0 }, { 1, 150, 300, true, false, 0 }, { 2, 120, 300, true, false, 0 } };
		policy_step(&s, t * 20 * MS, x, 3, 0, &d);
	}
	{
		struct policy_sample x[3] = { { 0, 260, 300, true, false, 0 }, { 1, 150, 300, true, false, 0 }, { 2, 120, 300, true, false, 0 } };
		policy_step(&s, 20 * 20 * MS, x, 3, 0, &d);
		CHECK(d.action == POLICY_SWITCH && d.to == 2);
	}
	/* EMA lengths as parameters: a sluggish short average needs longer */
	{
		int fast = -1, slow = -1;

		params("predictive:short=0.9,long=0.1", &p);
		policy_init(&s, &p);
		for (t = 0; t < 40 && fast < 0; t++) {
			step2(&s, t * 20 * MS, t < 5 ? 100 : 300, 120, 0, &d);
			if (d.action == POLICY_SWITCH) fast = t;
		}
		params("predictive:short=0.2,long=0.1", &p);
		policy_init(&s, &p);
		for (t = 0; t < 40 && slow < 0; t++) {
			step2(&s, t * 20 * MS, t < 5 ? 100 : 300, 120, 0, &d);
			if (d.action == POLICY_SWITCH) slow = t;
		}
		CHECK(fast == 5 && slow > fast);
	}
	/* predictive with a guard, confirmed after it */
	params("predictive:guard=200", &p);
	policy_init(&s, &p);
	for (t = 0; t < 5; t++)
		step2(&s, t * 20 * MS, 100, 120, 0, &d);
	step2(&s, 5 * 20 * MS, 400, 120, 0, &d);
	CHECK(d.action == POLICY_GUARD && d.to == 1 && d.hb_slot == 1);
	step2(&s, 5 * 20 * MS + 200 * MS, 400, 120, 0, &d);
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && d.hb_restore);
	puts("policy predictive ok");
}

static void test_rtt_ratio(void)
{
	struct policy_params p;
	struct policy_state s;
	struct policy_decision d;

	/* the seed's values: alpha_c 9 below beta 1 s, alpha_a 3 above */
	params("rtt-ratio", &p);
	policy_init(&s, &p);
	/* small gap (< beta): conservative alpha 9 */
	step2(&s, 0, 800, 100, 0, &d);   /* 800 > 9*100? no */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1, 950, 100, 0, &d);   /* gap 850 < 1000, 950 > 900 */
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && strstr(d.reason, "conservative") != NULL);
	/* large gap (> beta): aggressive alpha 3 */
	step2(&s, 2, 2500, 900, 0, &d);  /* gap 1600, 2500 < 2700 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 3, 3000, 900, 0, &d);  /* gap 2100, 3000 > 2700 */
	CHECK(d.action == POLICY_SWITCH && d.to == 1 && strstr(d.reason, "aggressive") != NULL);
	CHECK(strstr(d.reason, "3*900.0") != NULL);
	/* the same ratio with a small absolute gap stays (conservative) */
	step2(&s, 4, 40, 10, 0, &d);
	CHECK(d.action == POLICY_STAY);
	/* testbed-sized parameters */
	params("rtt-ratio:alpha_c=2,alpha_a=1.2,beta=30", &p);
	policy_init(&s, &p);
	step2(&s, 0, 35, 20, 0, &d);     /* gap 15 < 30: 35 < 40 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1, 41, 22, 0, &d);     /* gap 19 < 30: 41 < 44 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 2, 45, 22, 0, &d);     /* gap 23 < 30: 45 > 44 */
	CHECK(d.action == POLICY_SWITCH);
	step2(&s, 3, 100, 60, 0, &d);    /* gap 40 > 30: 100 > 72 */
	CHECK(d.action == POLICY_SWITCH && strstr(d.reason, "aggressive") != NULL);
	step2(&s, 4, 100, 90, 0, &d);    /* gap 10 < 30: 100 < 180 */
	CHECK(d.action == POLICY_STAY);
	/* the seed's inverted pair (Fig. 4): alpha_c 3 below beta, alpha_a 9 above */
	params("rtt-ratio:alpha_c=3,alpha_a=9,beta=1000", &p);
	policy_init(&s, &p);
	step2(&s, 0, 400, 100, 0, &d);   /* gap 300 < 1000: 400 > 300 */
	CHECK(d.action == POLICY_SWITCH && strstr(d.reason, "conservative") != NULL);
	policy_init(&s, &p);
	step2(&s, 0, 5000, 900, 0, &d);  /* gap 4100 > 1000: 5000 < 8100 */
	CHECK(d.action == POLICY_STAY);
	step2(&s, 1, 9000, 900, 0, &d);  /* gap 8100 > 1000: 9000 > 8100 */
	CHECK(d.action == POLICY_SWITCH && strstr(d.reason, "aggressive") != NULL);
	puts("policy rtt-ratio ok");
}

/* A trace from text, as the agent reads --signal FILE. */
static int trace_from(const char *text, struct sigtrace *t, char *err, size_t errlen)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int rc;

	if (f == NULL)
		return -1;
	rc = sigtrace_read(t, f, "sig", err, errlen);
	fclose(f);
	return rc;
}

static void test_sigtrace(void)
{
	struct sigtrace t;
	struct sockaddr_storage a, b, c;
	char err[300];
	double v = 0;

	addr_parse("198.18.0.2", 5000, &a);
	addr_parse("198.18.1.2", 0, &b);
	addr_parse("2001:2::2", 0, &c);
	CHECK(trace_from("# OFFSET_NS ADDR DBM\n"
			 "-1000000 198.18.0.2 -60\n"
			 "\n"
			 "0 198.18.1.2 -85.5   # B\n"
			 "2000000000\t198.18.0.2\t-82\r\n"
			 "2000000000 2001:2::2 -70\n", &t, err, sizeof err) == 0);
	CHECK(t.points == 4 && t.n_series == 3);
	/* before an address's first point: no value */
	CHECK(!sigtrace_at(&t, &a, -2000000, &v));
	CHECK(sigtrace_at(&t, &a, -1000000, &v) && v == -60);
	CHECK(sigtrace_at(&t, &a, 1999999999, &v) && v == -60);
	CHECK(sigtrace_at(&t, &a, 2000000000, &v) && v == -82);
	CHECK(sigtrace_at(&t, &a, INT64_C(9000000000), &v) && v == -82);
	CHECK(!sigtrace_at(&t, &b, -1, &v));
	CHECK(sigtrace_at(&t, &b, 0, &v) && v == -85.5);
	CHECK(sigtrace_at(&t, &c, 2000000000, &v) && v == -70);
	addr_parse("198.18.2.2", 0, &c);
	CHECK(!sigtrace_at(&t, &c, 2000000000, &v));
	sigtrace_free(&t);
	/* refusals name the line */
	CHECK(trace_from("0 198.18.0.2\n", &t, err, sizeof err) != 0 && strstr(err, "sig:1: fewer than 3") != NULL);
	CHECK(trace_from("0 198.18.0.2 -60 x\n", &t, err, sizeof err) != 0 && strstr(err, "more than 3") != NULL);
	CHECK(trace_from("\n0 198.18.0.2 -60dBm\n", &t, err, sizeof err) != 0 && strstr(err, "sig:2: bad DBM") != NULL);
	CHECK(trace_from("0 198.18.0.2 -300\n", &t, err, sizeof err) != 0 && strstr(err, "bad DBM") != NULL);
	CHECK(trace_from("0 198.18.0.2 nan\n", &t, err, sizeof err) != 0 && strstr(err, "bad DBM") != NULL);
	CHECK(trace_from("1s 198.18.0.2 -60\n", &t, err, sizeof err) != 0 && strstr(err, "bad OFFSET_NS") != NULL);
	CHECK(trace_from("0 primary -60\n", &t, err, sizeof err) != 0 && strstr(err, "bad ADDR") != NULL);
	CHECK(trace_from("5 198.18.0.2 -60\n4 198.18.1.2 -60\n", &t, err, sizeof err) != 0 &&
	      strstr(err, "sig:2: OFFSET_NS below") != NULL);
	CHECK(trace_from("", &t, err, sizeof err) == 0 && t.points == 0);
	sigtrace_free(&t);
	puts("signal trace ok");
}

#define ROUND_MS 20
#define MAX_DECISIONS 16

struct scripted {
	struct policy_decision d[MAX_DECISIONS];
	int64_t at_ms[MAX_DECISIONS];
	int n;
	int primary;
};

/* Rounds every ROUND_MS from from_ms to to_ms (offsets from T) over two
 * paths, slot 0 = 198.18.0.2 and slot 1 = 198.18.1.2, their signals from
 * the trace; a switch moves the primary as the runner would. */
static void run_rounds(struct policy_state *s, const struct sigtrace *t, int64_t from_ms, int64_t to_ms,
		       struct scripted *out)
{
	struct sockaddr_storage addr[2];

	addr_parse("198.18.0.2", 5000, &addr[0]);
	addr_parse("198.18.1.2", 5000, &addr[1]);
	for (int64_t ms = from_ms; ms <= to_ms; ms += ROUND_MS) {
		struct policy_sample x[2];
		struct policy_decision d;

		for (int i = 0; i < 2; i++) {
			memset(&x[i], 0, sizeof(x[i]));
			x[i].slot = i;
			x[i].srtt_ms = 20;
			x[i].rto_ms = 200;
			x[i].active = true;
			x[i].has_signal = sigtrace_at(t, &addr[i], ms * MS, &x[i].signal_dbm);
		}
		policy_step(s, ms * MS, x, 2, out->primary, &d);
		if (d.action == POLICY_STAY)
			continue;
		if (out->n < MAX_DECISIONS) {
			out->d[out->n] = d;
			out->at_ms[out->n] = ms;
			out->n++;
		}
		if (d.action == POLICY_SWITCH)
			out->primary = d.to;
	}
}

static void script(const char *policy, const char *text, int64_t from_ms, int64_t to_ms, struct scripted *out,
		   struct policy_state *s)
{
	struct policy_params p;
	struct sigtrace t;
	char err[300];

	params(policy, &p);
	policy_init(s, &p);
	memset(out, 0, sizeof(*out));
	if (trace_from(text, &t, err, sizeof err) != 0) {
		fprintf(stderr, "FAIL trace: %s\n", err);
		fails++;
		return;
	}
	run_rounds(s, &t, from_ms, to_ms, out);
	sigtrace_free(&t);
}

static void test_signal(void)
{
	struct policy_params p;
	struct policy_state s;
	struct scripted r;
	char err[200];

	CHECK(policy_parse("signal", &p, err, sizeof err) == 0 && p.kind == POLICY_SIGNAL && p.switch_dbm == -80 &&
	      p.hysteresis_db == 5 && !p.have_prepare);
	CHECK(policy_parse("signal:switch=-85,hysteresis=3,prepare=-75,guard=100", &p, err, sizeof err) == 0 &&
	      p.switch_dbm == -85 && p.hysteresis_db == 3 && p.have_prepare && p.prepare_dbm == -75 &&
	      p.guard_hi_ms == 100 && p.hysteresis_ms == 10);
	CHECK(policy_parse("signal:prepare=-85", &p, err, sizeof err) != 0 && strstr(err, "prepare must be above switch") != NULL);
	CHECK(policy_parse("signal:prepare=-80", &p, err, sizeof err) != 0);
	CHECK(policy_parse("signal:switch=-300", &p, err, sizeof err) != 0 && strstr(err, "bad switch") != NULL);
	CHECK(policy_parse("signal:hysteresis=-1", &p, err, sizeof err) != 0 && strstr(err, "dB") != NULL);
	CHECK(policy_parse("signal:threshold=1", &p, err, sizeof err) != 0);
	CHECK(policy_parse("delay-centric:switch=-80", &p, err, sizeof err) != 0);
	CHECK(policy_parse("rtt-ratio:prepare=-80", &p, err, sizeof err) != 0);

	/* The primary (slot 0) fades below switch at 2 s while the other
	 * path is strong: the switch is the round at 2.000 s, not one before,
	 * not one after; before T (no values yet) and above the threshold
	 * nothing happens. */
	script("signal", "0 198.18.0.2 -60\n0 198.18.1.2 -85\n1000000000 198.18.0.2 -70\n"
	       "1500000000 198.18.1.2 -70\n2000000000 198.18.0.2 -82\n", -100, 3000, &r, &s);
	CHECK(r.n == 1 && r.d[0].action == POLICY_SWITCH && r.d[0].to == 1 && r.at_ms[0] == 2000);
	CHECK(strcmp(r.d[0].reason, "signal -82.0<-80 alt -70.0>-82.0+5") == 0);
	CHECK(r.primary == 1 && policy_prepared(&s) == -1);

	/* Hysteresis: below switch but the other path not more than 5 dB
	 * stronger: stay.  A primary wobbling around the threshold next to a
	 * path inside the band never switches (no ping-pong), and once moved,
	 * the old path must again beat the new primary by the hysteresis. */
	script("signal", "0 198.18.0.2 -60\n0 198.18.1.2 -78\n"
	       "1000000000 198.18.0.2 -81\n1100000000 198.18.0.2 -79\n1200000000 198.18.0.2 -83\n"
	       "1300000000 198.18.0.2 -79\n1400000000 198.18.0.2 -83\n"      /* gap 5: not more than 5 */
	       "2000000000 198.18.0.2 -84\n"                                    /* gap 6: switch at 2.0 s */
	       "2500000000 198.18.1.2 -82\n2500000000 198.18.0.2 -79\n"        /* back: gap 3, stay */
	       "3000000000 198.18.0.2 -76\n"                                    /* gap 6: switch back at 3.0 s */
	       , 0, 4000, &r, &s);
	CHECK(r.n == 2 && r.d[0].action == POLICY_SWITCH && r.d[0].to == 1 && r.at_ms[0] == 2000);
	CHECK(r.n == 2 && r.d[1].action == POLICY_SWITCH && r.d[1].to == 0 && r.at_ms[1] == 3000);
	CHECK(r.primary == 0);

	/* prepare precedes switch: below prepare at 1 s (the candidate 12 dB
	 * stronger): `prepare`, recorded once; below switch at 2 s: `switch`,
	 * which ends the prepared sending. */
	script("signal:prepare=-70", "0 198.18.0.2 -60\n0 198.18.1.2 -60\n1000000000 198.18.0.2 -72\n"
	       "1500000000 198.18.0.2 -74\n2000000000 198.18.0.2 -82\n", 0, 3000, &r, &s);
	CHECK(r.n == 2 && r.d[0].action == POLICY_PREPARE && r.d[0].to == 1 && r.at_ms[0] == 1000);
	CHECK(r.n == 2 && strcmp(r.d[0].reason, "signal -72.0<-70 alt -60.0>-72.0+5") == 0);
	CHECK(r.n == 2 && r.d[1].action == POLICY_SWITCH && r.d[1].to == 1 && r.at_ms[1] == 2000);
	CHECK(r.primary == 1 && policy_prepared(&s) == -1);
	/* between the two the target is the prepared path */
	script("signal:prepare=-70", "0 198.18.0.2 -60\n0 198.18.1.2 -60\n1000000000 198.18.0.2 -72\n", 0, 1500, &r, &s);
	CHECK(r.n == 1 && r.d[0].action == POLICY_PREPARE && policy_prepared(&s) == 1 && r.primary == 0);

	/* The primary recovers: prepare ends only above prepare + hysteresis. */
	script("signal:prepare=-70", "0 198.18.0.2 -60\n0 198.18.1.2 -60\n1000000000 198.18.0.2 -72\n"
	       "1500000000 198.18.0.2 -66\n2000000000 198.18.0.2 -64\n", 0, 3000, &r, &s);
	CHECK(r.n == 2 && r.d[0].action == POLICY_PREPARE && r.at_ms[0] == 1000);
	CHECK(r.n == 2 && r.d[1].action == POLICY_CANCEL && r.d[1].to == 1 && r.at_ms[1] == 2000 &&
	      strcmp(r.d[1].reason, "prepare ends: signal -64.0>=-70+5") == 0);
	CHECK(r.primary == 0 && policy_prepared(&s) == -1);

	/* No candidate stronger by the hysteresis: no prepare either. */
	script("signal:prepare=-70", "0 198.18.0.2 -60\n0 198.18.1.2 -70\n1000000000 198.18.0.2 -72\n", 0, 2000, &r, &s);
	CHECK(r.n == 0);

	/* A sudden fade from above prepare to below switch: the switch at
	 * once, in that round (no round lost to a prepare). */
	script("signal:prepare=-70", "0 198.18.0.2 -60\n0 198.18.1.2 -60\n1000000000 198.18.0.2 -90\n", 0, 2000, &r, &s);
	CHECK(r.n == 1 && r.d[0].action == POLICY_SWITCH && r.at_ms[0] == 1000);

	/* With a guard: the rule first holds at 2 s (guard), confirmed 100 ms later. */
	script("signal:guard=100", "0 198.18.0.2 -60\n0 198.18.1.2 -60\n2000000000 198.18.0.2 -90\n", 0, 3000, &r, &s);
	CHECK(r.n == 2 && r.d[0].action == POLICY_GUARD && r.at_ms[0] == 2000 && r.d[0].hb_slot == 1);
	CHECK(r.n == 2 && r.d[1].action == POLICY_SWITCH && r.at_ms[1] == 2100 && r.d[1].hb_restore);

	/* An inactive primary is left for the strongest active path. */
	params("signal", &p);
	policy_init(&s, &p);
	{
		struct policy_sample x[3] = {
			{ .slot = 0, .srtt_ms = 20, .active = false, .has_signal = true, .signal_dbm = -50 },
			{ .slot = 1, .srtt_ms = 20, .active = true, .has_signal = true, .signal_dbm = -90 },
			{ .slot = 2, .srtt_ms = 20, .active = true, .has_signal = true, .signal_dbm = -70 },
		};
		struct policy_decision d;

		policy_step(&s, 0, x, 3, 0, &d);
		CHECK(d.action == POLICY_SWITCH && d.to == 2 && strcmp(d.reason, "primary-inactive") == 0);
		/* a primary without a value (before its first point): nothing to compare */
		x[0].active = true;
		x[0].has_signal = false;
		policy_step(&s, 1, x, 3, 0, &d);
		CHECK(d.action == POLICY_STAY);
	}
	puts("policy signal ok");
}

int main(void)
{
	test_parse();
	test_static();
	test_delay_centric();
	test_guard();
	test_predictive();
	test_rtt_ratio();
	test_sigtrace();
	test_signal();
	printf("POLICY %s (%d failures)\n", fails ? "FAILED" : "OK", fails);
	return fails ? 1 : 0;
}
