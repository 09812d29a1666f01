/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * Which descriptor stages a device runs (refnic_emu_simd.h): chosen once,
 * when it is created, by the same rules as the driver's bursts.
 */

#include <string.h>

#include <rte_common.h>
#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "refnic_emu_simd.h"

static const char * const simd_names[] = {
	[REFNIC_EMU_SIMD_AUTO] = "auto",
	[REFNIC_EMU_SIMD_SCALAR] = "scalar",
	[REFNIC_EMU_SIMD_SSE] = "sse",
	[REFNIC_EMU_SIMD_AVX2] = "avx2",
};

const char *
refnic_emu_simd_name(enum refnic_emu_simd mode)
{
	return (unsigned int)mode < RTE_DIM(simd_names) ? simd_names[mode] : "?";
}

int
refnic_emu_simd_parse(const char *s, enum refnic_emu_simd *mode)
{
	unsigned int i;

	for (i = 0; s != NULL && i < RTE_DIM(simd_names); i++) {
		if (strcmp(s, simd_names[i]) == 0) {
			*mode = i;
			return 0;
		}
	}
	return -1;
}

#ifdef RTE_ARCH_X86
static bool
simd_sse_usable(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) == 1;
}

static bool
simd_avx2_usable(void)
{
	return rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) == 1;
}
#else
static bool simd_sse_usable(void) { return false; }
static bool simd_avx2_usable(void) { return false; }
#endif

#ifdef RTE_ARCH_X86
const struct refnic_emu_simd_stages refnic_emu_simd_stages[] = {
	[REFNIC_EMU_SIMD_SSE] = { refnic_emu_tx_fetch_sse, refnic_emu_rx_place_sse },
	[REFNIC_EMU_SIMD_AVX2] = { refnic_emu_tx_fetch_avx2, refnic_emu_rx_place_avx2 },
};
#else
const struct refnic_emu_simd_stages refnic_emu_simd_stages[REFNIC_EMU_SIMD_AVX2 + 1];
#endif

/*
 * auto follows EAL's limit (an application's, or
 * --force-max-simd-bitwidth); sse and avx2 are asked for by name, as the
 * driver's simd= is, and need only the CPU (avx2 without it: sse, said).
 */
enum refnic_emu_simd
refnic_emu_simd_select(enum refnic_emu_simd asked)
{
	uint16_t limit = asked == REFNIC_EMU_SIMD_AUTO ? rte_vect_get_max_simd_bitwidth() :
			 RTE_VECT_SIMD_MAX;
	enum refnic_emu_simd mode = REFNIC_EMU_SIMD_SCALAR;

	if (asked != REFNIC_EMU_SIMD_SCALAR && simd_sse_usable() && limit >= RTE_VECT_SIMD_128)
		mode = REFNIC_EMU_SIMD_SSE;
	if ((asked == REFNIC_EMU_SIMD_AUTO || asked == REFNIC_EMU_SIMD_AVX2) &&
	    simd_avx2_usable() && limit >= RTE_VECT_SIMD_256)
		mode = REFNIC_EMU_SIMD_AVX2;
	return mode;
}
