/* The primary path's congestion state as the kernel keeps it (sock_diag).
 *
 * SCTP_GET_PEER_ADDR_INFO gives a path's cwnd but not its ssthresh, flight
 * size or partial_bytes_acked. Linux hands those out only through the
 * SCTP sock_diag (inet_diag) netlink dump, as `struct sctp_info`, for the
 * association's primary path: enough to see what a primary change did to
 * the new primary's congestion state (issue 26's alpha-scaled cwnd and
 * ssthresh). A kernel without CONFIG_INET_SCTP_DIAG answers nothing.
 */
#ifndef SCTPBENCH_CC_INFO_H
#define SCTPBENCH_CC_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct cc_info {
	struct sockaddr_storage primary; /* the path the figures are of */
	uint32_t cwnd;
	uint32_t ssthresh;
	uint32_t flight_size;
	uint32_t partial_bytes_acked;
};

/* What a reader keeps between rounds: the netlink socket, and the
 * association's family and ports, which never change for a one-to-one
 * socket. Asking afresh each round cost seven system calls more, each a
 * trap to the guest kernel under User-Mode Linux. */
struct cc_reader {
	int nl;     /* NETLINK_SOCK_DIAG socket, -1 until opened */
	bool known; /* family, ports and addresses below are read */
	int family;
	uint16_t sport, dport; /* network order */
	/* One local and one peer address of the association, as the socket
	 * named them when first read: the kernel finds the association by
	 * them and answers with it alone (one reply), where a dump of the
	 * ports' associations takes a second read for its end. */
	struct sockaddr_storage local, peer;
	bool one_failed; /* the kernel did not find it so: dump from now on */
};

void cc_reader_init(struct cc_reader *r);
/* Fills *out for the association of the one-to-one SCTP socket fd (found
 * by its local and peer ports); false when the kernel gave nothing. */
bool cc_reader_read(struct cc_reader *r, int fd, struct cc_info *out);
void cc_reader_close(struct cc_reader *r);

#endif
