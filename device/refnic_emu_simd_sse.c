/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The descriptor stages in SSE4.2, DPDK's x86 baseline: a group of four
 * descriptors (a cache line, when the run starts on one) checked in 32-bit
 * lanes, their addresses translated two by two in 64-bit lanes
 * (refnic_emu_simd.h says what each takes and why the rest is the scalar
 * loop's).
 */

#include <rte_common.h>
#include <rte_vect.h>

#include "refnic_emu_parse.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_simd.h"
#include "refnic_emu_simd_lanes.h"

/* Dword 2 of each of four 16-byte entries, in one register. */
static __rte_always_inline __m128i
sse_dword2(__m128i e0, __m128i e1, __m128i e2, __m128i e3)
{
	return _mm_unpacklo_epi64(_mm_unpackhi_epi32(e0, e1), _mm_unpackhi_epi32(e2, e3));
}

/* a > b as unsigned 64-bit lanes (the compare is signed: both biased). */
static __rte_always_inline __m128i
sse_gt_u64(__m128i a, __m128i b)
{
	const __m128i bias = _mm_set1_epi64x(INT64_MIN);

	return _mm_cmpgt_epi64(_mm_xor_si128(a, bias), _mm_xor_si128(b, bias));
}

/* The pass's window, a copy in each 64-bit lane. */
struct sse_window {
	__m128i iova, len, va;
};

static __rte_always_inline void
sse_window_load(struct sse_window *v, const struct refnic_dma_window *w)
{
	v->iova = _mm_set1_epi64x(w->iova);
	v->len = _mm_set1_epi64x(w->len);
	v->va = _mm_set1_epi64x(w->va);
}

/*
 * Two buffers at addr (64-bit lanes) of len bytes, inside the window: the
 * offset into it no more than its length less len (len <= its length was
 * made sure of by the caller). Returns the lanes inside; *va where each is.
 */
static __rte_always_inline unsigned int
sse_window_map(__m128i addr, __m128i len, const struct sse_window *w, __m128i *va)
{
	__m128i off = _mm_sub_epi64(addr, w->iova);

	*va = _mm_add_epi64(w->va, off);
	return _mm_movemask_pd(_mm_castsi128_pd(sse_gt_u64(off, _mm_sub_epi64(w->len, len)))) ^
	       3;
}

/* Sum of four 32-bit lanes. */
static __rte_always_inline uint32_t
sse_sum32(__m128i v)
{
	v = _mm_add_epi32(v, _mm_srli_si128(v, 8));
	return (uint32_t)_mm_cvtsi128_si32(_mm_add_epi32(v, _mm_srli_si128(v, 4)));
}

unsigned int
refnic_emu_tx_fetch_sse(const struct refnic_tx_desc *ring, unsigned int n,
			const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
			struct refnic_plain_frame *pf, uint64_t *bytes)
{
	const __m128i flag_mask = _mm_set1_epi32(REFNIC_TXD_PLAIN_MASK << 16);
	const __m128i eop = _mm_set1_epi32(REFNIC_TXD_EOP << 16);
	const __m128i len_mask = _mm_set1_epi32(UINT16_MAX);
	const __m128i len_min = _mm_set1_epi32(EMU_ETH_HLEN - 1);
	const __m128i len_max = _mm_set1_epi32(REFNIC_MAX_FRAME_LEN + 1);
	__m128i sum = _mm_setzero_si128();
	unsigned int i, lead = REFNIC_EMU_SIMD_GROUP;
	struct sse_window win;

	sse_window_load(&win, w);
	for (i = 0; i + REFNIC_EMU_SIMD_GROUP <= n; i += lead) {
		const __m128i *d = (const __m128i *)&ring[i];
		__m128i d0 = _mm_loadu_si128(d), d1 = _mm_loadu_si128(d + 1);
		__m128i d2 = _mm_loadu_si128(d + 2), d3 = _mm_loadu_si128(d + 3);
		__m128i lf = sse_dword2(d0, d1, d2, d3);	/* len | flags << 16 */
		__m128i len = _mm_and_si128(lf, len_mask);
		__m128i len01 = _mm_cvtepu32_epi64(len);
		__m128i len23 = _mm_cvtepu32_epi64(_mm_srli_si128(len, 8));
		__m128i a01 = _mm_unpacklo_epi64(d0, d1), a23 = _mm_unpacklo_epi64(d2, d3);
		__m128i va01, va23;
		unsigned int fit, ok;

		/* A window shorter than a frame: lengths judged by the scalar loop. */
		if (unlikely(w->len < REFNIC_MAX_FRAME_LEN))
			break;
		fit = _mm_movemask_ps(_mm_castsi128_ps(_mm_and_si128(
			_mm_cmpeq_epi32(_mm_and_si128(lf, flag_mask), eop),
			_mm_and_si128(_mm_cmpgt_epi32(len, len_min), _mm_cmpgt_epi32(len_max, len)))));
		ok = fit & (sse_window_map(a01, len01, &win, &va01) |
			    sse_window_map(a23, len23, &win, &va23) << 2);
		/* All four written; only the lanes taken count (pf has room for n). */
		_mm_storeu_si128((__m128i *)&pf[i], _mm_unpacklo_epi64(va01, len01));
		_mm_storeu_si128((__m128i *)&pf[i + 1], _mm_unpackhi_epi64(va01, len01));
		_mm_storeu_si128((__m128i *)&pf[i + 2], _mm_unpacklo_epi64(va23, len23));
		_mm_storeu_si128((__m128i *)&pf[i + 3], _mm_unpackhi_epi64(va23, len23));
		if (unlikely(ok != 0xf)) {
			uint64_t addr[REFNIC_EMU_SIMD_GROUP];

			_mm_storeu_si128((__m128i *)addr, a01);
			_mm_storeu_si128((__m128i *)&addr[2], a23);
			ok = simd_tx_lanes_cached(addr, dma, w, &pf[i], ok, fit);
			sse_window_load(&win, w);
		}
		lead = simd_tx_group_end(&pf[i], ok, bytes);
		if (lead != REFNIC_EMU_SIMD_GROUP) {
			i += lead;
			break;
		}
		sum = _mm_add_epi32(sum, len);
		if (i + 2 * REFNIC_EMU_SIMD_GROUP <= n)	/* the next line */
			rte_prefetch0(&ring[i + 2 * REFNIC_EMU_SIMD_GROUP]);
	}
	*bytes += sse_sum32(sum);
	return i;
}

unsigned int
refnic_emu_rx_place_sse(const struct refnic_rx_desc *ring, const struct refnic_plain_frame *pf,
			unsigned int n, uint32_t buf_size, uint32_t max_len,
			const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
			uint8_t **dst)
{
	const __m128i len_mask = _mm_set1_epi32(UINT16_MAX);
	const __m128i one = _mm_set1_epi32(1);
	const __m128i len_top = _mm_set1_epi32(max_len - 1), bs = _mm_set1_epi32(buf_size);
	unsigned int i, lead = REFNIC_EMU_SIMD_GROUP;
	struct sse_window win;

	if (max_len == 0)
		return 0;
	sse_window_load(&win, w);
	for (i = 0; i + REFNIC_EMU_SIMD_GROUP <= n; i += lead) {
		const __m128i *d = (const __m128i *)&ring[i], *f = (const __m128i *)&pf[i];
		__m128i d0 = _mm_loadu_si128(d), d1 = _mm_loadu_si128(d + 1);
		__m128i d2 = _mm_loadu_si128(d + 2), d3 = _mm_loadu_si128(d + 3);
		__m128i buf_len = _mm_and_si128(sse_dword2(d0, d1, d2, d3), len_mask);
		__m128i len = sse_dword2(_mm_loadu_si128(f), _mm_loadu_si128(f + 1),
					 _mm_loadu_si128(f + 2), _mm_loadu_si128(f + 3));
		__m128i len_1 = _mm_sub_epi32(len, one);	/* 0 wraps: too long */
		__m128i a01 = _mm_unpacklo_epi64(d0, d1), a23 = _mm_unpacklo_epi64(d2, d3);
		__m128i va01, va23;
		unsigned int fit, ok;

		/* A window shorter than a frame: lengths judged by the scalar loop. */
		if (unlikely(w->len < max_len))
			break;
		/* 1 <= len <= max_len, buf_len >= buf_size, len <= buf_len */
		fit = _mm_movemask_ps(_mm_castsi128_ps(_mm_and_si128(
			_mm_cmpeq_epi32(_mm_min_epu32(len_1, len_top), len_1),
			_mm_and_si128(_mm_cmpeq_epi32(_mm_max_epu32(buf_len, bs), buf_len),
				      _mm_cmpeq_epi32(_mm_min_epu32(len, buf_len), len)))));
		ok = fit & (sse_window_map(a01, _mm_cvtepu32_epi64(len), &win, &va01) |
			    sse_window_map(a23, _mm_cvtepu32_epi64(_mm_srli_si128(len, 8)), &win,
					   &va23) << 2);
		_mm_storeu_si128((__m128i *)&dst[i], va01);
		_mm_storeu_si128((__m128i *)&dst[i + 2], va23);
		if (unlikely(ok != 0xf)) {
			uint64_t addr[REFNIC_EMU_SIMD_GROUP];

			_mm_storeu_si128((__m128i *)addr, a01);
			_mm_storeu_si128((__m128i *)&addr[2], a23);
			ok = simd_lanes_cached(addr, &pf[i], dma, w, &dst[i], ok, fit);
			sse_window_load(&win, w);
		}
		lead = simd_rx_group_end(&dst[i], ok);
		if (lead != REFNIC_EMU_SIMD_GROUP) {
			i += lead;
			break;
		}
		if (i + 2 * REFNIC_EMU_SIMD_GROUP <= n)
			rte_prefetch0(&ring[i + 2 * REFNIC_EMU_SIMD_GROUP]);
	}
	return i;
}
