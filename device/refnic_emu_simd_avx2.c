/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The descriptor stages in AVX2 (this file alone is built with -mavx2 and
 * runs only where the CPU has it, refnic_emu_simd_select()): a group of
 * four descriptors in two 32-byte loads, checked and translated in four
 * 64-bit lanes at once (refnic_emu_simd.h says what each takes and why the
 * rest is the scalar loop's).
 */

#include <rte_common.h>
#include <rte_vect.h>

#include "refnic_emu_parse.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_simd.h"
#include "refnic_emu_simd_lanes.h"

/* Four 16-byte entries from two 32-byte loads: their low halves (*lo)
 * and high halves (*hi), 64-bit lanes in entry order. */
static __rte_always_inline void
avx2_split(const void *entries, __m256i *lo, __m256i *hi)
{
	const __m256i *e = entries;
	__m256i e01 = _mm256_loadu_si256(e), e23 = _mm256_loadu_si256(e + 1);

	/* In-lane unpacks give entries 0, 2, 1, 3: put them back in order. */
	*lo = _mm256_permute4x64_epi64(_mm256_unpacklo_epi64(e01, e23), _MM_SHUFFLE(3, 1, 2, 0));
	*hi = _mm256_permute4x64_epi64(_mm256_unpackhi_epi64(e01, e23), _MM_SHUFFLE(3, 1, 2, 0));
}

/* a > b as unsigned 64-bit lanes (the compare is signed: both biased). */
static __rte_always_inline __m256i
avx2_gt_u64(__m256i a, __m256i b)
{
	const __m256i bias = _mm256_set1_epi64x(INT64_MIN);

	return _mm256_cmpgt_epi64(_mm256_xor_si256(a, bias), _mm256_xor_si256(b, bias));
}

/* The pass's window, a copy in each 64-bit lane. */
struct avx2_window {
	__m256i iova, len, va;
};

static __rte_always_inline void
avx2_window_load(struct avx2_window *v, const struct refnic_dma_window *w)
{
	v->iova = _mm256_set1_epi64x(w->iova);
	v->len = _mm256_set1_epi64x(w->len);
	v->va = _mm256_set1_epi64x(w->va);
}

/* The lanes of m set, a bit per 64-bit lane. */
static __rte_always_inline unsigned int
avx2_lanes(__m256i m)
{
	return _mm256_movemask_pd(_mm256_castsi256_pd(m));
}

/*
 * Buffers at addr of len bytes (64-bit lanes) inside the window: the offset
 * into it no more than its length less len (len <= its length was made
 * sure of by the caller). Returns the lanes inside; *va where each is.
 */
static __rte_always_inline unsigned int
avx2_window_map(__m256i addr, __m256i len, const struct avx2_window *w, __m256i *va)
{
	__m256i off = _mm256_sub_epi64(addr, w->iova);

	*va = _mm256_add_epi64(w->va, off);
	return avx2_lanes(avx2_gt_u64(off, _mm256_sub_epi64(w->len, len))) ^ 0xf;
}

unsigned int
refnic_emu_tx_fetch_avx2(const struct refnic_tx_desc *ring, unsigned int n,
			 const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
			 struct refnic_plain_frame *pf, uint64_t *bytes)
{
	const __m256i flag_mask = _mm256_set1_epi64x((uint64_t)REFNIC_TXD_PLAIN_MASK << 16);
	const __m256i eop = _mm256_set1_epi64x((uint64_t)REFNIC_TXD_EOP << 16);
	const __m256i len_mask = _mm256_set1_epi64x(UINT16_MAX);
	const __m256i len_min = _mm256_set1_epi64x(EMU_ETH_HLEN - 1);
	const __m256i len_max = _mm256_set1_epi64x(REFNIC_MAX_FRAME_LEN + 1);
	__m256i sum = _mm256_setzero_si256();
	unsigned int i, lead = REFNIC_EMU_SIMD_GROUP;
	struct avx2_window win;
	__m128i s;

	avx2_window_load(&win, w);
	for (i = 0; i + REFNIC_EMU_SIMD_GROUP <= n; i += lead) {
		__m256i addr, hi, len, va, lo_pf, hi_pf;
		unsigned int fit, ok;

		/* A window shorter than a frame: lengths judged by the scalar loop. */
		if (unlikely(w->len < REFNIC_MAX_FRAME_LEN))
			break;
		avx2_split(&ring[i], &addr, &hi);	/* hi: len | flags << 16 | ... */
		len = _mm256_and_si256(hi, len_mask);
		fit = avx2_lanes(_mm256_and_si256(
			_mm256_cmpeq_epi64(_mm256_and_si256(hi, flag_mask), eop),
			_mm256_and_si256(_mm256_cmpgt_epi64(len, len_min),
					 _mm256_cmpgt_epi64(len_max, len))));
		ok = fit & avx2_window_map(addr, len, &win, &va);
		/* All four written; only the lanes taken count (pf has room for n). */
		lo_pf = _mm256_unpacklo_epi64(va, len);	/* frames 0, 2 */
		hi_pf = _mm256_unpackhi_epi64(va, len);	/* frames 1, 3 */
		_mm256_storeu_si256((__m256i *)&pf[i], _mm256_permute2x128_si256(lo_pf, hi_pf, 0x20));
		_mm256_storeu_si256((__m256i *)&pf[i + 2],
				    _mm256_permute2x128_si256(lo_pf, hi_pf, 0x31));
		if (unlikely(ok != 0xf)) {
			uint64_t a[REFNIC_EMU_SIMD_GROUP];

			_mm256_storeu_si256((__m256i *)a, addr);
			ok = simd_tx_lanes_cached(a, dma, w, &pf[i], ok, fit);
			avx2_window_load(&win, w);
		}
		lead = simd_tx_group_end(&pf[i], ok, bytes);
		if (lead != REFNIC_EMU_SIMD_GROUP) {
			i += lead;
			break;
		}
		sum = _mm256_add_epi64(sum, len);
		if (i + 2 * REFNIC_EMU_SIMD_GROUP <= n)	/* the next line */
			rte_prefetch0(&ring[i + 2 * REFNIC_EMU_SIMD_GROUP]);
	}
	s = _mm_add_epi64(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
	*bytes += (uint64_t)_mm_cvtsi128_si64(_mm_add_epi64(s, _mm_unpackhi_epi64(s, s)));
	return i;
}

unsigned int
refnic_emu_rx_place_avx2(const struct refnic_rx_desc *ring, const struct refnic_plain_frame *pf,
			 unsigned int n, uint32_t buf_size, uint32_t max_len,
			 const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
			 uint8_t **dst)
{
	const __m256i len_mask = _mm256_set1_epi64x(UINT16_MAX);
	const __m256i len32_mask = _mm256_set1_epi64x(UINT32_MAX);
	const __m256i zero = _mm256_setzero_si256();
	const __m256i len_max = _mm256_set1_epi64x((uint64_t)max_len + 1);
	const __m256i bs = _mm256_set1_epi64x((int64_t)buf_size - 1);	/* 0: -1 */
	unsigned int i, lead = REFNIC_EMU_SIMD_GROUP;
	struct avx2_window win;

	if (max_len == 0)
		return 0;
	avx2_window_load(&win, w);
	for (i = 0; i + REFNIC_EMU_SIMD_GROUP <= n; i += lead) {
		__m256i addr, dhi, data, fhi, buf_len, len, va;
		unsigned int fit, ok;

		/* A window shorter than a frame: lengths judged by the scalar loop. */
		if (unlikely(w->len < max_len))
			break;
		avx2_split(&ring[i], &addr, &dhi);
		avx2_split(&pf[i], &data, &fhi);
		buf_len = _mm256_and_si256(dhi, len_mask);
		len = _mm256_and_si256(fhi, len32_mask);
		/* 1 <= len <= max_len, buf_len >= buf_size, len <= buf_len: all
		 * below 2^33, so the signed 64-bit compares are exact. */
		fit = avx2_lanes(_mm256_and_si256(
			_mm256_and_si256(_mm256_cmpgt_epi64(len, zero),
					 _mm256_cmpgt_epi64(len_max, len)),
			_mm256_andnot_si256(_mm256_cmpgt_epi64(len, buf_len),
					    _mm256_cmpgt_epi64(buf_len, bs))));
		ok = fit & avx2_window_map(addr, len, &win, &va);
		_mm256_storeu_si256((__m256i *)&dst[i], va);
		if (unlikely(ok != 0xf)) {
			uint64_t a[REFNIC_EMU_SIMD_GROUP];

			_mm256_storeu_si256((__m256i *)a, addr);
			ok = simd_lanes_cached(a, &pf[i], dma, w, &dst[i], ok, fit);
			avx2_window_load(&win, w);
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
