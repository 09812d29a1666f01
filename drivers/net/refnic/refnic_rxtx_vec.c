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
 *    assembled, a bad or scattered completion, a ring wrap inside the four:
 *    the scalar core takes over from there. Fewer than four ready go one
 *    at a time by the same rules (refnic_rx_vec_step1()).
 *  - TX: one segment, no offload; anything else goes to the scalar core.
 *
 * Completions are untrusted as in the scalar path: the four phase bytes are
 * read first, then a read barrier, then the entries; every index and length
 * is checked before it is used.
 */

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "refnic_rxtx_vec.h"

bool
refnic_vec_usable(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) == 1 &&
	       rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_128;
}

/* The AVX2 bursts (refnic_rxtx_vec_avx2.c): the CPU has AVX2 and EAL
 * allows 256 bits (its default on x86, unless --force-max-simd-bitwidth). */
bool
refnic_vec_avx2_usable(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) == 1 &&
	       rte_vect_get_max_simd_bitwidth() >= RTE_VECT_SIMD_256;
}

uint16_t
refnic_recv_pkts_vec(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
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
				    &bytes, REFNIC_RX_VEC, refnic_rx_vec_step4);
	/* One to three: the one-lane step; then the scalar core. */
	nb_rx = refnic_rx_vec_steps(rxq, pkts, nb_rx, nb_pkts, &next, &posted, ptype_mask, &bytes,
				    1, refnic_rx_vec_step1);
	return refnic_rx_vec_finish(rxq, pkts, nb_rx, nb_pkts, bytes);
}

uint16_t
refnic_xmit_pkts_vec(void *queue, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct refnic_tx_queue *txq = queue;
	uint16_t tail, n = 0, room;
	uint64_t bytes = 0;

	if (unlikely(!refnic_tx_vec_enter(txq, nb_pkts, &tail, &room)))
		return 0;
	while (n < room && likely(refnic_tx_vec_simple(pkts[n])))
		refnic_tx_vec_one(txq, pkts[n++], &tail, &bytes);
	return refnic_tx_vec_finish(txq, pkts, n, nb_pkts, tail, bytes);
}
