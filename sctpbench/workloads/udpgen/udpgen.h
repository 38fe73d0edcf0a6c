/* sctpbench-udpgen: background UDP traffic for an emulated path.
 *
 * `send` offers fixed-size datagrams with periodic or exponential (Poisson)
 * gaps from a seed, the same seeded generator as the SCTP agent's
 * (../agent/common/arrival.c); `sink` receives them so that no ICMP "port
 * unreachable" travels back over the reverse path. Both write one record
 * line per datagram (README.md in this folder).
 */
#ifndef SCTPBENCH_UDPGEN_H
#define SCTPBENCH_UDPGEN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

#include "../agent/common/arrival.h"

enum udpgen_mode { UDPGEN_SEND, UDPGEN_SINK };

struct udpgen_config {
	enum udpgen_mode mode;
	struct sockaddr_storage local;
	struct sockaddr_storage peer; /* send only */
	int size;                     /* bytes of UDP payload, 16..65507 */
	double rate;                  /* datagrams per second */
	enum arrival_kind arrival;    /* periodic or poisson */
	uint64_t seed;
	int64_t duration_ns;
	const char *records;
};

/* The payload's first 16 bytes: sequence number and scheduled time, big-endian. */
#define UDPGEN_HEADER 16

int udpgen_parse(int argc, char **argv, struct udpgen_config *cfg, FILE *err);
/* Both print `ready` once bound.  send then waits for `start T` (absolute
 * CLOCK_MONOTONIC ns) on stdin and ends after T + duration; sink ends at
 * `stop` on stdin or SIGTERM. */
int udpgen_send(const struct udpgen_config *cfg, FILE *records);
int udpgen_sink(const struct udpgen_config *cfg, FILE *records);

#endif
