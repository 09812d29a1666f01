/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Vector bursts (SSE4.2): RX takes four completions a step, as i40e's and
 * ice's vector paths take descriptors, and fills each mbuf with two 16-byte
 * stores; TX writes each descriptor in one 16-byte store. Chosen at port start when the CPU and
 * rte_vect_get_max_simd_bitwidth() allow it and the simd= devarg does not
 * say otherwise (refnic_burst_select()).
 *
 * They do the common case only, and hand everything else to the scalar
 * cores (refnic_rx_scalar(), refnic_tx_scalar()) at the point where it
 * starts, so that the two paths give the same frames, counts and errors:
 *  - RX: four completions ready in one cache line, for the next four posted
 *    descriptors, each a whole frame (EOP) of a sane length, with no flag
 *    beyond the ones turned into ol_flags by lookup. A frame being
 *    assembled, a bad or scattered completion, a ring wrap inside the four,
 *    fewer than four ready: the scalar core takes over from there.
 *  - TX: one segment, no offload; anything else goes to the scalar core.
 *
 * Completions are untrusted as in the scalar path: the four phase bytes are
 * read first, then a read barrier, then the entries; every index and length
 * is checked before it is used.
 */

#include <rte_cpuflags.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_prefetch.h>
#include <rte_vect.h>

#include "refnic.h"
#include "refnic_rxtx.h"

#define VEC			4	/* completions per step */

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
static_assert(offsetof(struct refnic_rx_cpl, desc_idx) == 4 &&
	      offsetof(struct refnic_rx_cpl, len) == 6 &&
	      offsetof(struct refnic_rx_cpl, flags) == 8 &&
	      offsetof(struct refnic_rx_cpl, vlan_tci) == 10 &&
	      offsetof(struct refnic_rx_cpl, ptype) == 12 &&
	      offsetof(struct refnic_rx_cpl, phase) == 15, "the completion layout");
static_assert(sizeof(struct refnic_tx_desc) == 16 &&
	      offsetof(struct refnic_tx_desc, len) == 8 &&
	      offsetof(struct refnic_tx_desc, flags) == 10, "the TX descriptor layout");

/* The flags the vector RX turns into ol_flags; any other sends the step to
 * the scalar core. */
#define RX_VEC_FLAGS	(REFNIC_RXC_EOP | (UINT16_C(0x3f) << REFNIC_RX_OL_SHIFT))

bool
refnic_vec_usable(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) == 1 &&
	       rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_128;
}

/* The four completions at next are ready: their phase bytes say so. */
static inline bool
rx_vec_ready(const struct refnic_rx_cpl *cq, uint8_t phase)
{
	const uint8_t *p = &cq[0].phase;
	/* Acquire, as cpl_ready(): the rest of each entry is read after. */
	uint8_t a = __atomic_load_n(&p[0], __ATOMIC_ACQUIRE);
	uint8_t b = __atomic_load_n(&p[16], __ATOMIC_ACQUIRE);
	uint8_t c = __atomic_load_n(&p[32], __ATOMIC_ACQUIRE);
	uint8_t d = __atomic_load_n(&p[48], __ATOMIC_ACQUIRE);

	/* All four equal to phase: their AND and their OR both are. */
	return ((a & b & c & d) & REFNIC_PHASE_BIT) == phase &&
	       ((a | b | c | d) & REFNIC_PHASE_BIT) == phase;
}

/*
 * Four ready completions c[0..3] for descriptors next..next+3: is each a
 * whole frame of 1 to buf_size bytes, for its own descriptor, with only
 * flags the lookup knows?
 */
static inline bool
rx_vec_valid(const __m128i c[VEC], uint16_t next, uint16_t buf_size)
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
	/* EOP set, nothing outside RX_VEC_FLAGS. */
	ok = _mm_and_si128(ok, _mm_cmpeq_epi32(_mm_and_si128(flags,
					_mm_set1_epi32((~RX_VEC_FLAGS & 0xffff) | REFNIC_RXC_EOP)),
					_mm_set1_epi32(REFNIC_RXC_EOP)));
	return _mm_movemask_epi8(ok) == 0xffff;
}

/*
 * The mbuf of one completion: rearm_data and ol_flags in one store,
 * packet_type, pkt_len, data_len, vlan_tci and the RSS hash in another.
 */
static inline uint32_t
rx_vec_mbuf(struct rte_mbuf *m, __m128i c, const struct refnic_rx_queue *rxq,
	    uint32_t ptype_mask)
{
	/* cpl bytes -> rx_descriptor_fields1: type (0, filled below), pkt_len
	 * = len, data_len = len, vlan_tci, hash.rss = rss_hash. */
	const __m128i shuf = _mm_setr_epi8(-1, -1, -1, -1, 6, 7, -1, -1,
					   6, 7, 10, 11, 0, 1, 2, 3);
	uint16_t flags = _mm_extract_epi16(c, 4);
	uint8_t ptype = _mm_extract_epi8(c, 12);
	__m128i fields = _mm_shuffle_epi8(c, shuf);

	fields = _mm_insert_epi32(fields, refnic_rx_ptype_tbl[ptype] & ptype_mask, 0);
	_mm_storeu_si128((__m128i *)&m->rearm_data,
			 _mm_set_epi64x(rxq->ol_flags_tbl[REFNIC_RX_OL_INDEX(flags)],
					rxq->mbuf_initializer));
	_mm_storeu_si128((__m128i *)&m->rx_descriptor_fields1, fields);
	return (uint16_t)_mm_extract_epi16(c, 3);
}

uint16_t
refnic_recv_pkts_vec(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_rx_queue *rxq = queue;
	uint16_t next, nb_rx = 0, posted;
	uint32_t ptype_mask;
	uint64_t bytes = 0;

	/* The queue's state is read once inside only (a recovery resets it). */
	if (unlikely(!refnic_burst_enter(&rxq->in_burst, &rxq->started, &rxq->broken,
					&rxq->held)))
		return 0;
	ptype_mask = __atomic_load_n(&rxq->ptype_mask, __ATOMIC_RELAXED);
	next = rxq->next;
	posted = (rxq->tail - next) & rxq->mask;
	/* A frame in assembly is the scalar core's to finish. */
	while (likely(rxq->pkt_first == NULL) && nb_pkts - nb_rx >= VEC && posted >= VEC &&
	       next + VEC <= rxq->size) {
		const struct refnic_rx_cpl *cq = &rxq->cq[next];
		struct rte_mbuf **sw = &rxq->sw_ring[next];
		__m128i c[VEC], m01, m23;
		unsigned int i;

		if (!rx_vec_ready(cq, rxq->phase))
			break;
		rte_io_rmb();
		for (i = 0; i < VEC; i++)
			c[i] = _mm_loadu_si128((const __m128i *)&cq[i]);
		if (!rx_vec_valid(c, next, rxq->buf_size))
			break;
		rte_prefetch0(&cq[VEC * 2]);
		/* The next step's mbufs, untouched since they were posted (the
		 * refill does not read them): their first line is written. */
		if (posted >= 2 * VEC && next + 2 * VEC <= rxq->size)
			for (i = VEC; i < 2 * VEC; i++)
				rte_prefetch0_write(sw[i]);
		m01 = _mm_loadu_si128((const __m128i *)&sw[0]);
		m23 = _mm_loadu_si128((const __m128i *)&sw[2]);
		_mm_storeu_si128((__m128i *)&sw[0], _mm_setzero_si128());
		_mm_storeu_si128((__m128i *)&sw[2], _mm_setzero_si128());
		_mm_storeu_si128((__m128i *)&pkts[nb_rx], m01);
		_mm_storeu_si128((__m128i *)&pkts[nb_rx + 2], m23);
		for (i = 0; i < VEC; i++)
			bytes += rx_vec_mbuf(pkts[nb_rx + i], c[i], rxq, ptype_mask);
		nb_rx += VEC;
		posted -= VEC;
		next = (next + VEC) & rxq->mask;
		if (next == 0)	/* both read by the doorbell check: stored whole */
			__atomic_store_n(&rxq->phase, rxq->phase ^ rxq->lap_flip,
					 __ATOMIC_RELAXED);
		__atomic_store_n(&rxq->next, next, __ATOMIC_RELAXED);
	}
	REFNIC_STAT_ADD(rxq->stats.packets, nb_rx);
	REFNIC_STAT_ADD(rxq->stats.bytes, bytes);
	/* The rest, whatever it is: fewer than four, a wrap, scatter, errors. */
	if (nb_rx < nb_pkts)
		nb_rx += refnic_rx_scalar(rxq, pkts + nb_rx, nb_pkts - nb_rx);
	refnic_rx_refill(rxq);
	refnic_burst_leave(&rxq->in_burst);
	return nb_rx;
}

/* One segment of a sendable length, no offload: what the vector TX writes
 * itself (an oversize one the scalar core drops and counts). */
static inline bool
tx_vec_simple(const struct rte_mbuf *m)
{
	return m->nb_segs == 1 && m->pkt_len <= REFNIC_MAX_FRAME_LEN &&
	       !(m->ol_flags & RTE_MBUF_F_TX_OFFLOAD_MASK);
}

static inline void
tx_vec_desc(struct refnic_tx_desc *d, const struct rte_mbuf *m)
{
	_mm_storeu_si128((__m128i *)d,
			 _mm_set_epi64x((uint64_t)REFNIC_TXD_EOP << 16 | m->data_len,
					rte_mbuf_data_iova(m)));
}

uint16_t
refnic_xmit_pkts_vec(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_tx_queue *txq = queue;
	uint64_t bytes = 0, dropped = 0;
	uint16_t tail, n = 0, room;

	if (unlikely(!refnic_burst_enter(&txq->in_burst, &txq->started, &txq->broken,
					&txq->held)))
		return 0;
	tail = txq->tail;
	if (txq->nb_free < txq->free_thresh)
		refnic_tx_reclaim(txq, nb_pkts);
	room = RTE_MIN(nb_pkts, txq->nb_free);
	while (n < room) {
		struct rte_mbuf *m = pkts[n];

		if (unlikely(!tx_vec_simple(m)))
			break;
		tx_vec_desc(&txq->ring[tail], m);
		txq->sw_ring[tail] = m;
		tail = (tail + 1) & txq->mask;
		bytes += m->data_len;
		n++;
	}
	txq->nb_free -= n;
	/* The rest: chains, offloads, a full ring (the scalar core reclaims). */
	if (n < nb_pkts)
		n += refnic_tx_scalar(txq, pkts + n, nb_pkts - n, &tail, &bytes, &dropped);
	refnic_tx_notify(txq, pkts, n, tail, bytes, dropped);
	refnic_burst_leave(&txq->in_burst);
	return n;
}
