#include "rxmsg.h"

#include <errno.h>
#include <string.h>

/* Big enough that ordinary messages arrive in one piece; larger ones are
 * still handled, in several. */
#define RXMSG_SCRATCH_BYTES (64 * 1024)

void rxmsg_init(struct rxmsg *m)
{
	memset(m, 0, sizeof(*m));
}

static void take_rcvinfo(struct msghdr *mh, struct rxmsg *m)
{
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_SCTP && cm->cmsg_type == SCTP_RCVINFO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(struct sctp_rcvinfo))) {
			memcpy(&m->rcvinfo, CMSG_DATA(cm), sizeof(m->rcvinfo));
			m->has_rcvinfo = true;
		}
	}
}

enum rxmsg_status rxmsg_read(int fd, struct rxmsg *m)
{
	/* Single-threaded program: one static scratch buffer instead of 64 KiB
	 * of stack per call. */
	static unsigned char scratch[RXMSG_SCRATCH_BYTES];

	for (;;) {
		union {
			struct cmsghdr align;
			unsigned char buf[CMSG_SPACE(sizeof(struct sctp_rcvinfo)) + 64];
		} control;
		struct sockaddr_storage from;
		struct iovec iov = { .iov_base = scratch, .iov_len = sizeof(scratch) };
		struct msghdr mh;
		ssize_t n;
		size_t room, copy;

		memset(&mh, 0, sizeof(mh));
		memset(&from, 0, sizeof(from));
		mh.msg_name = &from;
		mh.msg_namelen = sizeof(from);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = control.buf;
		mh.msg_controllen = sizeof(control.buf);

		n = recvmsg(fd, &mh, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return RXMSG_AGAIN;
			return RXMSG_ERROR;
		}
		if (n == 0 && !m->in_progress)
			return RXMSG_EOF;

		if (!m->in_progress) {
			memset(m, 0, sizeof(*m));
			m->in_progress = true;
			m->notification = (mh.msg_flags & MSG_NOTIFICATION) != 0;
			if (mh.msg_namelen > 0 && mh.msg_namelen <= sizeof(from)) {
				m->from = from;
				m->has_from = true;
			}
			take_rcvinfo(&mh, m);
		}
		room = RXMSG_HEAD_MAX - m->head_len;
		copy = (size_t)n < room ? (size_t)n : room;
		memcpy(m->head + m->head_len, scratch, copy);
		m->head_len += copy;
		m->total += (uint64_t)n;

		if (mh.msg_flags & MSG_EOR) {
			m->in_progress = false;
			return RXMSG_COMPLETE;
		}
		if (n == 0) {
			/* EOF in the middle of a message: deliver what came so
			 * the count stays honest, then EOF on the next call. */
			m->in_progress = false;
			return RXMSG_COMPLETE;
		}
	}
}
