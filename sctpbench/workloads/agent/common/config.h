/* Everything the command line decides, shared by both roles. */
#ifndef SCTPBENCH_CONFIG_H
#define SCTPBENCH_CONFIG_H

#include "addr.h"
#include "arrival.h"
#include "options.h"
#include "policy.h"
#include "sched.h"
#include "schedule.h"
#include "sigtrace.h"

#include <stdbool.h>
#include <stdint.h>

#define DEFAULT_SAMPLE_INTERVAL_MS 20
#define DEFAULT_DRAIN_TIMEOUT_MS 10000
/* The payload header: sequence number and generation time, 8 bytes each. */
#define PAYLOAD_HEADER_BYTES 16

enum role {
	ROLE_SERVER,
	ROLE_CLIENT,
};

struct config {
	enum role role;
	const char *local_text; /* as given, for the meta records */
	const char *peer_text;
	const char *rate_text;
	struct addr_list local; /* ports still 0: set at bind time */
	struct addr_list peer;  /* ports set to `port` */
	uint16_t port;
	const char *records_path;
	int64_t sample_interval_ms;
	int64_t drain_timeout_ms;
	/* client load */
	uint64_t size;
	double rate;
	enum arrival_kind arrival;
	uint64_t seed;
	int64_t duration_ms;
	bool unordered;
	uint16_t send_streams; /* 0: every negotiated outbound stream */
	struct policy_params policy; /* --policy; static when not given */
	bool policy_given;
	struct sched_params scheduler; /* --scheduler; primary when not given */
	bool scheduler_given;
	const char *signal_path;   /* --signal, as given */
	struct sigtrace signal;    /* its points, read by cli_parse */
	const char *schedule_path; /* --schedule, as given */
	struct schedule schedule;  /* its messages, read by cli_parse */
	struct sock_opts opts;
};

/* AF_INET6 if any address is IPv6 (such a socket also carries IPv4),
 * else AF_INET. */
int config_family(const struct config *cfg);

#endif
