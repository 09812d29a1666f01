/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device's vector descriptor stages (refnic_emu_simd.h) against the
 * contract's rules, descriptor by descriptor, on hostile rings: random
 * descriptors, good ones mixed with every kind of bad one (flags beyond a
 * plain frame's, lengths at and past their bounds, short buffers, buffers
 * at, across and outside the window's edges, on a page only the thread's
 * page cache holds, on a page shorter than a frame, on none; RX
 * descriptors' spare bytes, where a written-back completion's phase goes,
 * set at random). Each stage must take exactly the longest run the rules
 * accept (in whole groups, then the lead of the group it stops in; none
 * once its window is shorter than a frame), put each taken frame where its
 * memory is, count its bytes, and leave the window where it last moved. What
 * a stage does not take the scalar loop judges (and counts), so a hostile
 * ring meets the same checks with or without the stages; the frames and
 * counters of both are compared in vector.test_device_vector_matches_scalar.
 * Rings are allocated to their exact length: the sanitizer build catches a
 * stage that reads past them.
 */

#include <inttypes.h>
#include <stdlib.h>

#include <rte_cpuflags.h>

#include "test_common.h"
#include "refnic_emu_parse.h"
#include "refnic_emu_queue.h"
#include "refnic_emu_simd.h"

#define DS_RINGS	4000
#define DS_MAX_N	70
#define DS_PAGES	3
#define DS_IOVA_NONE	UINT64_C(0x7f000000)	/* a page nothing holds */

/* The pages the device's cache holds: the window starts on the first. */
static const struct {
	uint64_t iova;
	uint32_t len;
} ds_pages[DS_PAGES] = {
	{ UINT64_C(0x40000000), 64 * 1024 },
	{ UINT64_C(0x40200000), 64 * 1024 },
	{ UINT64_C(0x40400000), 4096 },		/* shorter than a frame may be */
};

static const struct {
	const char *name;
	enum rte_cpu_flag_t flag;
	refnic_emu_tx_fetch_t tx;
	refnic_emu_rx_place_t rx;
} ds_stages[] = {
	{ "sse", RTE_CPUFLAG_SSE4_2, refnic_emu_tx_fetch_sse, refnic_emu_rx_place_sse },
	{ "avx2", RTE_CPUFLAG_AVX2, refnic_emu_tx_fetch_avx2, refnic_emu_rx_place_avx2 },
};

static uint8_t *ds_mem[DS_PAGES];	/* the pages' memory */
static struct refnic_dma_cache ds_dma;
static uint64_t ds_seed;

static uint32_t
ds_rand(uint32_t bound)
{
	ds_seed = ds_seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(ds_seed >> 33) % bound;
}

static struct refnic_dma_window
ds_page_window(unsigned int p)
{
	return (struct refnic_dma_window){
		.iova = ds_pages[p].iova, .len = ds_pages[p].len, .va = (uintptr_t)ds_mem[p] };
}

/* A pass's window as it may start: on the first page, mostly; on the short
 * one; or none yet (all zero). */
static struct refnic_dma_window
ds_window(void)
{
	unsigned int r = ds_rand(10);

	return r < 8 ? ds_page_window(0) : r == 8 ? ds_page_window(2) :
		       (struct refnic_dma_window){ .len = 0 };
}

/* Is [iova, iova + len) in w, as refnic_emu_dma_window_peek() says? */
static bool
ds_in(const struct refnic_dma_window *w, uint64_t iova, uint64_t len)
{
	uint64_t off = iova - w->iova;

	return off < w->len && len != 0 && len <= w->len - off;
}

/* The page holding [iova, iova + len), the device's memory; -1: none. */
static int
ds_page_of(uint64_t iova, uint64_t len)
{
	unsigned int p;

	for (p = 0; p < DS_PAGES; p++) {
		struct refnic_dma_window w = ds_page_window(p);

		if (ds_in(&w, iova, len))
			return p;
	}
	return -1;
}

/* Where len bytes at iova are in the device's memory; NULL: nowhere. */
static const uint8_t *
ds_translate(uint64_t iova, uint64_t len)
{
	int p = ds_page_of(iova, len);

	return p < 0 ? NULL : ds_mem[p] + (iova - ds_pages[p].iova);
}

/*
 * What a stage takes of n descriptors whose rules (all but the buffer's
 * place) hold before the first bad one (rule_bad), the window starting at
 * *w: whole groups while the window holds a frame of limit bytes, each
 * lane's buffer in the window the group started with, or on a page the
 * cache holds (the window moves there), up to the first lane that is not.
 * *w: where the window ends.
 */
static unsigned int
ds_model(unsigned int n, unsigned int rule_bad, const uint64_t *addr, const uint32_t *len,
	 uint32_t limit, struct refnic_dma_window *w)
{
	unsigned int i, k;

	for (i = 0; i + REFNIC_EMU_SIMD_GROUP <= n; i += REFNIC_EMU_SIMD_GROUP) {
		struct refnic_dma_window start = *w;

		if (w->len < limit)
			return i;
		for (k = i; k < i + REFNIC_EMU_SIMD_GROUP; k++) {
			int p;

			if (k == rule_bad)
				return k;
			if (ds_in(&start, addr[k], len[k]))
				continue;
			p = ds_page_of(addr[k], len[k]);
			if (p < 0)
				return k;
			*w = ds_page_window(p);
		}
	}
	return i;
}

/* A buffer address for len bytes: mostly inside a page, else at or past an edge. */
static uint64_t
ds_addr(uint32_t len, unsigned int bad_pct)
{
	unsigned int p = ds_rand(8) == 0 ? 2 : ds_rand(4) == 0 ? 1 : 0;
	uint64_t page = ds_pages[p].iova;
	uint32_t room = len <= ds_pages[p].len ? ds_pages[p].len - len : 0;

	if (ds_rand(100) >= bad_pct)
		return page + ds_rand(room + 1);
	switch (ds_rand(6)) {
	case 0:
		return page + room;		/* ends at the page's end: good */
	case 1:
		return page + room + 1;		/* one byte over */
	case 2:
		return page - 1;		/* starts below */
	case 3:
		return DS_IOVA_NONE + ds_rand(64 * 1024);
	case 4:
		return UINT64_MAX - ds_rand(64);	/* wraps */
	default:
		return page + ds_pages[p].len + ds_rand(64);	/* past it */
	}
}

/* A frame length: mostly fair, else at or past a bound. */
static uint32_t
ds_len(uint32_t min, uint32_t max, unsigned int bad_pct)
{
	static const int32_t edges[] = { -1, 0, 1 };

	if (ds_rand(100) >= bad_pct)
		return min + ds_rand(RTE_MIN(max, 1600u) - min + 1);
	if (ds_rand(5) == 0)
		return ds_rand(5) == 0 ? 0 : UINT16_MAX;
	return (ds_rand(2) ? min : max) + edges[ds_rand(3)];
}

/* The TX rules but the buffer's place. */
static bool
ds_tx_good(const struct refnic_tx_desc *d)
{
	return (d->flags & REFNIC_TXD_PLAIN_MASK) == REFNIC_TXD_EOP &&
	       d->len >= EMU_ETH_HLEN && d->len <= REFNIC_MAX_FRAME_LEN;
}

/* The stage's window after the call, against the model's. */
static int
ds_window_check(const char *name, const char *way, const struct refnic_dma_window *got,
		const struct refnic_dma_window *want)
{
	if (got->iova == want->iova && got->len == want->len && got->va == want->va)
		return TEST_SUCCESS;
	printf("    %s %s: the window ends at 0x%" PRIx64 " (%" PRIu64 " bytes), expected 0x%"
	       PRIx64 " (%" PRIu64 ")\n", name, way, got->iova, got->len, want->iova, want->len);
	return TEST_FAILED;
}

static int
ds_tx_ring(refnic_emu_tx_fetch_t fetch, const char *name, unsigned int n, unsigned int bad_pct)
{
	static const uint16_t bad_flags[] = {
		0, REFNIC_TXD_EOP | REFNIC_TXD_IP_CSUM, REFNIC_TXD_EOP | REFNIC_TXD_L4_CSUM_UDP,
		REFNIC_TXD_EOP | REFNIC_TXD_VLAN_INSERT, REFNIC_TXD_EOP | REFNIC_TXD_TSO,
		REFNIC_TXD_CTX, REFNIC_TXD_EOP | REFNIC_TXD_TSTAMP, REFNIC_TXD_EOP | 0x8000,
	};
	struct refnic_tx_desc *ring = malloc(RTE_MAX(n, 1u) * sizeof(*ring));
	struct refnic_plain_frame *pf = malloc(RTE_MAX(n, 1u) * sizeof(*pf));
	struct refnic_dma_window w = ds_window(), model = w;
	uint64_t addr[DS_MAX_N], bytes = 0, want_bytes = 0;
	unsigned int i, got, want, bad = n;
	uint32_t len[DS_MAX_N];
	int ret = TEST_SUCCESS;

	if (ring == NULL || pf == NULL) {
		free(ring);
		free(pf);
		return TEST_FAILED;
	}
	for (i = 0; i < n; i++) {
		ring[i].len = ds_len(EMU_ETH_HLEN, REFNIC_MAX_FRAME_LEN, bad_pct);
		ring[i].flags = ds_rand(100) < bad_pct ? bad_flags[ds_rand(RTE_DIM(bad_flags))] :
			REFNIC_TXD_EOP;
		ring[i].addr = ds_addr(ring[i].len, bad_pct);
		ring[i].vlan_tci = ds_rand(UINT16_MAX);
		ring[i].hdr_lens = ds_rand(UINT16_MAX);
		addr[i] = ring[i].addr;
		len[i] = ring[i].len;
		if (bad == n && !ds_tx_good(&ring[i]))
			bad = i;
	}
	want = ds_model(n, bad, addr, len, REFNIC_MAX_FRAME_LEN, &model);
	got = fetch(ring, n, &ds_dma, &w, pf, &bytes);
	if (got != want) {
		printf("    %s TX: took %u of %u, expected %u (rules broken at %u)\n", name, got,
		       n, want, bad);
		ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS)
		ret = ds_window_check(name, "TX", &w, &model);
	for (i = 0; ret == TEST_SUCCESS && i < got; i++) {
		want_bytes += ring[i].len;
		if (pf[i].data != ds_translate(ring[i].addr, ring[i].len) ||
		    pf[i].len != ring[i].len) {
			printf("    %s TX: descriptor %u of %u: frame %p len %u, expected %p len %u\n",
			       name, i, n, (const void *)pf[i].data, pf[i].len,
			       (const void *)ds_translate(ring[i].addr, ring[i].len), ring[i].len);
			ret = TEST_FAILED;
		}
	}
	if (ret == TEST_SUCCESS && bytes != want_bytes) {
		printf("    %s TX: %" PRIu64 " bytes counted, %" PRIu64 " taken\n", name, bytes,
		       want_bytes);
		ret = TEST_FAILED;
	}
	free(ring);
	free(pf);
	return ret;
}

/* The RX rules but the buffer's place. */
static bool
ds_rx_good(const struct refnic_rx_desc *d, uint32_t len, uint32_t buf_size, uint32_t max_len)
{
	return len >= 1 && len <= max_len && d->buf_len >= buf_size && len <= d->buf_len;
}

static int
ds_rx_ring(refnic_emu_rx_place_t place, const char *name, unsigned int n, unsigned int bad_pct)
{
	static const uint32_t max_lens[] = { 1518, 1522, 9018, REFNIC_MAX_FRAME_LEN };
	uint32_t max_len = max_lens[ds_rand(RTE_DIM(max_lens))];
	uint32_t buf_size = ds_rand(2) ? 2048 : REFNIC_MIN_RX_BUF_SIZE;
	struct refnic_rx_desc *ring = malloc(RTE_MAX(n, 1u) * sizeof(*ring));
	struct refnic_plain_frame *pf = malloc(RTE_MAX(n, 1u) * sizeof(*pf));
	uint8_t **dst = malloc(RTE_MAX(n, 1u) * sizeof(*dst));
	struct refnic_dma_window w = ds_window(), model = w;
	unsigned int i, j, got, want, bad = n;
	uint64_t addr[DS_MAX_N];
	uint32_t len[DS_MAX_N];
	int ret = TEST_SUCCESS;

	if (ring == NULL || pf == NULL || dst == NULL) {
		ret = TEST_FAILED;
		goto out;
	}
	/* A frame's padding is whatever it is: nothing may read it. */
	memset(pf, 0xff, RTE_MAX(n, 1u) * sizeof(*pf));
	for (i = 0; i < n; i++) {
		pf[i].len = ds_len(EMU_ETH_HLEN, max_len, bad_pct);
		pf[i].data = ds_mem[0];
		ring[i].buf_len = ds_rand(100) < bad_pct ? ds_len(0, buf_size, 100) :
				  RTE_MAX(buf_size, RTE_MIN(pf[i].len, (uint32_t)UINT16_MAX));
		ring[i].addr = ds_addr(pf[i].len, bad_pct);
		for (j = 0; j < RTE_DIM(ring[i].rsvd); j++)
			ring[i].rsvd[j] = ds_rand(UINT16_MAX + 1);
		addr[i] = ring[i].addr;
		len[i] = pf[i].len;
		if (bad == n && !ds_rx_good(&ring[i], pf[i].len, buf_size, max_len))
			bad = i;
	}
	want = ds_model(n, bad, addr, len, max_len, &model);
	got = place(ring, pf, n, buf_size, max_len, &ds_dma, &w, dst);
	if (got != want) {
		printf("    %s RX: placed %u of %u, expected %u (rules broken at %u; buf_size %u, "
		       "max_len %u)\n", name, got, n, want, bad, buf_size, max_len);
		ret = TEST_FAILED;
	}
	if (ret == TEST_SUCCESS)
		ret = ds_window_check(name, "RX", &w, &model);
	for (i = 0; ret == TEST_SUCCESS && i < got; i++) {
		if (dst[i] != ds_translate(ring[i].addr, pf[i].len)) {
			printf("    %s RX: frame %u of %u to %p, expected %p\n", name, i, n,
			       (void *)dst[i], (const void *)ds_translate(ring[i].addr, pf[i].len));
			ret = TEST_FAILED;
		}
	}
out:
	free(ring);
	free(pf);
	free(dst);
	return ret;
}

/*
 * Rings of 0 to DS_MAX_N descriptors, from all good (long runs, whole
 * groups, ring ends) to one bad in two, a seed each: the stages take what
 * the rules say, on every CPU stage this machine has.
 */
static int
test_device_stages_follow_the_rules(void)
{
	static const unsigned int bad_pcts[] = { 0, 1, 3, 10, 50 };
	unsigned int s, r, ran = 0;

	for (s = 0; s < RTE_DIM(ds_stages); s++) {
		if (rte_cpu_get_flag_enabled(ds_stages[s].flag) != 1)
			continue;
		ds_seed = 1;
		for (r = 0; r < DS_RINGS; r++) {
			unsigned int n = ds_rand(DS_MAX_N + 1);
			unsigned int pct = bad_pcts[r % RTE_DIM(bad_pcts)];

			TEST_ASSERT_SUCCESS(ds_tx_ring(ds_stages[s].tx, ds_stages[s].name, n, pct),
					    "%s: TX ring %u (%u descriptors, %u%% bad)",
					    ds_stages[s].name, r, n, pct);
			TEST_ASSERT_SUCCESS(ds_rx_ring(ds_stages[s].rx, ds_stages[s].name, n, pct),
					    "%s: RX ring %u (%u descriptors, %u%% bad)",
					    ds_stages[s].name, r, n, pct);
		}
		ran++;
	}
	return ran != 0 ? TEST_SUCCESS : TEST_SKIPPED;
}

static int
ds_setup(void)
{
	unsigned int p;

	memset(&ds_dma, 0, sizeof(ds_dma));
	for (p = 0; p < DS_PAGES; p++) {
		unsigned int slot = (ds_pages[p].iova >> 21) % REFNIC_DMA_PAGE_CACHE;

		ds_mem[p] = malloc(ds_pages[p].len);
		if (ds_mem[p] == NULL)
			return TEST_FAILED;
		ds_dma.page[slot].iova = ds_pages[p].iova;
		ds_dma.page[slot].va = (uintptr_t)ds_mem[p];
		ds_dma.page[slot].len = ds_pages[p].len;
	}
	return TEST_SUCCESS;
}

static void
ds_teardown(void)
{
	unsigned int p;

	for (p = 0; p < DS_PAGES; p++)
		free(ds_mem[p]);
}

const struct unit_test_suite refnic_device_simd_suite = {
	.name = "device_simd",
	.setup = ds_setup,
	.teardown = ds_teardown,
	.cases = {
		TEST_CASE(test_device_stages_follow_the_rules),
		TEST_CASES_END()
	},
};
