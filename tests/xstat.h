/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The refnic authors
 */

/*
 * An ethdev xstat by name, as the unit tests, the fuzzers and the benches
 * read it (each a program of its own: one header, no library).
 */
#ifndef REFNIC_TESTS_XSTAT_H
#define REFNIC_TESTS_XSTAT_H

#include <stdint.h>

#include <rte_ethdev.h>

/* Port's xstat name; missing if the port has none. */
static inline uint64_t
refnic_xstat(uint16_t port, const char *name, uint64_t missing)
{
	uint64_t id, value = missing;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) == 0)
		rte_eth_xstats_get_by_id(port, &id, &value, 1);
	return value;
}

#endif
