/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_RXTX_VEC_H_
#define _REFNIC_RXTX_VEC_H_

/*
 * What the SSE4.2 bursts (refnic_rxtx_vec.c) and the AVX2 ones
 * (refnic_rxtx_vec_avx2.c) share: the layouts they rely on, the four-wide
 * RX step (the AVX2 burst's fallback for four to seven ready completions)
 * and the one-wide one (fewer than four ready: a lone frame),
 * the mbuf stores, and the way into and out of a burst. Inline, so each
 * file compiles them with its own instruction set. x86 only.
 */

#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_vect.h>

#include "refnic.h"
#include "refnic_rxtx.h"

/* The mbuf stores below write rearm_data with ol_flags, and
 * rx_descriptor_fields1, 16 bytes each. */
static_assert(offsetof(struct rte_mbuf, ol_flags) ==
	      offsetof(struct rte_mbuf, rearm_data) + 8, "ol_flags follows rearm_data");
static_assert(offsetof(struct rte_mbuf, pkt_len) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 4, "pkt_len at +4");
static_assert(offsetof(struct rte_mbuf, data_len) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 8, "data_len at +8");
static_assert(offsetof(struct rte_mbuf, vlan_tci) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 10, "vlan_tci at +10");
static_assert(offsetof(struct rte_mbuf, hash) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 12, "hash at +12");
static_assert(sizeof(struct refnic_rx_cpl) == 16 &&
	      offsetof(struct refnic_rx_cpl, desc_idx) == 4 &&
	      offsetof(struct refnic_rx_cpl, len) == 6 &&
	      offsetof(struct refnic_rx_cpl, flags) == 8 &&
	      offsetof(struct refnic_rx_cpl, vlan_tci) == 10 &&
	      offsetof(struct refnic_rx_cpl, ptype) == 12 &&
	      offsetof(struct refnic_rx_cpl, phase) == 15, "the completion layout");
static_assert(sizeof(struct refnic_tx_desc) == 16 &&
	      offsetof(struct refnic_tx_desc, len) == 8 &&
	      offsetof(struct refnic_tx_desc, flags) == 10, "the TX descriptor layout");

#define REFNIC_RX_VEC		4	/* completions per SSE step */

/* The flags the vector RX turns into ol_flags; any other sends the step to
 * the scalar core. */
#define REFNIC_RX_VEC_FLAGS	(REFNIC_RXC_EOP | (UINT16_C(0x3f) << REFNIC_RX_OL_SHIFT))

/* cpl bytes -> rx_descriptor_fields1: type (0, filled per mbuf), pkt_len =
 * len, data_len = len, vlan_tci, hash.rss = rss_hash. One 16-byte lane. */
#define REFNIC_RX_VEC_FIELDS_SHUF \
	-1, -1, -1, -1, 6, 7, -1, -1, 6, 7, 10, 11, 0, 1, 2, 3

/* The n completions at cq are ready: their phase bytes say so. */
static __rte_always_inline bool
refnic_rx_vec_ready(const struct refnic_rx_cpl *cq, uint8_t phase, unsigned int n)
{
	uint8_t all = 0xff, any = 0;
	unsigned int i;

	/* The last one first: when fewer are ready (a lone packet, an idle
	 * poll), one load says so; the whole loop cost a lone packet's burst
	 * ~90 instructions with the AVX2 step's eight and the SSE step's four. */
	if ((__atomic_load_n(&cq[n - 1].phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) != phase)
		return false;
	for (i = 0; i < n; i++) {
		/* Acquire, as cpl_ready(): the rest of each entry is read after. */
		uint8_t p = __atomic_load_n(&cq[i].phase, __ATOMIC_ACQUIRE);

		all &= p;
		any |= p;
	}
	/* All equal to phase: their AND and their OR both are. */
	return (all & REFNIC_PHASE_BIT) == phase && (any & REFNIC_PHASE_BIT) == phase;
}

/*
 * Four ready completions c[0..3] for descriptors next..next+3: is each a
 * whole frame of 1 to buf_size bytes, for its own descriptor, with only
 * flags the lookup knows?
 */
static __rte_always_inline bool
refnic_rx_vec_valid(const __m128i c[REFNIC_RX_VEC], uint16_t next, uint16_t buf_size)
{
	/* Dwords 1 (desc_idx, len) and 2 (flags, vlan_tci) of the four. */
	__m128i lo01 = _mm_unpacklo_epi32(c[0], c[1]), lo23 = _mm_unpacklo_epi32(c[2], c[3]);
	__m128i hi01 = _mm_unpackhi_epi32(c[0], c[1]), hi23 = _mm_unpackhi_epi32(c[2], c[3]);
	__m128i idx_len = _mm_unpackhi_epi64(lo01, lo23);
	__m128i flags = _mm_and_si128(_mm_unpacklo_epi64(hi01, hi23), _mm_set1_epi32(0xffff));
	__m128i idx = _mm_and_si128(idx_len, _mm_set1_epi32(0xffff));
	__m128i len = _mm_srli_epi32(idx_len, 16);
	__m128i ok;

	ok = _mm_cmpeq_epi32(idx, _mm_add_epi32(_mm_set1_epi32(next), _mm_setr_epi32(0, 1, 2, 3)));
	ok = _mm_and_si128(ok, _mm_cmpgt_epi32(len, _mm_setzero_si128()));
	ok = _mm_and_si128(ok, _mm_cmplt_epi32(len, _mm_set1_epi32((int)buf_size + 1)));
	/* EOP set, nothing outside REFNIC_RX_VEC_FLAGS. */
	ok = _mm_and_si128(ok, _mm_cmpeq_epi32(_mm_and_si128(flags,
				_mm_set1_epi32((~REFNIC_RX_VEC_FLAGS & 0xffff) | REFNIC_RXC_EOP)),
				_mm_set1_epi32(REFNIC_RXC_EOP)));
	return _mm_movemask_epi8(ok) == 0xffff;
}

/*
 * The mbuf of one completion c, whose bytes fields already hold in
 * rx_descriptor_fields1's order (REFNIC_RX_VEC_FIELDS_SHUF): rearm_data and
 * ol_flags in one store, packet_type, pkt_len, data_len, vlan_tci and the
 * RSS hash in another. Returns the frame's length.
 */
static __rte_always_inline uint32_t
refnic_rx_vec_mbuf(struct rte_mbuf *m, __m128i c, __m128i fields,
		   const struct refnic_rx_queue *rxq, uint32_t ptype_mask)
{
	uint16_t flags = _mm_extract_epi16(c, 4);
	uint8_t ptype = _mm_extract_epi8(c, 12);

	fields = _mm_insert_epi32(fields, refnic_rx_ptype_tbl[ptype] & ptype_mask, 0);
	_mm_storeu_si128((__m128i *)&m->rearm_data,
			 _mm_set_epi64x(rxq->ol_flags_tbl[REFNIC_RX_OL_INDEX(flags)],
					rxq->mbuf_initializer));
	_mm_storeu_si128((__m128i *)&m->rx_descriptor_fields1, fields);
	return (uint16_t)_mm_extract_epi16(c, 3);
}

/*
 * Room for a step of n completions: n wanted, n posted, and no wrap inside
 * the n. (No frame in assembly either, the scalar core's to finish: the
 * burst looks once, refnic_rx_vec_enter(), as the steps never start one.)
 */
static __rte_always_inline bool
refnic_rx_vec_room(const struct refnic_rx_queue *rxq, uint16_t next, uint16_t posted,
		   uint16_t left, uint16_t n)
{
	return left >= n && posted >= n && next + n <= rxq->size;
}

/* Past n completions: next, and the phase at a wrap. */
static __rte_always_inline uint16_t
refnic_rx_vec_advance(struct refnic_rx_queue *rxq, uint16_t next, uint16_t n)
{
	next = (next + n) & rxq->mask;
	if (next == 0)	/* both read by the doorbell check: stored whole */
		__atomic_store_n(&rxq->phase, rxq->phase ^ rxq->lap_flip, __ATOMIC_RELAXED);
	__atomic_store_n(&rxq->next, next, __ATOMIC_RELAXED);
	return next;
}

/*
 * One SSE step: the four completions at next into pkts[0..3], if they are
 * ready and valid (the queue untouched otherwise). posted: descriptors
 * posted from next on. Adds their bytes to *bytes.
 */
static __rte_always_inline bool
refnic_rx_vec_step4(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t next,
		    uint16_t posted, uint32_t ptype_mask, uint64_t *bytes)
{
	const __m128i shuf = _mm_setr_epi8(REFNIC_RX_VEC_FIELDS_SHUF);
	const struct refnic_rx_cpl *cq = &rxq->cq[next];
	struct rte_mbuf **sw = &rxq->sw_ring[next];
	__m128i c[REFNIC_RX_VEC], m01, m23;
	unsigned int i;

	if (!refnic_rx_vec_ready(cq, rxq->phase, REFNIC_RX_VEC))
		return false;
	rte_io_rmb();
	for (i = 0; i < REFNIC_RX_VEC; i++)
		c[i] = _mm_loadu_si128((const __m128i *)&cq[i]);
	if (!refnic_rx_vec_valid(c, next, rxq->buf_size))
		return false;
	rte_prefetch0(&cq[REFNIC_RX_VEC * 2]);
	/* The next step's mbufs, untouched since they were posted (the
	 * refill does not read them): their first line is written. */
	if (posted >= 2 * REFNIC_RX_VEC && next + 2 * REFNIC_RX_VEC <= rxq->size)
		for (i = REFNIC_RX_VEC; i < 2 * REFNIC_RX_VEC; i++)
			rte_prefetch0_write(sw[i]);
	m01 = _mm_loadu_si128((const __m128i *)&sw[0]);
	m23 = _mm_loadu_si128((const __m128i *)&sw[2]);
	_mm_storeu_si128((__m128i *)&sw[0], _mm_setzero_si128());
	_mm_storeu_si128((__m128i *)&sw[2], _mm_setzero_si128());
	_mm_storeu_si128((__m128i *)&pkts[0], m01);
	_mm_storeu_si128((__m128i *)&pkts[2], m23);
	for (i = 0; i < REFNIC_RX_VEC; i++)
		*bytes += refnic_rx_vec_mbuf(pkts[i], c[i], _mm_shuffle_epi8(c[i], shuf),
					     rxq, ptype_mask);
	return true;
}

/*
 * One completion at next into pkts[0], if it is ready and valid (the queue
 * untouched otherwise): the tail of a burst, fewer than four ready. A lone
 * frame took the scalar core, ~130 instructions of loop set-up and
 * per-field stores for one completion; this is the SSE step's checks and
 * stores on one lane. posted: unused (the room check has one posted).
 */
static __rte_always_inline bool
refnic_rx_vec_step1(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t next,
		    uint16_t posted __rte_unused, uint32_t ptype_mask, uint64_t *bytes)
{
	const __m128i shuf = _mm_setr_epi8(REFNIC_RX_VEC_FIELDS_SHUF);
	const struct refnic_rx_cpl *cq = &rxq->cq[next];
	struct rte_mbuf *m;
	uint16_t len, flags;
	__m128i c;

	if ((__atomic_load_n(&cq->phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) != rxq->phase)
		return false;
	rte_io_rmb();
	c = _mm_loadu_si128((const __m128i *)cq);
	len = _mm_extract_epi16(c, 3);
	flags = _mm_extract_epi16(c, 4);
	/* refnic_rx_vec_valid()'s rules, for one. */
	if ((uint16_t)_mm_extract_epi16(c, 2) != next || len == 0 || len > rxq->buf_size ||
	    (flags & ((~REFNIC_RX_VEC_FLAGS & 0xffff) | REFNIC_RXC_EOP)) != REFNIC_RXC_EOP)
		return false;
	m = rxq->sw_ring[next];
	rxq->sw_ring[next] = NULL;
	pkts[0] = m;
	*bytes += refnic_rx_vec_mbuf(m, c, _mm_shuffle_epi8(c, shuf), rxq, ptype_mask);
	return true;
}

/* A step of n completions (refnic_rx_vec_step4(), the AVX2 file's eight). */
typedef bool (*refnic_rx_vec_step_t)(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts,
				     uint16_t next, uint16_t posted, uint32_t ptype_mask,
				     uint64_t *bytes);

/* Steps of n from *next, while there is room and they go through; step is
 * a constant at every call, inlined. Returns nb_rx with theirs. */
static __rte_always_inline uint16_t
refnic_rx_vec_steps(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t nb_rx,
		    uint16_t nb_pkts, uint16_t *next, uint16_t *posted, uint32_t ptype_mask,
		    uint64_t *bytes, uint16_t n, refnic_rx_vec_step_t step)
{
	while (refnic_rx_vec_room(rxq, *next, *posted, nb_pkts - nb_rx, n) &&
	       step(rxq, pkts + nb_rx, *next, *posted, ptype_mask, bytes)) {
		nb_rx += n;
		*posted -= n;
		*next = refnic_rx_vec_advance(rxq, *next, n);
	}
	return nb_rx;
}

/*
 * At most one completion ready at next (a lone frame's burst, an idle
 * poll): the one after it, inside the ring and posted, is not written yet.
 * Then each wide step would only look and fail, ~40 instructions a burst;
 * the one-lane step goes first. A hint only (relaxed): every step checks
 * again.
 */
static __rte_always_inline bool
refnic_rx_vec_few(const struct refnic_rx_queue *rxq, uint16_t next, uint16_t posted)
{
	return posted >= 2 && next + 1 < rxq->size &&
	       (__atomic_load_n(&rxq->cq[next + 1].phase, __ATOMIC_RELAXED) &
		REFNIC_PHASE_BIT) != rxq->phase;
}

/* Into a vector RX burst: the queue's state, read once inside only (a
 * recovery resets it). */
static __rte_always_inline bool
refnic_rx_vec_enter(struct refnic_rx_queue *rxq, uint16_t *next, uint16_t *posted,
		    uint32_t *ptype_mask)
{
	if (unlikely(!refnic_burst_enter(&rxq->in_burst, &rxq->started, &rxq->broken,
					&rxq->held)))
		return false;
	*ptype_mask = __atomic_load_n(&rxq->ptype_mask, __ATOMIC_RELAXED);
	*next = rxq->next;
	/* A frame in assembly: no vector step, the scalar core goes on with
	 * it (read here once: the steps' stores made the compiler read it
	 * again before every step). */
	*posted = likely(rxq->pkt_first == NULL) ? (rxq->tail - *next) & rxq->mask : 0;
	return true;
}

/* A vector RX burst's last steps: count what the steps took, refill, leave. */
static __rte_always_inline uint16_t
refnic_rx_vec_leave(struct refnic_rx_queue *rxq, uint16_t nb_rx, uint64_t bytes)
{
	REFNIC_STAT_ADD(rxq->stats.packets, nb_rx);
	REFNIC_STAT_ADD(rxq->stats.bytes, bytes);
	refnic_rx_refill_due(rxq);
	refnic_burst_leave(&rxq->in_burst);
	return nb_rx;
}

/*
 * The end of a vector RX burst that took nb_rx frames itself: count them,
 * hand the rest to the scalar core (fewer than a step, a wrap, scatter,
 * errors), refill, leave.
 */
static __rte_always_inline uint16_t
refnic_rx_vec_finish(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t nb_rx,
		     uint16_t nb_pkts, uint64_t bytes)
{
	uint16_t next = rxq->next, nb_scalar = 0;

	/* The scalar core only if it has a completion to read (a bad one, a
	 * piece of a frame, a stamp): called with none, it read nothing and
	 * cost a lone frame's burst ~50 instructions. It counts its own. */
	if (nb_rx < nb_pkts && next != rxq->tail &&
	    (__atomic_load_n(&rxq->cq[next].phase, __ATOMIC_ACQUIRE) & REFNIC_PHASE_BIT) ==
	    rxq->phase)
		nb_scalar = refnic_rx_scalar(rxq, pkts + nb_rx, nb_pkts - nb_rx);
	return refnic_rx_vec_leave(rxq, nb_rx, bytes) + nb_scalar;
}

/*
 * A lone frame's burst (refnic_rx_vec_few() said the completion after next
 * was not written): the one-lane step once. In the steps' loop a second
 * step only looked and failed, and the scalar core's look in
 * refnic_rx_vec_finish() read the same phase again, ~25 instructions a
 * burst; a completion written since waits for the next burst, as one
 * written after this burst does. A step that fails (not ready, or a
 * completion the vector rules refuse) leaves it to the scalar core, as
 * before.
 */
static __rte_always_inline uint16_t
refnic_rx_vec_lone(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts,
		   uint16_t next, uint16_t posted, uint32_t ptype_mask)
{
	uint64_t bytes = 0;

	/* Room: few() found two posted and next + 1 inside the ring. */
	if (nb_pkts == 0 || !refnic_rx_vec_step1(rxq, pkts, next, posted, ptype_mask, &bytes))
		return refnic_rx_vec_finish(rxq, pkts, 0, nb_pkts, 0);
	refnic_rx_vec_advance(rxq, next, 1);
	return refnic_rx_vec_leave(rxq, 1, bytes);
}

/* One segment of a sendable length, no offload: what the vector TX writes
 * itself (an oversize one the scalar core drops and counts). */
static __rte_always_inline bool
refnic_tx_vec_simple(const struct rte_mbuf *m)
{
	return m->nb_segs == 1 && m->pkt_len <= REFNIC_MAX_FRAME_LEN &&
	       !(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK);
}

/* The descriptor of such a packet, as one 16-byte value. */
static __rte_always_inline __m128i
refnic_tx_vec_desc(const struct rte_mbuf *m)
{
	return _mm_set_epi64x((uint64_t)REFNIC_TXD_EOP << 16 | m->data_len,
			      rte_mbuf_data_iova(m));
}

/* Write one simple packet's descriptor at *tail. */
static __rte_always_inline void
refnic_tx_vec_one(struct refnic_tx_queue *txq, struct rte_mbuf *m, uint16_t *tail,
		  uint64_t *bytes)
{
	_mm_storeu_si128((__m128i *)&txq->ring[*tail], refnic_tx_vec_desc(m));
	txq->sw_ring[*tail] = m;
	*tail = (*tail + 1) & txq->mask;
	*bytes += m->data_len;
}

/* Into a vector TX burst: reclaim if due; where to write (*tail) and how
 * many packets fit (*room). */
static __rte_always_inline bool
refnic_tx_vec_enter(struct refnic_tx_queue *txq, uint16_t nb_pkts, uint16_t *tail,
		    uint16_t *room)
{
	if (unlikely(!refnic_burst_enter(&txq->in_burst, &txq->started, &txq->broken,
					&txq->held)))
		return false;
	*tail = txq->tail;
	if (txq->nb_free < txq->free_thresh)
		refnic_tx_reclaim(txq, nb_pkts);
	*room = RTE_MIN(nb_pkts, txq->nb_free);
	return true;
}

/*
 * The end of a vector TX burst that wrote n descriptors itself up to tail:
 * the rest to the scalar core (chains, offloads, a full ring: it reclaims),
 * then one notification (TAIL or push) for the whole burst.
 */
static __rte_always_inline uint16_t
refnic_tx_vec_finish(struct refnic_tx_queue *txq, struct rte_mbuf **pkts, uint16_t n,
		     uint16_t nb_pkts, uint16_t tail, uint64_t bytes)
{
	uint64_t dropped = 0;

	txq->nb_free -= n;
	if (n < nb_pkts)
		n += refnic_tx_scalar(txq, pkts + n, nb_pkts - n, &tail, &bytes, &dropped);
	refnic_tx_notify(txq, pkts, n, tail, bytes, dropped);
	refnic_burst_leave(&txq->in_burst);
	return n;
}

#endif /* _REFNIC_RXTX_VEC_H_ */
