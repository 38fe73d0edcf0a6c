/* The SCTP socket options an experiment may set, as the command line gives
 * them (cli.c).  Each stack applies them its own way: linux/sockopts.c on
 * the kernel socket, usrsctp/stack.c on a usrsctp one; so this header
 * names no socket API.
 */
#ifndef SCTPBENCH_OPTIONS_H
#define SCTPBENCH_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

struct sock_opts {
	bool has_nodelay;
	int nodelay;
	bool has_sack_delay;
	uint32_t sack_delay_ms; /* 0 = delayed SACK off */
	bool has_sack_freq;
	uint32_t sack_freq;
	bool has_streams;
	uint16_t streams;
};

#endif
