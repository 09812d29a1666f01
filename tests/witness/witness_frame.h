/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _WITNESS_FRAME_H_
#define _WITNESS_FRAME_H_

/*
 * Witness frames as mbufs: Ethernet, IPv4, UDP (source port from the
 * stream, so that RSS keeps a stream on one queue and spreads streams),
 * then the witness (witness.h) to the end of the frame.
 */

#include <rte_ether.h>
#include <rte_mbuf.h>

#include "witness.h"

#define WITNESS_FRAME_HDRS	(RTE_ETHER_HDR_LEN + 20 + 8)
#define WITNESS_FRAME_MIN	(WITNESS_FRAME_HDRS + WITNESS_HDR_LEN)
#define WITNESS_FRAME_MAX	16384
#define WITNESS_UDP_DPORT	9	/* discard */

/* A frame of len bytes (WITNESS_FRAME_MIN..WITNESS_FRAME_MAX) from pool
 * in nb_segs segments, carrying (stream, seq); NULL if it cannot be built. */
struct rte_mbuf *witness_frame(struct rte_mempool *pool, const struct rte_ether_addr *dst,
			       uint32_t len, uint16_t nb_segs, uint16_t stream, uint64_t seq);

/* Account the received frame m on queue (witness_check()); a frame too
 * short or not UDP/IPv4 counts as corrupted. */
int witness_check_mbuf(struct witness_checker *c, uint16_t queue, const struct rte_mbuf *m);

/* The stream and sequence number m carries: 0, or -1 if it carries no
 * good witness. */
int witness_read_mbuf(const struct rte_mbuf *m, uint16_t *stream, uint64_t *seq);

#endif /* _WITNESS_FRAME_H_ */
