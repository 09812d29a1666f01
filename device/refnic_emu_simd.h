/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

#ifndef _REFNIC_EMU_SIMD_H_
#define _REFNIC_EMU_SIMD_H_

/*
 * The device's descriptor stages a group at a time, as a NIC's fetch
 * engine checks a line of descriptors at once: TX descriptors checked and
 * translated four (SSE: two lanes twice; AVX2: four lanes) at a time, and
 * RX buffers likewise for the frames that land in them. Each takes the
 * longest run of whole groups that the scalar loop would take the same way
 * (every check passed, every buffer translated) and, in the group where
 * one fails, the lanes before it; from the one that failed the scalar
 * loop judges one descriptor at a time: a hostile descriptor is caught
 * exactly as without them, and the frames and counters are the same
 * (vector.test_device_vector_matches_scalar).
 *
 * Which one a device runs is chosen when it is created, as the driver
 * chooses its bursts: device_simd=auto (the default) takes AVX2 or SSE as
 * the CPU and EAL's SIMD limit (--force-max-simd-bitwidth) allow;
 * device_simd=sse|avx2 asks for one (AVX2 without the CPU's: SSE);
 * device_simd=scalar runs the scalar loops alone.
 */

#include <stdint.h>

#include "refnic_emu.h"
#include "refnic_emu_dma.h"
#include "refnic_hw.h"

struct refnic_plain_frame;

/* Lanes a group holds: the stages take none of fewer descriptors. */
#define REFNIC_EMU_SIMD_GROUP	4

/* A group's lanes that passed, a bit each (below 1 << GROUP): how many
 * lead it, which the stage takes before it stops. */
static inline unsigned int
refnic_emu_simd_lead(unsigned int ok)
{
	return __builtin_ctz(~ok);
}

/*
 * Buffers are translated as the scalar loops do: through the pass's window
 * w (its last page), else the thread's page cache dma, which then moves w
 * to the page it found (refnic_emu_dma_window_fill()); a buffer neither
 * holds stops the group, for the scalar loop's slow look-up.
 *
 * TX: plain descriptors at ring[0, n) (no wrap), each EOP alone with no
 * offload, TSO, context or stamp, EMU_ETH_HLEN to REFNIC_MAX_FRAME_LEN
 * bytes: their frames into pf (bytes prefetched), their lengths added to
 * *bytes. Returns the descriptors taken.
 */
typedef unsigned int (*refnic_emu_tx_fetch_t)(const struct refnic_tx_desc *ring, unsigned int n,
					      const struct refnic_dma_cache *dma,
					      struct refnic_dma_window *w,
					      struct refnic_plain_frame *pf, uint64_t *bytes);

/*
 * RX: frames pf[0, n) into the buffers at ring[0, n) (no wrap, all posted),
 * each frame 1 to max_len bytes, each buffer buf_size bytes or more and as
 * long as its frame: where each frame goes into dst (prefetched for the
 * write). Returns the frames placed.
 */
typedef unsigned int (*refnic_emu_rx_place_t)(const struct refnic_rx_desc *ring,
					      const struct refnic_plain_frame *pf, unsigned int n,
					      uint32_t buf_size, uint32_t max_len,
					      const struct refnic_dma_cache *dma,
					      struct refnic_dma_window *w, uint8_t **dst);

/*
 * Each way's stages in this process, indexed by enum refnic_emu_simd
 * (NULL: the scalar loops alone). A device keeps its way, never a
 * function's address: its state is shared with secondary processes, whose
 * stores run its passes with their own copy of the code.
 */
struct refnic_emu_simd_stages {
	refnic_emu_tx_fetch_t tx_fetch;
	refnic_emu_rx_place_t rx_place;
};
extern const struct refnic_emu_simd_stages refnic_emu_simd_stages[];

/* The way device_simd=asked runs on this CPU, under EAL's SIMD limit: never AUTO. */
enum refnic_emu_simd refnic_emu_simd_select(enum refnic_emu_simd asked);

/* "auto", "scalar", "sse", "avx2": the devarg's values. */
const char *refnic_emu_simd_name(enum refnic_emu_simd mode);
int refnic_emu_simd_parse(const char *s, enum refnic_emu_simd *mode);

unsigned int refnic_emu_tx_fetch_sse(const struct refnic_tx_desc *ring, unsigned int n,
				const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
				struct refnic_plain_frame *pf, uint64_t *bytes);
unsigned int refnic_emu_rx_place_sse(const struct refnic_rx_desc *ring,
				const struct refnic_plain_frame *pf, unsigned int n,
				uint32_t buf_size, uint32_t max_len,
				const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
				uint8_t **dst);
unsigned int refnic_emu_tx_fetch_avx2(const struct refnic_tx_desc *ring, unsigned int n,
				const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
				struct refnic_plain_frame *pf, uint64_t *bytes);
unsigned int refnic_emu_rx_place_avx2(const struct refnic_rx_desc *ring,
				const struct refnic_plain_frame *pf, unsigned int n,
				uint32_t buf_size, uint32_t max_len,
				const struct refnic_dma_cache *dma, struct refnic_dma_window *w,
				uint8_t **dst);

#endif /* _REFNIC_EMU_SIMD_H_ */
