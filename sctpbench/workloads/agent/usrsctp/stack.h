/* The usrsctp socket layer of sctpbench-agent-usrsctp: FreeBSD's SCTP
 * stack as a user-space library, reached over UDP encapsulation (RFC 6951).
 *
 * usrsctp sockets have no file descriptor: the stack runs on its own
 * threads and reports activity through an upcall.  The upcall writes a
 * byte to a pipe, so the agent's poll loop waits on the pipe's read end as
 * it waits on a kernel socket.  This header exposes no usrsctp type, so
 * its callers can keep the kernel's <netinet/sctp.h> (whose names clash
 * with usrsctp.h) for the shared command line.
 */
#ifndef SCTPBENCH_USRSCTP_STACK_H
#define SCTPBENCH_USRSCTP_STACK_H

#include "common/addr.h"
#include "common/records.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define USTACK_DEFAULT_UDP_PORT 9899

/* The stack's own parameters (`--usrsctp-*` options): each one only when
 * given, so an unset one shows usrsctp's default in the `param` records. */
struct ustack_params {
	uint16_t udp_port;        /* local UDP encapsulation port */
	uint16_t remote_udp_port; /* the peer's */
	bool has_rto_min, has_rto_max, has_rto_initial, has_path_max_retrans,
		has_hb_interval, has_max_burst, has_cmt, has_ss;
	uint32_t rto_min_ms, rto_max_ms, rto_initial_ms, path_max_retrans,
		hb_interval_ms, max_burst, cmt, ss;
	/* from the shared command line (common/options.h's struct, copied) */
	bool has_nodelay, has_sack_delay, has_sack_freq, has_streams;
	uint32_t nodelay, sack_delay_ms, sack_freq, streams;
};

/* Takes the `--usrsctp-*` options (and their values) out of argv, leaving
 * the shared command line for cli_parse; 2 (message printed) on a bad one. */
int ustack_params_take(int *argc, char **argv, struct ustack_params *p);
void ustack_usage(void);

/* usrsctp_init on the UDP port, then the sysctls (init resets them). */
int ustack_start(const struct ustack_params *p);
/* Lets usrsctp finish what is queued (a SHUTDOWN on its way) for up to
 * timeout_ms, then stops its threads. */
void ustack_finish(int64_t timeout_ms);

struct ustack_sock;

/* A one-to-one socket, non-blocking, its options set and bound to local
 * (port 0 for the client); NULL (message printed) on failure. */
struct ustack_sock *ustack_open(const struct ustack_params *p, int family,
				const struct addr_list *local, uint16_t port);
int ustack_listen(struct ustack_sock *s);
/* NULL with errno EWOULDBLOCK when nobody is waiting. */
struct ustack_sock *ustack_accept(struct ustack_sock *s);
int ustack_connect(struct ustack_sock *s, const struct addr_list *peer);
void ustack_close(struct ustack_sock *s);

/* Readable when the stack has something for the socket: poll it, then
 * ustack_wake_clear before reading everything there is. */
int ustack_wake_fd(const struct ustack_sock *s);
void ustack_wake_clear(struct ustack_sock *s);

enum ustack_event {
	USTACK_EV_COMM_UP,
	USTACK_EV_ENDED,      /* COMM_LOST, CANT_STR_ASSOC, SHUTDOWN_COMP */
	USTACK_EV_PEER_SHUTDOWN,
	USTACK_EV_ADDR,
	USTACK_EV_DRY,
	USTACK_EV_OTHER,
};

struct ustack_rx {
	bool is_event;
	/* data */
	size_t len;
	bool have_stream;
	unsigned stream;
	struct sockaddr_storage from;
	/* events */
	enum ustack_event ev;
	const char *state; /* assoc or addr state, RECORDS.md's words */
	unsigned error, outstreams, instreams;
	struct sockaddr_storage addr;
};

/* 1: a message or event in *rx; 0: nothing more now; -1 (errno set): the
 * socket failed; errno 0 when the peer closed. */
int ustack_recv(struct ustack_sock *s, void *buf, size_t cap, struct ustack_rx *rx);
/* Bytes sent, or -1 (errno EWOULDBLOCK when the send buffer is full).
 * to: the peer address the message goes to (SCTP_ADDR_OVER), or NULL for
 * the stack's choice. */
ssize_t ustack_send(struct ustack_sock *s, const void *buf, size_t len,
		    unsigned stream, bool unordered, const struct sockaddr_storage *to);
/* Asks for a SENDER_DRY event once everything sent so far is acknowledged
 * (at once if it already is). */
int ustack_want_dry(struct ustack_sock *s);
/* The peer's addresses as `peer` records. */
int ustack_write_peers(struct ustack_sock *s, struct records *r, int64_t t);
/* The association's parameters in force as `param` records; -1 (message
 * printed) on a failed read. */
int ustack_write_params(struct ustack_sock *s, struct records *r, int64_t t);

#endif
