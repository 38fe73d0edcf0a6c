/* The lksctp API header, included the one safe way.
 *
 * <netinet/sctp.h> defines IPPROTO_SCTP as a macro when it has not seen
 * <netinet/in.h>, and a later <netinet/in.h> then fails to compile its
 * enum; including the socket headers first here settles the order for
 * every file.
 */
#ifndef SCTPBENCH_SCTPAPI_H
#define SCTPBENCH_SCTPAPI_H

#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/sctp.h>

#endif
