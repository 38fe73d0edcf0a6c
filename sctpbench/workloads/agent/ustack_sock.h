/* The usrsctp socket as the files of the usrsctp socket layer (ustack.c,
 * upaths.c) share it; everyone else sees only ustack.h's opaque type.
 * Includes usrsctp.h, whose names clash with the kernel's <netinet/sctp.h>:
 * never include it beside sctpapi.h. */
#ifndef SCTPBENCH_USTACK_SOCK_H
#define SCTPBENCH_USTACK_SOCK_H

#include <stdbool.h>
#include <usrsctp.h>

struct ustack_sock {
	struct socket *so;
	int wake[2]; /* the upcall writes [1], the poll loop reads [0] */
	bool subscribed_dry;
};

#endif
