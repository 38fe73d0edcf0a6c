/* IPv4/IPv6 endpoint addresses: parsing, printing, comparing, and the
 * packed array layout the SCTP multi-address calls expect.
 */
#ifndef SCTPBENCH_ADDR_H
#define SCTPBENCH_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

/* More than a handful of addresses per endpoint is not a multihoming
 * experiment this testbed runs; a fixed bound keeps storage static. */
#define ADDR_LIST_MAX 16
/* INET6_ADDRSTRLEN plus room for nothing else: ports are never printed. */
#define ADDR_STR_MAX 46
/* Worst case of addr_pack(): every entry a sockaddr_in6. */
#define ADDR_PACK_MAX (ADDR_LIST_MAX * sizeof(struct sockaddr_in6))

struct addr_list {
	struct sockaddr_storage a[ADDR_LIST_MAX];
	size_t n;
};

/* Numeric IPv4 or IPv6 (optionally "%scope"); no name resolution, so a
 * typo cannot silently turn into a DNS lookup inside a namespace. */
int addr_parse(const char *text, uint16_t port, struct sockaddr_storage *out);
/* Comma-separated list; -1 on an empty item, a bad address or too many. */
int addr_parse_list(const char *csv, uint16_t port, struct addr_list *out);
void addr_set_port(struct sockaddr_storage *ss, uint16_t port);
socklen_t addr_len(const struct sockaddr_storage *ss);
bool addr_any_ipv6(const struct addr_list *l);

/* inet_ntop without the port; a v4-mapped IPv6 address prints as IPv4 so
 * the same host reads the same whatever socket family reported it. */
const char *addr_format(const struct sockaddr_storage *ss, char buf[ADDR_STR_MAX]);
/* Same host address (ports ignored), v4-mapped treated as IPv4. */
bool addr_same_host(const struct sockaddr_storage *a, const struct sockaddr_storage *b);

/* sctp_bindx()/sctp_connectx() want the sockaddrs back to back, each in
 * its own size, not padded to sockaddr_storage.  Returns bytes used. */
size_t addr_pack(const struct addr_list *l, unsigned char *buf, size_t cap);
/* The inverse, for the buffer sctp_getpaddrs() returns. */
void addr_unpack(const void *packed, int count, struct addr_list *out);

#endif
