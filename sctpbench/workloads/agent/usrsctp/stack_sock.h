/* The usrsctp socket as the files of the usrsctp socket layer (stack.c,
 * paths.c) share it; everyone else sees only stack.h's opaque type.
 * Includes usrsctp.h, whose names clash with the kernel's <netinet/sctp.h>:
 * never include it beside linux/sctpapi.h. */
#ifndef SCTPBENCH_USRSCTP_STACK_SOCK_H
#define SCTPBENCH_USRSCTP_STACK_SOCK_H

#include <stdbool.h>
#include <usrsctp.h>

struct ustack_sock {
	struct socket *so;
	int wake[2]; /* the upcall writes [1], the poll loop reads [0] */
	bool subscribed_dry;
};

#endif
