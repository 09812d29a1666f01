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

/*
 * A TSO packet (TCP/IPv4, RTE_MBUF_F_TX_TCP_SEG) of stream whose payload
 * is nb_frames blocks of mss bytes, block i the witness of (stream,
 * first_seq + i): cut at every mss bytes, as TSO cuts it, each frame on
 * the wire carries one whole witness, numbered in the byte stream's
 * order. In nb_mbufs mbufs from pool; NULL if it cannot be built (mss
 * below WITNESS_HDR_LEN, more than WITNESS_TSO_MAX bytes, mbufs too small).
 */
#define WITNESS_TSO_HDRS	(RTE_ETHER_HDR_LEN + 20 + 20)
#define WITNESS_TSO_MAX		65535
struct rte_mbuf *witness_tso_packet(struct rte_mempool *pool, const struct rte_ether_addr *dst,
				    uint16_t mss, uint16_t nb_frames, uint16_t nb_mbufs,
				    uint16_t stream, uint64_t first_seq);

/* Account the received frame m on queue (witness_check()); a frame too
 * short or neither UDP nor TCP over IPv4 counts as corrupted. */
int witness_check_mbuf(struct witness_checker *c, uint16_t queue, const struct rte_mbuf *m);

/* The stream and sequence number m carries: 0, or -1 if it carries no
 * good witness. */
int witness_read_mbuf(const struct rte_mbuf *m, uint16_t *stream, uint64_t *seq);

#endif /* _WITNESS_FRAME_H_ */
