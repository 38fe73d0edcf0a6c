#include "cli.h"
#include "clock.h"

#include "diag.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Above this the schedule would ask for sub-microsecond gaps, which
 * neither the agent's loop nor the emulated paths can honour. */
#define RATE_MAX 1e6
#define RATE_MIN 1e-3
/* Larger messages are possible in SCTP but not what this testbed models;
 * the bound also keeps the payload buffer allocation sane. */
#define SIZE_MAX_BYTES (1024 * 1024)
#define MS_MAX (INT64_C(1000) * 3600 * 24 * 7) /* one week */

enum opt_id {
	OPT_LOCAL = 256,
	OPT_PEER,
	OPT_PORT,
	OPT_RECORDS,
	OPT_SAMPLE_INTERVAL,
	OPT_CLOCK,
	OPT_DRAIN_TIMEOUT,
	OPT_SIZE,
	OPT_RATE,
	OPT_ARRIVAL,
	OPT_SEED,
	OPT_DURATION,
	OPT_UNORDERED,
	OPT_SEND_STREAMS,
	OPT_SCHEDULE,
	OPT_NODELAY,
	OPT_SACK_DELAY,
	OPT_SACK_FREQ,
	OPT_STREAMS,
	OPT_POLICY,
	OPT_SIGNAL,
	OPT_SCHEDULER,
	OPT_HELP,
};

static const struct option options[] = {
	{ "local", required_argument, NULL, OPT_LOCAL },
	{ "peer", required_argument, NULL, OPT_PEER },
	{ "port", required_argument, NULL, OPT_PORT },
	{ "records", required_argument, NULL, OPT_RECORDS },
	{ "sample-interval", required_argument, NULL, OPT_SAMPLE_INTERVAL },
	{ "clock", required_argument, NULL, OPT_CLOCK },
	{ "drain-timeout", required_argument, NULL, OPT_DRAIN_TIMEOUT },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "rate", required_argument, NULL, OPT_RATE },
	{ "arrival", required_argument, NULL, OPT_ARRIVAL },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "unordered", no_argument, NULL, OPT_UNORDERED },
	{ "send-streams", required_argument, NULL, OPT_SEND_STREAMS },
	{ "schedule", required_argument, NULL, OPT_SCHEDULE },
	{ "nodelay", required_argument, NULL, OPT_NODELAY },
	{ "sack-delay", required_argument, NULL, OPT_SACK_DELAY },
	{ "sack-freq", required_argument, NULL, OPT_SACK_FREQ },
	{ "streams", required_argument, NULL, OPT_STREAMS },
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "signal", required_argument, NULL, OPT_SIGNAL },
	{ "scheduler", required_argument, NULL, OPT_SCHEDULER },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

void cli_usage(FILE *to)
{
	fputs("usage:\n"
	      "  sctpbench-agent --version\n"
	      "  sctpbench-agent server --local A1[,A2...] --port P --records FILE\n"
	      "        [--sample-interval MS] [common options]\n"
	      "  sctpbench-agent client --local A1[,A2...] --peer B1[,B2...] --port P\n"
	      "        --records FILE --size BYTES --rate MSGS_PER_S\n"
	      "        --arrival periodic|poisson|saturate --seed N --duration MS\n"
	      "        [--unordered] [--send-streams N] [--sample-interval MS]\n"
	      "        [--drain-timeout MS] [--policy NAME[:KEY=VALUE,...]] [--signal FILE]\n"
	      "        [--scheduler NAME[:KEY=VALUE,...]]\n"
	      "        [common options]\n"
	      "  sctpbench-agent client --local A1[,A2...] --peer B1[,B2...] --port P\n"
	      "        --records FILE --arrival schedule --schedule FILE --duration MS\n"
	      "        [--sample-interval MS] [--drain-timeout MS] [common options]\n"
	      "saturate: send whenever the socket accepts data until the start time +\n"
	      "  --duration; --rate is then optional (0 allowed) and ignored, --seed ignored\n"
	      "schedule: FILE has one message a line, OFFSET_NS SIZE STREAM FLAGS LIFETIME_MS\n"
	      "  (FLAGS - or u, LIFETIME_MS 0 = reliable); --size, --rate, --seed,\n"
	      "  --send-streams and --unordered are optional and ignored\n"
	      "common options (omitted = keep the kernel's value):\n"
	      "  --nodelay 0|1  --sack-delay MS (0 = off)  --sack-freq N  --streams N\n"
	      "  --clock monotonic|realtime (the clock of every timestamp; default monotonic)\n"
	      "--policy (client): static (default), delay-centric, predictive, rtt-ratio or\n"
	      "  signal, e.g. delay-centric:hysteresis=10,guard=1000-4000 (see RECORDS.md)\n"
	      "--signal FILE (client, with --policy signal): lines OFFSET_NS ADDR DBM\n"
	      "--scheduler (client): each message's path: primary (default), round-robin,\n"
	      "  static-stream, dynamic-path or stream-aware[:margin=MS], hz=N (see RECORDS.md)\n"
	      "see RECORDS.md for the record file and the stdin/stdout protocol\n",
	      to);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", AGENT_NAME);
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	cli_usage(stderr);
	return 2;
}

/* Whole-string unsigned decimal in [min, max]; rejects signs, blanks and
 * trailing junk that strtoull would quietly accept. */
static bool parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v < min || v > max)
		return false;
	*out = (uint64_t)v;
	return true;
}

static bool parse_ms(const char *s, int64_t *out)
{
	uint64_t v;

	if (!parse_u64(s, 0, (uint64_t)MS_MAX, &v))
		return false;
	*out = (int64_t)v;
	return true;
}

/* RATE_MIN to RATE_MAX, or exactly 0, which only `saturate` accepts
 * (checked once the arrival kind is known). */
static bool parse_rate(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !isfinite(v) || signbit(v) ||
	    (v != 0 && v < RATE_MIN) || v > RATE_MAX)
		return false;
	*out = v;
	return true;
}

/* The whole file is read and checked here, before anything else happens:
 * a bad line is a usage error, like a bad option. */
static int load_schedule(struct config *cfg)
{
	char err[512];

	if (cfg->schedule_path == NULL)
		return usage_error("%s", "--arrival schedule needs --schedule FILE");
	if (schedule_load(&cfg->schedule, cfg->schedule_path, err, sizeof(err)) != 0)
		return usage_error("bad --schedule: %s", err);
	return 0;
}

/* --signal goes with --policy signal, both ways; the whole file is read
 * and checked now, like a schedule. */
static int load_signal(struct config *cfg)
{
	char err[512];

	if (cfg->policy.kind == POLICY_SIGNAL && cfg->signal_path == NULL)
		return usage_error("%s", "--policy signal needs --signal FILE");
	if (cfg->policy.kind != POLICY_SIGNAL && cfg->signal_path != NULL)
		return usage_error("%s", "--signal goes with --policy signal only");
	if (cfg->signal_path == NULL)
		return 0;
	if (sigtrace_load(&cfg->signal, cfg->signal_path, err, sizeof(err)) != 0)
		return usage_error("bad --signal: %s", err);
	return 0;
}

/* Options only meaningful for the client. */
static bool client_only(int id)
{
	switch (id) {
	case OPT_PEER:
	case OPT_DRAIN_TIMEOUT:
	case OPT_SIZE:
	case OPT_RATE:
	case OPT_ARRIVAL:
	case OPT_SEED:
	case OPT_DURATION:
	case OPT_UNORDERED:
	case OPT_SEND_STREAMS:
	case OPT_SCHEDULE:
	case OPT_POLICY:
	case OPT_SIGNAL:
	case OPT_SCHEDULER:
		return true;
	default:
		return false;
	}
}

int cli_parse(int argc, char **argv, struct config *cfg)
{
	bool have_port = false, have_size = false, have_arrival = false;
	bool have_seed = false, have_duration = false;
	char **args = argv + 1; /* getopt_long runs over the words after the role */
	int nargs = argc - 1;
	uint64_t v;
	int id, idx;

	memset(cfg, 0, sizeof(*cfg));
	policy_parse("static", &cfg->policy, NULL, 0);
	sched_parse("primary", &cfg->scheduler, NULL, 0);
	cfg->sample_interval_ms = DEFAULT_SAMPLE_INTERVAL_MS;
	cfg->drain_timeout_ms = DEFAULT_DRAIN_TIMEOUT_MS;

	if (argc < 2)
		return usage_error("%s", "missing role (server or client)");
	if (strcmp(argv[1], "server") == 0)
		cfg->role = ROLE_SERVER;
	else if (strcmp(argv[1], "client") == 0)
		cfg->role = ROLE_CLIENT;
	else
		return usage_error("unknown role '%s'", argv[1]);

	/* "+": stop at the first non-option instead of permuting, so a stray
	 * word is reported rather than silently moved aside. */
	optind = 1;
	opterr = 0;
	idx = -1;
	while ((id = getopt_long(nargs, args, "+:", options, &idx)) != -1) {
		const char *arg = optarg;
		const char *name = idx >= 0 ? options[idx].name : "?";

		if (id == '?')
			return usage_error("unknown option '%s'", args[optind - 1]);
		if (id == ':')
			return usage_error("option '%s' needs a value", args[optind - 1]);
		idx = -1;
		if (cfg->role == ROLE_SERVER && client_only(id))
			return usage_error("option '--%s' is for the client only", name);
		switch (id) {
		case OPT_LOCAL:
			cfg->local_text = arg;
			break;
		case OPT_PEER:
			cfg->peer_text = arg;
			break;
		case OPT_PORT:
			if (!parse_u64(arg, 1, 65535, &v))
				return usage_error("bad --port '%s' (1-65535)", arg);
			cfg->port = (uint16_t)v;
			have_port = true;
			break;
		case OPT_RECORDS:
			cfg->records_path = arg;
			break;
		case OPT_CLOCK:
			if (!clock_select(arg))
				return usage_error("bad --clock '%s' (monotonic or realtime)", arg);
			break;
		case OPT_SAMPLE_INTERVAL:
			if (!parse_ms(arg, &cfg->sample_interval_ms))
				return usage_error("bad --sample-interval '%s'", arg);
			break;
		case OPT_DRAIN_TIMEOUT:
			if (!parse_ms(arg, &cfg->drain_timeout_ms))
				return usage_error("bad --drain-timeout '%s'", arg);
			break;
		case OPT_SIZE:
			if (!parse_u64(arg, 0, SIZE_MAX_BYTES, &cfg->size))
				return usage_error("bad --size '%s' (at most 1048576)", arg);
			if (cfg->size < PAYLOAD_HEADER_BYTES)
				return usage_error("--size '%s' is below the 16-byte payload header", arg);
			have_size = true;
			break;
		case OPT_RATE:
			if (!parse_rate(arg, &cfg->rate))
				return usage_error("bad --rate '%s' (0.001 to 1000000 messages/s, "
						   "or 0 with saturate)", arg);
			cfg->rate_text = arg;
			break;
		case OPT_ARRIVAL:
			if (arrival_kind_parse(arg, &cfg->arrival) != 0)
				return usage_error("bad --arrival '%s' (periodic, poisson, saturate "
						   "or schedule)", arg);
			have_arrival = true;
			break;
		case OPT_SEED:
			if (!parse_u64(arg, 0, UINT64_MAX, &cfg->seed))
				return usage_error("bad --seed '%s' (unsigned 64-bit)", arg);
			have_seed = true;
			break;
		case OPT_DURATION:
			if (!parse_ms(arg, &cfg->duration_ms))
				return usage_error("bad --duration '%s'", arg);
			have_duration = true;
			break;
		case OPT_UNORDERED:
			cfg->unordered = true;
			break;
		case OPT_SEND_STREAMS:
			if (!parse_u64(arg, 1, 65535, &v))
				return usage_error("bad --send-streams '%s' (1-65535)", arg);
			cfg->send_streams = (uint16_t)v;
			break;
		case OPT_SCHEDULE:
			cfg->schedule_path = arg;
			break;
		case OPT_NODELAY:
			if (!parse_u64(arg, 0, 1, &v))
				return usage_error("bad --nodelay '%s' (0 or 1)", arg);
			cfg->opts.has_nodelay = true;
			cfg->opts.nodelay = (int)v;
			break;
		case OPT_SACK_DELAY:
			/* 500 ms is the protocol's ceiling (RFC 9260 6.2). */
			if (!parse_u64(arg, 0, 500, &v))
				return usage_error("bad --sack-delay '%s' (0-500 ms)", arg);
			cfg->opts.has_sack_delay = true;
			cfg->opts.sack_delay_ms = (uint32_t)v;
			break;
		case OPT_SACK_FREQ:
			if (!parse_u64(arg, 1, 65535, &v))
				return usage_error("bad --sack-freq '%s' (1-65535)", arg);
			cfg->opts.has_sack_freq = true;
			cfg->opts.sack_freq = (uint32_t)v;
			break;
		case OPT_STREAMS:
			if (!parse_u64(arg, 1, 65535, &v))
				return usage_error("bad --streams '%s' (1-65535)", arg);
			cfg->opts.has_streams = true;
			cfg->opts.streams = (uint16_t)v;
			break;
		case OPT_POLICY: {
			char err[POLICY_REASON_MAX], msg[POLICY_REASON_MAX + POLICY_TEXT_MAX + 32];

			if (policy_parse(arg, &cfg->policy, err, sizeof(err)) != 0) {
				snprintf(msg, sizeof(msg), "bad --policy '%.256s': %s", arg, err);
				return usage_error("%s", msg);
			}
			cfg->policy_given = true;
			break;
		}
		case OPT_SIGNAL:
			cfg->signal_path = arg;
			break;
		case OPT_SCHEDULER: {
			char err[SCHED_REASON_MAX], msg[SCHED_REASON_MAX + SCHED_TEXT_MAX + 32];

			if (sched_parse(arg, &cfg->scheduler, err, sizeof(err)) != 0) {
				snprintf(msg, sizeof(msg), "bad --scheduler '%.100s': %s", arg, err);
				return usage_error("%s", msg);
			}
			cfg->scheduler_given = true;
			break;
		}
		case OPT_HELP:
			cli_usage(stdout);
			exit(0);
		default:
			return usage_error("unexpected option '--%s'", name);
		}
	}
	if (optind < nargs)
		return usage_error("unexpected argument '%s'", args[optind]);
	/* A random guard time draws from the run's --seed unless given its own. */
	if (!cfg->policy.have_seed)
		cfg->policy.seed = cfg->seed;
	/* A scheduler names every message's path; a policy moving the
	 * primary (or sending to a prepared path) would fight it. */
	if (cfg->scheduler.kind != SCHED_PRIMARY && cfg->policy.kind != POLICY_STATIC)
		return usage_error("%s", "--scheduler (other than primary) goes with --policy static only");
	if (cfg->role == ROLE_CLIENT) {
		int rc = load_signal(cfg);

		if (rc != 0)
			return rc;
	}

	if (cfg->local_text == NULL)
		return usage_error("%s", "--local is required");
	if (!have_port)
		return usage_error("%s", "--port is required");
	if (cfg->records_path == NULL)
		return usage_error("%s", "--records is required");
	if (addr_parse_list(cfg->local_text, 0, &cfg->local) != 0)
		return usage_error("bad --local '%s' (comma-separated numeric IPv4/IPv6)",
				   cfg->local_text);

	/* Delayed SACK is either off (the kernel's freq 1) or on with a
	 * delay: asking for both at once cannot be honoured. */
	if (cfg->opts.has_sack_delay && cfg->opts.has_sack_freq &&
	    ((cfg->opts.sack_delay_ms == 0) != (cfg->opts.sack_freq == 1)))
		return usage_error("%s", "--sack-delay 0 (off) and --sack-freq 1 (off) "
				   "only go together");

	if (cfg->role == ROLE_CLIENT) {
		if (cfg->peer_text == NULL)
			return usage_error("%s", "--peer is required");
		if (addr_parse_list(cfg->peer_text, cfg->port, &cfg->peer) != 0)
			return usage_error("bad --peer '%s' (comma-separated numeric IPv4/IPv6)",
					   cfg->peer_text);
		/* A schedule file gives every message its size and time:
		 * --size, --rate and --seed are neither needed nor used. */
		if (have_arrival && cfg->arrival == ARRIVAL_SCHEDULE) {
			if (!have_duration)
				return usage_error("%s", "--duration is required");
			return load_schedule(cfg);
		}
		if (cfg->schedule_path != NULL)
			return usage_error("%s", "--schedule goes with --arrival schedule only");
		if (!have_size)
			return usage_error("%s", "--size is required");
		if (!have_arrival)
			return usage_error("%s", "--arrival is required");
		/* Saturate has no rate: --rate may be left out, or be 0. */
		if (cfg->arrival != ARRIVAL_SATURATE) {
			if (cfg->rate_text == NULL)
				return usage_error("%s", "--rate is required");
			if (cfg->rate == 0)
				return usage_error("bad --rate '%s' (0 only with --arrival saturate)",
						   cfg->rate_text);
		}
		if (!have_seed)
			return usage_error("%s", "--seed is required");
		if (!have_duration)
			return usage_error("%s", "--duration is required");
	}
	return 0;
}

void cli_free(struct config *cfg)
{
	schedule_free(&cfg->schedule);
	sigtrace_free(&cfg->signal);
}
