/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * The device's vector descriptor stages (refnic_emu_simd.h) against the
 * contract's rules, descriptor by descriptor, on hostile rings: random
 * descriptors, good ones mixed with every kind of bad one (flags beyond a
 * plain frame's, lengths at and past their bounds, short buffers, buffers
 * at, across and outside the window's edges, on a page only the thread's
 * page cache holds, on none). Each stage must take exactly the longest run
 * the rules accept (in whole groups, then the lead of the group it stops
 * in), put each taken frame where its memory is, and count its bytes. What
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
#define DS_PAGE		(64 * 1024)	/* each of the two pages the device maps */
#define DS_IOVA_WIN	UINT64_C(0x40000000)	/* the window's page */
#define DS_IOVA_CACHED	UINT64_C(0x40200000)	/* a page the cache alone holds */
#define DS_IOVA_NONE	UINT64_C(0x7f000000)	/* a page nothing holds */

static const struct {
	const char *name;
	enum rte_cpu_flag_t flag;
	refnic_emu_tx_fetch_t tx;
	refnic_emu_rx_place_t rx;
} ds_stages[] = {
	{ "sse", RTE_CPUFLAG_SSE4_2, refnic_emu_tx_fetch_sse, refnic_emu_rx_place_sse },
	{ "avx2", RTE_CPUFLAG_AVX2, refnic_emu_tx_fetch_avx2, refnic_emu_rx_place_avx2 },
};

static uint8_t *ds_mem[2];		/* the two pages' memory */
static struct refnic_dma_cache ds_dma;
static uint64_t ds_seed;

static uint32_t
ds_rand(uint32_t bound)
{
	ds_seed = ds_seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(ds_seed >> 33) % bound;
}

/* The window at the start of each ring: the first page. */
static struct refnic_dma_window
ds_window(void)
{
	return (struct refnic_dma_window){
		.iova = DS_IOVA_WIN, .len = DS_PAGE, .va = (uintptr_t)ds_mem[0] };
}

/* Where len bytes at iova are in the device's memory, by the rules; NULL: nowhere. */
static const uint8_t *
ds_translate(uint64_t iova, uint64_t len)
{
	static const uint64_t base[2] = { DS_IOVA_WIN, DS_IOVA_CACHED };
	unsigned int p;

	for (p = 0; p < 2; p++)
		if (len != 0 && iova >= base[p] && iova - base[p] <= DS_PAGE - len)
			return ds_mem[p] + (iova - base[p]);
	return NULL;
}

/* A buffer address for len bytes: mostly inside a page, else at or past an edge. */
static uint64_t
ds_addr(uint32_t len, unsigned int bad_pct)
{
	uint64_t page = ds_rand(4) == 0 ? DS_IOVA_CACHED : DS_IOVA_WIN;
	uint32_t room = len <= DS_PAGE ? DS_PAGE - len : 0;

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
		return DS_IOVA_NONE + ds_rand(DS_PAGE);
	case 4:
		return UINT64_MAX - ds_rand(64);	/* wraps */
	default:
		return page + DS_PAGE + ds_rand(64);	/* past it */
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

static bool
ds_tx_good(const struct refnic_tx_desc *d)
{
	return (d->flags & REFNIC_TXD_PLAIN_MASK) == REFNIC_TXD_EOP &&
	       d->len >= EMU_ETH_HLEN && d->len <= REFNIC_MAX_FRAME_LEN &&
	       ds_translate(d->addr, d->len) != NULL;
}

/* What a stage takes of n descriptors, the first bad one at bad. */
static unsigned int
ds_expected(unsigned int n, unsigned int bad)
{
	return RTE_MIN(bad, n - n % REFNIC_EMU_SIMD_GROUP);
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
	struct refnic_dma_window w = ds_window();
	unsigned int i, got, bad = n;
	uint64_t bytes = 0, want_bytes = 0;
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
		if (bad == n && !ds_tx_good(&ring[i]))
			bad = i;
	}
	got = fetch(ring, n, &ds_dma, &w, pf, &bytes);
	if (got != ds_expected(n, bad)) {
		printf("    %s TX: took %u of %u, the first bad at %u\n", name, got, n, bad);
		ret = TEST_FAILED;
	}
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

static bool
ds_rx_good(const struct refnic_rx_desc *d, uint32_t len, uint32_t buf_size, uint32_t max_len)
{
	return len >= 1 && len <= max_len && d->buf_len >= buf_size && len <= d->buf_len &&
	       ds_translate(d->addr, len) != NULL;
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
	struct refnic_dma_window w = ds_window();
	unsigned int i, got, bad = n;
	int ret = TEST_SUCCESS;

	if (ring == NULL || pf == NULL || dst == NULL) {
		ret = TEST_FAILED;
		goto out;
	}
	for (i = 0; i < n; i++) {
		pf[i].len = ds_len(EMU_ETH_HLEN, max_len, bad_pct);
		pf[i].data = ds_mem[0];
		ring[i].buf_len = ds_rand(100) < bad_pct ? ds_len(0, buf_size, 100) :
				  RTE_MAX(buf_size, RTE_MIN(pf[i].len, (uint32_t)UINT16_MAX));
		ring[i].addr = ds_addr(pf[i].len, bad_pct);
		memset(ring[i].rsvd, 0, sizeof(ring[i].rsvd));
		if (bad == n && !ds_rx_good(&ring[i], pf[i].len, buf_size, max_len))
			bad = i;
	}
	got = place(ring, pf, n, buf_size, max_len, &ds_dma, &w, dst);
	if (got != ds_expected(n, bad)) {
		printf("    %s RX: placed %u of %u, the first bad at %u (buf_size %u, max_len %u)\n",
		       name, got, n, bad, buf_size, max_len);
		ret = TEST_FAILED;
	}
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
	static const uint64_t iova[2] = { DS_IOVA_WIN, DS_IOVA_CACHED };
	unsigned int p;

	memset(&ds_dma, 0, sizeof(ds_dma));
	for (p = 0; p < 2; p++) {
		unsigned int slot = (iova[p] >> 21) % REFNIC_DMA_PAGE_CACHE;

		ds_mem[p] = malloc(DS_PAGE);
		if (ds_mem[p] == NULL)
			return TEST_FAILED;
		ds_dma.page[slot].iova = iova[p];
		ds_dma.page[slot].va = (uintptr_t)ds_mem[p];
		ds_dma.page[slot].len = DS_PAGE;
	}
	return TEST_SUCCESS;
}

static void
ds_teardown(void)
{
	free(ds_mem[0]);
	free(ds_mem[1]);
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
