/* Receiving whole SCTP messages from a non-blocking socket.
 *
 * A message (data or notification) can arrive in several recvmsg()
 * pieces when it is larger than the buffer or the kernel is in partial
 * delivery; only MSG_EOR ends it.  The agent needs just a message's first
 * bytes (payload header or notification fields) and its total size, so
 * the head is kept and the rest only counted: memory stays bounded
 * whatever the message size.
 */
#ifndef SCTPBENCH_RXMSG_H
#define SCTPBENCH_RXMSG_H

#include "sctpapi.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Covers every notification's fixed part and the 16-byte payload header. */
#define RXMSG_HEAD_MAX 1024

struct rxmsg {
	unsigned char head[RXMSG_HEAD_MAX];
	size_t head_len;
	uint64_t total;
	bool notification;
	bool has_rcvinfo;
	struct sctp_rcvinfo rcvinfo;
	bool has_from;
	struct sockaddr_storage from; /* source of the first piece's packet */
	bool in_progress;             /* pieces read, MSG_EOR not yet seen */
};

enum rxmsg_status {
	RXMSG_COMPLETE, /* *m holds a whole message */
	RXMSG_AGAIN,    /* nothing more to read now; partial state kept */
	RXMSG_EOF,      /* association ended, no more messages */
	RXMSG_ERROR,    /* errno set */
};

void rxmsg_init(struct rxmsg *m);
enum rxmsg_status rxmsg_read(int fd, struct rxmsg *m);

#endif
