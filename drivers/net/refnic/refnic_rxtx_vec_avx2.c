/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * AVX2 bursts, beside the SSE4.2 ones (refnic_rxtx_vec.c), as i40e and ice
 * keep theirs: this file alone is built with -mavx2 (drivers/meson.build)
 * and runs only where the CPU has AVX2 (refnic_burst_select()), so the
 * rest of the PMD keeps DPDK's baseline.
 *
 *  - RX takes eight completions a step, two per 256-bit load, checks them
 *    with one set of 256-bit compares (the SSE rules: own descriptor,
 *    1 to buf_size bytes, EOP, no flag beyond the lookup's), and moves the
 *    eight mbuf pointers in two 256-bit loads and stores. Four to seven
 *    ready (or room for fewer than eight, or a wrap inside them) go to the
 *    SSE step, one to three to its one-lane step, and what those do not
 *    take to the scalar core, so all three paths give the same frames,
 *    counts and errors.
 *  - TX writes two descriptors per 256-bit store; a lone one, or one before
 *    the ring's end, takes the SSE 16-byte store. Chains, offloads and a
 *    full ring go to the scalar core, and TAIL is written once a burst.
 *
 * Completions are untrusted: all eight phase bytes are read first, then a
 * read barrier, then the entries; every index and length is checked before
 * it is used.
 */

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "refnic_rxtx_vec.h"

#define RX_AVX2		8	/* completions per step */

/*
 * Eight ready completions, c[k] holding 2k and 2k + 1, for descriptors
 * next..next+7: the SSE checks (refnic_rx_vec_valid()), eight at a time.
 */
static __rte_always_inline bool
rx_avx2_valid(const __m256i c[RX_AVX2 / 2], uint16_t next, uint16_t buf_size)
{
	/* Dwords 1 (desc_idx, len) and 2 (flags, vlan_tci) of the eight; the
	 * unpacks stay in their 128-bit lanes, so the order is 0 2 4 6 1 3 5 7. */
	__m256i lo0 = _mm256_unpacklo_epi32(c[0], c[1]), lo1 = _mm256_unpacklo_epi32(c[2], c[3]);
	__m256i hi0 = _mm256_unpackhi_epi32(c[0], c[1]), hi1 = _mm256_unpackhi_epi32(c[2], c[3]);
	__m256i idx_len = _mm256_unpackhi_epi64(lo0, lo1);
	__m256i flags = _mm256_and_si256(_mm256_unpacklo_epi64(hi0, hi1),
					 _mm256_set1_epi32(0xffff));
	__m256i idx = _mm256_and_si256(idx_len, _mm256_set1_epi32(0xffff));
	__m256i len = _mm256_srli_epi32(idx_len, 16);
	__m256i ok;

	ok = _mm256_cmpeq_epi32(idx, _mm256_add_epi32(_mm256_set1_epi32(next),
				_mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7)));
	ok = _mm256_and_si256(ok, _mm256_cmpgt_epi32(len, _mm256_setzero_si256()));
	ok = _mm256_and_si256(ok, _mm256_cmpgt_epi32(_mm256_set1_epi32((int)buf_size + 1), len));
	ok = _mm256_and_si256(ok, _mm256_cmpeq_epi32(_mm256_and_si256(flags,
			_mm256_set1_epi32((~REFNIC_RX_VEC_FLAGS & 0xffff) | REFNIC_RXC_EOP)),
			_mm256_set1_epi32(REFNIC_RXC_EOP)));
	return _mm256_movemask_epi8(ok) == -1;
}

/*
 * One AVX2 step: the eight completions at next into pkts[0..7], if all are
 * ready and valid (the queue untouched otherwise). posted: descriptors
 * posted from next on. Adds their bytes to *bytes.
 */
static __rte_always_inline bool
rx_avx2_step(struct refnic_rx_queue *rxq, struct rte_mbuf **pkts, uint16_t next,
	     uint16_t posted, uint32_t ptype_mask, uint64_t *bytes)
{
	const __m256i shuf = _mm256_setr_epi8(REFNIC_RX_VEC_FIELDS_SHUF,
					      REFNIC_RX_VEC_FIELDS_SHUF);
	const struct refnic_rx_cpl *cq = &rxq->cq[next];
	struct rte_mbuf **sw = &rxq->sw_ring[next];
	__m256i c[RX_AVX2 / 2], mb0, mb1;
	unsigned int i;

	if (!refnic_rx_vec_ready(cq, rxq->phase, RX_AVX2))
		return false;
	rte_io_rmb();
	for (i = 0; i < RX_AVX2 / 2; i++)
		c[i] = _mm256_loadu_si256((const __m256i *)&cq[2 * i]);
	if (!rx_avx2_valid(c, next, rxq->buf_size))
		return false;
	/* The next step's two lines of completions, and its mbufs (untouched
	 * since they were posted: their first line is written). */
	rte_prefetch0(&cq[2 * RX_AVX2]);
	rte_prefetch0(&cq[3 * RX_AVX2 - REFNIC_RX_VEC]);
	if (posted >= 2 * RX_AVX2 && next + 2 * RX_AVX2 <= rxq->size)
		for (i = RX_AVX2; i < 2 * RX_AVX2; i++)
			rte_prefetch0_write(sw[i]);
	mb0 = _mm256_loadu_si256((const __m256i *)&sw[0]);
	mb1 = _mm256_loadu_si256((const __m256i *)&sw[4]);
	_mm256_storeu_si256((__m256i *)&sw[0], _mm256_setzero_si256());
	_mm256_storeu_si256((__m256i *)&sw[4], _mm256_setzero_si256());
	_mm256_storeu_si256((__m256i *)&pkts[0], mb0);
	_mm256_storeu_si256((__m256i *)&pkts[4], mb1);
	for (i = 0; i < RX_AVX2 / 2; i++) {
		__m256i f = _mm256_shuffle_epi8(c[i], shuf);

		*bytes += refnic_rx_vec_mbuf(pkts[2 * i], _mm256_castsi256_si128(c[i]),
					     _mm256_castsi256_si128(f), rxq, ptype_mask);
		*bytes += refnic_rx_vec_mbuf(pkts[2 * i + 1], _mm256_extracti128_si256(c[i], 1),
					     _mm256_extracti128_si256(f, 1), rxq, ptype_mask);
	}
	return true;
}

uint16_t
refnic_recv_pkts_vec_avx2(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_rx_queue *rxq = queue;
	uint16_t next, nb_rx, posted;
	uint32_t ptype_mask;
	uint64_t bytes = 0;

	if (unlikely(!refnic_rx_vec_enter(rxq, &next, &posted, &ptype_mask)))
		return 0;
	if (refnic_rx_vec_few(rxq, next, posted))
		return refnic_rx_vec_lone(rxq, pkts, nb_pkts, next, posted, ptype_mask);
	nb_rx = refnic_rx_vec_steps(rxq, pkts, 0, nb_pkts, &next, &posted, ptype_mask,
				    &bytes, RX_AVX2, rx_avx2_step);
	/* Four to seven: the SSE step. */
	nb_rx = refnic_rx_vec_steps(rxq, pkts, nb_rx, nb_pkts, &next, &posted, ptype_mask,
				    &bytes, REFNIC_RX_VEC, refnic_rx_vec_step4);
	/* One to three: the one-lane step; then the scalar core. */
	nb_rx = refnic_rx_vec_steps(rxq, pkts, nb_rx, nb_pkts, &next, &posted, ptype_mask, &bytes,
				    1, refnic_rx_vec_step1);
	return refnic_rx_vec_finish(rxq, pkts, nb_rx, nb_pkts, bytes);
}

uint16_t
refnic_xmit_pkts_vec_avx2(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_tx_queue *txq = queue;
	uint16_t tail, n = 0, room;
	uint64_t bytes = 0;

	if (unlikely(!refnic_tx_vec_enter(txq, nb_pkts, &tail, &room)))
		return 0;
	while (n < room && likely(refnic_tx_vec_simple(pkts[n]))) {
		struct rte_mbuf *m0 = pkts[n], *m1 = n + 1 < room ? pkts[n + 1] : NULL;

		/* Two, unless one is left, the ring ends after the first, or
		 * the second is not simple. */
		if (m1 == NULL || tail == txq->mask || !refnic_tx_vec_simple(m1)) {
			refnic_tx_vec_one(txq, m0, &tail, &bytes);
			n++;
			continue;
		}
		_mm256_storeu_si256((__m256i *)&txq->ring[tail],
				    _mm256_inserti128_si256(
					_mm256_castsi128_si256(refnic_tx_vec_desc(m0)),
					refnic_tx_vec_desc(m1), 1));
		_mm_storeu_si128((__m128i *)&txq->sw_ring[tail],
				 _mm_loadu_si128((const __m128i *)&pkts[n]));
		tail = (tail + 2) & txq->mask;
		bytes += m0->data_len + m1->data_len;
		n += 2;
	}
	return refnic_tx_vec_finish(txq, pkts, n, nb_pkts, tail, bytes);
}
